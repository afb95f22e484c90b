// mapr's numeric rule: deciding whether a field value is a number, and which.
//
// Float operators in WHERE, and the sum/avg/min/max aggregates, only use a
// value that is numeric. DTail decides that with Go's strconv.ParseFloat;
// mapr keeps Go's decimal syntax and its special values but drops the exotic
// forms (hex floats, `_` digit separators) that no log writer emits.
//
// Example:
//
//   double v;
//   if (mapr::runtime::ParseNumber("12.5", &v)) {
//     sum += v;  // v == 12.5
//   }
//   mapr::runtime::IsNumeric("0x10");  // false
#ifndef MAPR_UTIL_NUMBER_H_
#define MAPR_UTIL_NUMBER_H_

#include <bit>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mapr::util {
namespace internal {

// Everything ParseNumber's inline fast path leaves.
bool ParseNumberSlow(std::string_view s, double* out) noexcept;

// Mantissas of at most this many digits are below 10^15 < 2^53, so they
// convert to double exactly.
inline constexpr size_t kMaxExactDigits = 15;

// Exact powers of ten (all up to 10^22 are representable).
inline constexpr double kPow10[kMaxExactDigits + 1] = {
    1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// Dividing two exact doubles rounds correctly only if the division is done
// in double precision (not x87 extended precision followed by a second
// rounding).
inline constexpr bool kExactDivision = FLT_EVAL_METHOD == 0;

// (-)mantissa / 10^frac_digits. The mantissa (at most kMaxExactDigits
// digits) and the power of ten are exact, so one IEEE division rounds
// correctly (Clinger). REQUIRES: frac_digits == 0 || kExactDivision.
inline double ExactDecimal(uint64_t mantissa, size_t frac_digits,
                           bool negative) {
  double value = static_cast<double>(mantissa);
  if (frac_digits > 0) value /= kPow10[frac_digits];
  return negative ? -value : value;
}

// The fast path for 1 to 8 bytes, a word at a time: digits with at most one
// '.' and at least one digit ("0", "499", "501.471", "5.", ".5"). Sets
// *mantissa (exact: below 10^8) and *frac_digits; false for anything else.
// Reads only [p, p + len). REQUIRES: 1 <= len <= 8.
[[gnu::always_inline]] inline bool ParseShortDecimal(const char* p, size_t len,
                                                     uint64_t* mantissa,
                                                     size_t* frac_digits) {
  if constexpr (std::endian::native != std::endian::little) return false;
  constexpr uint64_t kOnes = 0x0101010101010101;
  constexpr uint64_t kHigh = 0x8080808080808080;
  // Byte i of v is p[i]; bytes from len on are 0.
  uint64_t v;
  if (len >= 4) {  // Two overlapping loads.
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + len - 4, 4);
    v = lo | (static_cast<uint64_t>(hi) << (8 * (len - 4)));
  } else {  // First, middle and last byte.
    v = static_cast<uint64_t>(static_cast<uint8_t>(p[0])) |
        (static_cast<uint64_t>(static_cast<uint8_t>(p[len / 2]))
         << (8 * (len / 2))) |
        (static_cast<uint64_t>(static_cast<uint8_t>(p[len - 1]))
         << (8 * (len - 1)));
  }
  uint64_t t = v ^ (kOnes * '0');  // A digit's value; '.' becomes 0x1e.
  // Take out the first '.': the bytes above it move down by one. (The
  // lowest byte flagged by this zero-byte test is always a real zero.)
  const uint64_t dots = t ^ (kOnes * 0x1e);
  const uint64_t dot_bits = (dots - kOnes) & ~dots & kHigh;
  size_t digits = len;
  size_t frac = 0;
  if (dot_bits != 0) {
    const size_t at = static_cast<size_t>(std::countr_zero(dot_bits)) / 8;
    const uint64_t below = (uint64_t{1} << (8 * at)) - 1;
    t = (t & below) | ((t >> 8) & ~below);
    --digits;
    frac = digits - at;
    if (digits == 0) return false;
  }
  // Every remaining byte must be 0..9: adding 0x76 sets bit 7 of a byte
  // above 9 (a byte with bit 7 set already is caught by `| t`; its carry
  // only disturbs bytes above it).
  const uint64_t used =
      digits == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * digits)) - 1;
  if ((((t + kOnes * 0x76) | t) & kHigh & used) != 0) return false;
  // Leading zero digits, then the eight-digit conversion (Lemire's SWAR).
  t <<= 8 * (8 - digits);
  t = (t * 10) + (t >> 8);
  t = (((t & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
       (((t >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >>
      32;
  *mantissa = t;
  *frac_digits = frac;
  return true;
}

// The value of p[0, n), 0 to 16 bytes that must all be digits (0 for none).
[[gnu::always_inline]] inline bool ParseDigits16(const char* p, size_t n,
                                                 uint64_t* value) {
  uint64_t high = 0, low = 0;
  size_t frac = 0;
  if (n == 0) {
    *value = 0;
    return true;
  }
  if (n > 8) {
    if (!ParseShortDecimal(p, n - 8, &high, &frac)) return false;
    p += n - 8;
    n = 8;
  }
  if (!ParseShortDecimal(p, n, &low, &frac)) return false;
  *value = high * 100000000 + low;
  return true;
}

// The fast path for 9 to 16 bytes (epoch milliseconds, longer fractions):
// digits with at most one '.', at most kMaxExactDigits digits in all and
// at least one. The parts around the '.' go through ParseShortDecimal,
// which sees no '.' in them. REQUIRES: 9 <= len <= 16.
inline bool ParseMediumDecimal(const char* p, size_t len, uint64_t* mantissa,
                               size_t* frac_digits) {
  const char* dot = static_cast<const char*>(std::memchr(p, '.', len));
  size_t int_len = len;
  size_t frac_len = 0;
  if (dot != nullptr) {
    int_len = static_cast<size_t>(dot - p);
    frac_len = len - int_len - 1;
    if (std::memchr(dot + 1, '.', frac_len) != nullptr) return false;
  }
  if (int_len + frac_len > kMaxExactDigits) return false;
  uint64_t int_value, frac_value = 0;
  if (!ParseDigits16(p, int_len, &int_value)) return false;
  if (frac_len > 0 && !ParseDigits16(dot + 1, frac_len, &frac_value)) {
    return false;
  }
  *mantissa = int_value * static_cast<uint64_t>(kPow10[frac_len]) + frac_value;
  *frac_digits = frac_len;
  return true;
}

}  // namespace internal

// Parses `s` under mapr's numeric rule. Returns true and stores the value in
// `*out` if `s` is numeric; returns false and leaves `*out` unchanged if not.
//
// `s` is numeric iff the whole of it (no surrounding spaces) is one of:
//
//   * a decimal float: an optional sign (`+` or `-`), then digits with an
//     optional `.` somewhere (at least one digit in all: `5.`, `.5`, `00012`
//     are numeric, `.` is not), then an optional exponent `e`/`E` with an
//     optional sign and at least one digit (`1e3`, `1E-3`; not `1e`, `e5`);
//   * `inf` or `infinity` in any case, with an optional sign (gives +/-Inf);
//   * `nan` in any case, WITHOUT a sign (gives a quiet NaN). Go's ParseFloat
//     rejects `+nan` and `-nan`, and so does mapr.
//
// Not numeric: the empty string, hex (`0x10`, `0x1p4`), underscores
// (`1_000`), `1,5`, `nan(123)`, two signs (`+-5`), trailing junk, and decimal
// values whose magnitude overflows a double (`1e309`, `-1e400`; Go returns a
// range error for them). A value that underflows is numeric, exactly as in
// Go: `1e-400` gives 0 (`-1e-400` gives -0) and `3e-324` the smallest denormal.
//
// The result is correctly rounded (round half to even), the same double Go
// returns; `-0` gives negative zero.
//
// Never allocates. Thread-safe. Values of up to 8 bytes after the sign
// without an exponent, such as `200` or `-0.125`, take an inline fast path
// (no call, no std::from_chars); values of 9 to 16 bytes with at most 15
// digits, such as `1733097600123` or `0.000123456`, a word-at-a-time one
// with two memchr calls.
[[gnu::always_inline]] inline bool ParseNumber(std::string_view s,
                                               double* out) noexcept {
  const char* p = s.data();
  size_t n = s.size();
  bool negative = false;
  if (n != 0 && (*p == '-' || *p == '+')) {
    negative = *p == '-';
    ++p;
    --n;
  }
  uint64_t mantissa;
  size_t frac_digits;
  if (n - 1 < 8 && internal::ParseShortDecimal(p, n, &mantissa, &frac_digits) &&
      (frac_digits == 0 || internal::kExactDivision)) {
    *out = internal::ExactDecimal(mantissa, frac_digits, negative);
    return true;
  }
  if (n - 9 < 8 &&
      internal::ParseMediumDecimal(p, n, &mantissa, &frac_digits) &&
      (frac_digits == 0 || internal::kExactDivision)) {
    *out = internal::ExactDecimal(mantissa, frac_digits, negative);
    return true;
  }
  // Only digits, '.' and the special values ("inf", "nan") go on.
  if (n == 0) return false;
  const unsigned char c = static_cast<unsigned char>(*p);
  if (c - unsigned{'0'} > 9 && c != '.' && (c | 0x20) != 'i' &&
      (c | 0x20) != 'n') {
    return false;
  }
  return internal::ParseNumberSlow(s, out);
}

// Returns true iff ParseNumber(s) would succeed.
inline bool IsNumeric(std::string_view s) noexcept {
  double ignored;
  return ParseNumber(s, &ignored);
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_NUMBER_H_
