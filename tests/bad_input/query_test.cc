// Bad-input catalogue: hostile and broken query texts (README.md, "Queries").
//
// Every case goes through the public API (mapr::Query::Compile) and checks
// the status code, the whole message (position, snippet, caret, hint) and
// the span payload.
#include "mapr/query.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/result.h"
#include "mapr/status.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;

// The status of compiling `text`; the query must not compile.
absl::Status CompileError(std::string_view text,
                          const CompileOptions& options = {}) {
  absl::StatusOr<Query> q = Query::Compile(text, options);
  if (q.ok()) return absl::InternalError("the query compiled");
  return q.status();
}

// ------------------------------------------------------------- nesting

TEST(BadQueryTest, TenThousandNestedParenthesesStopAtTheDepthLimit) {
  const std::string text = "select count($line) where " +
                           std::string(10000, '(') + "x > 1" +
                           std::string(10000, ')');
  const absl::Status s = CompileError(text);
  // The 65th '(' (offset 26 + 64) is underlined; the snippet is cut to 96
  // bytes around it.
  EXPECT_THAT(
      s, StatusIs(kInvalid,
                  Eq("1:91: nesting deeper than 64 levels\n"
                     "..." +
                     std::string(96, '(') + "...\n" + std::string(51, ' ') +
                     "^\n"
                     "hint: raise CompileOptions::max_depth, or "
                     "simplify the expression")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{90, 1, 1, 91}));
}

TEST(BadQueryTest, NestingExactlyAtTheLimitCompiles) {
  const std::string text = "select count($line) where " + std::string(64, '(') +
                           "x > 1" + std::string(64, ')');
  EXPECT_OK(Query::Compile(text));
  EXPECT_THAT(
      CompileError("select count($line) where " + std::string(65, '(') +
                   "x > 1" + std::string(65, ')')),
      StatusIs(kInvalid, StartsWith("1:91: nesting deeper than 64 levels\n")));
}

TEST(BadQueryTest, RaisedMaxDepthIsCappedAtAThousandLevels) {
  // Regression: with max_depth = 20000, 10,000 parentheses overflowed the
  // stack (about 1 KiB per level in a debug build) and crashed the host.
  // Any max_depth above 1000 now acts as 1000 (mapr/options.h).
  const std::string text = "select count($line) where " +
                           std::string(10000, '(') + "x > 1" +
                           std::string(10000, ')');
  for (const size_t max_depth : {size_t{1001}, size_t{20000}, SIZE_MAX}) {
    SCOPED_TRACE(max_depth);
    CompileOptions options;
    options.max_depth = max_depth;
    const absl::Status s = CompileError(text, options);
    // The 1001st '(' (offset 26 + 1000) is underlined.
    EXPECT_THAT(
        s, StatusIs(kInvalid,
                    Eq("1:1027: nesting deeper than 1000 levels\n"
                       "..." +
                       std::string(96, '(') + "...\n" + std::string(51, ' ') +
                       "^\n"
                       "hint: raise CompileOptions::max_depth, or "
                       "simplify the expression")));
    EXPECT_EQ(GetSourceSpan(s), (SourceSpan{1026, 1, 1, 1027}));
  }
  // A thousand levels of each kind compile under the raised limit.
  CompileOptions options;
  options.max_depth = SIZE_MAX;
  EXPECT_OK(Query::Compile("select count($line) where " +
                               std::string(1000, '(') + "x > 1" +
                               std::string(1000, ')'),
                           options));
  std::string nots = "select count($line) where ";
  for (int i = 0; i < 1000; ++i) nots += "not ";
  EXPECT_OK(Query::Compile(nots + "x > 1", options));
  std::string calls = "select $m set $m = ";
  for (int i = 0; i < 1000; ++i) calls += "md5sum(";
  EXPECT_OK(Query::Compile(calls + "x" + std::string(1000, ')'), options));
}

// ------------------------------------------------------------- size limits

