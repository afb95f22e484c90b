#include "mapr/log_format.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/log_formats.h"
#include "tests/testing/default_format_reference.h"
#include "tests/testing/field_batch.h"
#include "tests/testing/parsed_rows.h"
#include "tests/testing/status_matchers.h"

namespace mapr::runtime {
namespace {

using ::mapr::testing::TestFieldBatch;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// One parsed line: its outcome and the requested fields that were set.
using Row = ::mapr::testing::ParsedRow;

// Feeds `lines` to `parser` as one batch and collects what it wrote.
std::vector<Row> ParseWith(LogFormatParser& parser,
                           const std::vector<std::string>& fields,
                           const std::vector<std::string>& lines,
                           TestFieldBatch* batch = nullptr) {
  TestFieldBatch local(fields.size());
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return ::mapr::testing::ParseRows(parser, batch ? *batch : local, fields,
                                    views);
}

std::unique_ptr<LogFormatParser> MakeParser(
    const std::shared_ptr<const LogFormat>& format,
    const std::vector<std::string>& fields) {
  absl::StatusOr<std::unique_ptr<LogFormatParser>> parser =
      format->NewParser(fields);
  EXPECT_TRUE(parser.ok()) << parser.status();
  return *std::move(parser);
}

std::vector<Row> Parse(const std::shared_ptr<const LogFormat>& format,
                       const std::vector<std::string>& fields,
                       const std::vector<std::string>& lines) {
  std::unique_ptr<LogFormatParser> parser = MakeParser(format, fields);
  return ParseWith(*parser, fields, lines);
}

Row ParseOne(const std::shared_ptr<const LogFormat>& format,
             const std::vector<std::string>& fields, const std::string& line) {
  return Parse(format, fields, {line})[0];
}

// ---------------------------------------------------------------- default

// Every default-format test runs against both builds of the parser: the
// baseline (SSE2) one and, where the CPU has it, the AVX2+BMI2 one.
class DefaultLogFormatTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    const bool avx2_available =
        runtime::UseBaselineDefaultParserForTesting(GetParam());
    if (!GetParam() && !avx2_available) {
      GTEST_SKIP() << "this CPU has no AVX2/BMI2; the baseline run covers it";
    }
  }
  void TearDown() override {
    runtime::UseBaselineDefaultParserForTesting(false);
  }
};

INSTANTIATE_TEST_SUITE_P(Builds, DefaultLogFormatTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Baseline" : "Native";
                         });

const std::vector<std::string> kAllDefaultVariables = {
    "$severity",   "$loglevel", "$time",    "$date",   "$hour",
    "$minute",     "$second",   "$pid",     "$caller", "$cpus",
    "$goroutines", "$cgocalls", "$loadavg", "$uptime"};

constexpr char kDtailPrefix[] =
    "INFO|20211002-072342|1|default_test.go:1|1|2|3|0.1|1h|MAPREDUCE:TEST|";

TEST_P(DefaultLogFormatTest, NameAndVariables) {
  auto format = NewDefaultLogFormat();
  EXPECT_EQ(format->name(), "default");
  EXPECT_THAT(format->variables(), Optional(kAllDefaultVariables));
}

TEST_P(DefaultLogFormatTest, ParsesDtailLineInEitherKeyOrder) {
  auto format = NewDefaultLogFormat();
  const std::vector<std::string> fields = {"$severity", "$time",   "$date",
                                           "$hour",     "$minute", "$second",
                                           "foo",       "bar"};
  for (const std::string kv : {"foo=bar|bar=foo", "bar=foo|foo=bar"}) {
    Row row = ParseOne(format, fields, kDtailPrefix + kv);
    EXPECT_EQ(row.outcome, LineOutcome::kParsed) << kv;
    EXPECT_THAT(row.fields,
                UnorderedElementsAre(
                    Pair("$severity", "INFO"), Pair("$time", "20211002-072342"),
                    Pair("$date", "20211002"), Pair("$hour", "07"),
                    Pair("$minute", "23"), Pair("$second", "42"),
                    Pair("foo", "bar"), Pair("bar", "foo")))
        << kv;
  }
}

TEST_P(DefaultLogFormatTest, IgnoresNonDtailLine) {
  Row row = ParseOne(NewDefaultLogFormat(), {"foozoo", "$severity"},
                     "foozoo=bar|bazbay");
  EXPECT_EQ(row.outcome, LineOutcome::kIgnored);
  EXPECT_THAT(row.fields, IsEmpty());
}

