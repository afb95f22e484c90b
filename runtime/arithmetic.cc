#include "runtime/arithmetic.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "util/decimal.h"
#include "util/exact_sum.h"
#include "util/number.h"

namespace mapr::runtime {
namespace {

using util::int128;
using util::uint128;

constexpr int kMaxDigits = 36;

// A plain decimal: mantissa / 10^scale.
struct Decimal {
  int128 mantissa = 0;
  int scale = 0;
};

bool ReadDecimal(std::string_view s, Decimal* d) {
  return util::ReadPlainDecimal(s, kMaxDigits, &d->mantissa, &d->scale);
}

bool Pow10(int n, int128* out) {
  int128 v = 1;
  for (int i = 0; i < n; ++i) {
    if (__builtin_mul_overflow(v, 10, &v)) return false;
  }
  *out = v;
  return true;
}

// a and b at the larger of their scales.
bool Align(Decimal* a, Decimal* b) {
  Decimal* low = a->scale < b->scale ? a : b;
  const int scale = a->scale < b->scale ? b->scale : a->scale;
  int128 f;
  if (!Pow10(scale - low->scale, &f) ||
      __builtin_mul_overflow(low->mantissa, f, &low->mantissa)) {
    return false;
  }
  low->scale = scale;
  return true;
}

// The exact result, or false if it is not a decimal within 128 bits.
bool Exact(ArithmeticOp op, Decimal a, Decimal b, Decimal* r) {
  switch (op) {
    case ArithmeticOp::kAdd:
    case ArithmeticOp::kSubtract:
      if (!Align(&a, &b)) return false;
      r->scale = a.scale;
      return op == ArithmeticOp::kAdd
                 ? !__builtin_add_overflow(a.mantissa, b.mantissa, &r->mantissa)
                 : !__builtin_sub_overflow(a.mantissa, b.mantissa,
                                           &r->mantissa);
    case ArithmeticOp::kMultiply:
      r->scale = a.scale + b.scale;
      return !__builtin_mul_overflow(a.mantissa, b.mantissa, &r->mantissa);
    case ArithmeticOp::kDivide: {
      // (ma / 10^sa) / (mb / 10^sb) = ma 10^sb / (mb 10^sa): a decimal iff
      // the reduced denominator has no prime factor but 2 and 5.
      int128 fa, fb, num, den;
      if (!Pow10(a.scale, &fa) || !Pow10(b.scale, &fb) ||
          __builtin_mul_overflow(a.mantissa, fb, &num) ||
          __builtin_mul_overflow(b.mantissa, fa, &den)) {
        return false;
      }
      if (den < 0) {
        num = -num;
        den = -den;
      }
      uint128 x =
          num < 0 ? -static_cast<uint128>(num) : static_cast<uint128>(num);
      uint128 y = static_cast<uint128>(den);
      while (y != 0) {  // gcd
        const uint128 t = x % y;
        x = y;
        y = t;
      }
      const int128 g = static_cast<int128>(x);
      num /= g;
      den /= g;
      int twos = 0, fives = 0;
      int128 rest = den;
      while (rest % 2 == 0) {
        rest /= 2;
        ++twos;
      }
      while (rest % 5 == 0) {
        rest /= 5;
        ++fives;
      }
      if (rest != 1) return false;
      // num / den = num * (10^k / den) / 10^k.
      const int k = twos > fives ? twos : fives;
      int128 pk;
      if (!Pow10(k, &pk) ||
          __builtin_mul_overflow(num, pk / den, &r->mantissa)) {
        return false;
      }
      r->scale = k;
      return true;
    }
  }
  return false;
}

size_t WriteDecimal(Decimal d, char* out) {
  while (d.scale > 0 && d.mantissa % 10 == 0) {
    d.mantissa /= 10;
    --d.scale;
  }
  char digits[80];
  int n = 0;
  uint128 m = d.mantissa < 0 ? -static_cast<uint128>(d.mantissa)
                             : static_cast<uint128>(d.mantissa);
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(m % 10));
    m /= 10;
  } while (m != 0);
  while (n <= d.scale) digits[n++] = '0';
  char* p = out;
  if (d.mantissa < 0) *p++ = '-';
  for (int k = n - 1; k >= 0; --k) {
    if (k == d.scale - 1) *p++ = '.';
    *p++ = digits[k];
  }
  return static_cast<size_t>(p - out);
}

}  // namespace

ArithmeticOutcome Arithmetic(ArithmeticOp op, std::string_view a,
                             std::string_view b,
                             char out[kMaxArithmeticTextSize],
                             size_t* size) noexcept {
  Decimal da, db, r;
  const bool exact_operands = ReadDecimal(a, &da) && ReadDecimal(b, &db);
  if (exact_operands) {
    if (op == ArithmeticOp::kDivide && db.mantissa == 0) {
      return ArithmeticOutcome::kDivisionByZero;
    }
    if (Exact(op, da, db, &r)) {
      *size = WriteDecimal(r, out);
      return ArithmeticOutcome::kOk;
    }
  }
  double x, y;
  if (!util::ParseNumber(a, &x) || !util::ParseNumber(b, &y)) {
    return ArithmeticOutcome::kNotANumber;
  }
  double v = 0;
  switch (op) {
    case ArithmeticOp::kAdd:
      v = x + y;
      break;
    case ArithmeticOp::kSubtract:
      v = x - y;
      break;
    case ArithmeticOp::kMultiply:
      v = x * y;
      break;
    case ArithmeticOp::kDivide:
      if (y == 0) return ArithmeticOutcome::kDivisionByZero;
      v = x / y;
      break;
  }
  if (v == 0) v = 0;  // No "-0".
  const std::to_chars_result t =
      std::to_chars(out, out + kMaxArithmeticTextSize, v);
  *size = static_cast<size_t>(t.ptr - out);
  return ArithmeticOutcome::kOk;
}

}  // namespace mapr::runtime
