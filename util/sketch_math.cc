#include "util/sketch_math.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace mapr::util {
namespace {

// v = 2^e * (1 + x), x in [0, 1), for a finite v > 0.
void Decompose(double v, int* e, double* x) {
  uint64_t bits = std::bit_cast<uint64_t>(v);
  int biased = static_cast<int>((bits >> 52) & 0x7ff);
  int adjust = 0;
  if (biased == 0) {  // Subnormal: scale into the normal range (exact).
    bits = std::bit_cast<uint64_t>(v * 0x1p64);
    biased = static_cast<int>((bits >> 52) & 0x7ff);
    adjust = 64;
  }
  *e = biased - 1023 - adjust;
  const uint64_t mantissa = bits & ((uint64_t{1} << 52) - 1);
  *x = static_cast<double>(mantissa) * 0x1p-52;
}

// The interpolated log2: e + (4x - x^2) / 3.
double ApproxLog2(double v) {
  int e;
  double x;
  Decompose(v, &e, &x);
  const double poly = (4.0 * x - x * x) / 3.0;
  return static_cast<double>(e) + poly;
}

// Its inverse: y = e + t, t in [0, 1) gives 2^e * (3 - sqrt(4 - 3t)).
double ApproxExp2(double y) {
  const double e = std::floor(y);
  const double t = y - e;
  const double significand = 3.0 - std::sqrt(4.0 - 3.0 * t);
  return std::ldexp(significand, static_cast<int>(e));
}

}  // namespace

double PortableLog(double x) {
  // Reduce to m in [sqrt(1/2), sqrt(2)): x = 2^k * m, then
  // ln m = 2 atanh(y), y = (m - 1) / (m + 1), |y| < 0.172.
  int k = 0;
  double m = x;
  while (m >= 1.4142135623730951) {
    m *= 0.5;
    ++k;
  }
  while (m < 0.7071067811865476) {
    m *= 2.0;
    --k;
  }
  const double y = (m - 1.0) / (m + 1.0);
  const double y2 = y * y;
  double term = y, sum = 0;
  for (int n = 1; n < 200; n += 2) {
    const double next = sum + term / n;
    if (next == sum) break;
    sum = next;
    term *= y2;
  }
  constexpr double kLn2 = 0.6931471805599453;
  return 2.0 * sum + static_cast<double>(k) * kLn2;
}

QuantileMapping::QuantileMapping(double relative_accuracy)
    : accuracy_(relative_accuracy) {
  // One bucket spans 1 / multiplier in the approximate log2, which is at
  // most 1 / (multiplier * 4 ln2 / 3) in the true log2; it must be at most
  // log2(gamma) = ln(gamma) / ln2. So multiplier = 3 / (4 ln gamma).
  const double gamma = (1.0 + relative_accuracy) / (1.0 - relative_accuracy);
  multiplier_ = 3.0 / (4.0 * PortableLog(gamma));
  min_index_ = Index(0x1p-1074);
  max_index_ = Index(1.7976931348623157e308);
}

int32_t QuantileMapping::Index(double v) const {
  return static_cast<int32_t>(std::floor(ApproxLog2(v) * multiplier_));
}

double QuantileMapping::Value(int32_t index) const {
  return ApproxExp2(static_cast<double>(index) / multiplier_) *
         (1.0 + accuracy_);
}

double HllEstimate(const uint8_t* registers) {
  constexpr int q = 64 - kHllPrecision;  // 50
  uint32_t histogram[q + 2] = {};
  for (size_t i = 0; i < kHllRegisters; ++i) ++histogram[registers[i]];
  const double m = static_cast<double>(kHllRegisters);
  // tau(x) = (1 - x - sum_k (1 - x^(2^-k))^2 2^-k) / 3.
  auto tau = [](double x) {
    if (x == 0 || x == 1) return 0.0;
    double y = 1.0, z = 1.0 - x, previous;
    do {
      x = std::sqrt(x);
      previous = z;
      y *= 0.5;
      z -= (1.0 - x) * (1.0 - x) * y;
    } while (z != previous);
    return z / 3.0;
  };
  // sigma(x) = x + sum_k x^(2^k) 2^(k-1).
  auto sigma = [](double x) {
    if (x == 1) return HUGE_VAL;
    double y = 1.0, z = x, previous;
    do {
      x *= x;
      previous = z;
      z += x * y;
      y += y;
    } while (z != previous);
    return z;
  };
  double z = m * tau(1.0 - histogram[q + 1] / m);
  for (int k = q; k >= 1; --k) z = 0.5 * (z + histogram[k]);
  z += m * sigma(histogram[0] / m);
  constexpr double kAlphaInf = 0.7213475204444817;  // 1 / (2 ln 2)
  return kAlphaInf * m * m / z;
}

}  // namespace mapr::util
