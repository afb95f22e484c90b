#include "runtime/csv.h"

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/arena.h"

namespace mapr::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

constexpr size_t kMaxFields = 64;

struct Split {
  std::vector<std::string> values;
  std::vector<std::string_view> views;
  bool too_many = false;
};

// Runs SplitCsvRecord and checks the invariants every call must keep: no
// null data(), and every view lies inside the line or was produced from the
// arena.
Split SplitLine(std::string_view line, Arena* arena,
                size_t max_fields = kMaxFields) {
  std::vector<std::string_view> fields(max_fields + 1);
  const size_t used_before = arena->bytes_used();
  CsvSplitResult r = SplitCsvRecord(line, fields.data(), max_fields, arena);
  Split out;
  out.too_many = r.too_many;
  EXPECT_LE(r.num_fields, max_fields);
  for (size_t i = 0; i < r.num_fields; ++i) {
    EXPECT_NE(fields[i].data(), nullptr) << "field " << i << " of " << line;
    out.views.push_back(fields[i]);
    out.values.emplace_back(fields[i]);
  }
  // Nothing written past num_fields.
  EXPECT_EQ(fields[r.num_fields].data(), nullptr);
  if (line.find('"') == std::string_view::npos) {
    EXPECT_EQ(arena->bytes_used(), used_before) << line;
  }
  return out;
}

std::vector<std::string> Values(std::string_view line) {
  Arena arena;
  return SplitLine(line, &arena).values;
}

bool PointsInto(std::string_view view, std::string_view line) {
  return view.data() >= line.data() &&
         view.data() + view.size() <= line.data() + line.size();
}

// An independent, character-at-a-time reference with the documented
// semantics (the same as Python's csv module with strict=False).
std::vector<std::string> Reference(std::string_view s) {
  std::vector<std::string> fields;
  size_t i = 0;
  const size_t n = s.size();
  while (true) {
    std::string cur;
    if (i < n && s[i] == '"') {
      ++i;
      while (i < n) {
        if (s[i] == '"') {
          if (i + 1 < n && s[i + 1] == '"') {
            cur.push_back('"');
            i += 2;
          } else {
            ++i;
            break;
          }
        } else {
          cur.push_back(s[i++]);
        }
      }
    }
    while (i < n && s[i] != ',') cur.push_back(s[i++]);
    fields.push_back(cur);
    if (i == n) break;
    ++i;
  }
  return fields;
}

// ----------------------------------------------------------- plain fields

TEST(SplitCsvRecordTest, SplitsPlainFieldsAsViewsIntoTheLine) {
  const std::string line = "2024-01-01,host1,GET,200,0.25";
  Arena arena;
  Split s = SplitLine(line, &arena);
  EXPECT_THAT(s.values,
              ElementsAre("2024-01-01", "host1", "GET", "200", "0.25"));
  EXPECT_FALSE(s.too_many);
  for (std::string_view v : s.views) EXPECT_TRUE(PointsInto(v, line));
  EXPECT_EQ(s.views[0].data(), line.data());
  EXPECT_EQ(s.views[4].data(), line.data() + 25);
  EXPECT_EQ(arena.bytes_used(), 0u);
}

TEST(SplitCsvRecordTest, EmptyLineIsOneEmptyNonNullField) {
  Arena arena;
  Split s = SplitLine(std::string_view(""), &arena);
  ASSERT_EQ(s.views.size(), 1u);
  EXPECT_TRUE(s.views[0].empty());
  EXPECT_NE(s.views[0].data(), nullptr);
  EXPECT_FALSE(s.too_many);
}

TEST(SplitCsvRecordTest, DefaultConstructedViewIsOneEmptyNonNullField) {
  Arena arena;
  Split s = SplitLine(std::string_view(), &arena);
  ASSERT_EQ(s.views.size(), 1u);
  EXPECT_TRUE(s.views[0].empty());
  EXPECT_NE(s.views[0].data(), nullptr);
}

