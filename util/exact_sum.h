// Exact, order-independent sums of doubles.
//
// Adding doubles with `+=` rounds after every step, so the result depends on
// the order of the values, on how they were split between threads and on the
// order in which the partial sums were merged. The primitives here keep the
// sum exact instead and round once, at the end, to the nearest double (ties to
// even). The result is then a pure function of the multiset of values added.
//
// There are two accumulators:
//
//   * A fast path: a signed 128-bit fixed-point integer in units of 2^-64.
//     ToFixed() converts the values that fit (every finite multiple of 2^-64
//     below 2^62 in magnitude, which covers integers and most decimal log
//     values such as 0.1 or 12.5) and AddFixed() adds them with an overflow
//     check. Both are a few instructions, inline.
//   * WideSum: an exact accumulator that covers every finite double (a
//     "Kulisch" fixed-point number from 2^-1088 to beyond 2^1087). Values the
//     fast path rejects, and fast-path sums that overflow, go here.
//
// Special values (NaN, infinities) and the sign of a zero result are tracked
// separately in a bit set of flags (NoteSpecial(), FinishSum()).
//
// Example:
//
//   using mapr::util::int128;
//   int128 fixed = 0;             // Per group: the fast-path sum,
//   mapr::util::WideSum wide;     // the values it could not take,
//   uint8_t flags = 0;            // and the special values seen.
//   for (double v : values) {
//     flags = mapr::util::NoteSpecial(flags, v);
//     int128 units;
//     if (mapr::util::ToFixed(v, &units)) {
//       if (!mapr::util::AddFixed(&fixed, units)) wide.AddFixed(units);
//     } else if (std::isfinite(v)) {
//       wide.Add(v);
//     }
//   }
//   double sum;
//   if (wide.IsZero()) {
//     sum = mapr::util::RoundFixed(fixed);
//   } else {
//     wide.AddFixed(fixed);
//     sum = wide.Round();
//   }
//   sum = mapr::util::FinishSum(flags, sum);
//
// For avg(), round the quotient once instead of dividing the rounded sum:
//
//   wide.AddFixed(fixed);
//   double mean = mapr::util::FinishSum(flags, wide.RoundDividedBy(count));
//
// Partial states merge exactly: fixed sums with AddFixed() (spilling to a
// WideSum on overflow), WideSums with WideSum::Merge(), flags with `|`.
// WideSum::AppendTo() and WideSum::ReadFrom() ship a WideSum between
// processes in a canonical encoding. Fold the fixed sum into the WideSum
// (AddFixed()) before encoding: the same values can leave different pairs of
// fixed and wide parts, depending on where the overflows happened, and only
// their total is canonical.
//
// Nothing here allocates. The functions are thread-compatible: distinct
// objects may be used from distinct threads without synchronization.
#ifndef MAPR_UTIL_EXACT_SUM_H_
#define MAPR_UTIL_EXACT_SUM_H_

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace mapr::util {

// Signed and unsigned 128-bit integers (a GCC/Clang extension; `__extension__`
// keeps -Wpedantic quiet).
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

// ---------------------------------------------------------------------------
// The fixed-point fast path: int128 in units of 2^-64.
// ---------------------------------------------------------------------------

// Converts `v` to units of 2^-64. Returns true iff `v` is finite, an exact
// integer multiple of 2^-64, and |v| < 2^62; then `*units` is v * 2^64,
// exactly (+0.0 and -0.0 both give 0). Returns false otherwise (NaN,
// infinities, |v| >= 2^62, and values with bits below 2^-64 such as 1e-7 or
// every subnormal); then `*units` holds an unspecified value.
//
// Every double of magnitude at least 2^-12 and below 2^62 is accepted, so
// integers and the usual decimal values of logs (0.1, 12.345) take this path.
// |*units| < 2^126: two such values can always be added without overflow, and
// AddFixed() detects the overflow of a long run of them.
//
// Works on the bit pattern only: no branches but the one the caller takes on
// the result, no floating-point arithmetic.
[[gnu::always_inline]] inline bool ToFixed(double v, int128* units) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  const int biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  // The significand with its leading one at bit 62 (none for a zero or a
  // subnormal) and 10 zero bits below, then with the sign of v:
  // v = significand * 2^(biased_exponent - 1085), so
  // v * 2^64 = (significand * 2^64) >> (1085 - biased_exponent).
  const uint64_t significand =
      ((bits << 11) >> 1) | (static_cast<uint64_t>(biased_exponent != 0) << 62);
  const uint64_t negative = -(bits >> 63);  // 0 or ~0.
  const uint128 scaled =
      static_cast<uint128>((significand ^ negative) - negative) << 64;
  // For the accepted exponents [959, 1084] the shift is in [1, 126]; the
  // mask only keeps the shift defined for the others. The arithmetic shift
  // is exact when only zero bits are shifted out, negative or not.
  const int shift = (1085 - biased_exponent) & 127;
  *units = static_cast<int128>(scaled) >> shift;
  // Exact iff the shift exceeds 64 by at most the number of trailing zeros
  // of the significand, i.e. biased_exponent + (trailing zeros of the
  // significand as stored, with the leading one at bit 52) >= 1011. That
  // also rules out subnormals and the smallest normal exponents. +-0.0 give
  // 0 but fail that test, so they are accepted separately.
  const bool is_zero = (bits << 1) == 0;
  return is_zero |
         ((biased_exponent <= 1084) &
          (biased_exponent + std::countr_zero(bits | (uint64_t{1} << 52)) >=
           1011));
}

