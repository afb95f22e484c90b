// The columns of one batch while it passes through the engine: every plan
// field's values (field-major, kMaxBatchRows rows each), their numbers parsed
// on demand, and the selection vector of the rows still in play.
#ifndef MAPR_RUNTIME_BATCH_COLUMNS_H_
#define MAPR_RUNTIME_BATCH_COLUMNS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"
#include "parser/plan.h"
#include "util/number.h"

namespace mapr::runtime {

struct BatchColumns {
  // No columns: an aggregator that never takes lines (one read from a
  // partial) holds none.
  BatchColumns() = default;
  explicit BatchColumns(size_t fields)
      : values(fields * kMaxBatchRows),
        numbers(fields * kMaxBatchRows),
        numeric(fields * kMaxBatchRows),
        numeric_epoch(fields, 0),
        sel(kMaxBatchRows) {}

  std::string_view* column(plan::FieldId f) {
    return values.data() + size_t{f} * kMaxBatchRows;
  }
  const double* numbers_of(plan::FieldId f) const {
    return numbers.data() + size_t{f} * kMaxBatchRows;
  }
  const uint8_t* numeric_of(plan::FieldId f) const {
    return numeric.data() + size_t{f} * kMaxBatchRows;
  }

  // Starts a new batch: numbers parsed for the previous one are stale.
  void NextBatch() { ++epoch; }
  // Marks field f's numbers stale (a `set` rewrote it).
  void Invalidate(plan::FieldId f) { numeric_epoch[f] = 0; }

  // Parses field f as numbers for the selected rows, once per batch.
  void EnsureNumeric(plan::FieldId f) {
    if (numeric_epoch[f] == epoch) return;
    numeric_epoch[f] = epoch;
    const std::string_view* col = column(f);
    double* nums = numbers.data() + size_t{f} * kMaxBatchRows;
    uint8_t* ok = numeric.data() + size_t{f} * kMaxBatchRows;
    // Rows outside the selection may hold stale views; they are never read.
    for (size_t i = 0; i < sel_size; ++i) {
      const uint32_t r = sel[i];
      const std::string_view v = col[r];
      ok[r] = v.data() != nullptr && util::ParseNumber(v, &nums[r]);
    }
  }

  std::vector<std::string_view> values;  // data() == nullptr: missing
  std::vector<double> numbers;
  std::vector<uint8_t> numeric;
  std::vector<uint64_t> numeric_epoch;
  uint64_t epoch = 0;
  // The rows still selected, ascending, and how many.
  std::vector<uint32_t> sel;
  size_t sel_size = 0;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_BATCH_COLUMNS_H_
