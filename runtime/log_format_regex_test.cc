// The formats that take an argument: `logformat regex 're'` and
// `logformat fields ['DELIMITER']`.
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/log_format.h"
#include "mapr/query.h"
#include "tests/testing/field_batch.h"
#include "tests/testing/parsed_rows.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::mapr::testing::TestFieldBatch;
using ::testing::HasSubstr;

// Requested field -> value; "<missing>" when not set.
using Row = ::mapr::testing::ParsedRow;

// Configures `name` with `argument` and parses `lines` as one batch.
std::vector<Row> Parse(std::string_view name,
                       std::optional<std::string_view> argument,
                       const std::vector<std::string>& fields,
                       const std::vector<std::string>& lines) {
  std::shared_ptr<const LogFormat> format = FindLogFormat(name);
  EXPECT_NE(format, nullptr);
  absl::StatusOr<std::shared_ptr<const LogFormat>> configured =
      format->Configure(argument, FormatOptions());
  EXPECT_TRUE(configured.ok()) << configured.status();
  if (*configured != nullptr) format = *configured;
  absl::StatusOr<std::unique_ptr<LogFormatParser>> parser =
      format->NewParser(fields);
  EXPECT_TRUE(parser.ok());
  TestFieldBatch batch(fields.size());
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return ::mapr::testing::ParseRows(**parser, batch, fields, views,
                                    {.mark_missing = true});
}

TEST(RegexFormat, NamedGroupsAreFields) {
  std::vector<Row> rows =
      Parse("regex", R"((?<level>[A-Z]+) (?P<ms>\d+)ms(?: user=(?<user>\w*))?)",
            {"level", "ms", "user", "nope"},
            {"12:00 WARN 30ms user=ann", "ERROR 7ms",
             "x INFO 1ms user=", "no match"});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[0].fields["level"], "WARN");
  EXPECT_EQ(rows[0].fields["ms"], "30");
  EXPECT_EQ(rows[0].fields["user"], "ann");
  EXPECT_EQ(rows[0].fields["nope"], "<missing>");
  // The optional group took no part: missing. It matched empty: empty.
  EXPECT_EQ(rows[1].fields["user"], "<missing>");
  EXPECT_EQ(rows[2].fields["user"], "");
  EXPECT_EQ(rows[3].outcome, LineOutcome::kUnmatched);
}

TEST(RegexFormat, NothingRequestedStillClassifiesLines) {
  std::vector<Row> rows = Parse("regex", "^(?P<a>x)", {}, {"xyz", "yxz", ""});
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[1].outcome, LineOutcome::kUnmatched);
  EXPECT_EQ(rows[2].outcome, LineOutcome::kUnmatched);
}

