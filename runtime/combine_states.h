// Combining the states of one aggregator into another's, slot by slot: a
// merge (BatchAggregator::Merge) and a window query's result
// (JoinWindows). A Combine that meets an overflow (a count or an exact
// sum of a group that would pass what the state holds, which only
// partials read from elsewhere reach) is refused by the aggregate's name.
#ifndef MAPR_RUNTIME_COMBINE_STATES_H_
#define MAPR_RUNTIME_COMBINE_STATES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "parser/plan.h"
#include "runtime/aggregate.h"

namespace mapr::runtime {

// Combines group g of each state of `later` into group to[g] of `into`'s
// (both `plan`'s slots; null where a slot keeps no state), for g in
// [0, n), on up to `threads` threads (a state per thread; the result does
// not depend on their number). DataLoss ("count(x) overflows when merged:
// a group's counts pass 64 bits (the partials cannot be of real input)")
// for the first slot whose Combine met an overflow: `into` is then
// unusable (the caller fails).
absl::Status CombineSlots(
    const plan::Plan& plan,
    std::span<const std::unique_ptr<AggregateState>> into,
    std::span<const std::unique_ptr<AggregateState>> later, const uint32_t* to,
    size_t n, size_t threads);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_COMBINE_STATES_H_
