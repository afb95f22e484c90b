// An exact sum per group, for sum() and avg() (and later stddev/variance).
//
// The sum of a group is the exact sum of the doubles added, rounded to the
// nearest double once, when it is read (Value). It is therefore a pure
// function of the multiset of values: identical for any order, batch size,
// split and merge tree.
//
// Each group's sum lives in the cheapest of three tiers that holds it
// exactly, and only moves up:
//   1. a double, while every addition is exact (integers below 2^53, most
//      sums of small binary fractions): one addition and an error-free
//      TwoSum check per value;
//   2. a 128-bit fixed-point sum in units of 2^-64 (values with few decimals,
//      every value a multiple of 2^-64 below 2^62 in magnitude);
//   3. a wide exact accumulator (util::WideSum, ~0.5 KiB, kept aside) for a
//      group that meets other values (1e-7, 1e300) or overflows.
// Tiers 1 and 2 share one 16-byte word per group, plus a flag byte: 17
// bytes per group.
#ifndef MAPR_RUNTIME_AGGREGATES_EXACT_SUM_COLUMN_H_
#define MAPR_RUNTIME_AGGREGATES_EXACT_SUM_COLUMN_H_

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/exact_sum.h"
#include "util/prefault.h"

namespace mapr::runtime {

class ExactSumColumn {
 public:
  void Resize(size_t groups) {
    util::ResizePrefaulted(fixed_, groups, util::int128{0});
    util::ResizePrefaulted(flags_, groups, uint8_t{0});
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
      if (AddInTier(&fixed[g], f, v)) [[likely]] {
        flags[g] =
            f | kHas |
            (std::bit_cast<uint64_t>(v) != kNegZeroBits ? util::kSumNonNegZero
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

  // Adds group `from` of `other` into group `to`; false, with group `to`
  // unchanged, if its exact sum would reach 2^1087 in magnitude
  // (util::WideSum::MergeChecked: only sums read from a partial get near).
  [[nodiscard]] bool Merge(uint32_t to, const ExactSumColumn& other,
                           uint32_t from);

  // True if group g has had a value.
  bool has(uint32_t g) const { return flags_[g] & kHas; }
  // Group g's sum, correctly rounded: NaN if a NaN or both infinities were
  // added, an infinity if one was, -0.0 if every value was -0.0, and 0 for a
  // group without values.
  double Value(uint32_t g) const;

  // Adds group g's exact sum of finite values to `*w` (for stddev's
  // arithmetic on exact sums).
  void AddTo(uint32_t g, util::WideSum* w) const;

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
  static constexpr uint8_t kHas = 16;    // A value was added.
  static constexpr uint8_t kWide = 32;   // fixed_ holds a wide_ index.
  static constexpr uint8_t kFixed = 64;  // fixed_ holds units of 2^-64.
  // Neither kWide nor kFixed: fixed_'s low 64 bits hold the sum as a double.
  static_assert((kSpecials & (kHas | kWide | kFixed)) == 0);

  static double DoubleOf(util::int128 word) {
    return std::bit_cast<double>(static_cast<uint64_t>(word));
  }

  // Adds v to the sum word of a group of tier 1 or 2 (flags `f`) if the sum
  // stays exact in that tier. False if v must go the slow way: a NaN or an
  // infinity, an inexact double sum, a value or a sum the fixed point cannot
  // hold, or a group of tier 3.
  [[gnu::always_inline]] static bool AddInTier(util::int128* word, uint8_t f,
                                               double v) {
    if (!(f & (kFixed | kWide))) {
      // Tier 1: exact while TwoSum's error is zero (NaN and infinities fail
      // the test).
      const double a = DoubleOf(*word);
      const double sum = a + v;
      const double bv = sum - a;
      const double error = (a - (sum - bv)) + (v - bv);
      if (error != 0 || sum - sum != 0) return false;
      *word = static_cast<util::int128>(std::bit_cast<uint64_t>(sum));
      return true;
    }
    util::int128 units;
    return !(f & kWide) && util::ToFixed(v, &units) &&
           util::AddFixed(word, units);
  }

  void AddSlow(uint32_t g, double v);
  // Adds the finite v to group g exactly, moving it up a tier if needed.
  void AddFinite(uint32_t g, double v);
  // Moves a tier-1 group g to tier 2, or to tier 3 if its double is not a
  // multiple of 2^-64 below 2^62.
  void LeaveDouble(uint32_t g);
  // Moves group g to the wide accumulator (if not already) and returns it.
  util::WideSum& Widen(uint32_t g);
  // Makes `wide` group g's tier-3 sum.
  util::WideSum& SetWide(uint32_t g, const util::WideSum& wide);
  // The exact sum of group g's finite values, rounded.
  double FiniteValue(uint32_t g) const;

  std::vector<util::int128> fixed_;  // Units of 2^-64, or a wide_ index.
  std::vector<uint8_t> flags_;
  std::vector<util::WideSum> wide_;
  std::vector<uint32_t> slow_;  // AddRows' scratch.
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATES_EXACT_SUM_COLUMN_H_
