// median(x), pN(x) and pN.N(x) (0 <= N <= 100): the value at rank
// floor(q * (n - 1)) of a group's n sorted numeric values, q = N / 100,
// without interpolation (median is p50).
//
// A group keeps its values exactly while it holds at most T of them
// (CompileOptions::percentile_exact_values, 1024 by default); past T, a
// DDSketch (util/sketch_math.h) of relative accuracy a (1 % by default)
// takes over: the value returned is within a of the exact one. The sketch
// keeps integer counts: of zeros, and of positive and of negative values in
// buckets of their magnitude, at most kMaxBins per sign; when a sign's
// buckets span more, its lowest-magnitude buckets collapse into the lowest
// kept one, so only the values nearest zero lose accuracy. Results are
// clamped to the group's exact min and max, and the extremes (p0, p100)
// are the exact min and max.
//
// Every piece is a pure function of the multiset of values: the exact
// values; the counts per bucket; the collapse point of a sign (its highest
// bucket less kMaxBins - 1, whatever order the values came in); the min and
// max under IEEE total order. So the result is identical for any order,
// split and merge tree. NaN has no rank and is skipped.
//
// Memory per group: at most T doubles (8 KiB by default) or kMaxBins counts
// per sign (16 KiB for values of one sign, 32 KiB for both).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/exact_sum.h"
#include "util/sketch_math.h"

namespace mapr::runtime {
namespace {

constexpr std::string_view kState = "quantile";

constexpr plan::AggregateInfo kPnInfo = {
    "pN",
    kState,
    plan::ArgumentKind::kNumber,
    ValueType::kNumber,
    "pN(x), pN.N(x): the value at rank floor(N/100 * (n-1)) of the sorted "
    "values (exact up to 1024 values, then within 1 %)",
    /*one_row_value=*/false,
    plan::AggregateInfo::Role::kRankInName};
constexpr plan::AggregateInfo kMedianInfo = {
    "median",
    kState,
    plan::ArgumentKind::kNumber,
    ValueType::kNumber,
    "p50: the value at rank floor((n-1)/2) of the sorted values",
    /*one_row_value=*/false,
    plan::AggregateInfo::Role::kFixedRank,
    /*rank_num=*/1,
    /*rank_den=*/2};

constexpr size_t kMaxBins = 2048;

// IEEE total order on non-NaN doubles (-0 before +0).
int64_t OrderKey(double v) {
  const int64_t bits = std::bit_cast<int64_t>(v);
  return bits < 0 ? std::numeric_limits<int64_t>::min() - bits - 1 : bits;
}
bool Less(double a, double b) { return OrderKey(a) < OrderKey(b); }

// The buckets of one sign: counts of bucket indexes base, base + 1, ...
struct Store {
  int32_t base = 0;
  std::vector<uint64_t> bins;
};

struct Sketch {
  Store positive, negative;  // By the bucket index of |v|.
  uint64_t zeros = 0;
};

// 56 bytes while exact, so that a million small groups stay cheap.
struct QuantileGroup {
  std::vector<double> values;      // While exact.
  std::unique_ptr<Sketch> sketch;  // Past the exact limit.
  uint64_t count = 0;              // Values (not NaN) added.
  double min = 0, max = 0;         // Exact, valid when count > 0.
};

class QuantileState : public AggregateState {
 public:
  explicit QuantileState(const plan::StateOptions& options)
      : exact_limit_(options.percentile_exact_values),
        mapping_(options.percentile_accuracy),
        inf_key_(mapping_.max_index() + 1) {}

