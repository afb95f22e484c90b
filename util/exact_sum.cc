#include "util/exact_sum.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace mapr::util {
namespace {

// The magnitude of a WideSum as 32-bit words: the 66 digits below the top one
// and the top digit's 64 bits.
constexpr int kWords = 68;
// Bit 0 of word 0 is worth 2^kLowestExponent.
constexpr int kLowestExponent = -1088;

int BitLength(uint128 x) {
  const uint64_t high = static_cast<uint64_t>(x >> 64);
  return high != 0 ? 128 - std::countl_zero(high)
                   : 64 - std::countl_zero(static_cast<uint64_t>(x));
}

// Returns (bits + sticky) * 2^exponent correctly rounded to the nearest
// double (ties to even) with the sign `negative`, where `sticky` stands for a
// nonzero amount below 2^exponent (so only its presence matters). Overflows
// to an infinity as IEEE arithmetic does. REQUIRES: bits != 0,
// exponent >= kLowestExponent.
double RoundBits(uint128 bits, int exponent, bool sticky, bool negative) {
  const int length = BitLength(bits);
  // Keep 53 significant bits, or fewer for a subnormal result whose last bit
  // is worth 2^-1074.
  const int shift = std::max(length - 53, -1074 - exponent);
  uint64_t significand;
  if (shift <= 0) {
    // Exact: `bits` has at most 53 bits and then sticky is false (every
    // caller passes its nonzero low bits in `bits` when they fit).
    significand = static_cast<uint64_t>(bits << -shift);
  } else {
    significand = static_cast<uint64_t>(bits >> shift);
    const uint128 rest = bits & ((uint128{1} << shift) - 1);
    const uint128 half = uint128{1} << (shift - 1);
    if (rest > half || (rest == half && (sticky || (significand & 1) != 0))) {
      ++significand;  // Up to 2^53, which the encoding below handles.
    }
  }
  // The result is significand * 2^(exponent + shift) with exponent + shift >=
  // -1074; significand is in [2^52, 2^53] unless exponent + shift == -1074
  // (a subnormal, or the smallest normal reached by rounding up). Adding the
  // significand with its leading one to the biased exponent minus one
  // carries into the exponent field as needed.
  const uint64_t biased = static_cast<uint64_t>(exponent + shift + 1074);
  uint64_t result = (biased << 52) + significand;
  constexpr uint64_t kInfBits = uint64_t{0x7ff} << 52;
  if (result >= kInfBits) result = kInfBits;
  if (negative) result |= uint64_t{1} << 63;
  return std::bit_cast<double>(result);
}

// Returns the magnitude held in `words` (kWords words, plus a nonzero amount
// below word 0 if `sticky`, such as a division remainder) rounded to double.
// REQUIRES: some word is nonzero.
double RoundWords(const uint32_t* words, bool sticky, bool negative) {
  int high = kWords - 1;
  while (words[high] == 0) --high;
  // The top three words hold at least 65 significant bits when there are
  // three of them: enough for 53 bits, a rounding bit and more.
  const int low = std::max(high - 2, 0);
  uint128 bits = 0;
  for (int i = high; i >= low; --i) bits = (bits << 32) | words[i];
  for (int i = 0; i < low && !sticky; ++i) sticky = words[i] != 0;
  return RoundBits(bits, 32 * low + kLowestExponent, sticky, negative);
}

void AppendUint32(uint32_t v, std::string* out) {
  const char bytes[4] = {static_cast<char>(v), static_cast<char>(v >> 8),
                         static_cast<char>(v >> 16),
                         static_cast<char>(v >> 24)};
  out->append(bytes, 4);
}

uint32_t ReadUint32(const char* p) {
  return static_cast<uint32_t>(static_cast<uint8_t>(p[0])) |
         static_cast<uint32_t>(static_cast<uint8_t>(p[1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(p[2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(p[3])) << 24;
}

// The top digit wraps around (instead of overflowing) beyond the documented
// range: a wrong result, but no undefined behavior.
int64_t WrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}

constexpr uint8_t kTagZero = 0;
constexpr uint8_t kTagPositive = 1;
constexpr uint8_t kTagNegative = 2;

}  // namespace

double RoundFixed(int128 units) {
  if (units == 0) return 0.0;
  // A whole number below 2^63 in magnitude (sums of integers): the
  // hardware's int64 conversion rounds correctly, and 2^-64 * 2^64 is exact.
  const int64_t whole = static_cast<int64_t>(units >> 64);
  if (static_cast<uint64_t>(units) == 0 &&
      whole != std::numeric_limits<int64_t>::min()) {
    return static_cast<double>(whole);
  }
  const bool negative = units < 0;
  const uint128 magnitude =
      negative ? -static_cast<uint128>(units) : static_cast<uint128>(units);
  return RoundBits(magnitude, -64, /*sticky=*/false, negative);
}

void WideSum::Normalize() {
  for (int i = 0; i + 2 < kDigits; ++i) {
    const int64_t carry = digits_[i] >> 32;  // Floor division by 2^32.
    digits_[i] &= 0xffffffff;
    digits_[i + 1] += carry;
  }
  const int64_t carry = digits_[kDigits - 2] >> 32;
  digits_[kDigits - 2] &= 0xffffffff;
  digits_[kDigits - 1] = WrappingAdd(digits_[kDigits - 1], carry);
  pending_ = 0;
}

void WideSum::Merge(const WideSum& other) {
  if (&other == this) {
    const WideSum copy = other;
    Merge(copy);
    return;
  }
  // By the invariant the digits of the sum stay below
  // (pending_ + other.pending_ + 2) * 2^32 in magnitude. Keep that at most
  // 2^62 + 2^32, like after an Add(), so that it stays clear of 2^63 with
  // room for the carries of the Normalize() that may follow.
  if (int64_t{pending_} + other.pending_ + 1 >= kMaxPending) Normalize();
  for (int i = 0; i + 1 < kDigits; ++i) digits_[i] += other.digits_[i];
  digits_[kDigits - 1] =
      WrappingAdd(digits_[kDigits - 1], other.digits_[kDigits - 1]);
  pending_ += other.pending_ + 1;
  if (pending_ >= kMaxPending) Normalize();
}

bool WideSum::MergeChecked(const WideSum& other) {
  // Far from the limit, the sum stays below 2^61 + 2^32 in units of the
  // last digit (2^1024): below 2^1086.
  if (FarFromLimit() && other.FarFromLimit()) {
    Merge(other);
    return true;
  }
  // Else add the normalized digits with their carries, and check the last.
  WideSum a = *this;
  WideSum b = other;
  a.Normalize();
  b.Normalize();
  int64_t carry = 0;
  bool low_zero = true;
  for (int i = 0; i + 1 < kDigits; ++i) {
    const int64_t d = a.digits_[i] + b.digits_[i] + carry;  // < 2^33
    a.digits_[i] = d & 0xffffffff;
    carry = d >> 32;
    low_zero = low_zero && a.digits_[i] == 0;
  }
  // The sum is top * 2^1024 + the digits below (in [0, 2^1024)): below
  // 2^1086 in magnitude iff -2^62 < top < 2^62, or top is -2^62 and the
  // digits below are not all zero.
  constexpr int64_t kTopLimit = int64_t{1} << 62;
  int64_t top;
  if (__builtin_add_overflow(a.digits_[kDigits - 1], b.digits_[kDigits - 1],
                             &top) ||
      __builtin_add_overflow(top, carry, &top) || top >= kTopLimit ||
      top < -kTopLimit || (top == -kTopLimit && low_zero)) {
    return false;  // |sum| >= 2^1086
  }
  a.digits_[kDigits - 1] = top;
  *this = a;
  return true;
}

bool WideSum::Magnitude(uint32_t words[]) const {
  WideSum normal = *this;
  normal.Normalize();
  // Two's complement over 68 words: the low 66 are the digits, the top two
  // the last digit's 64 bits.
  for (int i = 0; i + 1 < kDigits; ++i) {
    words[i] = static_cast<uint32_t>(normal.digits_[i]);
  }
  const uint64_t top = static_cast<uint64_t>(normal.digits_[kDigits - 1]);
  words[kWords - 2] = static_cast<uint32_t>(top);
  words[kWords - 1] = static_cast<uint32_t>(top >> 32);
  const bool negative = normal.digits_[kDigits - 1] < 0;
  if (negative) {  // Negate: invert and add one.
    uint64_t carry = 1;
    for (int i = 0; i < kWords; ++i) {
      const uint64_t word = uint64_t{~words[i]} + carry;
      words[i] = static_cast<uint32_t>(word);
      carry = word >> 32;
    }
  }
  return negative;
}

double WideSum::Round() const {
  uint32_t words[kWords];
  const bool negative = Magnitude(words);
  for (int i = 0; i < kWords; ++i) {
    if (words[i] != 0) return RoundWords(words, /*sticky=*/false, negative);
  }
  return 0.0;
}

double WideSum::RoundDividedBy(uint64_t divisor) const {
  if (divisor == 0) return std::numeric_limits<double>::quiet_NaN();
  uint32_t words[kWords];
  const bool negative = Magnitude(words);
  // Long division, a 32-bit word at a time: remainder < divisor, so each
  // quotient word is below 2^32.
  uint64_t remainder = 0;
  bool nonzero = false;
  for (int i = kWords - 1; i >= 0; --i) {
    if (remainder == 0 && words[i] == 0) continue;
    const uint128 current = (static_cast<uint128>(remainder) << 32) | words[i];
    words[i] = static_cast<uint32_t>(current / divisor);
    remainder = static_cast<uint64_t>(current % divisor);
    nonzero |= words[i] != 0;
  }
  if (!nonzero) {
    // The quotient is below 2^-1088, far below half the smallest subnormal.
    return remainder == 0 || !negative ? 0.0 : -0.0;
  }
  return RoundWords(words, /*sticky=*/remainder != 0, negative);
}

bool WideSum::IsZero() const {
  WideSum normal = *this;
  normal.Normalize();
  for (int i = 0; i < kDigits; ++i) {
    if (normal.digits_[i] != 0) return false;
  }
  return true;
}

void WideSum::AppendTo(std::string* out) const {
  uint32_t words[kWords];
  const bool negative = Magnitude(words);
  int lo = 0;
  while (lo < kWords && words[lo] == 0) ++lo;
  if (lo == kWords) {
    out->push_back(static_cast<char>(kTagZero));
    return;
  }
  int hi = kWords - 1;
  while (words[hi] == 0) --hi;
  out->push_back(static_cast<char>(negative ? kTagNegative : kTagPositive));
  out->push_back(static_cast<char>(lo));
  out->push_back(static_cast<char>(hi - lo + 1));
  for (int i = lo; i <= hi; ++i) AppendUint32(words[i], out);
}

bool WideSum::ReadFrom(std::string_view* in, WideSum* out) {
  if (in->empty()) return false;
  const uint8_t tag = static_cast<uint8_t>((*in)[0]);
  if (tag == kTagZero) {
    *out = WideSum();
    in->remove_prefix(1);
    return true;
  }
  if ((tag != kTagPositive && tag != kTagNegative) || in->size() < 3) {
    return false;
  }
  const int lo = static_cast<uint8_t>((*in)[1]);
  const int count = static_cast<uint8_t>((*in)[2]);
  if (count == 0 || lo + count > kWords) return false;
  const size_t size = 3 + 4 * static_cast<size_t>(count);
  if (in->size() < size) return false;
  uint32_t words[kWords] = {};
  for (int i = 0; i < count; ++i) {
    words[lo + i] = ReadUint32(in->data() + 3 + 4 * i);
  }
  const int hi = lo + count - 1;
  // Canonical: no zero word at either end. The magnitude must be below
  // 2^1086 (half the top digit's positive range: room for 2^62 additions).
  if (words[lo] == 0 || words[hi] == 0 || words[kWords - 1] >= (1u << 30)) {
    return false;
  }
  WideSum sum;
  for (int i = 0; i + 1 < kDigits; ++i) sum.digits_[i] = words[i];
  sum.digits_[kDigits - 1] = static_cast<int64_t>(
      uint64_t{words[kWords - 2]} | uint64_t{words[kWords - 1]} << 32);
  if (tag == kTagNegative) {
    // Digits in (-2^32, 0] satisfy the invariant without carrying.
    for (int i = 0; i < kDigits; ++i) sum.digits_[i] = -sum.digits_[i];
  }
  *out = sum;
  in->remove_prefix(size);
  return true;
}

bool WideSum::ToFixed(int128* units) const {
  // Word i is worth 2^(32 * i - 1088): 2^-64 is bit 0 of word 32.
  uint32_t words[kWords];
  const bool negative = Magnitude(words);
  for (int i = 0; i < kWords; ++i) {
    if ((i < 32 || i >= 36) && words[i] != 0) return false;
  }
  uint128 magnitude = 0;
  for (int i = 35; i >= 32; --i) magnitude = (magnitude << 32) | words[i];
  const uint128 limit = uint128{1} << 127;
  if (negative ? magnitude > limit : magnitude >= limit) return false;
  *units = negative ? static_cast<int128>(-magnitude)
                    : static_cast<int128>(magnitude);
  return true;
}

}  // namespace mapr::util
