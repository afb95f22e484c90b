#include "mapr/result.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mapr {
namespace {

using ::testing::ElementsAre;

// ------------------------------------------------------------------ helpers

// A column of aggregate `aggregate`, typed as the engine types it.
ResultColumn Col(std::string name, std::string aggregate,
                 std::string field = "") {
  ResultColumn c;
  c.name = std::move(name);
  c.type = aggregate == "count"  ? ValueType::kInteger
           : aggregate == "last" ? ValueType::kText
                                 : ValueType::kNumber;
  c.aggregate = std::move(aggregate);
  c.field = std::move(field);
  return c;
}

ResultRow Row(std::vector<std::string> cells, std::vector<double> values = {}) {
  ResultRow r;
  r.cells = std::move(cells);
  if (values.empty()) values.assign(r.cells.size(), 0.0);
  r.values = std::move(values);
  return r;
}

// The example from the DTail documentation.
ResultTable DtailExample() {
  std::vector<ResultColumn> cols = {
      Col("count($time)", "count", "$time"),
      Col("$time", "last", "$time"),
      Col("max($goroutines)", "max", "$goroutines"),
      Col("avg($goroutines)", "avg", "$goroutines"),
  };
  cols[1].is_group_key = true;
  cols[0].is_order_key = true;
  std::vector<ResultRow> rows = {
      Row({"23", "1002-071147", "16.000000", "14.391304"},
          {23, 1002, 16, 14.391304}),
      Row({"20", "1002-071143", "17.000000", "15.000000"}, {20, 1002, 17, 15}),
  };
  LineCounters stats;
  stats.lines_read = 43;
  stats.lines_aggregated = 43;
  return ResultTable(std::move(cols), rows, stats, 2);
}

// A strict JSON parser (RFC 8259) used to check that every document the
// writers produce is valid. Strings are decoded to UTF-8 so tests can compare
// them with the input. Raw bytes in strings must be valid UTF-8 (checked by a
// code-point decoder independent of the implementation's).
class JsonChecker {
 public:
  explicit JsonChecker(std::string_view text) : s_(text) {}

  // Parses one complete value followed only by whitespace.
  bool ParseDocument() {
    SkipWs();
    if (!ParseValue()) return false;
    SkipWs();
    return i_ == s_.size();
  }

