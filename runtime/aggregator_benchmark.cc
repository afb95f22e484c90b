// End-to-end Push throughput of the aggregator on DTail STATS lines: trim,
// table filter, default-format parsing of the planned fields, group keys and
// the aggregate loops. bytes_per_second counts line bytes; items_per_second
// counts lines.
//
// Q1 is the typical dashboard query (one group per host, numeric fields);
// Q5 the cheapest one (count every line into a single group).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"

namespace mapr {
namespace {

constexpr size_t kNumLines = 1 << 16;
constexpr int kNumHosts = 50;

constexpr std::string_view kQ1 =
    "from STATS select hostname,count($line),avg(currentConnections),"
    "min(currentConnections),max(currentConnections),avg(latency_ms),"
    "min(latency_ms),max(latency_ms) group by hostname";
constexpr std::string_view kQ5 =
    "from STATS select count($line) group by $empty";

// About 215-byte DTail default-format lines: the 9 positional fields, the
// STATS table and 8 key=value pairs.
const std::vector<std::string>& StatsLines() {
  static const std::vector<std::string>* const lines = [] {
    auto* out = new std::vector<std::string>();
    out->reserve(kNumLines);
    std::mt19937_64 rng(215);
    static constexpr const char* kStatus[] = {"200", "200", "200", "204",
                                              "301", "404", "500"};
    static constexpr const char* kPaths[] = {"/items", "/users/me", "/healthz",
                                             "/app.js", "/search"};
    // Draws in a fixed order (argument evaluation order is unspecified).
    auto draw = [&rng](uint64_t n) { return static_cast<int>(rng() % n); };
    for (size_t i = 0; i < kNumLines; ++i) {
      const int second = static_cast<int>(i / 100 % 60);
      const int pid = 4711 + draw(100);
      const int goroutines = 10 + draw(20);
      const int host = draw(kNumHosts);
      const int current = draw(500);
      const int bytes = draw(2000000);
      const int latency_ms = draw(2000);
      const int latency_us = draw(1000);
      const char* status = kStatus[draw(std::size(kStatus))];
      const char* path = kPaths[draw(std::size(kPaths))];
      const uint32_t session = static_cast<uint32_t>(rng());
      out->push_back(absl::StrFormat(
          "INFO|20231002-0711%02d|%d|stats.go:56|8|%d|7|0.21|471h0m%02ds|"
          "MAPREDUCE:STATS|hostname=web-%02d|currentConnections=%d|"
          "lifetimeConnections=%d|bytes=%d|latency_ms=%d.%03d|status=%s|"
          "path=%s|session=%08x",
          second, pid, goroutines, second, host, current,
          static_cast<int>(100000 + i), bytes, latency_ms, latency_us, status,
          path, session));
    }
    return out;
  }();
  return *lines;
}

// Pushes the dataset in batches of state.range(0) lines per iteration.
void BM_Push(benchmark::State& state, std::string_view query_text) {
  const std::vector<std::string>& lines = StatsLines();
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  size_t bytes = 0;
  for (std::string_view line : views) bytes += line.size();
  const size_t batch = static_cast<size_t>(state.range(0));

  absl::StatusOr<Query> query = Query::Compile(query_text);
  if (!query.ok()) {
    state.SkipWithError(std::string(query.status().message()).c_str());
    return;
  }
  AggregatorOptions options;
  options.hostname = "bench";
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*query, options);
  if (!agg.ok()) {
    state.SkipWithError(std::string(agg.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    for (size_t begin = 0; begin < views.size(); begin += batch) {
      const size_t n = std::min(batch, views.size() - begin);
      absl::Status s = agg->PushLines(
          std::span<const std::string_view>(views.data() + begin, n));
      if (!s.ok()) {
        state.SkipWithError(std::string(s.message()).c_str());
        return;
      }
    }
  }
  const LineCounters stats = agg->stats();
  if (stats.lines_aggregated != stats.lines_read) {
    state.SkipWithError("not every line was aggregated");
  }
  absl::StatusOr<ResultTable> result = agg->Snapshot();
  if (!result.ok()) {
    state.SkipWithError("no result");
    return;
  }
  state.counters["groups"] = static_cast<double>(result->num_rows());
  state.counters["bytes_per_line"] =
      static_cast<double>(bytes) / static_cast<double>(views.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(views.size()));
}

BENCHMARK_CAPTURE(BM_Push, Q1_host_stats, kQ1)
    ->Arg(4096)
    ->Arg(kNumLines)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Push, Q5_count_all, kQ5)
    ->Arg(4096)
    ->Arg(kNumLines)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mapr