TEST(SplitCsvRecordTest, EmptyFields) {
  EXPECT_THAT(Values("a,,b"), ElementsAre("a", "", "b"));
  EXPECT_THAT(Values("a,"), ElementsAre("a", ""));
  EXPECT_THAT(Values(",a"), ElementsAre("", "a"));
  EXPECT_THAT(Values(","), ElementsAre("", ""));
  EXPECT_THAT(Values(",,,"), ElementsAre("", "", "", ""));
  EXPECT_THAT(Values("a"), ElementsAre("a"));
}

TEST(SplitCsvRecordTest, TrailingEmptyFieldPointsAtEndOfLine) {
  const std::string line = "a,";
  Arena arena;
  Split s = SplitLine(line, &arena);
  ASSERT_EQ(s.views.size(), 2u);
  EXPECT_EQ(s.views[1].data(), line.data() + 2);
}

TEST(SplitCsvRecordTest, SpacesAreKept) {
  EXPECT_THAT(Values(" a , b "), ElementsAre(" a ", " b "));
  // A quote after a space does not start a quoted field (RFC 4180, Python).
  EXPECT_THAT(Values(" \"a,b\""), ElementsAre(" \"a", "b\""));
}

TEST(SplitCsvRecordTest, QuoteInsideUnquotedFieldIsLiteral) {
  EXPECT_THAT(Values("a\"b,c"), ElementsAre("a\"b", "c"));
  EXPECT_THAT(Values("ab\"\"c,d"), ElementsAre("ab\"\"c", "d"));
}

// ---------------------------------------------------------- quoted fields

TEST(SplitCsvRecordTest, QuotedFieldWithoutEscapesIsAViewBetweenTheQuotes) {
  const std::string line = "x,\"a,b c\",y";
  Arena arena;
  Split s = SplitLine(line, &arena);
  EXPECT_THAT(s.values, ElementsAre("x", "a,b c", "y"));
  EXPECT_EQ(s.views[1].data(), line.data() + 3);
  EXPECT_EQ(arena.bytes_used(), 0u);
}

TEST(SplitCsvRecordTest, EmptyQuotedFieldIsEmptyNonNullView) {
  const std::string line = "\"\",a,\"\"";
  Arena arena;
  Split s = SplitLine(line, &arena);
  EXPECT_THAT(s.values, ElementsAre("", "a", ""));
  EXPECT_EQ(s.views[0].data(), line.data() + 1);
  EXPECT_EQ(s.views[2].data(), line.data() + 6);
  EXPECT_EQ(arena.bytes_used(), 0u);
}

TEST(SplitCsvRecordTest, DoubledQuotesAreUnescapedIntoTheArena) {
  const std::string line = "a,\"say \"\"hi\"\", ok\",b";
  Arena arena;
  Split s = SplitLine(line, &arena);
  EXPECT_THAT(s.values, ElementsAre("a", "say \"hi\", ok", "b"));
  EXPECT_FALSE(PointsInto(s.views[1], line));
  EXPECT_TRUE(PointsInto(s.views[0], line));
  EXPECT_TRUE(PointsInto(s.views[2], line));
  EXPECT_GT(arena.bytes_used(), 0u);
  EXPECT_LE(arena.bytes_used(), line.size());
}

TEST(SplitCsvRecordTest, OnlyEscapedQuotes) {
  EXPECT_THAT(Values("\"\"\"\""), ElementsAre("\""));
  EXPECT_THAT(Values("\"\"\"\"\"\""), ElementsAre("\"\""));
  EXPECT_THAT(Values("\"\"\"\",\"\"\"\""), ElementsAre("\"", "\""));
  EXPECT_THAT(Values("\"a\"\"\""), ElementsAre("a\""));
  EXPECT_THAT(Values("\"\"\"a\""), ElementsAre("\"a"));
}

