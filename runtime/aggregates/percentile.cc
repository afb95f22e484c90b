// percentile(x): DTail's rank of a group's sum of x among all groups' sums:
// 100 * (the number of groups whose sum is <= this group's) / groups. It is
// a rank, not a quantile of the values.
#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/aggregates/sum.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "percentile", kSumStateName, plan::ArgumentKind::kNumber,
    ValueType::kNumber,
    "the rank of the group's sum among all groups' sums, in percent (DTail's "
    "definition; not a quantile)"};

void Finalize(const AggregateState& state, size_t groups,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const SumState&>(state);
  std::vector<double>& sorted = out->sorted;
  if (!out->prepared) {
    sorted.resize(groups);
    for (uint32_t g = 0; g < groups; ++g) sorted[g] = s.Value(g);
    std::sort(sorted.begin(), sorted.end());
    out->prepared = true;
  }
  out->values.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    const size_t le = static_cast<size_t>(
        std::upper_bound(sorted.begin(), sorted.end(), s.Value(which[i])) -
        sorted.begin());
    out->values[i] =
        100 * static_cast<double>(le) / static_cast<double>(groups);
  }
}

}  // namespace

extern const AggregateFunction kPercentileAggregate = {
    kInfo, NewStateOf<SumState>, Finalize, PartialSection::kGroups,
    /*reads_every_group=*/true};

}  // namespace mapr::runtime
