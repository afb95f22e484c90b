// The list of aggregates: adding one is its own file plus one line here.
#include <algorithm>
#include <span>

#include "runtime/aggregate.h"

namespace mapr::runtime {

// X(name): each aggregate file defines `const AggregateFunction name`.
// The order is the order of `mapr --help` and the planner's hints.
#define MAPR_AGGREGATES(X) \
  X(kCountAggregate)       \
  X(kRateAggregate)        \
  X(kSumAggregate)         \
  X(kMinAggregate)         \
  X(kMaxAggregate)         \
  X(kLastAggregate)        \
  X(kFirstAggregate)       \
  X(kAvgAggregate)         \
  X(kLenAggregate)         \
  X(kPercentageAggregate)  \
  X(kPercentileAggregate)  \
  X(kMedianAggregate)      \
  X(kPnAggregate)          \
  X(kDcountAggregate)      \
  X(kTopkAggregate)        \
  X(kRareAggregate)        \
  X(kHistogramAggregate)   \
  X(kStddevAggregate)      \
  X(kVarianceAggregate)    \
  X(kStddevpAggregate)     \
  X(kVariancepAggregate)   \
  X(kCumsumAggregate)

#define MAPR_DECLARE_AGGREGATE(name) extern const AggregateFunction name;
MAPR_AGGREGATES(MAPR_DECLARE_AGGREGATE)
#undef MAPR_DECLARE_AGGREGATE

namespace {

#define MAPR_LIST_AGGREGATE(name) &(name),
constexpr const AggregateFunction* kAll[] = {
    MAPR_AGGREGATES(MAPR_LIST_AGGREGATE)};
#undef MAPR_LIST_AGGREGATE

}  // namespace

std::span<const AggregateFunction* const> Aggregates() { return kAll; }

const AggregateFunction* FindAggregate(const plan::AggregateInfo& info) {
  for (const AggregateFunction* a : kAll) {
    if (&a->info == &info || a->info.name == info.name) return a;
  }
  return nullptr;
}

}  // namespace mapr::runtime
