// Builds the rendered result of an aggregator's merged groups: groups in key
// order, `having` over their final values, the `order by` sort (stable, NaN
// last, ties in key order), `limit`, and the cells rendered as DTail renders
// them. Partials never come here, so `having` never drops a group from one.
#ifndef MAPR_RUNTIME_RESULT_BUILDER_H_
#define MAPR_RUNTIME_RESULT_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "mapr/result.h"
#include "parser/plan.h"
#include "runtime/aggregate.h"
#include "runtime/group_table.h"

namespace mapr::runtime {

// The state of every slot of `plan`, and for each slot the index of the
// group-by field whose key part it renders instead (last() or first() of a
// group-by field keeps no state), else -1.
struct GroupStates {
  const GroupTable& groups;
  std::span<const std::unique_ptr<AggregateState>> slots;
  std::span<const int32_t> key_part;
  // Groups `having` kept that were dropped before the result was built
  // (BatchAggregator::KeepResultGroups): counted in its total_groups().
  uint64_t dropped = 0;
};

// Below this many groups per thread, fewer threads build a result: more
// would cost more than they save.
inline constexpr size_t kMinGroupsPerResultThread = size_t{1} << 15;

// The columns a result of `plan` has (Query::columns()).
std::vector<ResultColumn> ResultColumns(const plan::Plan& plan);

// The groups a result of `plan` shows, in its order: `having`, the `order
// by` sort (or time order) and `limit` applied; and how many groups
// `having` kept (ResultTable::total_groups(), without states.dropped).
struct ResultRows {
  std::vector<uint32_t> rows;
  uint64_t kept = 0;
};
ResultRows ResultOrder(
    const plan::Plan& plan, const GroupStates& states, size_t threads = 1,
    size_t min_groups_per_thread = kMinGroupsPerResultThread);

// For each row of `table`, whether `condition` (a `having` condition whose
// operands name only the table's columns: Operand::value <
// table.num_columns()) holds for it, as `having` would for its group.
std::vector<bool> RowsHolding(const plan::Condition& condition,
                              const ResultTable& table);

// True if the groups ResultOrder() shows, and their final values, are the
// same when the groups it does not show are dropped: `plan` has a `limit`
// and no column whose value reads every group (percentage(), percentile()),
// and no window (its groups are the windows' hops).
// A reducer of disjoint groups (partitions) then keeps only those.
bool ResultNeedsOnlyShownGroups(const plan::Plan& plan);

// Uses up to `threads` threads (the calling one included), one per
// `min_groups_per_thread` groups (AggregatorOptions::result_threads; tests
// lower the minimum); the result does not depend on either.
ResultTable BuildResult(
    const plan::Plan& plan, const GroupStates& states,
    const LineCounters& counters, size_t threads = 1,
    size_t min_groups_per_thread = kMinGroupsPerResultThread);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_RESULT_BUILDER_H_
