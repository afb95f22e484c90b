// The queries and inputs of api/partial_test.cc, shared with the program that
// rewrites its golden files on a format change
// (tests/golden/write_partial_goldens.cc): the test only reads its goldens, it
// never writes them.
#ifndef MAPR_TESTS_TESTING_PARTIAL_CASES_H_
#define MAPR_TESTS_TESTING_PARTIAL_CASES_H_

#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"

#ifndef MAPR_GOLDEN_DIR
#error "MAPR_GOLDEN_DIR must name tests/golden"
#endif

namespace mapr::testing {

inline constexpr char kHostname[] = "integrationtest";

inline AggregatorOptions Options(SplitRange splits = {}) {
  AggregatorOptions o;
  o.hostname = kHostname;
  o.splits = splits;
  // The cases' queries are the tests' own: their lookup() tables (in the
  // temporary folder) are read wherever they are.
  o.partial_lookup_dir = "/";
  return o;
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The benchmark's log (tests/bench/gen_stats_log.cc), `n` lines.
inline std::vector<std::string> StatsLines(size_t n) {
  static const char* const kStatus[] = {"200", "201", "204", "301", "302",
                                        "400", "403", "404", "500", "503"};
  static const char* const kSegments[] = {"api",   "orders", "users", "cart",
                                          "items", "search", "login", "static",
                                          "v1",    "v2"};
  std::mt19937_64 rng(42);
  auto below = [&](uint64_t m) { return rng() % m; };
  auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<std::string> lines;
  char buf[512];
  for (size_t i = 1; i <= n; ++i) {
    const uint64_t kind = below(100);
    const double u = unit();
    const int host = static_cast<int>(u * u * 50);
    const int path = static_cast<int>(std::pow(1000.0, unit())) - 1;
    const char* severity = kind == 0 ? "WARN" : kind == 1 ? "ERROR" : "INFO";
    const bool marker = kind != 2 && kind != 3;
    const char* table = kind == 4 ? "OTHER" : "STATS";
    std::snprintf(
        buf, sizeof(buf),
        "%s|20261130-04%02d%02d|%" PRIu64
        "|stats.go:%d|8|%d|%d|%.2f|%dh|%s%s|hostname=server%02d|"
        "currentConnections=%" PRIu64 "|bytes=%" PRIu64 "|latency_ms=%" PRIu64
        ".%03" PRIu64 "|status=%s|path=/%s/%s/%d|session=%016" PRIx64,
        severity, static_cast<int>(i / 60000 % 60),
        static_cast<int>(i / 1000 % 60), 1000 + below(9000),
        static_cast<int>(100 + below(900)), static_cast<int>(10 + below(90)),
        static_cast<int>(below(1000)), unit() * 4, static_cast<int>(below(100)),
        marker ? "MAPREDUCE:" : "STATS:", marker ? table : "", host, below(500),
        below(1000000), below(1000), below(1000), kStatus[below(10)],
        kSegments[path % 10], kSegments[(path / 10) % 10], path,
        static_cast<uint64_t>(below(300) * 2654435761ULL));
    lines.emplace_back(buf);
  }
  return lines;
}

// A lookup() table for Q8 (hostname -> owner), written once.
inline std::string LookupTablePath() {
  static const std::string path = [] {
    const std::filesystem::path p =
        std::filesystem::temp_directory_path() /
        absl::StrCat("mapr_partial_test_hosts_", ::getpid(), ".csv");
    std::ofstream out(p, std::ios::binary);
    out << "hostname,owner\n";
    for (int h = 0; h < 50; h += 3) {
      out << absl::StrFormat("server%02d,team%d\n", h, h % 4);
    }
    return p.string();
  }();
  return path;
}

// Compiles a case's query; lookup() may read its table.
inline absl::StatusOr<Query> CompileCase(std::string_view text) {
  CompileOptions options;
  options.allow_file_lookups = true;
  return Query::Compile(text, options);
}

struct Case {
  std::string name;
  std::string query;
  std::vector<std::string> lines;
  // The partial's bytes depend on the split (a topk group past 4096
  // distinct values holds the Misra-Gries candidates its split met); its
  // results do not.
  bool bytes_vary = false;
};

// Every DTail vector query over its log, every tests/golden/*.test of a
// stateless format (CSV keeps a header per source, so its splits are per
// file), and the benchmark's Q1-Q5.
inline std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::filesystem::path golden(MAPR_GOLDEN_DIR);
  const std::vector<std::string> log =
      Lines(ReadFile(golden / "dtail" / "mapr_testdata.log"));
  for (const char* name : {"dmap1a", "dmap1b", "dmap1c", "dmap1d", "dmap2",
                           "dmap3", "dmap4", "dserver1"}) {
    cases.push_back(
        {name,
         ReadFile(golden / "dtail" / absl::StrCat(name, ".csv.query.expected")),
         log});
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(golden)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    const std::vector<std::string> text = Lines(ReadFile(file));
    Case c{file.stem().string(), "", {}};
    bool in_input = false, usable = true;
    for (const std::string& line : text) {
      if (line == "----") break;
      if (line.rfind("query ", 0) == 0) {
        c.query = line.substr(6);
      } else if (line == "input" || line == "partial") {
        in_input = true;
      } else if (line.rfind("input ", 0) == 0) {
        usable = false;  // escaped input: not worth decoding here
      } else if (in_input) {
        c.lines.push_back(line);
      }
    }
    if (c.query.find("csv") != std::string::npos) usable = false;
    c.bytes_vary = c.name == "topk_sketch";
    if (usable && !c.query.empty()) cases.push_back(std::move(c));
  }
  const std::string q1 =
      "from STATS select hostname,count($line),avg(currentConnections),"
      "min(currentConnections),max(currentConnections),avg(latency_ms),"
      "min(latency_ms),max(latency_ms) group by hostname";
  const std::vector<std::string> stats = StatsLines(3000);
  cases.push_back({"Q1", q1, stats});
  cases.push_back({"Q2",
                   q1 + " where latency_ms >= 100 and path contains \"orders\"",
                   stats});
  cases.push_back({"Q3",
                   "from STATS select path,count($line) group by path order "
                   "by count($line) limit 10",
                   stats});
  cases.push_back(
      {"Q4",
       "from STATS select session,count($line),sum(bytes) group by session",
       stats});
  cases.push_back(
      {"Q5", "from STATS select count($line) group by $empty", stats});
  // A top list over many groups, with `having` and last(): what a
  // partitioned reduce cuts down to its shown groups (EndPartition).
  cases.push_back({"Q6",
                   "from STATS select session,count($line),sum(bytes),"
                   "last(status) group by session having count($line) >= 1 "
                   "order by sum(bytes) desc limit 25",
                   stats});
  // The operators and functions of the analysts' kit: in, the case-blind
  // operators, a lookup() table (its hash in the fingerprint), and cidr()
  // of values that are no addresses (values_unparsed adds up too).
  cases.push_back(
      {"Q8",
       absl::StrCat(
           "from STATS select $owner,$class,count($line),sum(bytes) set "
           "$owner = lookup(hostname, '",
           LookupTablePath(),
           "', 'owner'), $class = cidr(status, 8) where status in (200, "
           "\"404\", 503) or path icontains \"CART\" group by $owner, "
           "$class"),
       stats});
  // percentage() reads every group: no cutting down.
  cases.push_back({"Q7",
                   "from STATS select path,percentage(bytes),count($line) "
                   "group by path order by count($line) limit 5",
                   stats});
  return cases;
}

// One aggregator over lines [lo, hi) covering `splits`, finished.
inline absl::StatusOr<Aggregator> RunLines(
    const Query& q, const std::vector<std::string>& lines, size_t lo, size_t hi,
    SplitRange splits) {
  absl::StatusOr<Aggregator> agg = Aggregator::Create(q, Options(splits));
  if (!agg.ok()) return agg.status();
  std::vector<std::string_view> views(lines.begin() + lo, lines.begin() + hi);
  absl::Status s = agg->PushLines(views);
  if (s.ok()) s = agg->FinishInput();
  if (!s.ok()) return s;
  return agg;
}

inline absl::StatusOr<std::string> Partial(
    const Query& q, const std::vector<std::string>& lines, size_t lo, size_t hi,
    SplitRange splits) {
  absl::StatusOr<Aggregator> agg = RunLines(q, lines, lo, hi, splits);
  if (!agg.ok()) return agg.status();
  return agg->SerializePartial();
}

inline constexpr char kQuery[] =
    "from STATS select $hostname,count($line),sum(x),avg(x),min(x),max(x),"
    "last(x),first(x),last(y),len(y),percentage(x),percentile(x) group by "
    "$hostname,y";

inline std::vector<std::string> SmallLines() {
  std::vector<std::string> lines;
  for (int i = 0; i < 40; ++i) {
    lines.push_back(absl::StrCat(
        "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
        "x=",
        i * 0.1, "|y=v", i % 5));
  }
  lines.push_back("not a log line");
  return lines;
}

// RealPartial(): kQuery over SmallLines() covering `splits`, as bytes.
inline absl::StatusOr<std::string> SmallPartial(SplitRange splits) {
  absl::StatusOr<Query> q = Query::Compile(kQuery);
  if (!q.ok()) return q.status();
  const std::vector<std::string> lines = SmallLines();
  return Partial(*q, lines, 0, lines.size(), splits);
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_PARTIAL_CASES_H_