TEST_P(DefaultLogFormatTest, ParsesRealTestdataLine) {
  // The first line of testdata/dtail/mapr_testdata.log.
  const std::string line =
      "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
      "currentConnections=0|lifetimeConnections=1";
  std::vector<std::string> fields = kAllDefaultVariables;
  fields.push_back("currentConnections");
  fields.push_back("lifetimeConnections");
  Row row = ParseOne(NewDefaultLogFormat(), fields, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  // An 11-byte $time gives no $date/$hour/$minute/$second.
  EXPECT_THAT(
      row.fields,
      UnorderedElementsAre(
          Pair("$severity", "INFO"), Pair("$loglevel", "INFO"),
          Pair("$time", "1002-071143"), Pair("$pid", "1"),
          Pair("$caller", "stats.go:56"), Pair("$cpus", "8"),
          Pair("$goroutines", "13"), Pair("$cgocalls", "7"),
          Pair("$loadavg", "0.21"), Pair("$uptime", "471h0m21s"),
          Pair("currentConnections", "0"), Pair("lifetimeConnections", "1")));
}

TEST_P(DefaultLogFormatTest, Index0MustStartWithInfo) {
  auto format = NewDefaultLogFormat();
  const std::string rest =
      "|1002-071143|1|stats.go:56|8|13|7|0.21|471h|MAPREDUCE:STATS|a=1";
  EXPECT_EQ(ParseOne(format, {"a"}, "WARN" + rest).outcome,
            LineOutcome::kIgnored);
  EXPECT_EQ(ParseOne(format, {"a"}, "info" + rest).outcome,
            LineOutcome::kIgnored);
  EXPECT_EQ(ParseOne(format, {"a"}, "ERROR" + rest).outcome,
            LineOutcome::kIgnored);
  Row infox = ParseOne(format, {"a", "$severity"}, "INFOX" + rest);
  EXPECT_EQ(infox.outcome, LineOutcome::kParsed);
  EXPECT_THAT(infox.fields,
              UnorderedElementsAre(Pair("a", "1"), Pair("$severity", "INFOX")));
}

TEST_P(DefaultLogFormatTest, TenTokensAreIgnored) {
  auto format = NewDefaultLogFormat();
  EXPECT_EQ(ParseOne(format, {"$time"},
                     "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h|"
                     "MAPREDUCE:STATS")
                .outcome,
            LineOutcome::kIgnored);
  EXPECT_EQ(ParseOne(format, {"$time"}, "INFO|1002-071143|1").outcome,
            LineOutcome::kIgnored);
  EXPECT_EQ(ParseOne(format, {"$time"}, "INFO").outcome, LineOutcome::kIgnored);
  EXPECT_EQ(ParseOne(format, {"$time"}, "").outcome, LineOutcome::kIgnored);
}

TEST_P(DefaultLogFormatTest, Index9MustStartWithMapreduce) {
  auto format = NewDefaultLogFormat();
  EXPECT_EQ(ParseOne(format, {"a"},
                     "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h|"
                     "STATS|a=1")
                .outcome,
            LineOutcome::kIgnored);
  EXPECT_EQ(ParseOne(format, {"a"},
                     "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h|"
                     "mapreduce:STATS|a=1")
                .outcome,
            LineOutcome::kIgnored);
  // The table name itself is not checked.
  Row row = ParseOne(format, {"a"},
                     "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h|"
                     "MAPREDUCE:|a=1");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("a", "1")));
}

TEST_P(DefaultLogFormatTest, TokenWithoutEqualsMakesLineMalformed) {
  auto format = NewDefaultLogFormat();
  const std::vector<std::string> fields = {"$time", "a", "b"};
  for (const std::string kv :
       {"a=1|oops|b=2", "oops", "a=1|b=2|oops", "a=1||b=2", "a=1|b=2|", ""}) {
    Row row = ParseOne(format, fields, kDtailPrefix + kv);
    EXPECT_EQ(row.outcome, LineOutcome::kMalformed) << kv;
    // Fields written before the bad token are discarded.
    EXPECT_THAT(row.fields, IsEmpty()) << kv;
  }
}

TEST_P(DefaultLogFormatTest, SplitsKeyValueAtFirstEquals) {
  Row row = ParseOne(NewDefaultLogFormat(), {"a", "", " k ", "e"},
                     std::string(kDtailPrefix) + "a=b=c|=x| k = v |e=");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("a", "b=c"), Pair("", "x"),
                                   Pair(" k ", " v "), Pair("e", "")));
}

TEST_P(DefaultLogFormatTest, LaterDuplicatesWin) {
  Row row = ParseOne(NewDefaultLogFormat(), {"a", "b"},
                     std::string(kDtailPrefix) + "a=1|b=2|a=3");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("a", "3"), Pair("b", "2")));
}

TEST_P(DefaultLogFormatTest, WritesOnlyRequestedFields) {
  auto format = NewDefaultLogFormat();
  const std::string line = std::string(kDtailPrefix) + "a=1|b=2";
  Row row = ParseOne(format, {"b"}, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("b", "2")));
  // Nothing requested: the line is still validated.
  EXPECT_EQ(ParseOne(format, {}, line).outcome, LineOutcome::kParsed);
  EXPECT_EQ(ParseOne(format, {}, line + "|x").outcome, LineOutcome::kMalformed);
}

TEST_P(DefaultLogFormatTest, UnknownDollarNameIsAKey) {
  Row row = ParseOne(NewDefaultLogFormat(), {"$foo", "missing", "$line"},
                     std::string(kDtailPrefix) + "$foo=1|foo=2");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("$foo", "1")));
}

TEST_P(DefaultLogFormatTest, TimeSlicesNeedExactly15Bytes) {
  Row row =
      ParseOne(NewDefaultLogFormat(), {"$time", "$date", "$hour"},
               "INFO|20211002-0723421|1|c|1|2|3|0.1|1h|MAPREDUCE:TEST|a=1");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("$time", "20211002-0723421")));
}

