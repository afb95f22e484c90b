// End-to-end golden tests through the public API (Query, Aggregator,
// ResultTable):
//
//  * DtailGoldenTest: DTail's integration vectors (tests/golden/dtail/, see
//    its README and NOTICE), the end-to-end probes DTail's behaviour was
//    checked with, and the journal and multi-server cases of DTail's
//    integration tests.
//  * GoldenFileTest: one test per `tests/golden/*.test` file, found at run
//    time. The format (DuckDB's .test files, mtail's .golden files):
//
//      # name: avg_divides_by_field_count
//      # description: avg = sum / number of numeric values.
//      # stats: lines_read=4 lines_aggregated=4
//      query from STATS select avg(x),count($line) group by $hostname
//      input
//      INFO|1002-071143|1|a.go:1|8|13|7|0.21|1h|MAPREDUCE:STATS|x=10
//      ...
//      ----
//      avg(x),count($line)
//      15.000000,4
//
//    `# name:` (equal to the file name without `.test`) and
//    `# description:` are required; `# stats:` optionally checks
//    LineCounters fields by name. `query` is one line. Each `input` line
//    starts the lines of a new input source (its own SourceId); with
//    `input escaped` the lines may use \r \n \t \0 \\ and \xHH. Every line up
//    to the next directive is a log line, blank ones included. `partial`
//    starts a new Aggregator; partials are merged in file order (the later
//    one's lines come later). Everything after the `----` line is the
//    expected ToCsv() output, byte for byte. Each case also runs once more
//    with every line pushed as its own batch, which must not change the
//    result.
//
// The hostname is always "integrationtest", as in DTail's test mode.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/status_matchers.h"
#include "util/strings.h"

#ifndef MAPR_TESTDATA_DIR
#error "MAPR_TESTDATA_DIR must name the copy of DTail's golden vectors"
#endif
#ifndef MAPR_GOLDEN_DIR
#error "MAPR_GOLDEN_DIR must name the directory holding the .test files"
#endif

namespace mapr {
namespace {

using ::mapr::util::ToAbsl;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kHostname[] = "integrationtest";

AggregatorOptions TestOptions() {
  AggregatorOptions options;
  options.hostname = kHostname;
  return options;
}

absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path.string()));
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::filesystem::path DtailPath(std::string_view name) {
  return std::filesystem::path(MAPR_TESTDATA_DIR) / std::string(name);
}

absl::StatusOr<std::string> ReadDtail(std::string_view name) {
  return ReadFile(DtailPath(name));
}

// The lines of `text` as views into it; a final '\n' ends the last line.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Splits `s` at every `sep`, keeping empty pieces.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) {
      pieces.push_back(s.substr(start));
      return pieces;
    }
    pieces.push_back(s.substr(start, end - start));
    start = end + 1;
  }
}

bool ParseUint(std::string_view s, uint64_t* out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  return !s.empty() && ec == std::errc() && ptr == end;
}

std::multiset<std::string> LineMultiset(std::string_view text) {
  std::multiset<std::string> out;
  for (std::string_view line : Lines(text)) out.emplace(line);
  return out;
}

// Compiles `query`, pushes each of `sources` as its own SourceId (0, 1, ...)
// into one aggregator, finishes and returns the result.
absl::StatusOr<ResultTable> RunSources(
    std::string_view query,
    const std::vector<std::vector<std::string_view>>& sources) {
  absl::StatusOr<Query> q = Query::Compile(query);
  if (!q.ok()) return q.status();
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, TestOptions());
  if (!agg.ok()) return agg.status();
  for (size_t i = 0; i < sources.size(); ++i) {
    absl::Status s = agg->PushLines(sources[i], i);
    if (!s.ok()) return s;
  }
  absl::Status s = agg->FinishInput();
  if (!s.ok()) return s;
  return agg->TakeResult();
}

absl::StatusOr<ResultTable> RunOnce(
    std::string_view query, const std::vector<std::string_view>& lines) {
  return RunSources(query, {lines});
}

// ------------------------------------------------------- DTail vectors

class DtailGoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> log = ReadDtail("mapr_testdata.log");
    ASSERT_OK(log);
    log_ = *std::move(log);
    lines_ = Lines(log_);
    ASSERT_EQ(lines_.size(), 597u);
  }

  // Runs the query from `query_file` (DTail's raw query, outfile clause
  // included) over the test log once and compares with `expected_file`
  // exactly.
  void ExpectExactVector(std::string_view query_file,
                         std::string_view expected_file) {
    ASSERT_OK_AND_ASSIGN(std::string query, ReadDtail(query_file));
    ASSERT_OK_AND_ASSIGN(std::string expected, ReadDtail(expected_file));
    ASSERT_OK_AND_ASSIGN(ResultTable r, RunOnce(query, lines_));
    EXPECT_EQ(r.ToCsv(), expected) << query;
    EXPECT_EQ(r.stats().lines_read, 597u);
  }

  std::string log_;
  std::vector<std::string_view> lines_;
};

TEST_F(DtailGoldenTest, Dmap1aCountLastAvgMinMaxByHostname) {
  ExpectExactVector("dmap1a.csv.query.expected", "dmap1a.csv.expected");
}

TEST_F(DtailGoldenTest, Dmap1bWhereFloatComparison) {
  ExpectExactVector("dmap1b.csv.query.expected", "dmap1b.csv.expected");
}

TEST_F(DtailGoldenTest, Dmap1cWhereStringEquality) {
  ExpectExactVector("dmap1c.csv.query.expected", "dmap1c.csv.expected");
}

TEST_F(DtailGoldenTest, Dmap1dSetFunctionsAndLiterals) {
  ExpectExactVector("dmap1d.csv.query.expected", "dmap1d.csv.expected");
}

TEST_F(DtailGoldenTest, Dmap1aQueryKeepsItsOutfileClause) {
  ASSERT_OK_AND_ASSIGN(std::string query,
                       ReadDtail("dmap1a.csv.query.expected"));
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(query));
  EXPECT_EQ(q.text(), query);
  EXPECT_EQ(q.outfile(), "dmap1a.csv.tmp");
  EXPECT_FALSE(q.outfile_append());
  EXPECT_EQ(q.log_format(), "default");
}

// Rows follow DTail's fork: descending count, ties in ascending key order
// (docs/query-language.md, "order by"). The expected file holds an older,
// random order, so it is compared as a multiset and the order is checked
// separately.
void ExpectDescendingCountThenKey(const ResultTable& r) {
  for (size_t i = 1; i < r.num_rows(); ++i) {
    double prev = r.value(i - 1, 0), cur = r.value(i, 0);
    EXPECT_GE(prev, cur) << "row " << i;
    if (prev == cur) {
      EXPECT_LT(r.cell(i - 1, 1), r.cell(i, 1)) << "row " << i;
    }
  }
}

TEST_F(DtailGoldenTest, Dmap2GroupByTimeOrderByCount) {
  ASSERT_OK_AND_ASSIGN(std::string query,
                       ReadDtail("dmap2.csv.query.expected"));
  ASSERT_OK_AND_ASSIGN(std::string expected, ReadDtail("dmap2.csv.expected"));
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunOnce(query, lines_));
  EXPECT_EQ(LineMultiset(r.ToCsv()), LineMultiset(expected));
  EXPECT_EQ(r.num_rows(), 203u);
  ExpectDescendingCountThenKey(r);
  // The fork's deterministic order of the first rows.
  ASSERT_GE(r.num_rows(), 4u);
  EXPECT_EQ(r.cell(1, 1), "1002-071143");
  EXPECT_EQ(r.cell(2, 1), "1002-071213");
}

TEST_F(DtailGoldenTest, Dmap3HundredCopiesMultiplyCounts) {
  // The fork's query text: `desc` after the order key (which DTail
  // ignores and mapr reads as the default direction).
  constexpr std::string_view kQuery =
      "from STATS select count($time),$time,max($goroutines),"
      "avg($goroutines),min($goroutines) group by $time "
      "order by count($time) desc outfile dmap3.csv.tmp";
  ASSERT_OK_AND_ASSIGN(std::string expected, ReadDtail("dmap3.csv.expected"));
  std::vector<std::vector<std::string_view>> sources(100, lines_);
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunSources(kQuery, sources));
  EXPECT_EQ(LineMultiset(r.ToCsv()), LineMultiset(expected));
  EXPECT_EQ(r.stats().lines_read, 59700u);
  EXPECT_EQ(r.stats().lines_aggregated, 59700u);
  ExpectDescendingCountThenKey(r);
}

