// sum(x): the exact sum of the numeric values, rounded to a double once.
#include "runtime/aggregates/sum.h"

#include <memory>

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "sum", kSumStateName, plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the exact sum of the numeric values"};

void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const SumState&>(state);
  out->values.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) out->values[i] = s.Value(which[i]);
}

}  // namespace

extern const AggregateFunction kSumAggregate = {kInfo, NewStateOf<SumState>,
                                                Finalize};

}  // namespace mapr::runtime