  // The decoded strings seen, in order (keys and values).
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  void SkipWs() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' ||
                              s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
  }
  bool Eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool ParseValue() {
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') return ParseObject();
    if (c == '[') return ParseArray();
    if (c == '"') return ParseString();
    if (c == 't') return ParseLiteral("true");
    if (c == 'f') return ParseLiteral("false");
    if (c == 'n') return ParseLiteral("null");
    return ParseNumber();
  }
  bool ParseLiteral(std::string_view lit) {
    if (s_.substr(i_, lit.size()) != lit) return false;
    i_ += lit.size();
    return true;
  }
  bool ParseObject() {
    ++i_;
    SkipWs();
    if (Eat('}')) return true;
    while (true) {
      SkipWs();
      if (i_ >= s_.size() || s_[i_] != '"' || !ParseString()) return false;
      SkipWs();
      if (!Eat(':')) return false;
      SkipWs();
      if (!ParseValue()) return false;
      SkipWs();
      if (Eat('}')) return true;
      if (!Eat(',')) return false;
    }
  }
  bool ParseArray() {
    ++i_;
    SkipWs();
    if (Eat(']')) return true;
    while (true) {
      SkipWs();
      if (!ParseValue()) return false;
      SkipWs();
      if (Eat(']')) return true;
      if (!Eat(',')) return false;
    }
  }
  bool Digits() {
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start;
  }
  bool ParseNumber() {
    Eat('-');
    if (Eat('0')) {
    } else if (!Digits()) {
      return false;
    }
    if (Eat('.') && !Digits()) return false;
    if (Eat('e') || Eat('E')) {
      if (!Eat('+')) Eat('-');
      if (!Digits()) return false;
    }
    return true;
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  bool Hex4(uint32_t* v) {
    if (i_ + 4 > s_.size()) return false;
    *v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      *v <<= 4;
      if (c >= '0' && c <= '9') {
        *v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        *v |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        *v |= c - 'A' + 10;
      } else {
        return false;
      }
    }
    return true;
  }
  // Decodes one raw UTF-8 code point, rejecting overlong forms, surrogates
  // and values above U+10FFFF.
  bool RawCodePoint(std::string* out) {
    const auto byte = [&](size_t k) {
      return static_cast<unsigned char>(s_[k]);
    };
    unsigned char b0 = byte(i_);
    int len;
    uint32_t cp;
    if (b0 < 0x80) {
      len = 1;
      cp = b0;
    } else if ((b0 & 0xE0) == 0xC0) {
      len = 2;
      cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3;
      cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4;
      cp = b0 & 0x07;
    } else {
      return false;
    }
    if (i_ + len > s_.size()) return false;
    for (int k = 1; k < len; ++k) {
      unsigned char b = byte(i_ + k);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF) return false;
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    out->append(s_.substr(i_, len));
    i_ += len;
    return true;
  }
  bool ParseString() {
    ++i_;  // '"'
    std::string decoded;
    while (true) {
      if (i_ >= s_.size()) return false;
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        strings_.push_back(std::move(decoded));
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') {
        if (!RawCodePoint(&decoded)) return false;
        continue;
      }
      ++i_;
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          decoded.push_back(e);
          break;
        case 'b':
          decoded.push_back('\b');
          break;
        case 'f':
          decoded.push_back('\f');
          break;
        case 'n':
          decoded.push_back('\n');
          break;
        case 'r':
          decoded.push_back('\r');
          break;
        case 't':
          decoded.push_back('\t');
          break;
        case 'u': {
          uint32_t v;
          if (!Hex4(&v)) return false;
          if (v >= 0xD800 && v <= 0xDBFF) {
            uint32_t lo;
            if (!Eat('\\') || !Eat('u') || !Hex4(&lo)) return false;
            if (lo < 0xDC00 || lo > 0xDFFF) return false;
            v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
          } else if (v >= 0xDC00 && v <= 0xDFFF) {
            return false;
          }
          AppendUtf8(v, &decoded);
          break;
        }
        default:
          return false;
      }
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  std::vector<std::string> strings_;
};

bool IsValidJson(std::string_view text) {
  return JsonChecker(text).ParseDocument();
}

// The JSON encoding of a single last() cell with the given text.
std::string JsonOfLastCell(const std::string& text) {
  ResultTable t({Col("x", "last")}, {Row({text})}, {}, 1);
  return t.ToNdjson();
}

// ------------------------------------------------------------ LineCounters

TEST(LineCountersTest, PlusEqualsAddsEveryCounter) {
  LineCounters a;
  a.lines_read = 1;
  a.lines_too_long = 2;
  a.lines_table_mismatch = 3;
  a.lines_ignored = 4;
  a.lines_malformed = 5;
  a.lines_header = 6;
  a.lines_filtered = 7;
  a.lines_without_value = 8;
  a.lines_aggregated = 9;
  LineCounters b;
  b.lines_read = 100;
  b.lines_too_long = 200;
  b.lines_table_mismatch = 300;
  b.lines_ignored = 400;
  b.lines_malformed = 500;
  b.lines_header = 600;
  b.lines_filtered = 700;
  b.lines_without_value = 800;
  b.lines_aggregated = 900;

  LineCounters& ref = (a += b);
  EXPECT_EQ(&ref, &a);
  EXPECT_EQ(a.lines_read, 101u);
  EXPECT_EQ(a.lines_too_long, 202u);
  EXPECT_EQ(a.lines_table_mismatch, 303u);
  EXPECT_EQ(a.lines_ignored, 404u);
  EXPECT_EQ(a.lines_malformed, 505u);
  EXPECT_EQ(a.lines_header, 606u);
  EXPECT_EQ(a.lines_filtered, 707u);
  EXPECT_EQ(a.lines_without_value, 808u);
  EXPECT_EQ(a.lines_aggregated, 909u);
}

TEST(LineCountersTest, PlusEqualsWithZeroIsIdentity) {
  LineCounters a;
  a.lines_read = 10;
  a.lines_aggregated = 10;
  LineCounters before = a;
  a += LineCounters();
  EXPECT_EQ(a, before);
}

// ---------------------------------------------------------------- Equality