TEST_F(DtailGoldenTest, Dmap3QueryFileGivesTheSameResult) {
  ASSERT_OK_AND_ASSIGN(std::string query,
                       ReadDtail("dmap3.csv.query.expected"));
  ASSERT_OK_AND_ASSIGN(std::string expected, ReadDtail("dmap3.csv.expected"));
  std::vector<std::vector<std::string_view>> sources(100, lines_);
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunSources(query, sources));
  EXPECT_EQ(LineMultiset(r.ToCsv()), LineMultiset(expected));
}

TEST_F(DtailGoldenTest, Dmap4Query1SameAsDmap2) {
  constexpr std::string_view kQuery =
      "from STATS select count($time),$time,max($goroutines),"
      "avg($goroutines),min($goroutines) group by $time "
      "order by count($time) outfile dmap4_query1.csv.tmp";
  ASSERT_OK_AND_ASSIGN(std::string expected,
                       ReadDtail("dmap4_query1.csv.expected"));
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunOnce(kQuery, lines_));
  EXPECT_EQ(LineMultiset(r.ToCsv()), LineMultiset(expected));
}

TEST_F(DtailGoldenTest, Dmap5CsvBacktickFieldsIntoSetVariables) {
  // The upstream query text, with its stray comma after the last item.
  ASSERT_OK_AND_ASSIGN(std::string query,
                       ReadDtail("dmap5.csv.query.expected"));
  ASSERT_OK_AND_ASSIGN(std::string input, ReadDtail("dmap5.csv.in"));
  ASSERT_OK_AND_ASSIGN(std::string expected, ReadDtail("dmap5.csv.expected"));
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunOnce(query, Lines(input)));
  EXPECT_EQ(r.ToCsv(), expected);
  EXPECT_EQ(r.stats().lines_header, 1u);
  EXPECT_EQ(r.stats().lines_aggregated, 3u);
}

TEST_F(DtailGoldenTest, DmapCsvMultifileOneHeaderPerSource) {
  ASSERT_OK_AND_ASSIGN(std::string a, ReadDtail("dmap_csv_multifile_a.csv.in"));
  ASSERT_OK_AND_ASSIGN(std::string b, ReadDtail("dmap_csv_multifile_b.csv.in"));
  ASSERT_OK_AND_ASSIGN(std::string expected,
                       ReadDtail("dmap_csv_multifile.csv.expected"));
  ASSERT_OK_AND_ASSIGN(
      ResultTable r, RunSources("select count($line) group by * logformat csv",
                                {Lines(a), Lines(b)}));
  EXPECT_EQ(r.ToCsv(), expected);
  EXPECT_EQ(r.ToCsv(), "count($line)\n5\n");
  EXPECT_EQ(r.stats().lines_header, 2u);
}

TEST_F(DtailGoldenTest, DmapCsvMultifileSameSourceReadsSecondHeaderAsData) {
  // The same SourceId shares one header, as the same file read twice does
  // in DTail: the second header row is data.
  ASSERT_OK_AND_ASSIGN(std::string a, ReadDtail("dmap_csv_multifile_a.csv.in"));
  ASSERT_OK_AND_ASSIGN(std::string b, ReadDtail("dmap_csv_multifile_b.csv.in"));
  std::vector<std::string_view> both = Lines(a);
  for (std::string_view line : Lines(b)) both.push_back(line);
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunOnce("select count($line) group by * logformat csv", both));
  EXPECT_EQ(r.ToCsv(), "count($line)\n6\n");
}

TEST_F(DtailGoldenTest, Dserver1ByteExact) {
  ASSERT_OK_AND_ASSIGN(std::string query,
                       ReadDtail("dserver1.csv.query.expected"));
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(query));
  EXPECT_EQ(q.outfile(), "./dserver1.csv.tmp");
  ExpectExactVector("dserver1.csv.query.expected", "dserver1.csv.expected");
}

