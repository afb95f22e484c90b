// Benchmarks ParseNumber on typical log values. Each iteration parses a batch
// of kBatch values so that per-call overhead dominates, not loop overhead;
// items_per_second is values parsed per second.
#include <charconv>
#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "util/number.h"

namespace mapr::util {
namespace {

constexpr size_t kBatch = 1024;

template <typename Generator>
std::vector<std::string> MakeValues(Generator generate) {
  std::mt19937_64 rng(42);
  std::vector<std::string> values;
  values.reserve(kBatch);
  for (size_t i = 0; i < kBatch; ++i) values.push_back(generate(rng));
  return values;
}

// Status codes, counters, goroutine counts: "0" .. "99999".
std::vector<std::string> SmallInts() {
  return MakeValues([](std::mt19937_64& rng) {
    std::uniform_int_distribution<int> digits(1, 5);
    std::uniform_int_distribution<int> value(0, 99999);
    std::string s = std::to_string(value(rng));
    return s.substr(0, static_cast<size_t>(digits(rng)));
  });
}

// Latencies in milliseconds with three decimals: "12.345".
std::vector<std::string> ThreeDecimalFloats() {
  return MakeValues([](std::mt19937_64& rng) {
    std::uniform_int_distribution<int> millis(0, 9999999);
    const int v = millis(rng);
    std::string frac = std::to_string(v % 1000);
    return std::to_string(v / 1000) + "." + std::string(3 - frac.size(), '0') +
           frac;
  });
}

// Values that take the std::from_chars path: exponents and long mantissas.
std::vector<std::string> SlowPathFloats() {
  return MakeValues([](std::mt19937_64& rng) {
    std::uniform_real_distribution<double> dist(0.0, 1e6);
    char buf[64];
    const double v = dist(rng);
    auto result = (rng() % 2 == 0)
                      ? std::to_chars(buf, buf + sizeof(buf), v)
                      : std::to_chars(buf, buf + sizeof(buf), v,
                                      std::chars_format::scientific);
    return std::string(buf, result.ptr);
  });
}

// Non-numeric field values: hostnames, words, timestamps.
std::vector<std::string> NonNumeric() {
  return MakeValues([](std::mt19937_64& rng) {
    static const char* const kWords[] = {
        "INFO", "host-17", "1002-071949", "GET", "serverA", "n/a", "-", "ok"};
    return std::string(kWords[rng() % 8]);
  });
}

void RunParseNumber(benchmark::State& state,
                    const std::vector<std::string>& values) {
  std::vector<std::string_view> views(values.begin(), values.end());
  for (auto _ : state) {
    for (std::string_view v : views) {
      double out = 0;
      benchmark::DoNotOptimize(ParseNumber(v, &out));
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(views.size()));
}

void BM_ParseNumberSmallInts(benchmark::State& state) {
  RunParseNumber(state, SmallInts());
}
BENCHMARK(BM_ParseNumberSmallInts);

void BM_ParseNumberThreeDecimalFloats(benchmark::State& state) {
  RunParseNumber(state, ThreeDecimalFloats());
}
BENCHMARK(BM_ParseNumberThreeDecimalFloats);

void BM_ParseNumberSlowPathFloats(benchmark::State& state) {
  RunParseNumber(state, SlowPathFloats());
}
BENCHMARK(BM_ParseNumberSlowPathFloats);

void BM_ParseNumberNonNumeric(benchmark::State& state) {
  RunParseNumber(state, NonNumeric());
}
BENCHMARK(BM_ParseNumberNonNumeric);

// Baseline: bare std::from_chars on the three-decimal values.
void BM_FromCharsThreeDecimalFloats(benchmark::State& state) {
  const std::vector<std::string> values = ThreeDecimalFloats();
  for (auto _ : state) {
    for (const std::string& v : values) {
      double out = 0;
      benchmark::DoNotOptimize(
          std::from_chars(v.data(), v.data() + v.size(), out));
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(values.size()));
}
BENCHMARK(BM_FromCharsThreeDecimalFloats);

}  // namespace
}  // namespace mapr::util
