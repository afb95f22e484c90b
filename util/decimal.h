// Plain decimals ("-12.50") read exactly as an integer and a scale, for the
// functions that must not go through floating point: bucket()'s numeric
// bins, duration() and bytes(), and + - * / in set expressions.
//
// Example:
//   size_t i = 0;
//   mapr::util::int128 m;
//   int scale;
//   if (mapr::util::ReadDecimalPrefix("12.50ms", &i, 36, &m, &scale)) {
//     // m == 1250, scale == 2, i == 5 (at "ms")
//   }
#ifndef MAPR_UTIL_DECIMAL_H_
#define MAPR_UTIL_DECIMAL_H_

#include <cstddef>
#include <string_view>

#include "util/exact_sum.h"

namespace mapr::util {

// Reads digits with at most one '.' from s[*i]: at least one digit, at most
// `max_digits` significant digits (leading zeros do not count) and at most
// `max_digits` decimals. Stops at the first other byte and sets *i there;
// `*mantissa` is the digits as an integer, `*scale` the number of decimals.
// False (with *i unspecified) if there is no digit or too many.
// REQUIRES: max_digits <= 37, so that the mantissa fits.
inline bool ReadDecimalPrefix(std::string_view s, size_t* i, int max_digits,
                              int128* mantissa, int* scale) {
  int128 v = 0;
  int digits = 0, decimals = -1;
  bool any = false;
  for (; *i < s.size(); ++*i) {
    const char c = s[*i];
    if (c == '.') {
      if (decimals >= 0) return false;
      decimals = 0;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if ((v != 0 || c != '0') && ++digits > max_digits) return false;
    v = v * 10 + (c - '0');
    if (decimals >= 0 && ++decimals > max_digits) return false;
  }
  *mantissa = v;
  *scale = decimals < 0 ? 0 : decimals;
  return any;
}

// The whole of `s` as a plain decimal with an optional sign ("+5", "-0.25",
// "5.", ".5"), within ReadDecimalPrefix's limits.
inline bool ReadPlainDecimal(std::string_view s, int max_digits,
                             int128* mantissa, int* scale) {
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative || (!s.empty() && s[0] == '+')) ++i;
  if (!ReadDecimalPrefix(s, &i, max_digits, mantissa, scale) || i != s.size()) {
    return false;
  }
  if (negative) *mantissa = -*mantissa;
  return true;
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_DECIMAL_H_