TEST(SplitCsvRecordTest, QuotedFieldAtEndAndStart) {
  EXPECT_THAT(Values("\"a\""), ElementsAre("a"));
  EXPECT_THAT(Values("\"a\",b"), ElementsAre("a", "b"));
  EXPECT_THAT(Values("b,\"a\""), ElementsAre("b", "a"));
  EXPECT_THAT(Values("\"a\","), ElementsAre("a", ""));
}

// -------------------------------------------------------- malformed input

TEST(SplitCsvRecordTest, TextAfterClosingQuoteIsAppended) {
  Arena arena;
  Split s = SplitLine("\"ab\"cd,x", &arena);
  EXPECT_THAT(s.values, ElementsAre("abcd", "x"));
  EXPECT_THAT(Values("\"ab\"c\"d\",x"), ElementsAre("abc\"d\"", "x"));
  EXPECT_THAT(Values("\"a\"\"b\"c"), ElementsAre("a\"bc"));
  EXPECT_THAT(Values("\"\"c,d"), ElementsAre("c", "d"));
  EXPECT_THAT(Values("\"a\" "), ElementsAre("a "));
}

TEST(SplitCsvRecordTest, UnterminatedQuoteRunsToEndOfLine) {
  EXPECT_THAT(Values("\"ab,cd"), ElementsAre("ab,cd"));
  EXPECT_THAT(Values("x,\"ab,cd"), ElementsAre("x", "ab,cd"));
  EXPECT_THAT(Values("\"ab\"\""), ElementsAre("ab\""));
  EXPECT_THAT(Values("\"ab\"\",c"), ElementsAre("ab\",c"));
  Arena arena;
  Split s = SplitLine("\"", &arena);
  ASSERT_EQ(s.views.size(), 1u);
  EXPECT_TRUE(s.views[0].empty());
  EXPECT_NE(s.views[0].data(), nullptr);
  EXPECT_THAT(Values("a,\""), ElementsAre("a", ""));
}

TEST(SplitCsvRecordTest, UnterminatedQuoteWithoutEscapesIsAView) {
  const std::string line = "x,\"ab,cd";
  Arena arena;
  Split s = SplitLine(line, &arena);
  EXPECT_EQ(s.views[1].data(), line.data() + 3);
  EXPECT_EQ(arena.bytes_used(), 0u);
}

// ---------------------------------------------------------------- limits

TEST(SplitCsvRecordTest, TooManyFieldsStopsAtMax) {
  for (std::string line : {"a,b,c,d", "a,\"b\",c,\"d\""}) {
    Arena arena;
    Split s = SplitLine(line, &arena, 3);
    EXPECT_TRUE(s.too_many) << line;
    EXPECT_THAT(s.values, ElementsAre("a", "b", "c")) << line;
  }
}

TEST(SplitCsvRecordTest, ExactlyMaxFieldsIsNotTooMany) {
  for (std::string line : {"a,b,c", "a,\"b\",c", "a,b,"}) {
    Arena arena;
    Split s = SplitLine(line, &arena, 3);
    EXPECT_FALSE(s.too_many) << line;
    EXPECT_EQ(s.values.size(), 3u) << line;
  }
}

TEST(SplitCsvRecordTest, TrailingCommaCountsAsAField) {
  Arena arena;
  Split s = SplitLine("a,b,", &arena, 2);
  EXPECT_TRUE(s.too_many);
  EXPECT_THAT(s.values, ElementsAre("a", "b"));
}

TEST(SplitCsvRecordTest, MaxFieldsZeroIsAlwaysTooMany) {
  Arena arena;
  std::string_view sentinel;
  for (std::string_view line : {"", "a", "\"a\""}) {
    CsvSplitResult r = SplitCsvRecord(line, &sentinel, 0, &arena);
    EXPECT_EQ(r.num_fields, 0u);
    EXPECT_TRUE(r.too_many);
    EXPECT_EQ(sentinel.data(), nullptr);
  }
}

