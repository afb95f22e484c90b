// Windows of a window query (Plan::window, `set $w = window($time, 5m, 1m)
// ... group by $w`): the aggregator's groups hold hops, each line in the
// group of its hop (as bucket(t, 1m) bins it), and every result joins them
// into windows. The window that starts at s is the combination of the hops
// that start at s, s + h, ..., s + w - h, in that order (so first() and
// last() read the earliest and latest hop that has a value); a hop counts
// in the w / h windows that start at it and before it, each labelled by
// its start in the hop's own layout (ShiftBack). The hops are a pure
// function of the input, so the windows are too: the same for any split,
// thread count and merge order. A group whose window field is empty (no
// time, or one that could not be read) stays one group as it is.
#ifndef MAPR_RUNTIME_WINDOW_H_
#define MAPR_RUNTIME_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "parser/plan.h"
#include "runtime/aggregate.h"
#include "runtime/group_table.h"

namespace mapr::runtime {

struct WindowGroups {
  GroupTable groups;
  // One per plan slot, null where the hops' is (a key-part slot). Each
  // holds one group more than `groups` (the last, never shown, takes the
  // windows that cannot be written: before the epoch or the year 0).
  std::vector<std::unique_ptr<AggregateState>> states;
};

// The windows of `hops` (the groups of an aggregator of `plan`, which has
// a window) and `states` (its states, by slot). Combines the states on up
// to `threads` threads, a state per thread, one per `min_groups_per_thread`
// hops (as BuildResult); the windows do not depend on either.
// ResourceExhausted ("more than N groups (max_groups) once hops are
// joined into windows; ...") if there are more than `max_groups` windows
// (0: no limit): a hop is in up to w / h of them, so a result may hold
// that many times the groups the aggregator does. It stops at window
// max_groups + 1, before any state is made.
absl::StatusOr<WindowGroups> JoinWindows(
    const plan::Plan& plan, const GroupTable& hops,
    std::span<const std::unique_ptr<AggregateState>> states, size_t threads,
    size_t min_groups_per_thread, uint64_t max_groups);

// The bytes of group key `key` of `plan` that its partition is chosen by
// (PartialCodec::PartitionOfKey): the whole key, or for a window query
// the key without its window part, so that every hop of a window is in
// the same partition. `scratch` holds the bytes when they are not a view
// of `key`.
std::string_view PartitionBytes(const plan::Plan& plan, std::string_view key,
                                std::string* scratch);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_WINDOW_H_