TEST_P(DefaultLogFormatTest, DuplicateRequestedFieldsAreAllFilled) {
  auto format = NewDefaultLogFormat();
  const std::vector<std::string> fields = {"a", "$pid", "a", "$pid"};
  std::unique_ptr<LogFormatParser> parser = MakeParser(format, fields);
  TestFieldBatch batch(fields.size());
  const std::vector<std::string> lines = {std::string(kDtailPrefix) + "a=2"};
  std::vector<Row> rows = ParseWith(*parser, fields, lines, &batch);
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_EQ(batch.column(0)[0], "2");
  EXPECT_EQ(batch.column(2)[0], "2");
  EXPECT_EQ(batch.column(1)[0], "1");
  EXPECT_EQ(batch.column(3)[0], "1");
}

TEST_P(DefaultLogFormatTest, ManyKeysUseTheHashTable) {
  std::vector<std::string> fields;
  std::string line = kDtailPrefix;
  for (int i = 0; i < 20; ++i) {
    fields.push_back("k" + std::to_string(i));
    if (i % 2 == 0) {
      line += "k" + std::to_string(i) + "=v" + std::to_string(i) + "|";
    }
  }
  line += "other=1";
  Row row = ParseOne(NewDefaultLogFormat(), fields, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  ASSERT_EQ(row.fields.size(), 10u);
  for (int i = 0; i < 20; i += 2) {
    EXPECT_EQ(row.fields["k" + std::to_string(i)], "v" + std::to_string(i));
  }
}

TEST_P(DefaultLogFormatTest, MixedBatchKeepsRowsApart) {
  const std::vector<std::string> fields = {"$time", "a"};
  std::vector<Row> rows = Parse(NewDefaultLogFormat(), fields,
                                {std::string(kDtailPrefix) + "a=1", "WARN|x",
                                 "", std::string(kDtailPrefix) + "a=2|bad",
                                 std::string(kDtailPrefix) + "a=3"});
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[0].fields["a"], "1");
  EXPECT_EQ(rows[1].outcome, LineOutcome::kIgnored);
  EXPECT_EQ(rows[2].outcome, LineOutcome::kIgnored);
  EXPECT_EQ(rows[3].outcome, LineOutcome::kMalformed);
  EXPECT_THAT(rows[3].fields, IsEmpty());
  EXPECT_EQ(rows[4].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[4].fields["a"], "3");
}

TEST_P(DefaultLogFormatTest, FullBatchDoesNotAllocate) {
  const std::vector<std::string> fields = {"$time", "a"};
  std::vector<std::string> lines(kMaxBatchRows,
                                 std::string(kDtailPrefix) + "a=1");
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewDefaultLogFormat(), fields);
  TestFieldBatch batch(fields.size());
  std::vector<Row> rows = ParseWith(*parser, fields, lines, &batch);
  EXPECT_EQ(rows.back().outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows.back().fields["a"], "1");
  EXPECT_EQ(batch.num_allocations(), 0u);
}

// The reference parser's verdict on `line` as a Row (only the fields set).
Row ReferenceDefault(const std::vector<std::string>& fields,
                     const std::string& line) {
  std::vector<std::string_view> values;
  Row row{mapr::testing::ReferenceDefault(line, fields, &values), {}};
  for (size_t f = 0; f < fields.size(); ++f) {
    if (values[f].data() != nullptr) row.fields[fields[f]] = values[f];
  }
  return row;
}

// Random lines against a plain token-by-token reference, for several field
// sets (positional only, none, keys sharing first bytes, keys that cannot
// match, the empty key, duplicates). Lines are 0-600 bytes, so tokens, the
// tenth '|' and values cross 64-byte blocks at every offset.
TEST_P(DefaultLogFormatTest, ScannerMatchesReferenceOnRandomLines) {
  const std::vector<std::vector<std::string>> field_sets = {
      {"$time", "$pid", "a", "b", "ab"},
      {"a"},
      {"ab", "ba", "abc", "b"},
      {},
      {"$severity"},
      {"a=x", "b", "x|y"},  // never match
      {"", "a"},            // "=v" has the empty key
      {"$cpus", "a", "a", "ba"},
  };
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state >> 33);
  };
  const char* const kKeys[] = {"a", "b", "ab", "", "ba", "abc"};
  std::vector<std::string> lines;
  for (int i = 0; i < 4000; ++i) {
    std::string line = "INFO|t" + std::to_string(i) +
                       std::string(next() % 4 == 0 ? next() % 100 : 0, 'p') +
                       "|1|c|1|2|3|0.1|1h|MAPREDUCE:T";
    if (next() % 8 == 0) line = line.substr(0, next() % line.size());
    size_t tokens = next() % 16;
    for (size_t k = 0; k < tokens; ++k) {
      line += '|';
      line += kKeys[next() % 6];
      if (next() % 24 != 0) line += '=';
      size_t len = next() % (next() % 8 == 0 ? 120 : 30);
      for (size_t c = 0; c < len; ++c) line += "xyza=|"[next() % 6];
    }
    lines.push_back(line);
  }
  int parsed = 0, malformed = 0;
  for (const std::vector<std::string>& fields : field_sets) {
    std::unique_ptr<LogFormatParser> parser =
        MakeParser(NewDefaultLogFormat(), fields);
    for (size_t begin = 0; begin < lines.size(); begin += kMaxBatchRows) {
      std::vector<std::string> batch(
          lines.begin() + begin,
          lines.begin() + std::min(lines.size(), begin + kMaxBatchRows));
      std::vector<Row> rows = ParseWith(*parser, fields, batch);
      for (size_t r = 0; r < batch.size(); ++r) {
        Row want = ReferenceDefault(fields, batch[r]);
        EXPECT_EQ(rows[r].outcome, want.outcome) << batch[r];
        parsed += want.outcome == LineOutcome::kParsed;
        malformed += want.outcome == LineOutcome::kMalformed;
        if (want.outcome == LineOutcome::kParsed) {
          EXPECT_EQ(rows[r].fields, want.fields) << batch[r];
        }
      }
    }
  }
  // The random lines exercise every outcome.
  EXPECT_GT(parsed, 100);
  EXPECT_GT(malformed, 100);
}

