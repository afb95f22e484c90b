// Benchmarks the exact-sum primitives against a plain `double +=`. Each
// iteration adds kValues values; items_per_second is values added per second.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "util/exact_sum.h"

namespace mapr::util {
namespace {

constexpr size_t kValues = 1 << 20;

// Latencies in milliseconds with three decimals (0.000 .. 9999.999), some
// negative: all of them take the fixed-point fast path.
const std::vector<double>& DecimalValues() {
  static const std::vector<double>* const values = [] {
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int64_t> millis(-1000000, 9999999);
    auto* v = new std::vector<double>;
    v->reserve(kValues);
    for (size_t i = 0; i < kValues; ++i) {
      v->push_back(static_cast<double>(millis(rng)) / 1000);
    }
    return v;
  }();
  return *values;
}

// Random significands and signs with exponents over [2^-600, 2^600]: none
// take the fast path.
const std::vector<double>& WideValues() {
  static const std::vector<double>* const values = [] {
    std::mt19937_64 rng(43);
    std::uniform_int_distribution<uint64_t> exponent(1023 - 600, 1023 + 600);
    auto* v = new std::vector<double>;
    v->reserve(kValues);
    for (size_t i = 0; i < kValues; ++i) {
      v->push_back(std::bit_cast<double>((rng() & (uint64_t{1} << 63)) |
                                         (exponent(rng) << 52) |
                                         (rng() & ((uint64_t{1} << 52) - 1))));
    }
    return v;
  }();
  return *values;
}

void SetItems(benchmark::State& state, size_t per_iteration) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(per_iteration));
}

// The reference: rounding after every addition (order-dependent).
void BM_PlainDoubleSum(benchmark::State& state) {
  const std::vector<double>& values = DecimalValues();
  for (auto _ : state) {
    double sum = 0;
    for (double v : values) sum += v;
    double result = sum;
    benchmark::DoNotOptimize(result);
  }
  SetItems(state, values.size());
}
BENCHMARK(BM_PlainDoubleSum);

// ToFixed + AddFixed, spilling to a WideSum (never taken here).
void BM_FixedSum(benchmark::State& state) {
  const std::vector<double>& values = DecimalValues();
  for (auto _ : state) {
    int128 fixed = 0;
    WideSum wide;
    for (double v : values) {
      int128 units;
      if (ToFixed(v, &units)) [[likely]] {
        if (!AddFixed(&fixed, units)) [[unlikely]]
          wide.AddFixed(units);
      } else {
        wide.Add(v);
      }
    }
    // A copy, so that `fixed` itself stays in registers in the loop.
    int128 result = fixed;
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(wide);
  }
  SetItems(state, values.size());
}
BENCHMARK(BM_FixedSum);

// The whole per-value work of an exact sum(): NoteSpecial, then the fast
// path.
void BM_FixedSumWithSpecials(benchmark::State& state) {
  const std::vector<double>& values = DecimalValues();
  for (auto _ : state) {
    int128 fixed = 0;
    WideSum wide;
    uint8_t flags = 0;
    for (double v : values) {
      flags = NoteSpecial(flags, v);
      int128 units;
      if (ToFixed(v, &units)) [[likely]] {
        if (!AddFixed(&fixed, units)) [[unlikely]]
          wide.AddFixed(units);
      } else if (((flags & (kSumNaN | kSumPosInf | kSumNegInf)) == 0)) {
        wide.Add(v);
      }
    }
    int128 result = fixed;
    uint8_t result_flags = flags;
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(wide);
    benchmark::DoNotOptimize(result_flags);
  }
  SetItems(state, values.size());
}
BENCHMARK(BM_FixedSumWithSpecials);

void RunWideSumAdd(benchmark::State& state, const std::vector<double>& values) {
  for (auto _ : state) {
    WideSum wide;
    for (double v : values) wide.Add(v);
    benchmark::DoNotOptimize(wide);
  }
  SetItems(state, values.size());
}

void BM_WideSumAddDecimals(benchmark::State& state) {
  RunWideSumAdd(state, DecimalValues());
}
BENCHMARK(BM_WideSumAddDecimals);

void BM_WideSumAddWideExponents(benchmark::State& state) {
  RunWideSumAdd(state, WideValues());
}
BENCHMARK(BM_WideSumAddWideExponents);

// The once-per-group costs: rounding, the mean, serialization.
WideSum WideState() {
  WideSum wide;
  for (double v : WideValues()) wide.Add(v);
  return wide;
}

void BM_WideSumRound(benchmark::State& state) {
  const WideSum wide = WideState();
  for (auto _ : state) benchmark::DoNotOptimize(wide.Round());
  SetItems(state, 1);
}
BENCHMARK(BM_WideSumRound);

void BM_WideSumRoundDividedBy(benchmark::State& state) {
  const WideSum wide = WideState();
  for (auto _ : state) benchmark::DoNotOptimize(wide.RoundDividedBy(kValues));
  SetItems(state, 1);
}
BENCHMARK(BM_WideSumRoundDividedBy);

void BM_RoundFixed(benchmark::State& state) {
  int128 units = (int128{1} << 100) + 12345;
  for (auto _ : state) {
    benchmark::DoNotOptimize(units);
    benchmark::DoNotOptimize(RoundFixed(units));
  }
  SetItems(state, 1);
}
BENCHMARK(BM_RoundFixed);

void BM_WideSumAppendTo(benchmark::State& state) {
  const WideSum wide = WideState();
  std::string out;
  for (auto _ : state) {
    out.clear();
    wide.AppendTo(&out);
    benchmark::DoNotOptimize(out);
  }
  SetItems(state, 1);
}
BENCHMARK(BM_WideSumAppendTo);

}  // namespace
}  // namespace mapr::util