TEST_F(DtailGoldenTest, Dserver2TailModeEachIntervalByteExact) {
  constexpr std::string_view kLine =
      "INFO|19801011-424242|1|dserver_test.go|1|1|1|1.0|1m|"
      "MAPREDUCE:INTEGRATIONTEST|foo=1|bar=42";
  ASSERT_OK_AND_ASSIGN(std::string query,
                       ReadDtail("dserver2.csv.query.expected"));
  ASSERT_OK_AND_ASSIGN(std::string expected,
                       ReadDtail("dserver2.csv.expected"));
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(query));
  EXPECT_EQ(q.interval_ms(), 1000);
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q, TestOptions()));
  // The test appends one line per second; the continuous job writes each
  // interval's (non-cumulative) result over the previous one.
  for (int interval = 0; interval < 3; ++interval) {
    std::vector<std::string_view> lines(interval == 2 ? 3 : 1, kLine);
    ASSERT_OK(agg.PushLines(lines));
    ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeDelta());
    EXPECT_EQ(r.ToCsv(), expected) << "interval " << interval;
    EXPECT_EQ(r.stats().lines_read, lines.size());
  }
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable last, agg.TakeResult());
  EXPECT_EQ(last.ToCsv(), "last($line),max(foo),min(bar)\n");
}

// ------------------------------------------------- DTail end-to-end probes

TEST_F(DtailGoldenTest, ProbeCountStarGivesOneRow) {
  ASSERT_OK_AND_ASSIGN(ResultTable r,
                       RunOnce("select count(*) group by *", lines_));
  EXPECT_EQ(r.ToCsv(), "count(*)\n597\n");
}

TEST_F(DtailGoldenTest, ProbeCountLineGroupsByLine) {
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunOnce("select count($line)", lines_));
  EXPECT_EQ(r.num_rows(), 395u);
  EXPECT_EQ(r.total_groups(), 395u);
  uint64_t total = 0;
  for (const ResultRow& row : r.CopyRows()) {
    uint64_t n = 0;
    ASSERT_TRUE(ParseUint(row.cells[0], &n)) << row.cells[0];
    total += n;
  }
  EXPECT_EQ(total, 597u);
}

TEST_F(DtailGoldenTest, ProbeLenIsLengthOfLastValue) {
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunOnce("from STATS select len($time),len($line),count($line) "
              "group by $hostname",
              lines_));
  EXPECT_EQ(r.ToCsv(),
            "len($time),len($line),count($line)\n"
            "11.000000,111.000000,597\n");
}

TEST_F(DtailGoldenTest, ProbeTwoFieldGroupsInKeyTupleOrder) {
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunOnce("from STATS select count($line),lifetimeConnections,"
              "currentConnections group by lifetimeConnections,"
              "currentConnections",
              lines_));
  std::vector<std::string> keys;
  for (const ResultRow& row : r.CopyRows()) {
    keys.push_back(absl::StrCat(row.cells[1], ",", row.cells[2]));
  }
  EXPECT_THAT(keys, ElementsAre("1,0", "1,1", "2,0", "2,1", "3,0", "3,1", "4,0",
                                "4,1", "5,0", "5,1", "6,1"));
}

TEST_F(DtailGoldenTest, ProbePercentageAndPercentileOfLifetimeConnections) {
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunOnce("from STATS select percentage(lifetimeConnections),"
              "percentile(lifetimeConnections),count($line),"
              "lifetimeConnections group by lifetimeConnections "
              "order by lifetimeConnections",
              lines_));
  ASSERT_EQ(r.num_rows(), 6u);
  bool found = false;
  for (const ResultRow& row : r.CopyRows()) {
    if (row.cells[3] != "3") continue;
    found = true;
    EXPECT_THAT(row.cells, ElementsAre("71.274298", "100.000000", "440", "3"));
  }
  EXPECT_TRUE(found);
  // Ordered by the last() value, descending.
  EXPECT_EQ(r.cell(0, 3), "6");
  EXPECT_EQ(r.cell(5, 3), "1");
}

