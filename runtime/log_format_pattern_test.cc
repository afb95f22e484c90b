// `logformat pattern '...'`: captures, skips, anchoring, unmatched lines,
// the pattern's errors, and agreement with the same pattern as a regex.
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

namespace mapr {
namespace {

using ::mapr::testing::TestFieldBatch;
using ::testing::ElementsAre;
using ::testing::Pair;

using Row = ::mapr::testing::ParsedRow;  // "<missing>" when not set.

std::vector<Row> Parse(std::string_view pattern,
                       const std::vector<std::string>& fields,
                       const std::vector<std::string>& lines) {
  absl::StatusOr<std::shared_ptr<const LogFormat>> format =
      FindLogFormat("pattern")->Configure(pattern, FormatOptions());
  EXPECT_TRUE(format.ok()) << format.status();
  absl::StatusOr<std::unique_ptr<LogFormatParser>> parser =
      (*format)->NewParser(fields);
  EXPECT_TRUE(parser.ok());
  TestFieldBatch batch(fields.size());
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return ::mapr::testing::ParseRows(**parser, batch, fields, views,
                                    {.mark_missing = true});
}

constexpr std::string_view kAccess =
    "<ip> - <user> [<time>] \"<method> <path> <_>\" <status> <bytes>";

TEST(PatternFormatTest, CapturesUpToTheNextLiteral) {
  const std::vector<Row> rows = Parse(
      kAccess, {"ip", "user", "time", "method", "path", "status", "bytes", "x"},
      {R"(127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326)",
       // The last capture takes the rest of the line.
       R"(::1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 304 0 "-" "curl")",
       // Empty captures are empty values, not missing.
       R"( - bob [] " /x " 500 )",
       // A literal is missing: unmatched.
       R"(10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] GET / 200 1)",
       "not an access line"});
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[0].fields,
              ElementsAre(Pair("bytes", "2326"), Pair("ip", "127.0.0.1"),
                          Pair("method", "GET"), Pair("path", "/apache_pb.gif"),
                          Pair("status", "200"),
                          Pair("time", "10/Oct/2000:13:55:36 -0700"),
                          Pair("user", "frank"), Pair("x", "<missing>")));
  EXPECT_EQ(rows[1].fields.at("bytes"), "0 \"-\" \"curl\"");
  EXPECT_EQ(rows[1].fields.at("user"), "-");
  EXPECT_EQ(rows[2].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[2].fields.at("ip"), "");
  EXPECT_EQ(rows[2].fields.at("time"), "");
  EXPECT_EQ(rows[2].fields.at("method"), "");
  EXPECT_EQ(rows[2].fields.at("path"), "/x");
  EXPECT_EQ(rows[2].fields.at("bytes"), "");
  EXPECT_EQ(rows[3].outcome, LineOutcome::kUnmatched);
  EXPECT_EQ(rows[3].fields.at("ip"), "<missing>");
  EXPECT_EQ(rows[4].outcome, LineOutcome::kUnmatched);
}

TEST(PatternFormatTest, AnchoredAtTheStartTrailingTextIgnored) {
  // A leading literal must start the line; after the last literal the
  // rest is ignored; `<14>` is text, not a capture.
  const std::vector<Row> rows =
      Parse("<14>user=<user> id=<id>;", {"user", "id"},
            {"<14>user=ann id=7; and more", "x <14>user=ann id=7;",
             "<14>user=ann id=7", "<14>user=a id=b;c;"});
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_EQ(rows[0].fields.at("user"), "ann");
  EXPECT_EQ(rows[0].fields.at("id"), "7");
  EXPECT_EQ(rows[1].outcome, LineOutcome::kUnmatched);
  EXPECT_EQ(rows[2].outcome, LineOutcome::kUnmatched);
  EXPECT_EQ(rows[3].fields.at("id"), "b");  // The first ';'.
  // Multi-byte literals.
  const std::vector<Row> longer =
      Parse("<a> -> <b> => <c>", {"a", "b", "c"}, {"x - y -> z => w -> v"});
  EXPECT_EQ(longer[0].fields.at("a"), "x - y");
  EXPECT_EQ(longer[0].fields.at("b"), "z");
  EXPECT_EQ(longer[0].fields.at("c"), "w -> v");
}

TEST(PatternFormatTest, BadPatternsAreQueryErrors) {
  const struct {
    std::string_view query, message;
  } kCases[] = {
      {"select a logformat pattern",
       "1:20-26: log format 'pattern' needs a pattern: logformat pattern "
       "'<ip> - <user> [<time>] \"<method> <path> <_>\" <status> <bytes>'\n"
       "select a logformat pattern\n"
       "                   ^~~~~~~"},
      {"select a logformat pattern '<a><b>'",
       "1:28-35: the pattern has two captures with no text between them, "
       "before <b>: where the first ends is unknown; put the text that "
       "separates them between\n"
       "select a logformat pattern '<a><b>'\n"
       "                           ^~~~~~~~"},
      {"select a logformat pattern '<a> <a>'",
       "1:28-36: the pattern names <a> twice; use <_> to skip text\n"
       "select a logformat pattern '<a> <a>'\n"
       "                           ^~~~~~~~~"},
      {"select a logformat pattern 'x <_> y'",
       "1:28-36: the pattern of log format 'pattern' captures nothing; name "
       "the parts to extract as <name>: logformat pattern '<ip> - <user> "
       "[<time>] \"<method> <path> <_>\" <status> <bytes>'\n"
       "select a logformat pattern 'x <_> y'\n"
       "                           ^~~~~~~~~"},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<Query> q = Query::Compile(c.query);
    ASSERT_FALSE(q.ok()) << c.query;
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(q.status().message()), c.message) << c.query;
  }
}

// The same extraction as a regex of non-greedy captures anchored at the
// start gives the same result on random lines of the pattern's alphabet.
TEST(PatternFormatTest, AgreesWithTheEquivalentRegex) {
  const std::string pattern = "<a> [<b>] \"<c>\" <_> <d>";
  const std::string regex =
      R"re(^(?s)(?P<a>.*?) \[(?P<b>.*?)\] "(?P<c>.*?)" .*? (?P<d>.*)$)re";
  std::mt19937 rng(11);
  const std::string alphabet = " []\"ab";
  std::vector<std::string> lines;
  auto text = [&](size_t most) {
    std::string t;
    const size_t n = rng() % (most + 1);
    for (size_t k = 0; k < n; ++k) t.push_back(alphabet[rng() % 6]);
    return t;
  };
  lines.reserve(3000);
  for (int i = 0; i < 3000; ++i) {
    // Half of the lines in the pattern's shape (with its literals inside
    // the parts too), half anything.
    lines.push_back(i % 2 == 0 ? text(4) + " [" + text(4) + "] \"" + text(4) +
                                     "\" " + text(4) + " " + text(4)
                               : text(24));
  }
  auto run = [&](const std::string& query) {
    absl::StatusOr<ResultTable> r =
        RunQuery(query, std::span<const std::string>(lines));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->ToCsv() : "";
  };
  const std::string select =
      "select a, b, c, d, count($line) group by a, b, c, d ";
  const std::string via_pattern =
      run(select + "logformat pattern '" + pattern + "'");
  EXPECT_EQ(via_pattern, run(select + "logformat regex '" + regex + "'"));
  EXPECT_GT(std::count(via_pattern.begin(), via_pattern.end(), '\n'), 20);
}

}  // namespace
}  // namespace mapr
