// cumsum(x), cumsum(agg(x)): the running total, over the result's rows in
// their order, of sum(x) or of agg(x). It keeps sum's state (so cumsum(x)
// shares sum(x)'s slot and merges as sum does); the result builder adds
// the rows up after ordering them (BuildResult).
#include "runtime/aggregates/sum.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "cumsum",
    kSumStateName,
    plan::ArgumentKind::kNumber,
    ValueType::kNumber,
    "the running total of sum(x) (or of agg(x) in cumsum(agg(x))) over the "
    "rows, in their order",
    /*one_row_value=*/false,
    plan::AggregateInfo::Role::kNone,
    0,
    1,
    /*per_bucket_second=*/false,
    /*running_total=*/true};

}  // namespace

extern const AggregateFunction kCumsumAggregate = {kInfo, NewStateOf<SumState>,
                                                   FinalizeValues<SumState>};

}  // namespace mapr::runtime