TEST(RegexFormat, ConfigureErrors) {
  std::shared_ptr<const LogFormat> format = FindLogFormat("regex");
  ASSERT_NE(format, nullptr);
  EXPECT_THAT(format->Configure(std::nullopt, FormatOptions()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs a pattern")));
  EXPECT_THAT(format->Configure("a(b", FormatOptions()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("invalid regular expression: missing )")));
  EXPECT_THAT(format->Configure("(a)", FormatOptions()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has no named group")));
  FormatOptions small;
  small.max_regex_memory = 4 << 10;
  EXPECT_THAT(format->Configure("(?P<x>\\pL{10})", small),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs more than 4096 bytes")));
}

TEST(RegexFormat, UnmatchedLinesAreCountedThroughTheEngine) {
  absl::StatusOr<ResultTable> r =
      RunQuery("select count($line) group by k logformat regex 'k=(?P<k>\\w+)'",
               {"k=a", "k=b", "nothing", "k=a", "= also nothing"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stats().lines_unmatched, 2u);
  EXPECT_EQ(r->stats().lines_aggregated, 3u);
  EXPECT_EQ(r->stats().lines_parsed(), 3u);
}

TEST(FieldsFormat, BlankRunsSplitLikeAwk) {
  std::vector<Row> rows =
      Parse("fields", std::nullopt, {"f1", "f3", "f2", "f4", "f0", "f01", "x"},
            {"a  b\tc", "one", "", "a b c d e"});
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[0].fields["f1"], "a");
  EXPECT_EQ(rows[0].fields["f2"], "b");
  EXPECT_EQ(rows[0].fields["f3"], "c");
  EXPECT_EQ(rows[0].fields["f4"], "<missing>");
  // Not field names: f0, f01, x.
  EXPECT_EQ(rows[0].fields["f0"], "<missing>");
  EXPECT_EQ(rows[0].fields["f01"], "<missing>");
  EXPECT_EQ(rows[0].fields["x"], "<missing>");
  EXPECT_EQ(rows[1].fields["f1"], "one");
  EXPECT_EQ(rows[1].fields["f2"], "<missing>");
  EXPECT_EQ(rows[2].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[2].fields["f1"], "<missing>");
  EXPECT_EQ(rows[3].fields["f4"], "d");
}

TEST(FieldsFormat, DelimiterKeepsEmptyFields) {
  std::vector<Row> rows =
      Parse("fields", ",", {"f1", "f2", "f3", "f4"}, {"a,,c", ",", "x"});
  EXPECT_EQ(rows[0].fields["f1"], "a");
  EXPECT_EQ(rows[0].fields["f2"], "");
  EXPECT_EQ(rows[0].fields["f3"], "c");
  EXPECT_EQ(rows[0].fields["f4"], "<missing>");
  EXPECT_EQ(rows[1].fields["f1"], "");
  EXPECT_EQ(rows[1].fields["f2"], "");
  EXPECT_EQ(rows[1].fields["f3"], "<missing>");
  EXPECT_EQ(rows[2].fields["f1"], "x");
  // A text delimiter, and '\t' for a tab.
  rows = Parse("fields", " | ", {"f2"}, {"a | b|c | d"});
  EXPECT_EQ(rows[0].fields["f2"], "b|c");
  rows = Parse("fields", "\\t", {"f2"}, {"a b\tc d"});
  EXPECT_EQ(rows[0].fields["f2"], "c d");
}

TEST(FieldsFormat, EmptyDelimiterIsAnError) {
  EXPECT_THAT(FindLogFormat("fields")->Configure("", FormatOptions()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("delimiter of log format 'fields' is empty")));
}

// `mapr --help` shows every built-in format's description and example
// line; the example must be a line the format parses.
TEST(BuiltInFormats, DescribeThemselvesWithAnExampleTheyParse) {
  for (const std::string& name : LogFormatNames()) {
    std::shared_ptr<const LogFormat> format = FindLogFormat(name);
    ASSERT_NE(format, nullptr);
    EXPECT_FALSE(format->description().empty()) << name;
    const std::string example = format->example();
    ASSERT_FALSE(example.empty()) << name;
    // A header; a pattern (regex, pattern).
    if (name == "csv" || name == "regex" || name == "pattern") continue;
    std::vector<Row> rows = Parse(name, std::nullopt, {"x"}, {example});
    EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed) << name << ": " << example;
  }
}

// The word-at-a-time blank search agrees with a byte-by-byte split on
// random lines of blanks, letters and high bytes of every length.
TEST(FieldsFormat, BlankSplitMatchesAPlainSplitOnRandomLines) {
  std::mt19937 rng(15);
  const char kAlphabet[] = {' ',        '\t',       'a',       'Z',
                            '0',        '\x80',     '\xff',    '\x01',
                            '\x09' + 1, '\x20' + 1, '\x20' - 1};
  std::vector<std::string> names;
  for (int k = 1; k <= 12; ++k) names.push_back("f" + std::to_string(k));
  for (int n = 0; n < 1000; ++n) {
    std::string line;
    const size_t len = rng() % 40;
    for (size_t i = 0; i < len; ++i) {
      line.push_back(kAlphabet[rng() % sizeof(kAlphabet)]);
    }
    std::vector<std::string> want;
    std::string word;
    for (char c : line) {
      if (c == ' ' || c == '\t') {
        if (!word.empty()) want.push_back(word);
        word.clear();
      } else {
        word.push_back(c);
      }
    }
    if (!word.empty()) want.push_back(word);
    std::vector<Row> rows = Parse("fields", std::nullopt, names, {line});
    for (size_t k = 0; k < names.size(); ++k) {
      EXPECT_EQ(rows[0].fields[names[k]],
                k < want.size() ? want[k] : "<missing>")
          << "line " << n << " field " << names[k];
    }
  }
}

}  // namespace
}  // namespace mapr
