// sum(x): the exact sum of the numeric values, rounded to a double once.
#include "runtime/aggregates/sum.h"

#include <memory>

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "sum", kSumStateName, plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the exact sum of the numeric values"};

}  // namespace

extern const AggregateFunction kSumAggregate = {kInfo, NewStateOf<SumState>,
                                                FinalizeValues<SumState>};

}  // namespace mapr::runtime