// The table filter folded into the parser's scan (ParseBatchInTable) must
// agree with a plain substring search for the marker, and leave every line
// that has it parsed as ParseBatch parses it.
// Every placement of a requested key's token, its '=' and its value
// relative to the 64-byte blocks.
TEST_P(DefaultLogFormatTest, KeysAtEveryBlockOffset) {
  const std::vector<std::string> fields = {"ab", "b"};
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewDefaultLogFormat(), fields);
  std::vector<std::string> lines;
  for (size_t pad = 0; pad < 140; ++pad) {
    for (size_t value = 0; value < 70; value += 23) {
      std::string line =
          "INFO|t|1|c|1|2|3|0.1|1h|MAPREDUCE:T|z=" + std::string(pad, 'x') +
          "|ab=" + std::string(value, 'v') + "|b=" + std::to_string(pad);
      lines.push_back(line);
      lines.push_back(line + "|ab");  // Then malformed.
    }
  }
  std::vector<Row> rows = ParseWith(*parser, fields, lines);
  size_t parsed = 0;
  for (size_t r = 0; r < lines.size(); ++r) {
    Row want = ReferenceDefault(fields, lines[r]);
    EXPECT_EQ(rows[r].outcome, want.outcome) << lines[r];
    EXPECT_EQ(rows[r].fields, want.fields) << lines[r];
    parsed += want.outcome == LineOutcome::kParsed;
  }
  EXPECT_EQ(parsed, lines.size() / 2);
}

TEST_P(DefaultLogFormatTest, TableFilterAgreesWithSubstringSearch) {
  const std::vector<std::string> fields = {"$time", "a", "b"};
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewDefaultLogFormat(), fields);
  auto* table_parser = dynamic_cast<TableFilteringParser*>(parser.get());
  ASSERT_NE(table_parser, nullptr);
  const std::string marker = "|MAPREDUCE:STATS|";
  const std::string head = "INFO|t|1|c|1|2|3|0.1|1h|";
  std::vector<std::string> lines = {
      head + "MAPREDUCE:STATS|a=1",   // token 9 is the table
      head + "MAPREDUCE:STATS",       // ... and ends the line
      head + "MAPREDUCE:STATSX|a=1",  // a longer table
      head + "MAPREDUCE:STAT|a=1",    // a shorter one
      head + "MAPREDUCE:OTHER|a=1|MAPREDUCE:STATS|b=2",  // later, malformed
      head + "MAPREDUCE:OTHER|a=1|b=MAPREDUCE:STATS|",   // no bar after
      head + "MAPREDUCE:OTHER|a=1|b=|MAPREDUCE:STATS|",  // empty value first
      "WARN|t|1|c|1|2|3|0.1|1h|MAPREDUCE:STATS|a=1",     // not INFO
      "INFO|t|1|MAPREDUCE:STATS|a=1",                    // too few tokens
      "INFO|t|1|c|1|2|3|0.1|1h|MAPREDUCE:STATS|noequals",
      "|MAPREDUCE:STATS|",
      "",
      "MAPREDUCE:STATS",
      head + "mapreduce:STATS|a=1",
  };
  // Long lines put the marker in a later 64-byte block.
  lines.push_back(std::string(70, 'x') + marker);
  lines.push_back(
      "INFO|" + std::string(100, 't') +
      "|1|c|1|2|3|0.1|1h|MAPREDUCE:STATS|a=" + std::string(80, 'v'));
  lines.push_back("INFO|" + std::string(100, 't') +
                  "|1|c|1|2|3|0.1|1h|MAPREDUCE:T|a=1|" + std::string(80, 'v') +
                  "=|MAPREDUCE:STATS|");

  TestFieldBatch plain(fields.size()), in_table(fields.size());
  std::vector<Row> want = ParseWith(*parser, fields, lines, &plain);
  std::vector<std::string_view> views(lines.begin(), lines.end());
  std::vector<LineOutcome> outcomes(lines.size(), LineOutcome::kIgnored);
  auto mismatch = std::make_unique<bool[]>(lines.size());
  in_table.Clear();
  table_parser->ParseBatchInTable(views, marker, in_table, outcomes.data(),
                                  mismatch.get());
  int with_marker = 0;
  for (size_t r = 0; r < lines.size(); ++r) {
    const bool has = lines[r].find(marker) != std::string::npos;
    with_marker += has;
    EXPECT_EQ(mismatch[r], !has) << lines[r];
    if (!has) continue;
    EXPECT_EQ(outcomes[r], want[r].outcome) << lines[r];
    if (want[r].outcome != LineOutcome::kParsed) continue;
    for (size_t f = 0; f < fields.size(); ++f) {
      EXPECT_EQ(in_table.column(f)[r], plain.column(f)[r])
          << lines[r] << " field " << fields[f];
    }
  }
  EXPECT_EQ(with_marker, 10);
}

