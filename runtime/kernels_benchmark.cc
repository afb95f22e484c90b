// Google Benchmarks of the hot-path kernels the whole-process numbers are
// made of (docs/benchmarks.md): line splitting, group lookup with few and
// with a million groups, and the per-kind aggregate update loops. Field
// extraction (both builds of the default parser) and number parsing have
// their own files.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "mapr/line_splitter.h"
#include "mapr/log_format.h"  // kMaxBatchRows
#include "parser/regex.h"
#include "re2/re2.h"
#include "runtime/aggregate.h"
#include "runtime/group_table.h"
#include "util/scan.h"

namespace mapr::runtime {

using namespace util;  // NOLINT: the kernels under test
namespace {

// ~215-byte lines shaped like tests/bench/gen_stats_log.cc's.
std::string StatsLine(uint64_t i) {
  return "INFO|20261130-0400" + std::to_string(10 + i % 50) + "|" +
         std::to_string(1000 + i % 9000) +
         "|stats.go:" + std::to_string(i % 999) +
         "|8|65|398|1.97|7h|MAPREDUCE:STATS|" + "hostname=server" +
         std::to_string(i % 50) +
         "|currentConnections=" + std::to_string(i % 500) +
         "|lifetimeConnections=" + std::to_string(i * 7 % 100000) +
         "|bytes=" + std::to_string(i * 7919 % 1000000) +
         "|latency_ms=" + std::to_string(i % 1000) + "." +
         std::to_string(100 + i % 900) + "|status=200|path=/api/v1/" +
         std::to_string(i % 1000) +
         "|session=" + std::to_string(i * 2654435761u);
}

void BM_LineSplitter(benchmark::State& state) {
  std::string text;
  for (uint64_t i = 0; text.size() < (1 << 20); ++i) {
    text += StatsLine(i);
    text += '\n';
  }
  LineSplitter splitter;
  size_t lines = 0;
  for (auto _ : state) {
    lines += splitter.Split(text).size();
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(lines);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LineSplitter);

// The newline kernel alone over 1 MiB of STATS lines: one memchr call per
// line, or one AVX2 mask per 64-byte block (the CLI's and LineSplitter's
// choice on CPUs that have it).
void BM_FindNewlines(benchmark::State& state, bool avx2) {
  std::string text;
  for (uint64_t i = 0; text.size() < (1 << 20); ++i) {
    text += StatsLine(i);
    text += '\n';
  }
  const FindNewlinesFn find = avx2 ? NewlineFinder() : FindNewlinesMemchr;
  if (avx2 && find == FindNewlinesMemchr) {
    state.SkipWithError("no AVX2/BMI on this CPU");
    return;
  }
  std::vector<uint32_t> out(text.size());
  size_t lines = 0;
  for (auto _ : state) {
    lines += find(text.data(), text.size(), out.data());
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(lines);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK_CAPTURE(BM_FindNewlines, memchr, false);
BENCHMARK_CAPTURE(BM_FindNewlines, avx2_masks, true);

// Lookups of existing keys drawn at random from `range(0)` groups, hashed
// per lookup (as the engine does), with or without prefetching a batch's
// slots first.
void BM_GroupLookup(benchmark::State& state, bool prefetch) {
  const size_t groups = static_cast<size_t>(state.range(0));
  GroupTable table;
  std::vector<std::string> keys;
  for (size_t g = 0; g < groups; ++g) {
    keys.push_back("session-" + std::to_string(g * 2654435761u));
    bool created;
    table.FindOrInsert(keys.back(), HashKey(keys.back()), &created);
  }
  std::mt19937_64 rng(1);
  std::vector<std::string_view> probe(kMaxBatchRows);
  for (std::string_view& p : probe) p = keys[rng() % groups];
  std::vector<uint64_t> hashes(probe.size());
  uint64_t sum = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < probe.size(); ++i) {
      hashes[i] = HashKey(probe[i]);
      if (prefetch) table.Prefetch(hashes[i]);
    }
    for (size_t i = 0; i < probe.size(); ++i) {
      bool created;
      sum += table.FindOrInsert(probe[i], hashes[i], &created);
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(probe.size()));
}
BENCHMARK_CAPTURE(BM_GroupLookup, prefetch, true)->Arg(50)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_GroupLookup, no_prefetch, false)->Arg(50)->Arg(1 << 20);

// One aggregate over a full batch of numeric rows into 50 groups (fractional
// values: 1/4 steps, the exact sums' fixed-point path).
void BM_UpdateState(benchmark::State& state, std::string_view name) {
  std::vector<std::string_view> values(kMaxBatchRows, "1.5");
  std::vector<double> numbers(kMaxBatchRows);
  std::vector<uint8_t> numeric(kMaxBatchRows, 1);
  std::vector<uint32_t> sel(kMaxBatchRows), gids(kMaxBatchRows);
  for (uint32_t r = 0; r < kMaxBatchRows; ++r) {
    numbers[r] = r * 0.25;
    sel[r] = r;
    gids[r] = r * 7919 % 50;
  }
  const AggregateFunction* fn = nullptr;
  for (const AggregateFunction* a : Aggregates()) {
    if (a->info.name == name) fn = a;
  }
  std::unique_ptr<AggregateState> s = fn->new_state(plan::StateOptions());
  s->Resize(50);
  const FieldRows rows{values.data(), numbers.data(), numeric.data()};
  for (auto _ : state) {
    s->Update(rows, sel.data(), gids.data(), sel.size());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(sel.size()));
}
BENCHMARK_CAPTURE(BM_UpdateState, count, "count");
BENCHMARK_CAPTURE(BM_UpdateState, sum, "sum");
BENCHMARK_CAPTURE(BM_UpdateState, min, "min");
BENCHMARK_CAPTURE(BM_UpdateState, avg, "avg");
BENCHMARK_CAPTURE(BM_UpdateState, last, "last");
BENCHMARK_CAPTURE(BM_UpdateState, first, "first");

// Patterns that backtrack catastrophically elsewhere, on "aaa...ab" of
// length N: RE2's time is linear in N (Google Benchmark fits the O(N)
// complexity and prints its RMS error). tests/bad_input/lines_test.cc
// checks the answers.
void BM_RegexPathological(benchmark::State& state, std::string_view pattern) {
  std::shared_ptr<const re2::RE2> re =
      *parser::CompilePattern(pattern, parser::kDefaultMaxRegexMemory);
  std::string line(static_cast<size_t>(state.range(0)), 'a');
  line.back() = 'b';
  for (auto _ : state) {
    benchmark::DoNotOptimize(RE2::PartialMatch(line, *re));
  }
  state.SetComplexityN(state.range(0));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          state.range(0));
}
BENCHMARK_CAPTURE(BM_RegexPathological, nested_plus, "^(a+)+$")
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 20)
    ->Complexity(benchmark::oN);
BENCHMARK_CAPTURE(BM_RegexPathological, alternation, "^(a|aa)*c$")
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 20)
    ->Complexity(benchmark::oN);

}  // namespace
}  // namespace mapr::runtime
