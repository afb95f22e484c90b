// avg(x): the exact sum of the numeric values, rounded once, divided by
// their number.
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/aggregate.h"
#include "runtime/aggregates/exact_sum_column.h"
#include "util/bytes.h"
#include "util/prefault.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "avg", "avg", plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the mean of the numeric values (their exact sum, rounded, / count)"};

class AvgState : public AggregateState {
 public:
  void Resize(size_t groups) override {
    sums_.Resize(groups);
    util::ResizePrefaulted(count_, groups, int64_t{0});
  }
  void Clear() override {
    sums_.Clear();
    count_.clear();
  }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    sums_.AddRows<true>(f.numbers, f.numeric, sel, gids, n, count_.data());
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const AvgState&>(later);
    bool count_overflow = false, sum_overflow = false;
    for (uint32_t from = 0; from < n; ++from) {
      sum_overflow |= !sums_.Merge(to[from], o.sums_, from);
      count_overflow |= __builtin_add_overflow(count_[to[from]], o.count_[from],
                                               &count_[to[from]]);
    }
    return CombineOutcome(count_overflow, sum_overflow);
  }
  void Serialize(uint32_t g, std::string* out) const override {
    util::AppendU64(out, static_cast<uint64_t>(count_[g]));
    sums_.Serialize(g, out);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    uint64_t count;
    if (!util::ReadU64(in, &count) || count > uint64_t{INT64_MAX} ||
        !sums_.Deserialize(in, g) || (count == 0) != !sums_.has(g)) {
      return false;
    }
    count_[g] = static_cast<int64_t>(count);
    return true;
  }

  double Value(uint32_t g) const {
    return count_[g] > 0 ? sums_.Value(g) / static_cast<double>(count_[g]) : 0;
  }

 private:
  ExactSumColumn sums_;
  std::vector<int64_t> count_;
};

}  // namespace

extern const AggregateFunction kAvgAggregate = {kInfo, NewStateOf<AvgState>,
                                                FinalizeValues<AvgState>};

}  // namespace mapr::runtime