// Sets `*acc` to `*acc + units` and returns true, unless the sum overflows
// int128; then returns false and leaves `*acc` unchanged (the caller adds
// `units` to a WideSum instead, see the example at the top).
[[gnu::always_inline]] inline bool AddFixed(int128* acc, int128 units) {
  int128 sum;
  if (__builtin_add_overflow(*acc, units, &sum)) return false;
  *acc = sum;
  return true;
}

// Returns units * 2^-64 correctly rounded to the nearest double, ties to
// even. 0 gives +0.0. Exact for |units| < 2^53; larger values are rounded
// once (never through an intermediate long double).
double RoundFixed(int128 units);

// ---------------------------------------------------------------------------
// WideSum: an exact accumulator for every finite double.
// ---------------------------------------------------------------------------

// An exact sum of finite doubles (and of fixed-point units), rounded once by
// Round(). The state is a fixed-point integer of 67 signed 64-bit digits, each
// holding 32 bits of payload and 31 bits of headroom for carries, with bit 0
// of digit 0 worth 2^-1088 (below the smallest subnormal, 2^-1074). Add() adds
// the significand of a value to the two or three digits it covers; carries
// are propagated lazily, once every 2^30 additions, so an addition is a
// handful of integer operations and never a loop.
//
// The sum must stay below 2^1087 in magnitude at all times, which holds for
// any sum of fewer than 2^62 doubles (the values added are below 2^1024).
// Beyond that the state wraps around silently (no undefined behavior, but a
// wrong result). A sum taken from elsewhere (ReadFrom, MergeChecked) is
// below 2^1086, so that 2^62 more additions still fit.
//
// Example:
//
//   mapr::util::WideSum a, b;
//   a.Add(1e308);
//   b.Add(-1e308);
//   b.Add(1e-300);
//   a.Merge(b);
//   a.Round();  // 1e-300, exactly.
//
// No heap allocation; a WideSum is a flat value (copyable, sizeof about 550
// bytes). A default-constructed WideSum is zero.
class WideSum {
 public:
  WideSum() = default;

  // Adds `v` exactly. REQUIRES: `v` is finite (the caller records NaN and
  // infinities with NoteSpecial()). A non-finite `v` adds a meaningless
  // finite amount; it never touches memory outside the object.
  void Add(double v);

  // Adds units * 2^-64 exactly (a ToFixed() value or an int128 sum of them).
  void AddFixed(int128 units);