  void Resize(size_t groups) override { groups_.resize(groups); }
  void Clear() override { groups_.clear(); }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t r = sel[i];
      if (!f.numeric[r]) continue;
      const double v = f.numbers[r];
      if (std::isnan(v)) continue;
      QuantileGroup& q = groups_[gids[i]];
      Note(q, v);
      if (q.sketch) {
        AddValue(q, v);
      } else {
        q.values.push_back(v);
        if (q.values.size() > exact_limit_) ToSketch(q);
      }
    }
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const QuantileState&>(later);
    for (uint32_t from = 0; from < n; ++from) {
      const QuantileGroup& src = o.groups_[from];
      QuantileGroup& dst = groups_[to[from]];
      if (src.count == 0) continue;
      // Every bucket's count is at most the group's: checking it suffices.
      uint64_t count;
      if (__builtin_add_overflow(dst.count, src.count, &count)) {
        return CombineStatus::kCountOverflow;
      }
      if (dst.count == 0) {
        dst.min = src.min;
        dst.max = src.max;
      } else {
        if (Less(src.min, dst.min)) dst.min = src.min;
        if (Less(dst.max, src.max)) dst.max = src.max;
      }
      dst.count = count;
      if (!dst.sketch && !src.sketch &&
          dst.values.size() + src.values.size() <= exact_limit_) {
        dst.values.insert(dst.values.end(), src.values.begin(),
                          src.values.end());
        continue;
      }
      if (!dst.sketch) ToSketch(dst);
      if (src.sketch) {
        dst.sketch->zeros += src.sketch->zeros;
        for (const auto& [src_store, into] :
             {std::pair{&src.sketch->positive, &dst.sketch->positive},
              std::pair{&src.sketch->negative, &dst.sketch->negative}}) {
          for (size_t k = 0; k < src_store->bins.size(); ++k) {
            if (src_store->bins[k] != 0) {
              AddKey(*into, src_store->base + static_cast<int32_t>(k),
                     src_store->bins[k]);
            }
          }
        }
      } else {
        for (double v : src.values) AddValue(dst, v);
      }
    }
    return CombineStatus::kOk;
  }
  // Layout: u8 form. Form 0, exact: u32 n, then the n values in IEEE total
  // order (u64 bits each). Form 1, sketch: u64 count, u64 min bits, u64 max
  // bits, u64 zeros, then the positive and the negative store, each u32
  // buckets (0: empty), and if any, u32 base index (two's complement) and
  // the counts (u64 each), the first and last nonzero.
  void Serialize(uint32_t g, std::string* out) const override {
    const QuantileGroup& q = groups_[g];
    if (!q.sketch) {
      util::AppendU8(out, 0);
      std::vector<double> sorted = q.values;
      std::sort(sorted.begin(), sorted.end(), Less);
      util::AppendU32(out, static_cast<uint32_t>(sorted.size()));
      for (double v : sorted) util::AppendU64(out, std::bit_cast<uint64_t>(v));
      return;
    }
    util::AppendU8(out, 1);
    util::AppendU64(out, q.count);
    util::AppendU64(out, std::bit_cast<uint64_t>(q.min));
    util::AppendU64(out, std::bit_cast<uint64_t>(q.max));
    util::AppendU64(out, q.sketch->zeros);
    for (const Store* store : {&q.sketch->positive, &q.sketch->negative}) {
      size_t lo = 0, hi = store->bins.size();
      while (lo < hi && store->bins[lo] == 0) ++lo;
      while (hi > lo && store->bins[hi - 1] == 0) --hi;
      util::AppendU32(out, static_cast<uint32_t>(hi - lo));
      if (hi == lo) continue;
      util::AppendU32(
          out, static_cast<uint32_t>(store->base + static_cast<int32_t>(lo)));
      for (size_t k = lo; k < hi; ++k) util::AppendU64(out, store->bins[k]);
    }
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    QuantileGroup& q = groups_[g];
    uint8_t form;
    if (!util::ReadU8(in, &form)) return false;
    if (form == 0) {
      uint32_t n;
      if (!util::ReadU32(in, &n) || n > exact_limit_ || in->size() / 8 < n) {
        return false;
      }
      q.values.resize(n);
      for (uint32_t i = 0; i < n; ++i) {
        uint64_t bits = 0;
        util::ReadU64(in, &bits);
        const double v = std::bit_cast<double>(bits);
        if (std::isnan(v) || (i > 0 && Less(v, q.values[i - 1]))) return false;
        q.values[i] = v;
      }
      q.count = n;
      if (n > 0) {
        q.min = q.values.front();
        q.max = q.values.back();
      }
      return true;
    }
    uint64_t count, min_bits, max_bits, zeros;
    if (form != 1 || !util::ReadU64(in, &count) ||
        !util::ReadU64(in, &min_bits) || !util::ReadU64(in, &max_bits) ||
        !util::ReadU64(in, &zeros) || count <= exact_limit_) {
      return false;
    }
    q.sketch = std::make_unique<Sketch>();
    q.sketch->zeros = zeros;
    q.count = count;
    q.min = std::bit_cast<double>(min_bits);
    q.max = std::bit_cast<double>(max_bits);
    if (std::isnan(q.min) || std::isnan(q.max) || Less(q.max, q.min)) {
      return false;
    }
    uint64_t total = zeros;
    for (Store* store : {&q.sketch->positive, &q.sketch->negative}) {
      uint32_t nbins, base;
      if (!util::ReadU32(in, &nbins) || nbins > kMaxBins) return false;
      if (nbins == 0) continue;
      if (!util::ReadU32(in, &base) || in->size() / 8 < nbins) return false;
      store->base = static_cast<int32_t>(base);
      if (store->base < mapping_.min_index() ||
          static_cast<int64_t>(store->base) + nbins - 1 > inf_key_) {
        return false;
      }
      store->bins.resize(nbins);
      for (uint32_t k = 0; k < nbins; ++k) {
        util::ReadU64(in, &store->bins[k]);
        if (__builtin_add_overflow(total, store->bins[k], &total)) {
          return false;
        }
      }
      if (store->bins.front() == 0 || store->bins.back() == 0) return false;
    }
    return total == count;
  }

