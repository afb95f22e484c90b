// Aggregate states as columns indexed by group id, and the per-kind
// operations on them: update (a tight loop over a batch's selected rows),
// merge (DuckDB's Combine) and read-out. Every state is mergeable: count,
// sum and avg add; min/max keep the extreme; last/len keep the later value.
// "has" flags keep a missing min/max/last from ever turning into 0 or ""
// when partials merge (DTail bug B6).
#ifndef MAPR_RUNTIME_AGGREGATE_OPS_H_
#define MAPR_RUNTIME_AGGREGATE_OPS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parser/plan.h"

namespace mapr::runtime {

// The state of one slot for every group.
struct SlotState {
  plan::StateKind kind = plan::StateKind::kCount;
  std::vector<int64_t> count;  // kCount; kAvg: number of values
  std::vector<double> value;   // kSum, kMin, kMax, kAvg (sum), kLen
  std::vector<uint8_t> has;    // kSum, kLast, kLen: 0/1; kMin, kMax: bits

  // kMin/kMax `has` bits: the group has a value; its first value was NaN
  // (DTail then reports NaN); it has a non-NaN value (in `value`).
  static constexpr uint8_t kAny = 1, kFirstNan = 2, kNumber = 4;
  // The rendered min/max of group `g` (0 if it has no value).
  double Extreme(uint32_t g) const;
  std::vector<std::string> text;  // kLast

  void Resize(size_t groups);
  void Clear();
  // Adds group `from` of `other` into group `to` of this; `other` is later.
  void MergeGroup(uint32_t to, const SlotState& other, uint32_t from);
};

// The values of one field for the selected rows of a batch.
struct FieldRows {
  const std::string_view* values;  // by row; data()==nullptr: missing
  const double* numbers;           // by row, valid where numeric[row]
  const uint8_t* numeric;          // by row: 1 if the value is a number
};

// Updates `state` for rows sel[0..n) whose groups are gids[0..n).
// `last_row` is scratch with one entry per group (kLast only).
void UpdateSlot(SlotState& state, const FieldRows& field, const uint32_t* sel,
                const uint32_t* gids, size_t n, std::vector<int32_t>& last_row);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATE_OPS_H_