TEST(ResultTableEqualityTest, EqualTablesCompareEqual) {
  EXPECT_TRUE(DtailExample() == DtailExample());
  EXPECT_TRUE(ResultTable() == ResultTable());
  EXPECT_FALSE(DtailExample() == ResultTable());
}

TEST(ResultTableEqualityTest, EveryColumnFieldMatters) {
  const ResultTable base = DtailExample();
  auto with_column = [&](auto mutate) {
    std::vector<ResultColumn> cols = base.columns();
    mutate(cols[1]);
    return ResultTable(cols, base.CopyRows(), base.stats(),
                       base.total_groups());
  };
  EXPECT_TRUE(with_column([](ResultColumn&) {}) == base);
  EXPECT_FALSE(with_column([](ResultColumn& c) { c.name = "$t"; }) == base);
  EXPECT_FALSE(with_column([](ResultColumn& c) { c.aggregate = "sum"; }) ==
               base);
  EXPECT_FALSE(with_column([](ResultColumn& c) {
                 c.type = ValueType::kNumber;
               }) == base);
  EXPECT_FALSE(with_column([](ResultColumn& c) { c.field = "$x"; }) == base);
  EXPECT_FALSE(with_column([](ResultColumn& c) { c.is_group_key = false; }) ==
               base);
  EXPECT_FALSE(with_column([](ResultColumn& c) { c.is_order_key = true; }) ==
               base);
}

TEST(ResultTableEqualityTest, CellsValuesStatsAndGroupsMatter) {
  const ResultTable base = DtailExample();
  {
    std::vector<ResultRow> rows = base.CopyRows();
    rows[1].cells[0] = "21";
    EXPECT_FALSE(ResultTable(base.columns(), rows, base.stats(),
                             base.total_groups()) == base);
  }
  {
    std::vector<ResultRow> rows = base.CopyRows();
    rows[1].values[0] = 21;
    EXPECT_FALSE(ResultTable(base.columns(), rows, base.stats(),
                             base.total_groups()) == base);
  }
  {
    std::vector<ResultRow> rows = base.CopyRows();
    rows.pop_back();
    EXPECT_FALSE(ResultTable(base.columns(), rows, base.stats(),
                             base.total_groups()) == base);
  }
  {
    LineCounters stats = base.stats();
    stats.lines_filtered = 1;
    EXPECT_FALSE(ResultTable(base.columns(), base.CopyRows(), stats,
                             base.total_groups()) == base);
  }
  EXPECT_FALSE(ResultTable(base.columns(), base.CopyRows(), base.stats(), 3) ==
               base);
}