  // Adds the exact value of `other`. Merging in any order and any tree shape
  // gives the same exact value. `other` may be `*this`.
  void Merge(const WideSum& other);
  // Merge(), unless the exact sum would be 2^1086 or more in magnitude
  // (what ReadFrom() refuses; Merge() wraps at 2^1087): then returns false
  // and leaves `*this` unchanged. No sum of fewer than 2^62 doubles gets
  // there; sums read from elsewhere (a partial) can. As cheap as Merge()
  // while both sums are below about 2^1084 in magnitude.
  [[nodiscard]] bool MergeChecked(const WideSum& other);
  // True if the sum is far enough from the limit (below about 2^1084 in
  // magnitude) that adding any finite double or fixed-point value, or
  // merging another such sum, cannot overflow: its last digit is below
  // 2^60 in magnitude (the carries of the digits below it are at most
  // about 2^31).
  bool FarFromLimit() const {
    const int64_t top = digits_[kDigits - 1];
    return top < (int64_t{1} << 60) && top > -(int64_t{1} << 60);
  }

  // Returns the exact sum correctly rounded to the nearest double, ties to
  // even. A sum of magnitude at least DBL_MAX + ulp(DBL_MAX)/2 gives an
  // infinity of its sign (as IEEE addition would); an exact zero gives +0.0
  // (see FinishSum() for -0.0). Subnormal results are correctly rounded too.
  double Round() const;

  // Returns the exact sum divided by `divisor`, correctly rounded to the
  // nearest double, ties to even: the mean of `divisor` values rounded once,
  // unlike Round() / divisor. An exact zero gives +0.0; a nonzero quotient
  // that rounds to zero keeps its sign (as IEEE division would). REQUIRES:
  // divisor > 0 (0 gives a NaN).
  double RoundDividedBy(uint64_t divisor) const;

  // Returns true iff the exact sum is zero (whatever was added to get there).
  bool IsZero() const;

  // If the exact sum is a multiple of 2^-64 in [-2^127, 2^127) units, stores
  // it in units of 2^-64 (as ToFixed() and AddFixed() count) and returns
  // true; else returns false. Lets a caller store a wide sum that came back
  // into the fixed range canonically.
  bool ToFixed(int128* units) const;

  // Appends a canonical encoding of the exact sum to `*out`: equal exact
  // sums give equal bytes, whatever sequence of Add(), AddFixed() and
  // Merge() produced them. At most 3 + 68 * 4 = 275 bytes; a zero sum takes
  // one byte, a single double typically 11 to 15.
  //
  // Layout (all integers little-endian): a tag byte, 0 for zero (nothing
  // follows), 1 for a positive and 2 for a negative sum; then the index `lo`
  // of the lowest nonzero 32-bit word of the magnitude (one byte), the number
  // `n` of words (one byte) and the words lo .. lo + n - 1 (4 bytes each,
  // bit 0 of word i worth 2^(32 * i - 1088)). The first and last of the
  // words are nonzero.
  void AppendTo(std::string* out) const;

  // Reads one encoding written by AppendTo() from the front of `*in`. On
  // success stores the sum in `*out`, removes exactly the bytes read from
  // `*in` and returns true. Returns false, leaving `*in` and `*out`
  // unchanged, if the input is truncated or not a canonical encoding (an
  // unknown tag, words out of range, a zero first or last word, a magnitude
  // of 2^1086 or more: half the range, so that 2^62 more additions fit).
  static bool ReadFrom(std::string_view* in, WideSum* out);

 private:
  static constexpr int kDigits = 67;
  // Carries are propagated once this many additions (or merges) may have
  // accumulated in a digit. Invariant: |digits_[i]| < (pending_ + 1) * 2^32
  // for every digit but the last, which holds what is above the others.
  static constexpr int32_t kMaxPending = int32_t{1} << 30;

  // Adds `magnitude` (a 32-bit value) to digit `index` with the sign given by
  // `negative` (0 or -1).
  void AddToDigit(int index, uint64_t magnitude, int64_t negative) {
    digits_[index] += (static_cast<int64_t>(magnitude) ^ negative) - negative;
  }
  void CountAddition() {
    if (++pending_ >= kMaxPending) Normalize();
  }
  // Propagates carries: afterwards every digit but the last is in [0, 2^32)
  // and pending_ is 0. The exact value is unchanged.
  void Normalize();

  // Writes the magnitude of the exact sum as 68 32-bit words (word i worth
  // 2^(32 * i - 1088)) and returns true iff the sum is negative.
  bool Magnitude(uint32_t words[]) const;

  int64_t digits_[kDigits] = {};
  int32_t pending_ = 0;
};

