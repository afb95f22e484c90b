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

void Finalize(const AggregateState& state, size_t groups,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const SumState&>(state);
  if (!out->prepared) {
    // The total over every group: exact while the sums are finite.
    util::WideSum total;
    bool finite = true;
    double inexact_total = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      const double v = s.Value(g);
      if (std::isfinite(v)) {
        total.Add(v);
      } else {
        finite = false;
        inexact_total += v;
      }
    }
    out->total = finite ? total.Round() : inexact_total;
    out->prepared = true;
  }
  out->values.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    const double v = s.Value(which[i]);
    out->values[i] = out->total != 0 ? 100 * v / out->total : 0;
  }
}

}  // namespace

extern const AggregateFunction kPercentageAggregate = {
    kInfo, NewStateOf<SumState>, Finalize, PartialSection::kGroups,
    /*reads_every_group=*/true};

}  // namespace mapr::runtime