TEST(ResultTableEqualityTest, ValuesCompareBitwiseWithNanEqualToNan) {
  auto table_with_value = [](double v) {
    return ResultTable({Col("a", "avg")}, {Row({"x"}, {v})}, {}, 1);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(table_with_value(nan) == table_with_value(nan));
  EXPECT_TRUE(table_with_value(nan) == table_with_value(-nan));
  EXPECT_TRUE(table_with_value(nan) ==
              table_with_value(std::numeric_limits<double>::signaling_NaN()));
  EXPECT_FALSE(table_with_value(nan) == table_with_value(0.0));
  EXPECT_FALSE(table_with_value(0.0) == table_with_value(-0.0));
  EXPECT_TRUE(table_with_value(1.5) == table_with_value(1.5));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(table_with_value(inf) == table_with_value(inf));
  EXPECT_FALSE(table_with_value(inf) == table_with_value(-inf));
}

TEST(ResultTableTest, RowWiseConstructorPadsAndTrimsRowsToTheColumns) {
  ResultRow extra;
  extra.cells = {"x", "surplus"};
  extra.values = {1.0, 2.0};
  ResultTable a({Col("a", "avg")}, {extra}, {}, 1);
  ResultTable b({Col("a", "avg")}, {Row({"x"}, {1.0})}, {}, 1);
  EXPECT_TRUE(a == b);
  ASSERT_EQ(a.num_rows(), 1u);
  EXPECT_EQ(a.cell(0, 0), "x");
  EXPECT_EQ(a.value(0, 0), 1.0);

  ResultTable short_row({Col("a", "last"), Col("b", "sum")}, {Row({"y"})}, {},
                        1);
  ASSERT_EQ(short_row.num_rows(), 1u);
  EXPECT_EQ(short_row.cell(0, 1), "");
  EXPECT_EQ(short_row.value(0, 0), 0.0);
  EXPECT_EQ(short_row.value(0, 1), 0.0);
  EXPECT_EQ(std::string(short_row.cell_c_str(0, 0)), "y");
  EXPECT_THAT(short_row.row(0).cells, ElementsAre("y", ""));
}

TEST(ResultTableTest, AppendCellBuildsRowMajorRowsWithNulTerminatedCells) {
  ResultTable t({Col("k", "last"), Col("n", "count")}, {}, 7);
  t.AppendCell("a", 0);
  t.AppendCell("1", 1);
  EXPECT_EQ(t.num_rows(), 1u);
  t.AppendCell(std::string_view("b\0c", 3), 0);
  t.AppendCell("22", 22);
  ASSERT_EQ(t.num_rows(), 2u);
  EXPECT_EQ(t.cell(1, 0), std::string_view("b\0c", 3));
  EXPECT_EQ(t.cell_c_str(1, 1)[2], '\0');
  EXPECT_EQ(t.value(1, 1), 22);
  EXPECT_EQ(t.total_groups(), 7u);
  EXPECT_EQ(t.ToCsv(), std::string("k,n\na,1\nb\0c,22\n", 15));
}

TEST(ResultTableTest, WritersStreamTheSameBytesInBoundedChunks) {
  std::vector<ResultRow> rows;
  rows.reserve(20000);
  for (int i = 0; i < 20000; ++i) {
    rows.push_back(Row({"key" + std::to_string(i), std::to_string(i)},
                       {0, static_cast<double>(i)}));
  }
  ResultTable t({Col("k", "last"), Col("n", "count")}, rows, {}, rows.size());
  auto collect = [](auto write) {
    std::string all;
    size_t chunks = 0;
    size_t largest = 0;
    write([&](std::string_view c) {
      all.append(c);
      ++chunks;
      largest = std::max(largest, c.size());
    });
    EXPECT_GT(chunks, 1u);
    EXPECT_LT(largest, 80u * 1024);
    return all;
  };
  EXPECT_EQ(collect([&](ResultSink s) { t.WriteCsv(s); }), t.ToCsv());
  EXPECT_EQ(collect([&](ResultSink s) { t.WriteJson(s); }), t.ToJson());
  EXPECT_EQ(collect([&](ResultSink s) { t.WriteNdjson(s); }), t.ToNdjson());
  EXPECT_EQ(collect([&](ResultSink s) { t.WriteTable({}, s); }), t.ToTable());
}

// ------------------------------------------------------------------ ToTable

TEST(ToTableTest, MatchesDtailExampleByteForByte) {
  EXPECT_EQ(DtailExample().ToTable(),
            " count($time) |       $time | max($goroutines) | avg($goroutines) "
            "\n"
            "--------------|-------------|------------------|------------------"
            "\n"
            "           23 | 1002-071147 |        16.000000 |        14.391304 "
            "\n"
            "           20 | 1002-071143 |        17.000000 |        15.000000 "
            "\n");
}

TEST(ToTableTest, WidthsConsiderRowsThatAreNotPrinted) {
  ResultTable t({Col("n", "count"), Col("k", "last")},
                {Row({"1", "a"}), Row({"12345", "bbbbbbb"})}, {}, 2);
  TableOptions options;
  options.max_rows = 1;
  EXPECT_EQ(t.ToTable(options),
            "     n |       k \n"
            "-------|---------\n"
            "     1 |       a \n");
  EXPECT_EQ(t.ToTable(),
            "     n |       k \n"
            "-------|---------\n"
            "     1 |       a \n"
            " 12345 | bbbbbbb \n");
}

TEST(ToTableTest, MaxRowsZeroPrintsHeaderAndSeparatorOnly) {
  TableOptions options;
  options.max_rows = 0;
  EXPECT_EQ(DtailExample().ToTable(options),
            " count($time) |       $time | max($goroutines) | avg($goroutines) "
            "\n"
            "--------------|-------------|------------------|------------------"
            "\n");
}

TEST(ToTableTest, MaxRowsAboveRowCountAndNegativePrintAll) {
  const ResultTable t = DtailExample();
  TableOptions big;
  big.max_rows = 1000;
  TableOptions neg;
  neg.max_rows = -5;
  EXPECT_EQ(t.ToTable(big), t.ToTable());
  EXPECT_EQ(t.ToTable(neg), t.ToTable());
  TableOptions exact;
  exact.max_rows = 2;
  EXPECT_EQ(t.ToTable(exact), t.ToTable());
}

TEST(ToTableTest, ZeroRowsGivesHeaderAndSeparator) {
  ResultTable t({Col("count($line)", "count")}, {}, {}, 0);
  EXPECT_EQ(t.ToTable(),
            " count($line) \n"
            "--------------\n");
}

TEST(ToTableTest, EmptyCellsAndEmptyNames) {
  ResultTable t({Col("", "last"), Col("b", "last")}, {Row({"", ""})}, {}, 1);
  EXPECT_EQ(t.ToTable(),
            "  | b \n"
            "--|---\n"
            "  |   \n");
}

TEST(ToTableTest, WidthIsByteLength) {
  // "é" is two bytes; DTail pads by bytes (Go's len()).
  ResultTable t({Col("k", "last")}, {Row({"\xc3\xa9"}), Row({"a"})}, {}, 2);
  EXPECT_EQ(t.ToTable(),
            "  k \n"
            "----\n"
            " \xc3\xa9 \n"
            "  a \n");
}

TEST(ToTableTest, RowWithMissingCellsRendersThemEmpty) {
  ResultRow short_row;
  short_row.cells = {"1"};
  short_row.values = {1};
  ResultTable t({Col("a", "count"), Col("b", "last")}, {short_row}, {}, 1);
  EXPECT_EQ(t.ToTable(),
            " a | b \n"
            "---|---\n"
            " 1 |   \n");
}

// -------------------------------------------------------------------- ToCsv

TEST(ToCsvTest, MatchesDtail) {
  EXPECT_EQ(DtailExample().ToCsv(),
            "count($time),$time,max($goroutines),avg($goroutines)\n"
            "23,1002-071147,16.000000,14.391304\n"
            "20,1002-071143,17.000000,15.000000\n");
}

TEST(ToCsvTest, ZeroRowsIsHeaderOnly) {
  ResultTable t({Col("a", "count"), Col("b", "last")}, {}, {}, 0);
  EXPECT_EQ(t.ToCsv(), "a,b\n");
}

TEST(ToCsvTest, QuotesOnlyWhenNeeded) {
  ResultTable t(
      {Col("k", "last"), Col("v", "last")},
      {
          Row({"plain text", " spaces  "}),  // Spaces are not special.
          Row({"a,b", "x"}),
          Row({"say \"hi\"", "\"\""}),
          Row({"cr\rhere", "lf\nhere"}),
          Row({"", "'single'"}),
          Row({"semi;colon", "tab\there"}),
      },
      {}, 6);
  EXPECT_EQ(t.ToCsv(),
            "k,v\n"
            "plain text, spaces  \n"
            "\"a,b\",x\n"
            "\"say \"\"hi\"\"\",\"\"\"\"\"\"\n"
            "\"cr\rhere\",\"lf\nhere\"\n"
            ",'single'\n"
            "semi;colon,tab\there\n");
}

// Random tables, with and without a cell that needs quotes somewhere (the
// writer copies whole rows when none does): the CSV is the cells joined by
// the RFC 4180 rules, NUL bytes and empty cells included.
TEST(ToCsvTest, WholeRowCopiesMatchCellByCellQuoting) {
  std::mt19937 rng(9);
  for (int round = 0; round < 300; ++round) {
    const size_t ncols = 1 + rng() % 4;
    std::vector<ResultColumn> cols;
    for (size_t c = 0; c < ncols; ++c) {
      cols.push_back(Col("c" + std::to_string(c), "last"));
    }
    ResultTable t(cols, {}, 0);
    const bool special = round % 3 == 0;
    std::string want = "c0";
    for (size_t c = 1; c < ncols; ++c) want += ",c" + std::to_string(c);
    want += '\n';
    const size_t nrows = rng() % 40;
    const size_t special_cell =
        nrows * ncols == 0 ? 0 : rng() % (nrows * ncols);
    for (size_t i = 0; i < nrows * ncols; ++i) {
      std::string cell(rng() % 30, 'x');
      for (char& ch : cell) ch = "ab1 \0."[rng() % 6];
      if (special && i == special_cell) cell += ",\"\n"[rng() % 3];
      t.AppendCell(cell, 0);
      std::string csv = cell;
      if (cell.find_first_of(",\"\r\n") != std::string::npos) {
        csv = "\"";
        for (char ch : cell) {
          if (ch == '"') csv += '"';
          csv += ch;
        }
        csv += '"';
      }
      want += csv;
      want += (i + 1) % ncols == 0 ? '\n' : ',';
    }
    ASSERT_EQ(t.ToCsv(), want) << "round " << round;
  }
}

TEST(ToCsvTest, QuotesHeaderNames) {
  ResultTable t(
      {Col("sum($a),x", "sum"), Col("q\"", "last"), Col("ok", "last")},
      {Row({"1.000000", "v", "w"})}, {}, 1);
  EXPECT_EQ(t.ToCsv(),
            "\"sum($a),x\",\"q\"\"\",ok\n"
            "1.000000,v,w\n");
}

// ------------------------------------------------------------------- ToJson

TEST(ToJsonTest, MatchesExpectedEncoding) {
  const std::string json = DtailExample().ToJson();
  EXPECT_EQ(json,
            "[{\"count($time)\":23,\"$time\":\"1002-071147\","
            "\"max($goroutines)\":16.000000,\"avg($goroutines)\":14.391304},"
            "{\"count($time)\":20,\"$time\":\"1002-071143\","
            "\"max($goroutines)\":17.000000,\"avg($goroutines)\":15.000000}]"
            "\n");
  EXPECT_TRUE(IsValidJson(json));
}

TEST(ToJsonTest, NdjsonIsOneObjectPerLine) {
  EXPECT_EQ(DtailExample().ToNdjson(),
            "{\"count($time)\":23,\"$time\":\"1002-071147\","
            "\"max($goroutines)\":16.000000,\"avg($goroutines)\":14.391304}\n"
            "{\"count($time)\":20,\"$time\":\"1002-071143\","
            "\"max($goroutines)\":17.000000,\"avg($goroutines)\":15.000000}\n");
}

TEST(ToJsonTest, RowToJsonIsTheNdjsonLine) {
  const ResultTable t = DtailExample();
  const std::string ndjson = t.ToNdjson();
  EXPECT_EQ(t.RowToJson(0) + "\n" + t.RowToJson(1) + "\n", ndjson);
  EXPECT_EQ(JsonString("a\"b\\c\n\x01\xff"),
            "\"a\\\"b\\\\c\\u000a\\u0001\\ufffd\"");
}

TEST(ToJsonTest, EmptyResults) {
  ResultTable t({Col("a", "count")}, {}, {}, 0);
  EXPECT_EQ(t.ToJson(), "[]\n");
  EXPECT_EQ(t.ToNdjson(), "");
  EXPECT_EQ(ResultTable().ToJson(), "[]\n");
  EXPECT_EQ(ResultTable().ToNdjson(), "");
}

TEST(ToJsonTest, EveryNumericKindIsANumber) {
  ResultTable t(
      {Col("count", "count"), Col("sum", "sum"), Col("min", "min"),
       Col("max", "max"), Col("avg", "avg"), Col("len", "len"),
       Col("pct", "percentage"), Col("p99", "percentile"), Col("last", "last")},
      {Row({"7", "-1.500000", "0.000000", "-0.000000", "14.000000", "3.000000",
            "50.000000", "99.000000", "42"})},
      {}, 1);
  EXPECT_EQ(t.ToNdjson(),
            "{\"count\":7,\"sum\":-1.500000,\"min\":0.000000,"
            "\"max\":-0.000000,\"avg\":14.000000,\"len\":3.000000,"
            "\"pct\":50.000000,\"p99\":99.000000,\"last\":\"42\"}\n");
}

TEST(ToJsonTest, NanAndInfinitiesBecomeStrings) {
  ResultTable t({Col("a", "avg"), Col("b", "sum"), Col("c", "max")},
                {Row({"NaN", "+Inf", "-Inf"},
                     {std::nan(""), std::numeric_limits<double>::infinity(),
                      -std::numeric_limits<double>::infinity()})},
                {}, 1);
  const std::string json = t.ToJson();
  EXPECT_EQ(json, "[{\"a\":\"NaN\",\"b\":\"+Inf\",\"c\":\"-Inf\"}]\n");
  EXPECT_TRUE(IsValidJson(json));
}

TEST(ToJsonTest, NumericTextThatIsNotAJsonNumberBecomesAString) {
  // Never produced by the aggregator, but the output must stay valid JSON.
  const std::vector<std::string> bad = {
      "",   "+1",  "01",  ".5",  "1.", "1e",  "--1", "0x10", "1 ",
      " 1", "inf", "nan", "1,5", "-",  "1e+", "Inf", "1.2.3"};
  for (const std::string& text : bad) {
    ResultTable t({Col("n", "sum")}, {Row({text})}, {}, 1);
    const std::string json = t.ToNdjson();
    EXPECT_TRUE(IsValidJson(json)) << json;
    EXPECT_EQ(json.find("{\"n\":\""), 0u) << json;
  }
  const std::vector<std::string> good = {"0",   "-0",   "10",      "1.5",
                                         "1e5", "1E-5", "-2.5e+3", "123456789"};
  for (const std::string& text : good) {
    ResultTable t({Col("n", "count")}, {Row({text})}, {}, 1);
    EXPECT_EQ(t.ToNdjson(), "{\"n\":" + text + "}\n");
  }
}

TEST(ToJsonTest, LastCellsAreStringsEvenWhenNumeric) {
  EXPECT_EQ(JsonOfLastCell("42"), "{\"x\":\"42\"}\n");
  EXPECT_EQ(JsonOfLastCell(""), "{\"x\":\"\"}\n");
}

TEST(ToJsonTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonOfLastCell("a\"b\\c/d"), "{\"x\":\"a\\\"b\\\\c/d\"}\n");
  EXPECT_EQ(JsonOfLastCell("\n\r\t\b\f"),
            "{\"x\":\"\\u000a\\u000d\\u0009\\u0008\\u000c\"}\n");
  EXPECT_EQ(JsonOfLastCell(std::string("\0\x01\x1f", 3)),
            "{\"x\":\"\\u0000\\u0001\\u001f\"}\n");
  // DEL (0x7f) is allowed raw in JSON.
  EXPECT_EQ(JsonOfLastCell("\x7f"), "{\"x\":\"\x7f\"}\n");
}