TEST(BadQueryTest, OneMegabyteLiteralExceedsMaxQueryBytes) {
  const std::string literal(1 << 20, 'a');
  const std::string text =
      "select count($line) group by * where $line eq \"" + literal + "\"";
  ASSERT_EQ(text.size(), 1048624u);
  const absl::Status s = CompileError(text);
  // The snippet shows the first 200 bytes, cut to 96 columns.
  EXPECT_THAT(s,
              StatusIs(kInvalid,
                       Eq("1:1: query is 1048624 bytes, more than the limit of "
                          "65536\n"
                          "select count($line) group by * where $line eq \"" +
                          std::string(96 - 47, 'a') +
                          "...\n"
                          "^\n"
                          "hint: raise CompileOptions::max_query_bytes")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{0, 0, 1, 1}));
}

TEST(BadQueryTest, OneMegabyteLiteralWorksWithARaisedLimit) {
  const std::string literal(1 << 20, 'a');
  const std::string text =
      "select count($line) group by * where $line eq \"" + literal + "\"";
  CompileOptions options;
  options.max_query_bytes = 2 << 20;
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(text, options));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  // The line equal to the literal is exactly max_line_bytes (1 MiB) long,
  // so it is not too long; the one byte longer line is.
  const std::string longer = literal + "a";
  const std::vector<std::string_view> lines = {literal, "a", longer};
  ASSERT_OK(agg.PushLines(lines));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "count($line)\n1\n");
  EXPECT_EQ(r.stats().lines_read, 3u);
  EXPECT_EQ(r.stats().lines_too_long, 1u);
  EXPECT_EQ(r.stats().lines_filtered, 1u);
  EXPECT_EQ(r.stats().lines_aggregated, 1u);
}

TEST(BadQueryTest, TenThousandSelectItemsStopAtMaxItems) {
  // f0,f1,...,f9999 is 58896 bytes: under max_query_bytes, so the item
  // limit is what stops it, at the 1025th item.
  std::string text = "select f0";
  for (int i = 1; i < 10000; ++i) text += ",f" + std::to_string(i);
  ASSERT_EQ(text.size(), 58896u);
  const absl::Status s = CompileError(text);
  const size_t offset = text.find(",f1024,") + 1;
  ASSERT_EQ(offset, 5041u);
  EXPECT_THAT(s,
              StatusIs(kInvalid, Eq("1:5042-5046: more than 1024 select items\n"
                                    "..." +
                                    text.substr(offset - 48, 96) + "...\n" +
                                    std::string(51, ' ') +
                                    "^~~~~\n"
                                    "hint: raise CompileOptions::max_items")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{5041, 5, 1, 5042}));
}

TEST(BadQueryTest, ManySelectItemsWorkWithARaisedLimit) {
  // 2048 items, not 10,000: the planner's slot lookup and the generickv
  // parser's duplicate check are quadratic in the item count (about 2 s for
  // 10,000 items in a debug build), and this test must stay fast.
  constexpr int kItems = 2048;
  std::string text = "select f0";
  for (int i = 1; i < kItems; ++i) text += ",f" + std::to_string(i);
  text += " group by * logformat generickv";
  CompileOptions options;
  options.max_items = kItems;
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(text, options));
  EXPECT_THAT(q.column_names(), SizeIs(kItems));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  const std::vector<std::string_view> lines = {"f0=a|f2047=z"};
  ASSERT_OK(agg.PushLines(lines));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable result, agg.TakeResult());
  ASSERT_EQ(result.num_rows(), 1u);
  EXPECT_EQ(result.cell(0, 0), "a");
  EXPECT_EQ(result.cell(0, 1), "");
  EXPECT_EQ(result.cell(0, kItems - 1), "z");
  // One more item than the raised limit is an error again.
  options.max_items = kItems - 1;
  const absl::Status s = CompileError(text, options);
  const size_t offset = text.find(",f2047 ") + 1;
  EXPECT_THAT(s, StatusIs(kInvalid, StartsWith(absl::StrCat(
                                        "1:", offset + 1, "-", offset + 5,
                                        ": more than 2047 select items\n"))));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{offset, 5, 1, offset + 1}));
}

// ------------------------------------------------------------- unterminated

TEST(BadQueryTest, UnterminatedQuoteUnderlinesToTheEnd) {
  const absl::Status s =
      CompileError("select count($line) where $line eq \"abc");
  EXPECT_THAT(
      s, StatusIs(kInvalid, Eq("1:36-39: unterminated string\n"
                               "select count($line) where $line eq \"abc\n"
                               "                                   ^~~~\n"
                               "hint: strings have no escapes and end at the "
                               "next '\"'")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{35, 4, 1, 36}));
}

