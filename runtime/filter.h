// `where`: narrows a batch's selection vector to the rows a condition holds
// for. Comparisons run as one tight loop per operator over the selected rows
// (no switch per row); the conjuncts of an `and` narrow the selection one
// after another. A missing or non-numeric value compares false.
#ifndef MAPR_RUNTIME_FILTER_H_
#define MAPR_RUNTIME_FILTER_H_

#include <cstdint>
#include <vector>

#include "parser/plan.h"
#include "runtime/batch_columns.h"

namespace mapr::runtime {

class RowFilter {
 public:
  // Keeps the rows of batch.sel for which `c` holds.
  void Filter(const plan::Condition& c, BatchColumns& batch);

 private:
  // out[i] = whether `c` holds for rows[i].
  void Evaluate(const plan::Condition& c, BatchColumns& batch,
                const uint32_t* rows, size_t n, uint8_t* out, size_t depth);

  std::vector<std::vector<uint8_t>> masks_;  // by nesting depth
  std::vector<uint8_t> result_;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_FILTER_H_