TEST(ToJsonTest, KeysAreEscapedToo) {
  ResultTable t({Col("a\"b", "count"), Col("c\\\n", "last")}, {Row({"1", "v"})},
                {}, 1);
  EXPECT_EQ(t.ToNdjson(), "{\"a\\\"b\":1,\"c\\\\\\u000a\":\"v\"}\n");
}

TEST(ToJsonTest, ValidUtf8PassesThrough) {
  const std::string text =
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf";
  EXPECT_EQ(JsonOfLastCell(text), "{\"x\":\"" + text + "\"}\n");
}

TEST(ToJsonTest, InvalidUtf8IsReplacedLikePython) {
  // Expected counts of U+FFFD follow Python's bytes.decode("utf-8",
  // "replace") (the Unicode "maximal subpart" policy).
  struct Case {
    std::string in;
    std::string out;
  };
  const std::vector<Case> cases = {
      {"\xff", "\\ufffd"},
      {"\x80", "\\ufffd"},
      {"\xe2\x82", "\\ufffd"},
      {"\xe2\x82"
       "A",
       "\\ufffdA"},
      {"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"},             // Surrogate.
      {"\xc0\xaf", "\\ufffd\\ufffd"},                        // Overlong.
      {"\xc1\xbf", "\\ufffd\\ufffd"},                        // Overlong.
      {"\xf0\x9f\x98", "\\ufffd"},                           // Truncated.
      {"\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"},  // > U+10FFFF.
      {"\xe0\x80\x80", "\\ufffd\\ufffd\\ufffd"},
      {"\xf0\x80\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"},
      {"a\x80\xbf"
       "b",
       "a\\ufffd\\ufffdb"},
      {"\xf1\x80\x80\xe1\x80\xc2", "\\ufffd\\ufffd\\ufffd"},
      {"\xf5\x80", "\\ufffd\\ufffd"},
      {"\xc3\xa9\xc3", "\xc3\xa9\\ufffd"},
      {"\xc3\"", "\\ufffd\\\""},
  };
  for (const Case& c : cases) {
    const std::string json = JsonOfLastCell(c.in);
    EXPECT_EQ(json, "{\"x\":\"" + c.out + "\"}\n");
    EXPECT_TRUE(IsValidJson(json)) << json;
  }
}