TEST(BadQueryTest, UnterminatedBacktickUnderlinesToTheEnd) {
  const absl::Status s = CompileError("select count(`abc) group by x");
  EXPECT_THAT(s,
              StatusIs(kInvalid, Eq("1:14-29: unterminated backtick name\n"
                                    "select count(`abc) group by x\n"
                                    "             ^~~~~~~~~~~~~~~~\n"
                                    "hint: a backticked name must end with a "
                                    "backtick")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{13, 16, 1, 14}));
}

// ------------------------------------------------------------- unknown names

TEST(BadQueryTest, UnknownFunctionListsTheKnownOnes) {
  const absl::Status s = CompileError("select $m set $m = foo($time)");
  EXPECT_THAT(
      s,
      StatusIs(kInvalid,
               Eq("1:20-22: unknown function 'foo'\n"
                  "select $m set $m = foo($time)\n"
                  "                   ^~~\n"
                  "hint: known functions: md5sum, maskdigits, regex, "
                  "time, bucket, window, duration, bytes, lower, upper, len, "
                  "substr, split, format_time, template, cidr, ip_in, "
                  "lookup, coalesce, isnull")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{19, 3, 1, 20}));
}

TEST(BadQueryTest, UnknownAggregationSuggestsTheClosest) {
  const absl::Status s = CompileError("select avgg(x)");
  EXPECT_THAT(s, StatusIs(kInvalid, Eq("1:8-11: unknown aggregation 'avgg'\n"
                                       "select avgg(x)\n"
                                       "       ^~~~\n"
                                       "hint: did you mean 'avg'?")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{7, 4, 1, 8}));
}

TEST(BadQueryTest, UnknownClauseKeywordAfterAValueClause) {
  const absl::Status s = CompileError("select count($line) limit 5 grup by x");
  EXPECT_THAT(s, StatusIs(kInvalid, Eq("1:29-32: unexpected 'grup'\n"
                                       "select count($line) limit 5 grup by x\n"
                                       "                            ^~~~\n"
                                       "hint: did you mean 'group'?")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{28, 4, 1, 29}));
}

TEST(BadQueryTest, UnknownFirstClauseKeyword) {
  const absl::Status s = CompileError("selct count($line)");
  EXPECT_THAT(s, StatusIs(kInvalid,
                          Eq("1:1-5: expected a clause keyword, found 'selct'\n"
                             "selct count($line)\n"
                             "^~~~~\n"
                             "hint: did you mean 'select'?")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{0, 5, 1, 1}));
}

TEST(BadQueryTest, MisspelledKeywordInsideSelectIsAField) {
  // Whitespace separates select items (docs/query-language.md, "Words,
  // names and literals"), so a misspelled clause keyword after `select` is
  // read as more fields, as in DTail: not an error, three extra columns.
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line) grup by x"));
  EXPECT_THAT(q.column_names(), ElementsAre("count($line)", "grup", "by", "x"));
  EXPECT_EQ(q.ToString(), "select count($line),grup,by,x");
}

TEST(BadQueryTest, UnknownLogFormatListsTheKnownOnes) {
  const absl::Status s = CompileError("select count($line) logformat nope");
  EXPECT_THAT(s,
              StatusIs(kInvalid,
                       Eq("1:31-34: unknown log format 'nope'\n"
                          "select count($line) logformat nope\n"
                          "                              ^~~~\n"
                          "hint: known log formats: auto, clf, combined, csv, "
                          "default, fields, generic, generickv, journal, json, "
                          "jsonl, logfmt, ndjson, pattern, regex, syslog")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{30, 4, 1, 31}));
}

// ------------------------------------------------------------- NUL bytes

TEST(BadQueryTest, NulBetweenClausesIsAControlCharacterError) {
  const absl::Status s =
      CompileError(std::string_view("select count($line)\0 group by x", 31));
  // The NUL is shown as a space in the snippet and named by its code.
  EXPECT_THAT(
      s, StatusIs(kInvalid, Eq("1:20: unexpected control character 0x00\n"
                               "select count($line)  group by x\n"
                               "                   ^\n"
                               "hint: a query may not contain control "
                               "characters; only spaces, tabs and newlines "
                               "separate words")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{19, 1, 1, 20}));
}

