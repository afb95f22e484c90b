// The section kinds of a partial frame (docs/partial-format.md), apart from
// the codec so that an aggregate's catalog entry can name the section that
// carries its states (AggregateFunction::partial_section).
#ifndef MAPR_RUNTIME_PARTIAL_SECTIONS_H_
#define MAPR_RUNTIME_PARTIAL_SECTIONS_H_

#include <cstdint>

namespace mapr::runtime {

// Section kinds. A reader skips kinds it does not know (added by a later
// minor version); each known kind appears exactly once.
enum class PartialSection : uint32_t {
  kQuery = 1,
  kCounters = 2,
  kSlots = 3,
  kFieldCounts = 4,
  kGroups = 5,
  kMoreCounters = 6,  // v1.1: lines_unmatched.
  // v1.2: the states of median/pN, dcount and stddev/variance slots.
  kQuantileStates = 7,
  kDistinctStates = 8,
  kMomentsStates = 9,
  // v1.3: per extracted field, values that were not numbers (written only
  // when there are any, so other frames stay as v1.2 wrote them).
  kNotNumeric = 10,
  // v1.3: AggregatorOptions::run_id (written only when it is set).
  kRun = 11,
  // v1.4: AggregatorOptions::source and the StreamMark of a delta (written
  // only when there is a source, a final mark or input positions).
  kStream = 12,
  // v1.5: the partition of a hash-partitioned partial (with header flag
  // bit 1, which earlier readers refuse).
  kPartition = 13,
};
inline constexpr uint32_t kLastPartialSection = 13;

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_PARTIAL_SECTIONS_H_
