// The `default` log format: DTail's own lines (docs/query-language.md,
// "default").
//
//   INFO|time|pid|caller|cpus|goroutines|cgocalls|loadavg|uptime|MAPREDUCE:T|k=v|...
//
// The whole line is always scanned: a later token without '=' rejects the
// line and later duplicate keys win. The parser decides at NewParser time
// which positional tokens are needed and builds a small key table, so the hot
// loop visits the '|' bits of 64-byte masks and does one table load per
// key=value token.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "mapr/log_format.h"
#include "runtime/key_table.h"
#include "runtime/log_formats.h"
#include "util/scan.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mapr::runtime {

using util::BytesEqual;
using util::ContainsTableMarker;
using util::CpuHasAvx2Bmi;
using util::Mask64;
using util::MaskBlock64;
namespace {

constexpr std::string_view kInfo = "INFO";
constexpr std::string_view kMapreduce = "MAPREDUCE:";
// Tokens 0..9 are positional; key=value tokens start at index 10.
constexpr size_t kNumPositional = 10;
// The length of a `YYYYMMDD-HHMMSS` time, which also gives $date etc.
constexpr size_t kFullTimeLength = 15;
// Up to this many keys are matched by a linear scan, beyond it by hash.

// A positional variable: a whole token, or a slice of a 15-byte $time.
struct PositionalVariable {
  std::string_view name;
  uint8_t token;
  bool time_slice;  // If set, [begin, begin + length) of a 15-byte token.
  uint8_t begin;
  uint8_t length;
};

constexpr std::array<PositionalVariable, 14> kPositional = {{
    {"$severity", 0, false, 0, 0},
    {"$loglevel", 0, false, 0, 0},
    {"$time", 1, false, 0, 0},
    {"$date", 1, true, 0, 8},
    {"$hour", 1, true, 9, 2},
    {"$minute", 1, true, 11, 2},
    {"$second", 1, true, 13, 2},
    {"$pid", 2, false, 0, 0},
    {"$caller", 3, false, 0, 0},
    {"$cpus", 4, false, 0, 0},
    {"$goroutines", 5, false, 0, 0},
    {"$cgocalls", 6, false, 0, 0},
    {"$loadavg", 7, false, 0, 0},
    {"$uptime", 8, false, 0, 0},
}};

inline bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         std::memcmp(s.data(), prefix.data(), prefix.size()) == 0;
}

std::atomic<bool> force_baseline{false};
bool ForceBaselineParser() {
  return force_baseline.load(std::memory_order_relaxed);
}

namespace baseline {
#include "runtime/log_format_default_parser.inc"
}  // namespace baseline

#if defined(MAPR_HAVE_AVX2_TARGET)
#include "util/avx2_begin.inc"
namespace avx2 {
// The same parser again, compiled for AVX2 in a namespace of its own.
// NOLINTNEXTLINE(readability-duplicate-include)
#include "runtime/log_format_default_parser.inc"
}  // namespace avx2
#include "util/avx2_end.inc"
#endif

std::vector<std::string> PositionalNames() {
  std::vector<std::string> vars;
  vars.reserve(std::size(kPositional));
  for (const PositionalVariable& v : kPositional) vars.emplace_back(v.name);
  return vars;
}

class DefaultLogFormat : public BuiltinLogFormat {
 public:
  DefaultLogFormat()
      : BuiltinLogFormat(
            "default",
            "DTail's lines, INFO|time|pid|caller|...|MAPREDUCE:TABLE|k=v|...: "
            "$time, $pid, $goroutines, ... and each key (used when no "
            "logformat is given)",
            "INFO|1002-071143|1|s.go:56|8|13|7|0.21|471h|MAPREDUCE:STATS|"
            "conns=11",
            PositionalNames()) {}
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
#if defined(MAPR_HAVE_AVX2_TARGET)
    if (CpuHasAvx2Bmi() && !ForceBaselineParser()) {
      return std::make_unique<avx2::DefaultParser>(fields);
    }
#endif
    return std::make_unique<baseline::DefaultParser>(fields);
  }
};

}  // namespace

bool UseBaselineDefaultParserForTesting(bool baseline) {
  force_baseline.store(baseline, std::memory_order_relaxed);
#if defined(MAPR_HAVE_AVX2_TARGET)
  return CpuHasAvx2Bmi();
#else
  return false;
#endif
}

std::shared_ptr<const LogFormat> NewDefaultLogFormat() {
  return std::make_shared<DefaultLogFormat>();
}

}  // namespace mapr::runtime
