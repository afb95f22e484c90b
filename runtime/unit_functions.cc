#include "runtime/unit_functions.h"

#include <cstdint>
#include <string_view>

#include "util/decimal.h"
#include "util/exact_sum.h"

namespace mapr::runtime {
namespace {

using util::int128;
using util::uint128;

// Both results are kept in units of 10^-18 (of a second, of a byte).
constexpr int kScale = 18;

int128 Pow10(int n) {
  int128 v = 1;
  while (n-- > 0) v *= 10;
  return v;
}

// A decimal "12.5" at in[*i]: up to 36 significant digits.
bool Decimal(std::string_view in, size_t* i, int128* mantissa, int* scale) {
  return util::ReadDecimalPrefix(in, i, 36, mantissa, scale);
}

// mantissa / 10^scale * factor in units of 10^-18, if exact and in range.
bool Scaled(int128 mantissa, int scale, int128 factor, int128* out) {
  int128 v;
  if (__builtin_mul_overflow(mantissa, factor, &v)) return false;
  if (scale > kScale) {
    const int128 d = Pow10(scale - kScale);
    if (v % d != 0) return false;  // Below 10^-18: not exact.
    v /= d;
  } else if (__builtin_mul_overflow(v, Pow10(kScale - scale), &v)) {
    return false;
  }
  *out = v;
  return true;
}

// Writes v * 10^-18 as a plain decimal without trailing zeros.
size_t Write(int128 v, char out[kMaxUnitTextSize]) {
  char digits[48];
  int n = 0;
  uint128 m = v < 0 ? -static_cast<uint128>(v) : static_cast<uint128>(v);
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(m % 10));
    m /= 10;
  } while (m != 0);
  while (n <= kScale) digits[n++] = '0';
  int low = 0;  // Trailing zeros of the fraction, dropped.
  while (low < kScale && digits[low] == '0') ++low;
  char* p = out;
  if (v < 0) *p++ = '-';
  for (int k = n - 1; k >= low; --k) {
    if (k == kScale - 1) *p++ = '.';
    *p++ = digits[k];
  }
  return static_cast<size_t>(p - out);
}

// Lower-case ASCII.
inline char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

}  // namespace

size_t ReadDuration(std::string_view in, char out[kMaxUnitTextSize]) noexcept {
  size_t i = 0;
  bool negative = false;
  if (i < in.size() && (in[i] == '-' || in[i] == '+')) {
    negative = in[i] == '-';
    ++i;
  }
  if (i == in.size()) return 0;
  if (in.substr(i) == "0") return Write(0, out);
  // Nanoseconds per unit; units in Go's spelling, longest first.
  static constexpr struct {
    std::string_view name;
    int64_t nanos;
  } kUnits[] = {{"ns", 1},           {"us", 1000},
                {"\xC2\xB5s", 1000},  // µs, micro sign
                {"\xCE\xBCs", 1000},  // μs, Greek mu
                {"ms", 1000000},     {"s", 1000000000},
                {"m", 60000000000},  {"h", 3600000000000}};
  int128 total = 0;
  while (i < in.size()) {
    int128 mantissa;
    int scale;
    if (!Decimal(in, &i, &mantissa, &scale)) return 0;
    int64_t nanos = 0;
    size_t best = 0;
    for (const auto& u : kUnits) {
      if (u.name.size() > best && in.substr(i, u.name.size()) == u.name) {
        // "m" is a prefix of "ms": the longest unit that follows wins.
        best = u.name.size();
        nanos = u.nanos;
      }
    }
    if (best == 0) return 0;
    i += best;
    int128 part;
    // In units of 10^-18 s: nanos * 10^-9 s per unit.
    if (!Scaled(mantissa, scale + 9, nanos, &part) ||
        __builtin_add_overflow(total, part, &total)) {
      return 0;
    }
  }
  return Write(negative ? -total : total, out);
}

size_t ReadByteSize(std::string_view in, char out[kMaxUnitTextSize]) noexcept {
  size_t i = 0;
  int128 mantissa;
  int scale;
  if (!Decimal(in, &i, &mantissa, &scale)) return 0;
  // "2 GB": one space, then a unit.
  if (i < in.size() && in[i] == ' ' && ++i == in.size()) return 0;
  std::string_view unit = in.substr(i);
  int128 factor = 1;
  if (!unit.empty()) {
    constexpr std::string_view kPrefixes = "kmgtpe";
    const size_t power = kPrefixes.find(Lower(unit[0]));
    size_t at = 0;
    if (power != std::string_view::npos) {
      at = 1;
      int128 base = 1000;
      if (at < unit.size() && Lower(unit[at]) == 'i') {
        base = 1024;
        ++at;
      }
      for (size_t k = 0; k <= power; ++k) factor *= base;
    }
    if (at < unit.size() && Lower(unit[at]) == 'b') ++at;
    if (at != unit.size() || (at == 0 && !unit.empty())) return 0;
  }
  int128 v;
  if (!Scaled(mantissa, scale, factor, &v)) return 0;
  return Write(v, out);
}

}  // namespace mapr::runtime
