// The arithmetic of mapr's two sketches, kept free of libm so that a result
// is the same bits on every machine (IEEE +, -, *, / and sqrt are correctly
// rounded; log and exp are not, and differ between libm versions).
//
//   * DDSketch's index mapping (Masson, Rim, Lee: "DDSketch: A fast and
//     fully-mergeable quantile sketch with relative-error guarantees", VLDB
//     2019), in its quadratically interpolated form: log2(v) is approximated
//     from v's exponent e and mantissa x in [0, 1) as e + (4x - x^2) / 3,
//     which is exact at powers of two and monotone, and whose slope against
//     the true log2 stays within [4 ln2 / 3, 1.04]; the multiplier makes one
//     bucket at most gamma = (1 + a) / (1 - a) wide, so the bucket's
//     representative is within a of every value in it.
//   * HyperLogLog with p = 14 (16384 one-byte registers) and Ertl's improved
//     raw estimator ("New cardinality estimation algorithms for HyperLogLog
//     sketches", 2017, Algorithm 6), which needs no bias tables and no
//     small-range switch.
#ifndef MAPR_UTIL_SKETCH_MATH_H_
#define MAPR_UTIL_SKETCH_MATH_H_

#include <cstddef>
#include <cstdint>

namespace mapr::util {

// ---- DDSketch

class QuantileMapping {
 public:
  // REQUIRES: 0 < relative_accuracy < 1.
  explicit QuantileMapping(double relative_accuracy);

  double relative_accuracy() const { return accuracy_; }
  double multiplier() const { return multiplier_; }

  // The bucket of a finite v > 0 (subnormals included): floor(multiplier *
  // approximate log2(v)). Monotone in v. Within [-41000, 39000] for an
  // accuracy of 1 % (2 * 1074 * multiplier in general).
  int32_t Index(double v) const;
  // The representative of bucket `index`: its lower bound times (1 + a), so
  // that it is within relative accuracy a of every value in the bucket.
  double Value(int32_t index) const;
  // The smallest and largest index any finite positive double maps to.
  int32_t min_index() const { return min_index_; }
  int32_t max_index() const { return max_index_; }

 private:
  double accuracy_;
  double multiplier_;
  int32_t min_index_;
  int32_t max_index_;
};

// ln(x) for x > 0 by a series of IEEE operations only (for the multiplier:
// the same bits everywhere).
double PortableLog(double x);

// ---- HyperLogLog

inline constexpr int kHllPrecision = 14;
inline constexpr size_t kHllRegisters = size_t{1} << kHllPrecision;

// Register index and value of a 64-bit hash: the top 14 bits choose the
// register; the value is 1 + the number of leading zeros of the other 50
// bits (51 when they are all zero).
inline void HllSlot(uint64_t hash, size_t* index, uint8_t* value) {
  *index = static_cast<size_t>(hash >> (64 - kHllPrecision));
  const uint64_t rest = hash << kHllPrecision;
  *value = rest == 0 ? static_cast<uint8_t>(64 - kHllPrecision + 1)
                     : static_cast<uint8_t>(__builtin_clzll(rest) + 1);
}

// Ertl's improved raw estimate of the number of distinct hashes added to
// `registers` (kHllRegisters bytes, each at most 51).
double HllEstimate(const uint8_t* registers);

}  // namespace mapr::util

#endif  // MAPR_UTIL_SKETCH_MATH_H_