TEST(SplitCsvRecordTest, CommaInsideQuotesDoesNotCountTowardsMax) {
  Arena arena;
  Split s = SplitLine("\"a,b,c,d\",e", &arena, 2);
  EXPECT_FALSE(s.too_many);
  EXPECT_THAT(s.values, ElementsAre("a,b,c,d", "e"));
}

// ------------------------------------------------------------- arena use

TEST(SplitCsvRecordTest, ArenaViewsSurviveLaterSplits) {
  Arena arena;
  std::string_view f1[4];
  std::string_view f2[4];
  std::string line1 = "\"x\"\"1\"";
  std::string line2 = "\"y\"\"2\"";
  SplitCsvRecord(line1, f1, 4, &arena);
  SplitCsvRecord(line2, f2, 4, &arena);
  EXPECT_EQ(f1[0], "x\"1");
  EXPECT_EQ(f2[0], "y\"2");
}

TEST(SplitCsvRecordTest, LongQuotedValueLargerThanArenaBlock) {
  std::string value(3 * Arena::kDefaultBlockBytes, 'v');
  value[17] = '"';
  std::string line = "a,\"";
  for (char c : value) {
    line.push_back(c);
    if (c == '"') line.push_back('"');
  }
  line += "\",b";
  EXPECT_THAT(Values(line), ElementsAre("a", value, "b"));
}

// ------------------------------------------------- agreement with reference

TEST(SplitCsvRecordTest, MatchesReferenceOnEveryShortLine) {
  // Every string over {a, ',', '"', ' '} up to length 8 (87,381 lines).
  static constexpr char kAlphabet[] = {'a', ',', '"', ' '};
  Arena arena;
  std::vector<std::string_view> fields(16);
  std::string line;
  for (size_t len = 0; len <= 8; ++len) {
    size_t total = 1;
    for (size_t k = 0; k < len; ++k) total *= 4;
    for (size_t code = 0; code < total; ++code) {
      line.clear();
      for (size_t k = 0, c = code; k < len; ++k, c /= 4) {
        line.push_back(kAlphabet[c % 4]);
      }
      const std::vector<std::string> want = Reference(line);
      arena.Reset();
      CsvSplitResult r =
          SplitCsvRecord(line, fields.data(), fields.size(), &arena);
      ASSERT_FALSE(r.too_many) << line;
      ASSERT_EQ(r.num_fields, want.size()) << line;
      for (size_t i = 0; i < r.num_fields; ++i) {
        ASSERT_NE(fields[i].data(), nullptr) << line;
        ASSERT_EQ(fields[i], want[i]) << "[" << line << "] field " << i;
      }
      // One fewer slot than fields: too_many, and the prefix is unchanged.
      if (!want.empty()) {
        r = SplitCsvRecord(line, fields.data(), want.size() - 1, &arena);
        ASSERT_TRUE(r.too_many) << line;
        ASSERT_EQ(r.num_fields, want.size() - 1) << line;
        for (size_t i = 0; i < r.num_fields; ++i) {
          ASSERT_EQ(fields[i], want[i]) << "[" << line << "] field " << i;
        }
      }
    }
  }
}

TEST(SplitCsvRecordTest, ReferenceAgreesWithPythonOnDocumentedCases) {
  // Values printed by Python 3: list(csv.reader([line])).
  EXPECT_THAT(Reference("\"ab\"cd,x"), ElementsAre("abcd", "x"));
  EXPECT_THAT(Reference("\"ab\"c\"d\",x"), ElementsAre("abc\"d\"", "x"));
  EXPECT_THAT(Reference("\"ab,cd"), ElementsAre("ab,cd"));
  EXPECT_THAT(Reference("\"ab\"\""), ElementsAre("ab\""));
  EXPECT_THAT(Reference("a\"b,c"), ElementsAre("a\"b", "c"));
  EXPECT_THAT(Values("a,\"b,\"\"c\"\"\",,d"),
              ElementsAreArray({"a", "b,\"c\"", "", "d"}));
}

}  // namespace
}  // namespace mapr::runtime