  double Quantile(uint32_t g, plan::Rank rank) const {
    const QuantileGroup& q = groups_[g];
    if (q.count == 0) return 0;
    const uint64_t target = static_cast<uint64_t>(util::uint128{rank.num} *
                                                  (q.count - 1) / rank.den);
    // The extremes are exact either way.
    if (target == 0) return q.min;
    if (target == q.count - 1) return q.max;
    if (!q.sketch) {
      std::vector<double> v = q.values;
      std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(target),
                       v.end(), Less);
      return v[target];
    }
    // In value order: negative buckets from the largest magnitude down,
    // the zeros, positive buckets up.
    double v = q.max;
    uint64_t seen = 0;
    bool found = false;
    const Sketch& sk = *q.sketch;
    const std::vector<uint64_t>& neg = sk.negative.bins;
    for (size_t k = neg.size(); k-- > 0 && !found;) {
      seen += neg[k];
      if (seen > target) {
        v = -BucketValue(sk.negative.base + static_cast<int32_t>(k));
        found = true;
      }
    }
    if (!found && (seen += sk.zeros) > target) {
      v = 0;
      found = true;
    }
    const std::vector<uint64_t>& pos = sk.positive.bins;
    for (size_t k = 0; k < pos.size() && !found; ++k) {
      seen += pos[k];
      if (seen > target) {
        v = BucketValue(sk.positive.base + static_cast<int32_t>(k));
        found = true;
      }
    }
    if (Less(v, q.min)) v = q.min;
    if (Less(q.max, v)) v = q.max;
    return v;
  }

 private:
  static void Note(QuantileGroup& q, double v) {
    if (q.count++ == 0) {
      q.min = q.max = v;
      return;
    }
    if (Less(v, q.min)) q.min = v;
    if (Less(q.max, v)) q.max = v;
  }

  // The bucket of |v| for a nonzero, non-NaN v (one past the largest
  // finite bucket for the infinities), and the representative of a bucket.
  int32_t Bucket(double a) const {
    return std::isinf(a) ? inf_key_ : mapping_.Index(a);
  }
  double BucketValue(int32_t index) const {
    return index == inf_key_ ? HUGE_VAL : mapping_.Value(index);
  }

  void AddValue(QuantileGroup& q, double v) const {
    if (v == 0) {
      ++q.sketch->zeros;
    } else if (v > 0) {
      AddKey(q.sketch->positive, Bucket(v), 1);
    } else {
      AddKey(q.sketch->negative, Bucket(-v), 1);
    }
  }

  // Adds `count` values of bucket `key`, collapsing the lowest buckets so
  // that the kept ones span at most kMaxBins.
  static void AddKey(Store& q, int32_t key, uint64_t count) {
    if (q.bins.empty()) {
      q.base = key;
      q.bins.assign(1, count);
      return;
    }
    const int32_t top = q.base + static_cast<int32_t>(q.bins.size()) - 1;
    if (key > top) {
      // New highest bucket: everything below key - kMaxBins + 1 collapses.
      const int32_t floor = key - static_cast<int32_t>(kMaxBins) + 1;
      if (floor > q.base) {
        uint64_t folded = 0;
        const size_t drop = std::min<size_t>(
            static_cast<size_t>(floor - q.base), q.bins.size());
        for (size_t k = 0; k < drop; ++k) folded += q.bins[k];
        q.bins.erase(q.bins.begin(),
                     q.bins.begin() + static_cast<ptrdiff_t>(drop));
        q.base = floor;
        if (q.bins.empty()) q.bins.assign(1, 0);
        q.bins[0] += folded;
      }
      q.bins.resize(static_cast<size_t>(key - q.base) + 1, 0);
      q.bins.back() += count;
      return;
    }
    if (key < q.base) {
      const int32_t floor = top - static_cast<int32_t>(kMaxBins) + 1;
      const int32_t at = std::max(key, floor);
      if (at < q.base) {
        q.bins.insert(q.bins.begin(), static_cast<size_t>(q.base - at), 0);
        q.base = at;
      }
      q.bins[static_cast<size_t>(at - q.base)] += count;
      return;
    }
    q.bins[static_cast<size_t>(key - q.base)] += count;
  }

  void ToSketch(QuantileGroup& q) const {
    q.sketch = std::make_unique<Sketch>();
    for (double v : q.values) AddValue(q, v);
    q.values = std::vector<double>();
  }

  uint32_t exact_limit_;
  util::QuantileMapping mapping_;
  int32_t inf_key_;
  std::vector<QuantileGroup> groups_;
};

void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const QuantileState&>(state);
  out->values.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    out->values[i] = s.Quantile(which[i], out->rank);
  }
}

std::unique_ptr<AggregateState> NewState(const plan::StateOptions& options) {
  return std::make_unique<QuantileState>(options);
}

}  // namespace

extern const AggregateFunction kPnAggregate = {kPnInfo, NewState, Finalize,
                                               PartialSection::kQuantileStates};
extern const AggregateFunction kMedianAggregate = {
    kMedianInfo, NewState, Finalize, PartialSection::kQuantileStates};

}  // namespace mapr::runtime
