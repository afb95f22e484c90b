#include "util/number.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string_view>
#include <system_error>

namespace mapr::util {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

char LowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// `lower` must be lowercase ASCII.
bool EqualsIgnoreCase(const char* p, const char* end, std::string_view lower) {
  if (static_cast<size_t>(end - p) != lower.size()) return false;
  for (char c : lower) {
    if (LowerAscii(*p++) != c) return false;
  }
  return true;
}

// Returns true if the unsigned decimal float in [p, end), known to be
// syntactically valid and out of double range, is too large (overflow) rather
// than too small (underflow). Only the sign of its base-10 scientific exponent
// matters: out-of-range magnitudes are either >= 1e308 or < 1e-323. Every
// count saturates, so arbitrarily long inputs are fine.
bool IsOverflow(const char* p, const char* end) {
  constexpr int64_t kSaturate = int64_t{1} << 40;
  int64_t int_digits = 0;  // integer digits after the leading zeros
  int64_t frac_zeros = 0;  // fraction zeros before the first nonzero digit
  bool seen_nonzero = false;
  for (; p != end && IsDigit(*p); ++p) {
    if (*p != '0') seen_nonzero = true;
    if (seen_nonzero) ++int_digits;
  }
  if (p != end && *p == '.') {
    for (++p; p != end && IsDigit(*p); ++p) {
      if (*p != '0') seen_nonzero = true;
      if (!seen_nonzero) ++frac_zeros;
    }
  }
  int64_t exponent = 0;
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool exponent_negative = false;
    if (p != end && (*p == '+' || *p == '-')) exponent_negative = *p++ == '-';
    for (; p != end && IsDigit(*p); ++p) {
      if (exponent < kSaturate) exponent = exponent * 10 + (*p - '0');
    }
    if (exponent_negative) exponent = -exponent;
  }
  // The value is d.ddd * 10^scientific.
  const int64_t scientific =
      int_digits > 0 ? int_digits - 1 + exponent : exponent - frac_zeros - 1;
  return scientific > 0;
}

}  // namespace

namespace {

// [digits][.digits] with up to kMaxExactDigits digits in all, the whole of
// [p, end): the values longer than ParseNumber's inline 8 bytes
// ("1234567.125"), converted exactly. False for anything else.
bool ShortDecimal(const char* p, const char* end, bool negative,
                  double* out) noexcept {
  const char* q = p;
  uint64_t mantissa = 0;  // wraps for long inputs, which are not used
  for (; q != end; ++q) {
    const unsigned d = static_cast<unsigned char>(*q) - unsigned{'0'};
    if (d > 9) break;
    mantissa = mantissa * 10 + d;
  }
  size_t digits = static_cast<size_t>(q - p);
  size_t frac_digits = 0;
  if (q != end && *q == '.') {
    const char* const frac = ++q;
    for (; q != end; ++q) {
      const unsigned d = static_cast<unsigned char>(*q) - unsigned{'0'};
      if (d > 9) break;
      mantissa = mantissa * 10 + d;
    }
    frac_digits = static_cast<size_t>(q - frac);
    digits += frac_digits;
  }
  if (q == end && digits > 0 && digits <= internal::kMaxExactDigits &&
      (frac_digits == 0 || internal::kExactDivision)) {
    *out = internal::ExactDecimal(mantissa, frac_digits, negative);
    return true;
  }
  return false;
}

// Infinities (signed) and NaN (unsigned, as Go's ParseFloat takes it):
// [p, end) after the sign of `s`, which starts with neither a digit nor
// '.'. std::from_chars would also take "nan(...)", prefixes such as
// "infin" and a signed NaN, so they are matched here instead.
bool SpecialValue(std::string_view s, const char* p, const char* end,
                  bool negative, double* out) noexcept {
  if (EqualsIgnoreCase(p, end, "inf") || EqualsIgnoreCase(p, end, "infinity")) {
    *out = negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
    return true;
  }
  if (p == s.data() && EqualsIgnoreCase(p, end, "nan")) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  return false;  // also rejects a second sign ("+-5")
}

// The decimal syntax, checked cheaply so that text which merely starts
// like a number ("00000009e3779b10", "12ms") is rejected without
// from_chars: digits [. digits] [(e|E) [+-] digits], at least one mantissa
// digit, and nothing after.
bool DecimalSyntax(const char* p, const char* end) noexcept {
  const char* q = p;
  size_t mantissa_digits = 0;
  while (q != end && IsDigit(*q)) ++q, ++mantissa_digits;
  if (q != end && *q == '.') {
    for (++q; q != end && IsDigit(*q); ++q) ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (q != end && (*q == 'e' || *q == 'E')) {
    if (++q != end && (*q == '+' || *q == '-')) ++q;
    if (q == end || !IsDigit(*q)) return false;
    while (q != end && IsDigit(*q)) ++q;
  }
  return q == end;
}

}  // namespace

bool internal::ParseNumberSlow(std::string_view s, double* out) noexcept {
  const char* p = s.data();
  const char* const end = p + s.size();
  if (p == end) return false;
  bool negative = false;
  if (*p == '+' || *p == '-') {
    negative = *p == '-';
    if (++p == end) return false;
  }
  if (ShortDecimal(p, end, negative, out)) return true;
  if (!IsDigit(*p) && *p != '.') return SpecialValue(s, p, end, negative, out);
  if (!DecimalSyntax(p, end)) return false;

  // General decimal path. [p, end) starts with a digit or '.', so from_chars
  // (fixed or scientific, never hex) accepts exactly the decimal syntax above;
  // the sign is applied afterwards, which is exact under round-half-to-even.
  double value;
  const std::from_chars_result result =
      std::from_chars(p, end, value, std::chars_format::general);
  if (result.ptr != end) return false;  // trailing junk or invalid
  if (result.ec == std::errc()) {
    *out = negative ? -value : value;
    return true;
  }
  if (result.ec == std::errc::result_out_of_range && !IsOverflow(p, end)) {
    *out = negative ? -0.0 : 0.0;  // underflow: Go returns (-)0, no error
    return true;
  }
  return false;
}

}  // namespace mapr::util