TEST(BadQueryTest, NulAsTheFirstByteIsAControlCharacterError) {
  const absl::Status s =
      CompileError(std::string_view("\0select count($line)", 20));
  EXPECT_THAT(
      s, StatusIs(kInvalid, Eq("1:1: expected a clause keyword, found control "
                               "character 0x00\n"
                               " select count($line)\n"
                               "^\n"
                               "hint: a query may not contain control "
                               "characters; only spaces, tabs and newlines "
                               "separate words")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{0, 1, 1, 1}));
}

TEST(BadQueryTest, NulInsideAStringLiteralIsKeptVerbatim) {
  // Strings have no escapes and end only at the next '"'
  // (docs/query-language.md, "Words, names and literals"), so a NUL inside
  // one is part of the literal and matches the same bytes in a line.
  const std::string_view text(
      "select count($line) group by * where $line eq \"a\0b\"", 51);
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(text));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  const std::vector<std::string_view> lines = {
      std::string_view("a\0b", 3), "ab", "a", std::string_view("a\0c", 3)};
  ASSERT_OK(agg.PushLines(lines));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "count($line)\n1\n");
  EXPECT_EQ(r.stats().lines_filtered, 3u);
}

// ------------------------------------------------------------- regexes

TEST(BadQueryTest, PatternOverTheMemoryBound) {
  // 1000 repetitions of "any Unicode letter": RE2 needs more than 8 MiB.
  const absl::Status s =
      CompileError("select count($line) where $line =~ '\\pL{1000}'");
  EXPECT_THAT(s, StatusIs(kInvalid,
                          Eq("1:36-46: regular expression needs more than "
                             "8388608 bytes to compile (RE2: pattern too large "
                             "- compile failed)\n"
                             "select count($line) where $line =~ '\\pL{1000}'\n"
                             "                                   ^~~~~~~~~~~\n"
                             "hint: raise CompileOptions::max_regex_memory, or "
                             "simplify the pattern")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{35, 11, 1, 36}));
  // The bound is CompileOptions::max_regex_memory.
  CompileOptions options;
  options.max_regex_memory = 4 << 10;
  EXPECT_THAT(
      CompileError("select $v set $v = regex($line, '\\pL{10}')", options),
      StatusIs(kInvalid, StartsWith("1:33-41: regular expression needs "
                                    "more than 4096 bytes")));
}

TEST(BadQueryTest, InvalidPatternQuotesRe2) {
  const absl::Status s =
      CompileError("select count($line) logformat regex '(?P<a>x'");
  EXPECT_THAT(s, StatusIs(kInvalid,
                          Eq("1:37-45: invalid regular expression: missing ): "
                             "(?P<a>x\n"
                             "select count($line) logformat regex '(?P<a>x'\n"
                             "                                    ^~~~~~~~~\n"
                             "hint: patterns are RE2 syntax: "
                             "https://github.com/google/re2/wiki/Syntax")));
  // Lookbehind and backreferences are not RE2.
  EXPECT_THAT(CompileError("select a where a =~ '(?<=x)y'"),
              StatusIs(kInvalid, StartsWith("1:21-29: invalid regular "
                                            "expression: invalid perl "
                                            "operator: (?<")));
  EXPECT_THAT(CompileError("select a where a =~ '(a)\\1'"),
              StatusIs(kInvalid, StartsWith("1:21-27: invalid regular "
                                            "expression: invalid escape "
                                            "sequence: \\1")));
}

TEST(BadQueryTest, UnterminatedRawString) {
  const absl::Status s = CompileError("select a where a =~ 'abc");
  EXPECT_THAT(s, StatusIs(kInvalid, Eq("1:21-24: unterminated string\n"
                                       "select a where a =~ 'abc\n"
                                       "                    ^~~~\n"
                                       "hint: 'raw strings' have no escapes "
                                       "and end at the next \"'\"")));
}

}  // namespace
}  // namespace mapr