TEST_F(DtailGoldenTest, MultiServerMergeTriplesCounts) {
  constexpr std::string_view kQuery =
      "from STATS select $time,count($line),avg($goroutines) group by $time "
      "order by count($line) desc limit 10";
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  ASSERT_OK_AND_ASSIGN(Aggregator total, Aggregator::Create(q, TestOptions()));
  ASSERT_OK(total.PushLines(lines_));
  for (int server = 1; server < 3; ++server) {
    ASSERT_OK_AND_ASSIGN(Aggregator partial,
                         Aggregator::Create(q, TestOptions()));
    ASSERT_OK(partial.PushLines(lines_));
    ASSERT_OK(total.Merge(std::move(partial)));
  }
  ASSERT_OK(total.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, total.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            "$time,count($line),avg($goroutines)\n"
            "1002-071147,69,14.391304\n"
            "1002-071143,60,15.000000\n"
            "1002-071213,60,14.100000\n"
            "1002-071948,33,14.272727\n"
            "1002-071912,30,15.000000\n"
            "1002-071913,30,13.000000\n"
            "1002-071921,27,13.333333\n"
            "1002-071920,21,15.000000\n"
            "1002-071922,12,12.500000\n"
            "1002-071146,9,11.000000\n");
  EXPECT_EQ(r.total_groups(), 203u);
}

TEST(DtailJournalTest, ThreeStatsLinesCountedPerHostname) {
  std::vector<std::string_view> lines = {
      "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
      "currentConnections=0|lifetimeConnections=1",
      "INFO|1002-071144|1|stats.go:56|8|13|7|0.21|471h0m22s|MAPREDUCE:STATS|"
      "currentConnections=1|lifetimeConnections=2",
      "INFO|1002-071145|1|stats.go:56|8|13|7|0.21|471h0m23s|MAPREDUCE:STATS|"
      "currentConnections=0|lifetimeConnections=2",
  };
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunOnce("from STATS select count($line),$hostname group by $hostname "
              "outfile journal.csv",
              lines));
  EXPECT_EQ(r.ToCsv(), "count($line),$hostname\n3,integrationtest\n");
}

TEST(DtailCopyTest, CopyMatchesSharedTestdata) {
#ifdef MAPR_SHARED_TESTDATA_DIR
  const std::filesystem::path shared(MAPR_SHARED_TESTDATA_DIR);
  std::error_code ec;
  if (!std::filesystem::is_directory(shared, ec)) {
    GTEST_SKIP() << shared << " is not present";
  }
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared)) {
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    ASSERT_OK_AND_ASSIGN(std::string original, ReadFile(entry.path()));
    absl::StatusOr<std::string> copy = ReadDtail(name);
    ASSERT_OK(copy) << name << " is missing from " << MAPR_TESTDATA_DIR;
    EXPECT_TRUE(*copy == original) << name << " differs from " << shared;
    ++compared;
  }
  EXPECT_GT(compared, 0);
#else
  GTEST_SKIP() << "MAPR_SHARED_TESTDATA_DIR is not defined";
#endif
}

// ---------------------------------------------------------- .test files

struct Source {
  uint64_t id = 0;
  std::vector<std::string> lines;
};

struct GoldenCase {
  std::string name;
  std::string description;
  std::map<std::string, uint64_t> stats;
  std::string query;
  std::vector<std::vector<Source>> partials;
  std::string expected;
};

// Decodes \r \n \t \0 \\ and \xHH.
absl::StatusOr<std::string> Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out.push_back(s[i]);
      continue;
    }
    if (++i == s.size()) return absl::InvalidArgumentError("trailing '\\'");
    switch (s[i]) {
      case 'r':
        out.push_back('\r');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case '0':
        out.push_back('\0');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case 'x': {
        int value = 0;
        if (i + 2 >= s.size()) {
          return absl::InvalidArgumentError("short \\x escape");
        }
        for (int k = 0; k < 2; ++k) {
          char c = s[++i];
          int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                      : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                      : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                                  : -1;
          if (digit < 0) return absl::InvalidArgumentError("bad \\x escape");
          value = value * 16 + digit;
        }
        out.push_back(static_cast<char>(value));
        break;
      }
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("unknown escape '\\", std::string(1, s[i]), "'"));
    }
  }
  return out;
}