// ---------------------------------------------------------------- generic

TEST(GenericLogFormatTest, ParsesEveryLineWithoutFields) {
  auto format = NewGenericLogFormat();
  EXPECT_EQ(format->name(), "generic");
  EXPECT_THAT(format->variables(), Optional(IsEmpty()));
  std::vector<Row> rows =
      Parse(format, {"a", "$time"}, {"a=1|b=2", "", std::string(kDtailPrefix)});
  for (const Row& row : rows) {
    EXPECT_EQ(row.outcome, LineOutcome::kParsed);
    EXPECT_THAT(row.fields, IsEmpty());
  }
}

// -------------------------------------------------------------- generickv

TEST(GenericKvLogFormatTest, NameAndVariables) {
  auto format = NewGenericKvLogFormat();
  EXPECT_EQ(format->name(), "generickv");
  EXPECT_THAT(format->variables(), Optional(IsEmpty()));
}

TEST(GenericKvLogFormatTest, SplitsKeyValueTokens) {
  Row row = ParseOne(NewGenericKvLogFormat(), {"a", "b", "", "c", "d"},
                     "a=b=c|b=|=x|c=1|c=2");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("a", "b=c"), Pair("b", ""),
                                               Pair("", "x"), Pair("c", "2")));
}

TEST(GenericKvLogFormatTest, SkipsTokensWithoutEqualsAndNeverHangs) {
  auto format = NewGenericKvLogFormat();
  const std::vector<std::string> fields = {"a", "b", "$time"};
  // The DTail line is split across literals on purpose.
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  std::vector<Row> rows =
      Parse(format, fields,
            {"foo|a=1|bar||b=2|", "nothing here", "", "|||", "a=1|",
             "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h|"
             "MAPREDUCE:STATS|a=7"});
  // NOLINTEND(bugprone-suspicious-missing-comma)
  ASSERT_EQ(rows.size(), 6u);
  for (const Row& row : rows) EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[0].fields,
              UnorderedElementsAre(Pair("a", "1"), Pair("b", "2")));
  EXPECT_THAT(rows[1].fields, IsEmpty());
  EXPECT_THAT(rows[2].fields, IsEmpty());
  EXPECT_THAT(rows[3].fields, IsEmpty());
  EXPECT_THAT(rows[4].fields, ElementsAre(Pair("a", "1")));
  // No positional variables.
  EXPECT_THAT(rows[5].fields, ElementsAre(Pair("a", "7")));
}

TEST(GenericKvLogFormatTest, NullEmptyLineIsParsed) {
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewGenericKvLogFormat(), {"a"});
  TestFieldBatch batch(1);
  std::string_view line;  // data() == nullptr.
  LineOutcome outcome = LineOutcome::kIgnored;
  parser->ParseBatch(std::span<const std::string_view>(&line, 1), batch,
                     &outcome);
  EXPECT_EQ(outcome, LineOutcome::kParsed);
  EXPECT_EQ(batch.column(0)[0].data(), nullptr);
}

TEST(GenericKvLogFormatTest, DuplicateRequestedFieldsAreAllFilled) {
  const std::vector<std::string> fields = {"a", "b", "a"};
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewGenericKvLogFormat(), fields);
  TestFieldBatch batch(fields.size());
  const std::vector<std::string> lines = {"a=1|b=2"};
  ParseWith(*parser, fields, lines, &batch);
  EXPECT_EQ(batch.column(0)[0], "1");
  EXPECT_EQ(batch.column(1)[0], "2");
  EXPECT_EQ(batch.column(2)[0], "1");
}

// -------------------------------------------------------------------- csv

TEST(CsvLogFormatTest, NameAndVariables) {
  auto format = NewCsvLogFormat();
  EXPECT_EQ(format->name(), "csv");
  EXPECT_THAT(format->variables(), Optional(IsEmpty()));
}

TEST(CsvLogFormatTest, FirstLineIsTheHeader) {
  std::vector<Row> rows =
      Parse(NewCsvLogFormat(), {"col_value", "col_label", "missing"},
            {"col_label,col_value", "alpha,1", "beta,2"});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].outcome, LineOutcome::kHeader);
  EXPECT_THAT(rows[0].fields, IsEmpty());
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[1].fields, UnorderedElementsAre(Pair("col_label", "alpha"),
                                                   Pair("col_value", "1")));
  EXPECT_EQ(rows[2].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[2].fields, UnorderedElementsAre(Pair("col_label", "beta"),
                                                   Pair("col_value", "2")));
}

