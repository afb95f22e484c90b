// logformat auto: what each line is read as, the guess over a sample, and
// results equal to those of each format over its own lines.
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/format_guess.h"
#include "mapr/query.h"

namespace mapr {
namespace {

struct Sample {
  std::string_view format, line;
};

// Lines of every format auto knows, each with the format it must pick.
constexpr Sample kSamples[] = {
    {"json", R"x({"status":200,"path":"/a","user":{"id":7}})x"},
    {"json", R"x(  {"msg":"padded"}  )x"},
    {"journal",
     R"x({"__CURSOR":"s=1;i=2","__REALTIME_TIMESTAMP":"1700000000000000","MESSAGE":"started"})x"},
    {"json", R"x({"MESSAGE":"__REALTIME_TIMESTAMP is a word"})x"},
    {"syslog",
     "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - "
     "ID47 - 'su root' failed for lonvick on /dev/pts/8"},
    {"syslog", "<13>Feb  5 17:32:18 10.0.0.99 myapp: Use the BFG!"},
    {"syslog",
     "Dec 10 06:55:46 LabSZ sshd[24200]: Failed password for root "
     "from 173.234.31.186 port 38926 ssh2"},
    {"syslog", "2024-05-01T12:00:00.123456+02:00 web1 nginx[42]: started"},
    {"default",
     "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
     "MAPREDUCE:STATS|currentConnections=0"},
    {"default", "WARN|1002-071143|1|stats.go:56|8|13|7|0.21|1h|a message"},
    {"combined",
     R"x(127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)")x"},
    {"combined",
     R"x(192.0.2.7 - - [10/Oct/2000:13:56:02 -0700] "GET /a\"b HTTP/1.1" 404 209 "-" "Mozilla/5.0")x"},
    {"clf",
     R"x(2001:db8::1 - - [10/Oct/2000:13:56:01 -0700] "GET /x HTTP/1.1" 304 -)x"},
    {"generickv", "path=/api|status=200|ms=12"},
    {"generickv", "a=1|b"},
    {"logfmt", "at=info method=GET path=/ host=example.com status=200"},
    {"logfmt", R"x(time="2024-05-01 12:00:00" level=warn msg="a|b c")x"},
    {"logfmt", "k=v"},
    {"generic", "just some text"},
    {"generic", "a,b,c"},
    {"generic", "=x"},
    {"generic", "{not json"},
    {"generic", "Dec 10 06:55:46"},
    {"generic", ""},
};

TEST(AutoFormatTest, EachLineByItsShape) {
  for (const Sample& s : kSamples) {
    EXPECT_EQ(AutoFormatOf(s.line), s.format) << s.line;
  }
}

TEST(AutoFormatTest, GuessNamesThePickAndTheRunnerUp) {
  FormatGuess none = GuessLogFormat({});
  EXPECT_EQ(none.format, "");
  EXPECT_EQ(none.sampled, 0u);
  const std::vector<std::string_view> lines = {
      "a=1 b=2", "", "  ", R"({"a":1})", "c=3 d=4", R"({"b":2})", "x=1|y=2"};
  FormatGuess g = GuessLogFormat(lines);
  // json and logfmt tie at 2: the one listed first wins.
  EXPECT_EQ(g.format, "json");
  EXPECT_EQ(g.lines, 2u);
  EXPECT_EQ(g.runner_up, "logfmt");
  EXPECT_EQ(g.runner_up_lines, 2u);
  EXPECT_EQ(g.sampled, 5u);
  g = GuessLogFormat(std::vector<std::string_view>{"a=1 b=2"});
  EXPECT_EQ(g.format, "logfmt");
  EXPECT_EQ(g.runner_up, "");
  EXPECT_EQ(g.evidence, "key=value pairs separated by spaces (logfmt)");
}

std::string Csv(const std::string& query,
                const std::vector<std::string>& lines) {
  absl::StatusOr<ResultTable> r =
      RunQuery(query, std::span<const std::string>(lines));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->ToCsv() : "";
}

// The counts of "key,count" rows.
std::map<std::string, int> Counts(const std::string& csv) {
  std::map<std::string, int> out;
  size_t at = csv.find('\n') + 1;
  while (at < csv.size()) {
    const size_t end = csv.find('\n', at);
    const std::string row = csv.substr(at, end - at);
    const size_t comma = row.rfind(',');
    out[row.substr(0, comma)] += std::stoi(row.substr(comma + 1));
    at = end + 1;
  }
  return out;
}

// Mixed lines in any order give, per group, the sum of what each format
// gives over its own lines; one format's lines alone take the fast path
// and give that format's own result.
TEST(AutoFormatTest, ResultsAreEachFormatsOwn) {
  std::map<std::string, std::vector<std::string>> by_format;
  std::vector<std::string> mixed;
  for (const Sample& s : kSamples) {
    if (s.line.empty()) continue;
    by_format[std::string(s.format)].emplace_back(s.line);
    mixed.emplace_back(s.line);
  }
  const std::string query =
      "select status, count($line) group by status logformat ";
  std::map<std::string, int> want;
  for (const auto& [format, lines] : by_format) {
    EXPECT_EQ(Csv(query + "auto", lines), Csv(query + format, lines)) << format;
    for (const auto& [key, n] : Counts(Csv(query + format, lines))) {
      want[key] += n;
    }
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(mixed.begin(), mixed.end(), rng);
    EXPECT_EQ(Counts(Csv(query + "auto", mixed)), want);
  }
}

}  // namespace
}  // namespace mapr
