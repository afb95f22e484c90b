// Partials (docs/partial-format.md): size, SerializePartial and
// MergeSerialized throughput at 50 and at 1M groups.
//
// The aggregator runs Q1's shape (count, avg, min, max of two numeric fields
// and the key itself) over `groups` distinct keys, two lines per group.
// Counters: partial_bytes (one frame), bytes_per_group; bytes_per_second is
// frame bytes; items_per_second is groups.
//   BM_SerializePartial: SerializePartial() of a finished aggregator.
//   BM_FromPartial: FromPartial() of that frame (validate, load).
//   BM_MergeSerialized: MergeSerialized() of the next split's frame (the
//     same keys) into an aggregator loaded from the first (timed: the merge
//     only).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/partial.h"
#include "mapr/query.h"

namespace mapr {
namespace {

constexpr std::string_view kQuery =
    "from STATS select hostname,count($line),avg(currentConnections),"
    "min(currentConnections),max(currentConnections),avg(latency_ms),"
    "min(latency_ms),max(latency_ms) group by hostname";

// The frame of `groups` groups covering split `split`.
std::string MakePartial(int64_t groups, uint64_t split) {
  std::vector<std::string> lines;
  lines.reserve(static_cast<size_t>(groups) * 2);
  for (int64_t g = 0; g < groups; ++g) {
    for (int k = 0; k < 2; ++k) {
      lines.push_back(absl::StrCat(
          "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
          "MAPREDUCE:STATS|hostname=host",
          g, "|currentConnections=", (g * 7 + k + split) % 500,
          "|latency_ms=", (g * 13 + k) % 2000, ".", (g + split) % 1000));
    }
  }
  Query q = *Query::Compile(kQuery);
  AggregatorOptions options;
  options.hostname = "bench";
  options.splits = {split, split + 1};
  Aggregator agg = *Aggregator::Create(q, options);
  (void)agg.PushLines(lines);
  (void)agg.FinishInput();
  return *agg.SerializePartial();
}

void SetCounters(benchmark::State& state, const std::string& frame) {
  const double groups = static_cast<double>(state.range(0));
  state.counters["partial_bytes"] = static_cast<double>(frame.size());
  state.counters["bytes_per_group"] =
      static_cast<double>(frame.size()) / groups;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(frame.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          state.range(0));
}

void BM_SerializePartial(benchmark::State& state) {
  const std::string frame = MakePartial(state.range(0), 0);
  Aggregator agg = *Aggregator::FromPartial(frame);
  (void)agg.FinishInput();
  for (auto _ : state) {
    benchmark::DoNotOptimize(agg.SerializePartial());
  }
  SetCounters(state, frame);
}
BENCHMARK(BM_SerializePartial)
    ->Arg(50)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMicrosecond);

void BM_FromPartial(benchmark::State& state) {
  const std::string frame = MakePartial(state.range(0), 0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(Aggregator::FromPartial(frame));
  }
  SetCounters(state, frame);
}
BENCHMARK(BM_FromPartial)
    ->Arg(50)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMicrosecond);

void BM_MergeSerialized(benchmark::State& state) {
  const std::string first = MakePartial(state.range(0), 0);
  const std::string second = MakePartial(state.range(0), 1);
  for (auto _ : state) {
    state.PauseTiming();
    Aggregator agg = *Aggregator::FromPartial(first);
    state.ResumeTiming();
    benchmark::DoNotOptimize(agg.MergeSerialized(second));
    state.PauseTiming();
    { Aggregator gone = std::move(agg); }
    state.ResumeTiming();
  }
  SetCounters(state, second);
}
BENCHMARK(BM_MergeSerialized)
    ->Arg(50)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mapr