TEST(ToJsonTest, DuplicateColumnNamesKeepBothKeysInOrder) {
  ResultTable t({Col("$a", "last"), Col("$a", "count")}, {Row({"x", "2"})}, {},
                1);
  EXPECT_EQ(t.ToJson(), "[{\"$a\":\"x\",\"$a\":2}]\n");
}

TEST(ToJsonTest, RandomBytesAlwaysGiveValidJsonThatRoundTrips) {
  std::mt19937 rng(12345);
  // Bias towards interesting bytes: ASCII specials, lead and continuation
  // bytes.
  const std::string interesting =
      std::string("\"\\\n\r\t\x01\x7f", 7) +
      "\x80\xbf\xc2\xc3\xdf\xe0\xe2\xed\xef\xf0\xf4\xf5\xff"
      "aZ ";
  std::uniform_int_distribution<int> len_dist(0, 12);
  std::uniform_int_distribution<int> byte_dist(0, 255);
  std::uniform_int_distribution<size_t> pick(0, interesting.size() - 1);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string key;
    std::string cell;
    for (std::string* s : {&key, &cell}) {
      int len = len_dist(rng);
      for (int k = 0; k < len; ++k) {
        s->push_back(coin(rng) ? interesting[pick(rng)]
                               : static_cast<char>(byte_dist(rng)));
      }
    }
    ResultTable t({Col(key, "last"), Col("n", "avg")}, {Row({cell, cell})}, {},
                  1);
    const std::string json = t.ToJson();
    JsonChecker checker(json);
    ASSERT_TRUE(checker.ParseDocument()) << json;
    ASSERT_TRUE(JsonChecker(t.ToNdjson()).ParseDocument());
    // Strings decode back to the input whenever the input contains no
    // U+FFFD replacement (checked by comparing with the input itself:
    // a decoded string equal to the input means nothing was replaced).
    ASSERT_GE(checker.strings().size(), 2u);
    const std::string& decoded_key = checker.strings()[0];
    const bool key_replaced =
        decoded_key.find("\xef\xbf\xbd") != std::string::npos;
    if (!key_replaced) {
      EXPECT_EQ(decoded_key, key);
    }
  }
}