TEST(CsvLogFormatTest, HeaderNamesAreVerbatim) {
  // dmap5.csv.in's header: names such as `count($time)` are plain fields.
  std::vector<Row> rows =
      Parse(NewCsvLogFormat(), {"count($time)", "$time", "time"},
            {"count($time),$time,max($goroutines)", "3,1002-071143,15"});
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("count($time)", "3"),
                                   Pair("$time", "1002-071143")));
}

TEST(CsvLogFormatTest, HonoursQuotes) {
  const std::vector<std::string> fields = {"a,b", "c", "d"};
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewCsvLogFormat(), fields);
  TestFieldBatch batch(fields.size());
  std::vector<Row> rows = ParseWith(
      *parser, fields, {R"("a,b",c,"d")", R"("x,y",2,"say ""hi""")", R"(,"",)"},
      &batch);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].outcome, LineOutcome::kHeader);
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("a,b", "x,y"), Pair("c", "2"),
                                   Pair("d", R"(say "hi")")));
  // The unescaped value was copied into FieldBatch memory.
  EXPECT_EQ(batch.num_allocations(), 1u);
  EXPECT_EQ(rows[2].outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      rows[2].fields,
      UnorderedElementsAre(Pair("a,b", ""), Pair("c", ""), Pair("d", "")));
}

TEST(CsvLogFormatTest, TooManyValuesAreMalformed) {
  std::vector<Row> rows =
      Parse(NewCsvLogFormat(), {"a", "b"}, {"a,b", "1,2,3", "1,2,", "1,2"});
  EXPECT_EQ(rows[1].outcome, LineOutcome::kMalformed);
  EXPECT_THAT(rows[1].fields, IsEmpty());
  EXPECT_EQ(rows[2].outcome, LineOutcome::kMalformed);
  EXPECT_EQ(rows[3].outcome, LineOutcome::kParsed);
}

TEST(CsvLogFormatTest, FewerValuesSetLeadingColumns) {
  std::vector<Row> rows =
      Parse(NewCsvLogFormat(), {"a", "b", "c"}, {"a,b,c", "1,2", "1"});
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("a", "1"), Pair("b", "2")));
  EXPECT_EQ(rows[2].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[2].fields, ElementsAre(Pair("a", "1")));
}

TEST(CsvLogFormatTest, EmptyLineIsARowWithEmptyFirstColumn) {
  const std::vector<std::string> fields = {"a", "b"};
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewCsvLogFormat(), fields);
  std::vector<Row> rows = ParseWith(*parser, fields, {"a,b", ""});
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[1].fields, ElementsAre(Pair("a", "")));
  // Also for a view with a null data pointer.
  TestFieldBatch batch(fields.size());
  std::string_view line;
  LineOutcome outcome = LineOutcome::kIgnored;
  parser->ParseBatch(std::span<const std::string_view>(&line, 1), batch,
                     &outcome);
  EXPECT_EQ(outcome, LineOutcome::kParsed);
  EXPECT_NE(batch.column(0)[0].data(), nullptr);
  EXPECT_EQ(batch.column(0)[0], "");
  EXPECT_EQ(batch.column(1)[0].data(), nullptr);
}

TEST(CsvLogFormatTest, LastDuplicateHeaderNameWins) {
  std::vector<Row> rows =
      Parse(NewCsvLogFormat(), {"a", "b"}, {"a,b,a", "1,2,3", "1,2"});
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("a", "3"), Pair("b", "2")));
  // A short row lacks the last `a`.
  EXPECT_THAT(rows[2].fields, ElementsAre(Pair("b", "2")));
}

TEST(CsvLogFormatTest, HeaderIsPerParserAndSurvivesBatches) {
  // Like dmap_csv_multifile: two sources with the same header, 2 + 3 rows.
  auto format = NewCsvLogFormat();
  const std::vector<std::string> fields = {"col_label", "col_value"};
  std::unique_ptr<LogFormatParser> a = MakeParser(format, fields);
  std::unique_ptr<LogFormatParser> b = MakeParser(format, fields);
  int data_rows = 0;
  int headers = 0;
  auto count = [&](const std::vector<Row>& rows) {
    for (const Row& row : rows) {
      if (row.outcome == LineOutcome::kParsed) ++data_rows;
      if (row.outcome == LineOutcome::kHeader) ++headers;
    }
  };
  count(ParseWith(*a, fields, {"col_label,col_value", "alpha,1"}));
  // The second batch of source A has no header line.
  std::vector<Row> a2 = ParseWith(*a, fields, {"beta,2"});
  EXPECT_THAT(a2[0].fields, UnorderedElementsAre(Pair("col_label", "beta"),
                                                 Pair("col_value", "2")));
  count(a2);
  // Source B learns its own header, even with other column names.
  std::vector<Row> b1 = ParseWith(
      *b, fields, {"col_value,col_label", "3,gamma", "4,delta", "5,epsilon"});
  EXPECT_THAT(b1[1].fields, UnorderedElementsAre(Pair("col_label", "gamma"),
                                                 Pair("col_value", "3")));
  count(b1);
  EXPECT_EQ(headers, 2);
  EXPECT_EQ(data_rows, 5);
}

TEST(CsvLogFormatTest, EmptyFirstBatchLeavesHeaderUnlearned) {
  const std::vector<std::string> fields = {"a"};
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewCsvLogFormat(), fields);
  EXPECT_THAT(ParseWith(*parser, fields, {}), IsEmpty());
  std::vector<Row> rows = ParseWith(*parser, fields, {"a", "1"});
  EXPECT_EQ(rows[0].outcome, LineOutcome::kHeader);
  EXPECT_THAT(rows[1].fields, ElementsAre(Pair("a", "1")));
}

TEST(CsvLogFormatTest, WideHeader) {
  std::string header;
  std::string data;
  for (int i = 0; i < 300; ++i) {
    if (i > 0) header += ",", data += ",";
    header += "c" + std::to_string(i);
    data += std::to_string(i);
  }
  std::vector<Row> rows =
      Parse(NewCsvLogFormat(), {"c299", "c0", "c300"}, {header, data});
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("c299", "299"), Pair("c0", "0")));
}

TEST(CsvLogFormatTest, DuplicateRequestedFieldsAreAllFilled) {
  const std::vector<std::string> fields = {"a", "b", "a"};
  std::unique_ptr<LogFormatParser> parser =
      MakeParser(NewCsvLogFormat(), fields);
  TestFieldBatch batch(fields.size());
  const std::vector<std::string> lines = {"b,a", "2,1"};
  ParseWith(*parser, fields, lines, &batch);
  EXPECT_EQ(batch.column(0)[1], "1");
  EXPECT_EQ(batch.column(1)[1], "2");
  EXPECT_EQ(batch.column(2)[1], "1");
}

// --------------------------------------------------------------- registry

class TestFormat : public LogFormat {
 public:
  explicit TestFormat(std::string name, bool line_independent = false)
      : name_(std::move(name)), line_independent_(line_independent) {}
  std::string name() const override { return name_; }
  bool line_independent() const override { return line_independent_; }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return NewGenericLogFormat()->NewParser(fields);
  }

 private:
  std::string name_;
  bool line_independent_;
};

// LogFormatIsLineIndependent decides whether the command and QueryFiles may
// cut one input into byte ranges: every built-in format but csv (a header
// per source), a host format as it says, never an unknown name.
TEST(LogFormatRegistryTest, LineIndependenceDecidesWhetherInputMaySplit) {
  for (const std::string& name : LogFormatNames()) {
    std::shared_ptr<const LogFormat> format = FindLogFormat(name);
    ASSERT_NE(format, nullptr) << name;
    EXPECT_EQ(LogFormatIsLineIndependent(name), format->line_independent())
        << name;
  }
  for (const char* name :
       {"default", "generic", "generickv", "clf", "combined", "logfmt",
        "syslog", "json", "fields", "regex", "pattern", "auto"}) {
    EXPECT_TRUE(LogFormatIsLineIndependent(name)) << name;
  }
  EXPECT_TRUE(LogFormatIsLineIndependent("JSON"));  // Names are case-blind.
  EXPECT_FALSE(LogFormatIsLineIndependent("csv"));
  EXPECT_FALSE(LogFormatIsLineIndependent("CSV"));
  EXPECT_FALSE(LogFormatIsLineIndependent("nosuchformat"));
  EXPECT_FALSE(LogFormatIsLineIndependent(""));
  ASSERT_OK(RegisterLogFormat(std::make_shared<TestFormat>("statefulhost")));
  ASSERT_OK(RegisterLogFormat(std::make_shared<TestFormat>(
      "splittablehost", /*line_independent=*/true)));
  EXPECT_FALSE(LogFormatIsLineIndependent("statefulhost"));
  EXPECT_TRUE(LogFormatIsLineIndependent("SplittableHost"));
}

TEST(LogFormatRegistryTest, BuiltinsAreRegistered) {
  for (const char* name : {"default", "generic", "generickv", "csv", "clf",
                           "combined", "logfmt", "syslog", "fields", "regex"}) {
    std::shared_ptr<const LogFormat> format = FindLogFormat(name);
    ASSERT_NE(format, nullptr) << name;
    EXPECT_EQ(format->name(), name);
  }
  EXPECT_THAT(LogFormatNames(),
              ::testing::IsSupersetOf({"clf", "combined", "csv", "default",
                                       "fields", "generic", "generickv",
                                       "logfmt", "regex", "syslog"}));
}

TEST(LogFormatRegistryTest, FindIsCaseInsensitive) {
  ASSERT_NE(FindLogFormat("DEFAULT"), nullptr);
  EXPECT_EQ(FindLogFormat("DEFAULT")->name(), "default");
  EXPECT_EQ(FindLogFormat("Csv")->name(), "csv");
  EXPECT_EQ(FindLogFormat("nosuchformat"), nullptr);
  EXPECT_EQ(FindLogFormat(""), nullptr);
}

TEST(LogFormatRegistryTest, RegisterRejectsDuplicatesAndBadNames) {
  EXPECT_EQ(RegisterLogFormat(std::make_shared<TestFormat>("csv")).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(RegisterLogFormat(std::make_shared<TestFormat>("Nginx")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterLogFormat(std::make_shared<TestFormat>("")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterLogFormat(nullptr).code(),
            absl::StatusCode::kInvalidArgument);

  ASSERT_TRUE(
      RegisterLogFormat(std::make_shared<TestFormat>("testformat")).ok());
  EXPECT_EQ(
      RegisterLogFormat(std::make_shared<TestFormat>("testformat")).code(),
      absl::StatusCode::kAlreadyExists);
  ASSERT_NE(FindLogFormat("TestFormat"), nullptr);
  EXPECT_EQ(FindLogFormat("TestFormat")->name(), "testformat");
  std::vector<std::string> names = LogFormatNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_THAT(names, ::testing::Contains("testformat"));
}

// ------------------------------------------- lines without requested keys

// With no key=value key requested the default format still checks every
// token (a token without '=' rejects the line), also past the first 64-byte
// block and when a token straddles a block boundary.
TEST_P(DefaultLogFormatTest, TokenWithoutEqualsIsMalformedWithoutKeyFields) {
  auto format = NewDefaultLogFormat();
  const std::string long_value(100, 'v');
  for (const std::vector<std::string>& fields :
       {std::vector<std::string>{}, std::vector<std::string>{"$time"}}) {
    SCOPED_TRACE(fields.empty() ? "no fields" : "$time");
    for (const std::string& kv : std::vector<std::string>{
             "a=1|oops", "oops|a=1", "a=1||b=2", "a=1|b=2|",
             "a=" + long_value + "|oops",
             "a=" + long_value + "|b=" + long_value,
             "oops" + long_value + "|a=1", std::string(60, 'k') + "=1|b=2"}) {
      const bool good = kv.find("oops") == std::string::npos &&
                        kv.find("||") == std::string::npos && kv.back() != '|';
      Row row = ParseOne(format, fields, kDtailPrefix + kv);
      EXPECT_EQ(row.outcome,
                good ? LineOutcome::kParsed : LineOutcome::kMalformed)
          << kv;
      if (good && !fields.empty()) {
        EXPECT_THAT(row.fields, ElementsAre(Pair("$time", "20211002-072342")));
      }
    }
  }
}

// Positional tokens longer than a 64-byte block, with and without
// positional variables requested (the scanner may skip whole blocks of
// them when none is).
TEST_P(DefaultLogFormatTest, LongPositionalTokensSpanSeveralBlocks) {
  auto format = NewDefaultLogFormat();
  const std::string caller(150, 'c');
  const std::string line = "INFO|20211002-072342|1|" + caller +
                           "|1|2|3|0.1|1h|MAPREDUCE:TEST|a=1|b=2";
  Row kv_only = ParseOne(format, {"b"}, line);
  EXPECT_EQ(kv_only.outcome, LineOutcome::kParsed);
  EXPECT_THAT(kv_only.fields, ElementsAre(Pair("b", "2")));
  Row both = ParseOne(format, {"$caller", "$uptime", "a"}, line);
  EXPECT_EQ(both.outcome, LineOutcome::kParsed);
  EXPECT_THAT(both.fields,
              UnorderedElementsAre(Pair("$caller", caller),
                                   Pair("$uptime", "1h"), Pair("a", "1")));
  // One positional token too many or too few moves MAPREDUCE: off index 9.
  const std::string extra =
      "INFO|20211002-072342|1|" + caller + "|x|1|2|3|0.1|1h|MAPREDUCE:TEST|a=1";
  const std::string missing =
      "INFO|20211002-072342|1|" + caller + "|2|3|0.1|1h|MAPREDUCE:TEST|a=1";
  for (const std::string& bad : {extra, missing}) {
    EXPECT_EQ(ParseOne(format, {"a"}, bad).outcome, LineOutcome::kIgnored);
    EXPECT_EQ(ParseOne(format, {"$caller", "a"}, bad).outcome,
              LineOutcome::kIgnored);
  }
}

TEST_P(DefaultLogFormatTest, ShortTimeTokenLeavesEverySliceMissing) {
  Row row = ParseOne(NewDefaultLogFormat(),
                     {"$date", "$hour", "$minute", "$second", "$time"},
                     "INFO|1002-0719|1|c|1|2|3|0.1|1h|MAPREDUCE:TEST|a=1");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("$time", "1002-0719")));
}

TEST(GenericKvLogFormatTest, NothingRequestedParsesEveryLine) {
  std::vector<Row> rows =
      Parse(NewGenericKvLogFormat(), {}, {"a=1", "no equals", "", "|||"});
  ASSERT_EQ(rows.size(), 4u);
  for (const Row& row : rows) {
    EXPECT_EQ(row.outcome, LineOutcome::kParsed);
    EXPECT_THAT(row.fields, IsEmpty());
  }
}

// ------------------------------------------------------------- FieldBatch

TEST(FieldBatchTest, CopyOwnsTheBytesAndEmptyIsNotNull) {
  TestFieldBatch batch(1);
  std::string source = "value";
  std::string_view copy = batch.Copy(source);
  source[0] = 'X';
  EXPECT_EQ(copy, "value");
  EXPECT_EQ(batch.num_allocations(), 1u);
  // An empty value is present (non-null) and needs no allocation.
  std::string_view empty = batch.Copy("");
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(batch.num_allocations(), 1u);
}

}  // namespace
}  // namespace mapr::runtime
