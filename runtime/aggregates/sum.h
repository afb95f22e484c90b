// The state of sum(x), which percentage(x) and percentile(x) share: the exact
// sum of a group's numeric values.
#ifndef MAPR_RUNTIME_AGGREGATES_SUM_H_
#define MAPR_RUNTIME_AGGREGATES_SUM_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/aggregate.h"
#include "runtime/aggregates/exact_sum_column.h"

namespace mapr::runtime {

class SumState : public AggregateState {
 public:
  void Resize(size_t groups) override { sums_.Resize(groups); }
  void Clear() override { sums_.Clear(); }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    sums_.AddRows<false>(f.numbers, f.numeric, sel, gids, n, nullptr);
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const SumState&>(later);
    bool overflow = false;
    for (uint32_t from = 0; from < n; ++from) {
      overflow |= !sums_.Merge(to[from], o.sums_, from);
    }
    return CombineOutcome(false, overflow);
  }
  void Serialize(uint32_t g, std::string* out) const override {
    sums_.Serialize(g, out);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    return sums_.Deserialize(in, g);
  }

  // Group g's sum, rounded once (0 without values).
  double Value(uint32_t g) const { return sums_.Value(g); }

 private:
  ExactSumColumn sums_;
};

// The `sum` catalog entry; percentage and percentile name its state.
inline constexpr std::string_view kSumStateName = "sum";

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATES_SUM_H_