absl::StatusOr<GoldenCase> ParseGoldenFile(std::string_view text) {
  GoldenCase c;
  const std::string_view kSeparator = "----\n";
  size_t sep = text.find(std::string("\n").append(kSeparator));
  if (text.substr(0, kSeparator.size()) == kSeparator) sep = 0;
  if (sep == std::string_view::npos) {
    return absl::InvalidArgumentError("no '----' line");
  }
  std::string_view head = text.substr(0, sep);
  c.expected = std::string(text.substr(sep + 1 + kSeparator.size()));

  enum class State { kHeader, kAfterQuery, kInput } state = State::kHeader;
  bool escaped = false;
  uint64_t next_source = 0;
  for (std::string_view line : Split(head, '\n')) {
    if (state == State::kHeader) {
      if (line.empty()) continue;
      if (line.substr(0, 1) == "#") {
        std::string_view body = line.substr(1);
        while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
        size_t colon = body.find(':');
        if (colon == std::string_view::npos) continue;  // A plain comment.
        std::string_view key = body.substr(0, colon);
        std::string_view value = body.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (key == "name") {
          c.name = std::string(value);
        } else if (key == "description") {
          c.description = std::string(value);
        } else if (key == "stats") {
          for (std::string_view pair : Split(value, ' ')) {
            if (pair.empty()) continue;
            size_t eq = pair.find('=');
            uint64_t n = 0;
            if (eq == std::string_view::npos ||
                !ParseUint(pair.substr(eq + 1), &n)) {
              return absl::InvalidArgumentError(
                  absl::StrCat("bad stats entry '", ToAbsl(pair), "'"));
            }
            c.stats[std::string(pair.substr(0, eq))] = n;
          }
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("unknown header '", ToAbsl(key), "'"));
        }
        continue;
      }
      if (line.substr(0, 6) != "query ") {
        return absl::InvalidArgumentError(
            absl::StrCat("expected 'query ...', got '", ToAbsl(line), "'"));
      }
      c.query = std::string(line.substr(6));
      c.partials.emplace_back();
      state = State::kAfterQuery;
      continue;
    }
    if (line == "partial") {
      c.partials.emplace_back();
      state = State::kAfterQuery;
      continue;
    }
    if (line == "input" || line == "input escaped") {
      escaped = line == "input escaped";
      c.partials.back().push_back(Source{next_source++, {}});
      state = State::kInput;
      continue;
    }
    if (state != State::kInput) {
      if (line.empty()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "expected 'input' or 'partial', got '", ToAbsl(line), "'"));
    }
    if (escaped) {
      absl::StatusOr<std::string> decoded = Unescape(line);
      if (!decoded.ok()) return decoded.status();
      c.partials.back().back().lines.push_back(*std::move(decoded));
    } else {
      c.partials.back().back().lines.emplace_back(line);
    }
  }
  if (c.name.empty()) return absl::InvalidArgumentError("no '# name:'");
  if (c.description.empty()) {
    return absl::InvalidArgumentError("no '# description:'");
  }
  if (c.query.empty()) return absl::InvalidArgumentError("no 'query' line");
  return c;
}

// Runs `c`; with `line_by_line` every line is pushed as its own batch.
absl::StatusOr<ResultTable> RunGoldenCase(const GoldenCase& c,
                                          bool line_by_line) {
  absl::StatusOr<Query> q = Query::Compile(c.query);
  if (!q.ok()) return q.status();
  std::vector<Aggregator> partials;
  for (const std::vector<Source>& sources : c.partials) {
    absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, TestOptions());
    if (!agg.ok()) return agg.status();
    for (const Source& source : sources) {
      std::vector<std::string_view> views(source.lines.begin(),
                                          source.lines.end());
      if (line_by_line) {
        for (std::string_view& v : views) {
          absl::Status s = agg->PushLines({&v, 1}, source.id);
          if (!s.ok()) return s;
        }
      } else {
        absl::Status s = agg->PushLines(views, source.id);
        if (!s.ok()) return s;
      }
    }
    partials.push_back(*std::move(agg));
  }
  for (size_t i = 1; i < partials.size(); ++i) {
    absl::Status s = partials[0].Merge(std::move(partials[i]));
    if (!s.ok()) return s;
  }
  absl::Status s = partials[0].FinishInput();
  if (!s.ok()) return s;
  return partials[0].TakeResult();
}

uint64_t CounterByName(const LineCounters& c, std::string_view name,
                       bool* known) {
  for (const LineCounterField& f : kLineCounterFields) {
    if (f.name == name) {
      *known = true;
      return c.*f.value;
    }
  }
  *known = false;
  return 0;
}