TEST(ToJsonTest, ValidUtf8RoundTripsExactly) {
  // Every code point class, plus every ASCII byte.
  std::string text;
  for (int c = 0; c < 0x80; ++c) text.push_back(static_cast<char>(c));
  text +=
      "\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"
      "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf";
  const std::string json = JsonOfLastCell(text);
  JsonChecker checker(json);
  ASSERT_TRUE(checker.ParseDocument());
  ASSERT_EQ(checker.strings().size(), 2u);
  EXPECT_EQ(checker.strings()[1], text);
}

TEST(JsonCheckerTest, RejectsInvalidDocuments) {
  // Guard against a checker that accepts everything.
  EXPECT_FALSE(IsValidJson("[{\"a\":NaN}]"));
  EXPECT_FALSE(IsValidJson("[{\"a\":+1}]"));
  EXPECT_FALSE(IsValidJson("{\"a\":\"\x01\"}"));
  EXPECT_FALSE(IsValidJson("{\"a\":\"\xff\"}"));
  EXPECT_FALSE(IsValidJson("{\"a\":\"\xed\xa0\x80\"}"));
  EXPECT_FALSE(IsValidJson("[1,]"));
  EXPECT_FALSE(IsValidJson("[01]"));
  EXPECT_TRUE(IsValidJson("[{\"a\":1.5e3,\"b\":\"\\u00e9\"}]\n"));
}

}  // namespace
}  // namespace mapr
