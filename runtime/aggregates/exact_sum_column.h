// An exact sum per group, for sum() and avg() (and later stddev/variance).
//
// The sum of a group is the exact sum of the doubles added, rounded to the
// nearest double once, when it is read (Value). It is therefore a pure
// function of the multiset of values: identical for any order, batch size,
// split and merge tree.
//
// Memory: a group whose values are integers or have few decimals (every
// value a multiple of 2^-64 below 2^62 in magnitude, and the running sum
// below 2^126 units) keeps 17 bytes: a 128-bit fixed-point sum and a flag
// byte. Only a group that meets another value (1e-7, 1e300) or overflows
// spills into a wide exact accumulator (util::WideSum, ~0.5 KiB), kept aside.
#ifndef MAPR_RUNTIME_AGGREGATES_EXACT_SUM_COLUMN_H_
#define MAPR_RUNTIME_AGGREGATES_EXACT_SUM_COLUMN_H_

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/exact_sum.h"

namespace mapr::runtime {

class ExactSumColumn {
 public:
  void Resize(size_t groups) {
    fixed_.resize(groups, 0);
    flags_.resize(groups, 0);
  }
  void Clear() {
    fixed_.clear();
    flags_.clear();
    wide_.clear();
  }

  // Adds the numeric rows sel[0..n) of `numbers` to groups gids[0..n); with
  // kCount, also counts them in count[group]. The batch loop of sum and avg.
  template <bool kCount>
  void AddRows(const double* numbers, const uint8_t* numeric,
               const uint32_t* sel, const uint32_t* gids, size_t n,
               int64_t* count) {
    // The rows the fixed point cannot take are added after the loop (the
    // order of additions does not change an exact sum), so the loop makes
    // no call and keeps its pointers in registers.
    if (slow_.size() < n) slow_.resize(n);
    uint32_t* slow = slow_.data();
    size_t nslow = 0;
    util::int128* fixed = fixed_.data();
    uint8_t* flags = flags_.data();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t r = sel[i];
      if (!numeric[r]) continue;
      const uint32_t g = gids[i];
      const double v = numbers[r];
      if constexpr (kCount) ++count[g];
      const uint8_t f = flags[g];
      util::int128 units;
      if (!(f & kWide) && util::ToFixed(v, &units) &&
          util::AddFixed(&fixed[g], units)) [[likely]] {
        flags[g] = f | kHas |
                   (std::bit_cast<uint64_t>(v) != kNegZeroBits
                        ? util::kSumNonNegZero
                        : 0);
        continue;
      }
      slow[nslow++] = static_cast<uint32_t>(i);
    }
    for (size_t k = 0; k < nslow; ++k) {
      const size_t i = slow[k];
      AddSlow(gids[i], numbers[sel[i]]);
    }
  }

  // Adds group `from` of `other` into group `to`.
  void Merge(uint32_t to, const ExactSumColumn& other, uint32_t from);

  // True if group g has had a value.
  bool has(uint32_t g) const { return flags_[g] & kHas; }
  // Group g's sum, correctly rounded: NaN if a NaN or both infinities were
  // added, an infinity if one was, -0.0 if every value was -0.0, and 0 for a
  // group without values.
  double Value(uint32_t g) const;

  // The canonical bytes of group g's sum (equal sums, equal bytes).
  void Serialize(uint32_t g, std::string* out) const;
  // Reads Serialize's bytes into the empty group g.
  bool Deserialize(std::string_view* in, uint32_t g);

 private:
  static constexpr uint64_t kNegZeroBits = uint64_t{1} << 63;
  // flags_ bits: util::NoteSpecial's (NaN, infinities, a value other than
  // -0.0), and:
  static constexpr uint8_t kSpecials = util::kSumNaN | util::kSumPosInf |
                                       util::kSumNegInf | util::kSumNonNegZero;
  static constexpr uint8_t kHas = 16;   // A value was added.
  static constexpr uint8_t kWide = 32;  // fixed_ holds a wide_ index.
  static_assert((kSpecials & (kHas | kWide)) == 0);

  void AddSlow(uint32_t g, double v);
  // Moves group g to the wide accumulator (if not already) and returns it.
  util::WideSum& Widen(uint32_t g);
  // The exact sum of group g's finite values, rounded.
  double FiniteValue(uint32_t g) const;

  std::vector<util::int128> fixed_;  // Units of 2^-64, or a wide_ index.
  std::vector<uint8_t> flags_;
  std::vector<util::WideSum> wide_;
  std::vector<uint32_t> slow_;  // AddRows' scratch.
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATES_EXACT_SUM_COLUMN_H_
