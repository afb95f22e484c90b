// time() and bucket() per layout (runtime/time_functions.h): nanoseconds per
// value over 4096 values of one day, one second apart, as consecutive log
// lines are. ReadWithLayout (absl::ParseTime) is the slow-path reference.
//
//   build/release/runtime/runtime_time_functions_benchmark
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "runtime/time_functions.h"

namespace mapr::runtime {
namespace {

enum Layout {
  kDtailShort,
  kDtailLong,
  kRfc3339,
  kRfc3339Fraction,
  kClf,
  kSyslog,
  kEpoch,
  kEpochMs
};

std::vector<std::string> Values(int layout) {
  std::vector<std::string> v;
  for (int i = 0; i < 4096; ++i) {
    const int s = 40000 + i;
    const int hh = s / 3600, mm = s / 60 % 60, ss = s % 60;
    switch (layout) {
      case kDtailShort:
        v.push_back(absl::StrFormat("1002-%02d%02d%02d", hh, mm, ss));
        break;
      case kDtailLong:
        v.push_back(absl::StrFormat("20261002-%02d%02d%02d", hh, mm, ss));
        break;
      case kRfc3339:
        v.push_back(absl::StrFormat("2026-10-02T%02d:%02d:%02dZ", hh, mm, ss));
        break;
      case kRfc3339Fraction:
        v.push_back(absl::StrFormat("2026-10-02T%02d:%02d:%02d.%03d+01:00", hh,
                                    mm, ss, i % 1000));
        break;
      case kClf:
        v.push_back(
            absl::StrFormat("[02/Oct/2026:%02d:%02d:%02d -0700]", hh, mm, ss));
        break;
      case kSyslog:
        v.push_back(absl::StrFormat("Oct  2 %02d:%02d:%02d", hh, mm, ss));
        break;
      case kEpoch:
        v.push_back(std::to_string(1790000000 + s));
        break;
      case kEpochMs:
        v.push_back(std::to_string(1790000000000LL + s * 1000LL + i % 1000));
        break;
    }
  }
  return v;
}

void BM_Time(benchmark::State& state) {
  const std::vector<std::string> values =
      Values(static_cast<int>(state.range(0)));
  TimeReader reader;
  char out[kMaxEpochTextSize];
  for (auto _ : state) {
    for (const std::string& v : values) {
      Timestamp t;
      if (reader.Read(v, &t)) benchmark::DoNotOptimize(FormatEpoch(t, out));
    }
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}
BENCHMARK(BM_Time)->DenseRange(kDtailShort, kEpochMs)->ArgName("layout");

void BM_BucketTime(benchmark::State& state) {
  const std::vector<std::string> values =
      Values(static_cast<int>(state.range(0)));
  TimeReader reader;
  char out[64];
  for (auto _ : state) {
    for (const std::string& v : values) {
      benchmark::DoNotOptimize(BucketTime(reader, v, 60, out));
    }
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}
BENCHMARK(BM_BucketTime)->DenseRange(kDtailShort, kEpochMs)->ArgName("layout");

void BM_BucketNumber(benchmark::State& state) {
  std::vector<std::string> values;
  for (int i = 0; i < 4096; ++i) {
    values.push_back(absl::StrFormat("%d.%03d", i * 7 - 3000, i % 1000));
  }
  BinWidth w;
  ParseBinWidth(state.range(0) == 0 ? "100" : "0.25", &w);
  char out[kMaxBinTextSize];
  for (auto _ : state) {
    for (const std::string& v : values) {
      benchmark::DoNotOptimize(BucketNumber(v, w, out));
    }
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}
BENCHMARK(BM_BucketNumber)->Arg(0)->Arg(1);

void BM_TimeWithLayout(benchmark::State& state) {
  const std::vector<std::string> values = Values(kRfc3339);
  char out[kMaxEpochTextSize];
  for (auto _ : state) {
    for (const std::string& v : values) {
      Timestamp t;
      if (ReadWithLayout("%Y-%m-%dT%H:%M:%SZ", v, &t)) {
        benchmark::DoNotOptimize(FormatEpoch(t, out));
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}
BENCHMARK(BM_TimeWithLayout);

}  // namespace
}  // namespace mapr::runtime
