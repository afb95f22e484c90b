// stddev(x), variance(x) (sample: divided by n - 1) and stddevp(x),
// variancep(x) (population: divided by n), from the exact sums of x and of
// x^2, never Welford's running mean, whose merge depends on the order.
//
// x^2 is kept exactly as the pair hi + lo (hi = x * x rounded, lo its
// rounding error by Dekker's product), each summed exactly; at the end
// n Σx² - (Σx)² is formed exactly from the exact sums and divided by
// n (n - 1) or n² with one rounding, so any offset (timestamps, say) keeps
// full precision. A
// group of fewer than 2 values renders 0, as other empty aggregates do.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "mapr/log_format.h"
#include "runtime/aggregate.h"
#include "runtime/aggregates/exact_sum_column.h"
#include "util/bytes.h"
#include "util/exact_sum.h"
#include "util/prefault.h"

namespace mapr::runtime {
namespace {

constexpr std::string_view kState = "moments";

constexpr plan::AggregateInfo kStddevInfo = {
    "stddev", kState, plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the sample standard deviation of the numeric values (n - 1)"};
constexpr plan::AggregateInfo kVarianceInfo = {
    "variance", kState, plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the sample variance of the numeric values (n - 1)"};
constexpr plan::AggregateInfo kStddevpInfo = {
    "stddevp", kState, plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the population standard deviation of the numeric values (n)"};
constexpr plan::AggregateInfo kVariancepInfo = {
    "variancep", kState, plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the population variance of the numeric values (n)"};

// The rounding error of a * b (a * b - fl(a * b) exactly, by Veltkamp's
// split), or 0 where the split would overflow.
double ProductError(double a, double b, double product) {
  if (!std::isfinite(product) || std::fabs(a) > 0x1p500 ||
      std::fabs(b) > 0x1p500) {
    return 0;
  }
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double ca = kSplit * a, cb = kSplit * b;
  const double ahi = ca - (ca - a), alo = a - ahi;
  const double bhi = cb - (cb - b), blo = b - bhi;
  return ((ahi * bhi - product) + ahi * blo + alo * bhi) + alo * blo;
}

// An exact sum splits into at most this many non-overlapping doubles (the
// WideSum spans 2^-1088 to 2^1087, 53 bits a double).
constexpr int kMaxParts = 48;

// Writes `w` as doubles d[0] + d[1] + ... (largest first, each the rounding
// of what the ones before left) and returns their count; the sum of the
// doubles is w exactly.
int SplitIntoDoubles(util::WideSum w, double d[kMaxParts]) {
  int k = 0;
  while (k < kMaxParts && !w.IsZero()) {
    d[k] = w.Round();
    w.Add(-d[k]);
    ++k;
  }
  return k;
}

// Adds factor * a * b to `*out` exactly (factor is 1, -1 or -2); false if
// the product overflows.
bool AddProduct(double a, double b, double factor, util::WideSum* out) {
  const double p = a * b;
  if (!std::isfinite(factor * p)) return false;
  const double e = ProductError(a, b, p);
  out->Add(factor * p);
  out->Add(factor * e);
  return true;
}

class MomentsState : public AggregateState {
 public:
  void Resize(size_t groups) override {
    sum_.Resize(groups);
    square_hi_.Resize(groups);
    square_lo_.Resize(groups);
    util::ResizePrefaulted(count_, groups, int64_t{0});
  }
  void Clear() override {
    sum_.Clear();
    square_hi_.Clear();
    square_lo_.Clear();
    count_.clear();
  }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t r = sel[i];
      if (!f.numeric[r]) continue;
      if (r >= hi_.size()) [[unlikely]] {
        hi_.resize(std::max<size_t>(r + 1, kMaxBatchRows));
        lo_.resize(hi_.size());
      }
      const double x = f.numbers[r];
      const double hi = x * x;
      hi_[r] = hi;
      lo_[r] = ProductError(x, x, hi);
    }
    sum_.AddRows<true>(f.numbers, f.numeric, sel, gids, n, count_.data());
    square_hi_.AddRows<false>(hi_.data(), f.numeric, sel, gids, n, nullptr);
    square_lo_.AddRows<false>(lo_.data(), f.numeric, sel, gids, n, nullptr);
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const MomentsState&>(later);
    bool count_overflow = false, sum_overflow = false;
    for (uint32_t from = 0; from < n; ++from) {
      sum_overflow |= !sum_.Merge(to[from], o.sum_, from);
      sum_overflow |= !square_hi_.Merge(to[from], o.square_hi_, from);
      sum_overflow |= !square_lo_.Merge(to[from], o.square_lo_, from);
      count_overflow |= __builtin_add_overflow(count_[to[from]], o.count_[from],
                                               &count_[to[from]]);
    }
    return CombineOutcome(count_overflow, sum_overflow);
  }
  void Serialize(uint32_t g, std::string* out) const override {
    util::AppendU64(out, static_cast<uint64_t>(count_[g]));
    sum_.Serialize(g, out);
    square_hi_.Serialize(g, out);
    square_lo_.Serialize(g, out);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    uint64_t count;
    if (!util::ReadU64(in, &count) || count > uint64_t{INT64_MAX} ||
        !sum_.Deserialize(in, g) || !square_hi_.Deserialize(in, g) ||
        !square_lo_.Deserialize(in, g) || (count == 0) != !sum_.has(g) ||
        (count == 0) != !square_hi_.has(g) ||
        (count == 0) != !square_lo_.has(g)) {
      return false;
    }
    count_[g] = static_cast<int64_t>(count);
    return true;
  }

  // The variance of group g, divided by n - 1 (sample) or n.
  double Variance(uint32_t g, bool sample) const {
    const int64_t count = count_[g];
    if (count < 2) return 0;
    // NaN or infinite values (or squares) make the variance NaN.
    if (!std::isfinite(sum_.Value(g)) || !std::isfinite(square_hi_.Value(g)) ||
        !std::isfinite(square_lo_.Value(g))) {
      return std::nan("");
    }
    // The numerator n Σx² - (Σx)² exactly, from the exact sums split into
    // doubles: each product of two doubles is exact as a rounded product
    // plus its rounding error. Only the final quotient is rounded, so a
    // large mean over a small spread (1.7e15 + [0, 100), 8e15 + 1) keeps
    // every digit.
    util::WideSum total;
    sum_.AddTo(g, &total);
    util::WideSum squares;
    square_hi_.AddTo(g, &squares);
    square_lo_.AddTo(g, &squares);
    double s[kMaxParts], q[kMaxParts];
    const int ns = SplitIntoDoubles(total, s);
    const int nq = SplitIntoDoubles(squares, q);
    const double n = static_cast<double>(count);  // exact: count < 2^53
    util::WideSum numerator;
    for (int i = 0; i < nq; ++i) {
      if (!AddProduct(n, q[i], 1, &numerator)) return std::nan("");
    }
    for (int i = 0; i < ns; ++i) {
      if (!AddProduct(s[i], s[i], -1, &numerator)) return std::nan("");
      for (int j = i + 1; j < ns; ++j) {
        if (!AddProduct(s[i], s[j], -2, &numerator)) return std::nan("");
      }
    }
    if (numerator.Round() <= 0) return 0;
    // Divided by n (n - 1) or n², rounded once when the divisor fits.
    const uint64_t un = static_cast<uint64_t>(count);
    const uint64_t other = sample ? un - 1 : un;
    uint64_t divisor;
    if (!__builtin_mul_overflow(un, other, &divisor)) {
      return numerator.RoundDividedBy(divisor);
    }
    return numerator.Round() / (n * static_cast<double>(other));
  }

 private:
  ExactSumColumn sum_, square_hi_, square_lo_;
  std::vector<int64_t> count_;
  std::vector<double> hi_, lo_;  // Update's scratch, by row.
};

template <bool kSample, bool kRoot>
void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const MomentsState&>(state);
  out->values.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    const double v = s.Variance(which[i], kSample);
    out->values[i] = kRoot ? std::sqrt(v) : v;
  }
}

}  // namespace

extern const AggregateFunction kStddevAggregate = {
    kStddevInfo, NewStateOf<MomentsState>, Finalize<true, true>,
    PartialSection::kMomentsStates};
extern const AggregateFunction kVarianceAggregate = {
    kVarianceInfo, NewStateOf<MomentsState>, Finalize<true, false>,
    PartialSection::kMomentsStates};
extern const AggregateFunction kStddevpAggregate = {
    kStddevpInfo, NewStateOf<MomentsState>, Finalize<false, true>,
    PartialSection::kMomentsStates};
extern const AggregateFunction kVariancepAggregate = {
    kVariancepInfo, NewStateOf<MomentsState>, Finalize<false, false>,
    PartialSection::kMomentsStates};

}  // namespace mapr::runtime
