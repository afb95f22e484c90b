// percentage(x): a group's sum of x as a percentage of the sum over all
// groups (DTail's definition). The total is exact too, so the column is a
// pure function of the groups' sums.
#include <cmath>
#include <memory>

#include "runtime/aggregates/sum.h"
#include "util/exact_sum.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "percentage", kSumStateName, plan::ArgumentKind::kNumber,
    ValueType::kNumber,
    "the group's sum as a percentage of the sum over all groups"};

void Finalize(const AggregateState& state, size_t groups, FinalColumn* out) {
  const auto& s = static_cast<const SumState&>(state);
  out->values.resize(groups);
  util::WideSum total_sum;
  bool finite = true;
  double inexact_total = 0;  // Only where a sum is not finite.
  for (uint32_t g = 0; g < groups; ++g) {
    const double v = s.Value(g);
    out->values[g] = v;
    if (std::isfinite(v)) {
      total_sum.Add(v);
    } else {
      finite = false;
      inexact_total += v;
    }
  }
  const double total = finite ? total_sum.Round() : inexact_total;
  for (uint32_t g = 0; g < groups; ++g) {
    out->values[g] = total != 0 ? 100 * out->values[g] / total : 0;
  }
}

}  // namespace

extern const AggregateFunction kPercentageAggregate = {
    kInfo, [] { return std::unique_ptr<AggregateState>(new SumState); },
    Finalize};

}  // namespace mapr::runtime