inline void WideSum::Add(double v) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  const int biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  const bool subnormal = biased_exponent == 0;
  // |v| = significand * 2^(max(biased_exponent, 1) - 1075), and bit 0 of the
  // significand lands `position` bits above 2^-1088.
  const uint64_t significand = (bits & ((uint64_t{1} << 52) - 1)) |
                               (static_cast<uint64_t>(!subnormal) << 52);
  const int position = biased_exponent + static_cast<int>(subnormal) + 13;
  const int index = position >> 5;
  const int shift = position & 31;
  const int64_t negative = -static_cast<int64_t>(bits >> 63);  // 0 or -1.
  // significand << shift (at most 84 bits) split into three 32-bit digits.
  const uint64_t above = significand >> (32 - shift);
  AddToDigit(index, (significand << shift) & 0xffffffff, negative);
  AddToDigit(index + 1, above & 0xffffffff, negative);
  AddToDigit(index + 2, above >> 32, negative);
  CountAddition();
}

inline void WideSum::AddFixed(int128 units) {
  // Bit 0 of the units is worth 2^-64 = 2^(32 * 32 - 1088): digits 32..35.
  const int64_t negative = -static_cast<int64_t>(units < 0);
  const uint128 magnitude =
      units < 0 ? -static_cast<uint128>(units) : static_cast<uint128>(units);
  const uint64_t low = static_cast<uint64_t>(magnitude);
  const uint64_t high = static_cast<uint64_t>(magnitude >> 64);
  AddToDigit(32, low & 0xffffffff, negative);
  AddToDigit(33, low >> 32, negative);
  AddToDigit(34, high & 0xffffffff, negative);
  AddToDigit(35, high >> 32, negative);
  CountAddition();
}

// ---------------------------------------------------------------------------
// Special values and the sign of zero.
// ---------------------------------------------------------------------------

// Flags for the values an exact sum cannot hold. A group's flags start at 0
// and merge with bitwise OR.
inline constexpr uint8_t kSumNaN = 1;         // A NaN was added.
inline constexpr uint8_t kSumPosInf = 2;      // +Inf was added.
inline constexpr uint8_t kSumNegInf = 4;      // -Inf was added.
inline constexpr uint8_t kSumNonNegZero = 8;  // A value other than -0.0 was.

// Returns `flags` updated for one more value `v`. Call it for every value
// added (finite or not): besides the special values it records whether
// anything but -0.0 was seen, which decides the sign of a zero sum.
[[gnu::always_inline]] inline uint8_t NoteSpecial(uint8_t flags, double v) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  const uint64_t magnitude = bits & ~(uint64_t{1} << 63);
  constexpr uint64_t kInfBits = uint64_t{0x7ff} << 52;
  flags |= bits != (uint64_t{1} << 63) ? kSumNonNegZero : 0;
  if (magnitude >= kInfBits) [[unlikely]] {
    flags |= magnitude > kInfBits ? kSumNaN
             : (bits >> 63)       ? kSumNegInf
                                  : kSumPosInf;
  }
  return flags;
}

// Combines the flags of a group with its finite sum rounded by Round(),
// RoundFixed() or RoundDividedBy(), as IEEE addition of the same values
// would: NaN if a NaN or both infinities were added (a quiet NaN; the
// payload and sign of an input NaN are not kept), an infinity if only
// infinities of one sign were, -0.0 if every value added was -0.0 (IEEE:
// -0 + -0 = -0, while an exact zero from cancellation is +0), else
// `rounded_finite_sum`.
//
// With flags == 0 (no value, or only -0.0 values) the result is -0.0: a
// caller that wants +0.0 for an empty group must check the count itself.
inline double FinishSum(uint8_t flags, double rounded_finite_sum) {
  if ((flags & kSumNaN) != 0 ||
      (flags & (kSumPosInf | kSumNegInf)) == (kSumPosInf | kSumNegInf)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if ((flags & kSumPosInf) != 0) return std::numeric_limits<double>::infinity();
  if ((flags & kSumNegInf) != 0) {
    return -std::numeric_limits<double>::infinity();
  }
  if ((flags & kSumNonNegZero) == 0) return -0.0;
  return rounded_finite_sum;
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_EXACT_SUM_H_