std::vector<std::string> FindGoldenFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(MAPR_GOLDEN_DIR, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".test") {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string TestNameOf(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class GoldenFileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenFileTest, MatchesExpectedCsv) {
  const std::filesystem::path path =
      std::filesystem::path(MAPR_GOLDEN_DIR) / GetParam();
  ASSERT_OK_AND_ASSIGN(std::string text, ReadFile(path));
  absl::StatusOr<GoldenCase> parsed = ParseGoldenFile(text);
  ASSERT_OK(parsed) << path;
  const GoldenCase& c = *parsed;
  EXPECT_EQ(c.name, path.stem().string()) << "'# name:' must match the file";
  SCOPED_TRACE(
      absl::StrCat(path.string(), ": ", c.description, "\n  query ", c.query));

  ASSERT_OK_AND_ASSIGN(ResultTable r, RunGoldenCase(c, false));
  EXPECT_EQ(r.ToCsv(), c.expected);
  for (const auto& [name, want] : c.stats) {
    bool known = false;
    uint64_t got = CounterByName(r.stats(), name, &known);
    EXPECT_TRUE(known) << "unknown counter " << name;
    EXPECT_EQ(got, want) << name;
  }
  const LineCounters& s = r.stats();
  EXPECT_EQ(s.lines_read,
            s.lines_too_long + s.lines_table_mismatch + s.lines_ignored +
                s.lines_malformed + s.lines_unmatched + s.lines_header +
                s.lines_filtered + s.lines_without_value + s.lines_aggregated);

  ASSERT_OK_AND_ASSIGN(ResultTable one_by_one, RunGoldenCase(c, true));
  EXPECT_EQ(one_by_one.ToCsv(), r.ToCsv()) << "pushed line by line";
  EXPECT_EQ(one_by_one.stats(), r.stats()) << "pushed line by line";
}

INSTANTIATE_TEST_SUITE_P(Files, GoldenFileTest,
                         ::testing::ValuesIn(FindGoldenFiles()), TestNameOf);

TEST(GoldenFileFormatTest, FindsTheGoldenFiles) {
  EXPECT_GE(FindGoldenFiles().size(), 12u) << "in " << MAPR_GOLDEN_DIR;
}

TEST(GoldenFileFormatTest, ParsesDirectivesSourcesAndPartials) {
  ASSERT_OK_AND_ASSIGN(GoldenCase c,
                       ParseGoldenFile("# name: x\n"
                                       "# description: d\n"
                                       "# stats: lines_read=3 lines_header=1\n"
                                       "query select count($line) group by *\n"
                                       "input\n"
                                       "a\n"
                                       "\n"
                                       "input escaped\n"
                                       "b\\r\\x41\\0\n"
                                       "partial\n"
                                       "input\n"
                                       "c\n"
                                       "----\n"
                                       "count($line)\n"
                                       "\n"));
  EXPECT_EQ(c.query, "select count($line) group by *");
  ASSERT_EQ(c.partials.size(), 2u);
  ASSERT_EQ(c.partials[0].size(), 2u);
  EXPECT_THAT(c.partials[0][0].lines, ElementsAre("a", ""));
  EXPECT_THAT(c.partials[0][1].lines, ElementsAre(std::string("b\rA\0", 4)));
  EXPECT_EQ(c.partials[1][0].id, 2u);
  EXPECT_THAT(c.partials[1][0].lines, ElementsAre("c"));
  EXPECT_EQ(c.expected, "count($line)\n\n");
  EXPECT_EQ(c.stats.at("lines_header"), 1u);
}

TEST(GoldenFileFormatTest, RejectsFilesWithoutSeparatorOrName) {
  EXPECT_FALSE(ParseGoldenFile("# name: x\nquery select a\ninput\na\n").ok());
  EXPECT_FALSE(
      ParseGoldenFile("# description: d\nquery select a\n----\na\n").ok());
  EXPECT_THAT(ParseGoldenFile("# name: x\n# description: d\nselect a\n"
                              "----\n")
                  .status()
                  .message(),
              HasSubstr("expected 'query"));
}

}  // namespace
}  // namespace mapr
