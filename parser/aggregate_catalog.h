// What the planner knows of an aggregate: its name, what it reads, what it
// returns and which state it keeps. The descriptions live with the
// aggregates themselves (runtime/aggregates/*.cc, one file each, listed in
// runtime/aggregates/registry.cc); the planner receives them through its
// PlannerContext, so parser/ never includes runtime/.
#ifndef MAPR_PARSER_AGGREGATE_CATALOG_H_
#define MAPR_PARSER_AGGREGATE_CATALOG_H_

#include <cstdint>
#include <string_view>

#include "mapr/result.h"

namespace mapr::plan {

// Which values of its field an aggregate reads.
enum class ArgumentKind : uint8_t {
  kAnyValue,  // Every present value (count, last, first, len).
  kNumber,    // Only values that parse as numbers (sum, avg, min, max).
};

struct AggregateInfo {
  // As written in a query (case-sensitive): count, sum, first, ...
  std::string_view name;
  // The state it keeps. Select items whose aggregates keep the same state of
  // the same field share one state slot (sum, percentage and percentile all
  // keep a "sum").
  std::string_view state;
  ArgumentKind argument;
  // How its cells render: integers (count), numbers with six decimals, or
  // the text itself (last, first).
  ValueType result;
  // One line for `mapr --help` and the docs.
  std::string_view summary;
  // True if the result is one row's value of the field (last, first): for a
  // group-by field that value is the group's key part, so the engine keeps
  // no state for it.
  bool one_row_value = false;
  // How the planner finds it besides its name (one entry each, so that the
  // planner names no aggregate):
  //   kPlainField  what a plain field in a select list means (last);
  //   kRankInName  the family `pN`: p0 ... p100 and pN.N (p99.9) resolve to
  //                it with the rank the name gives;
  //   kFixedRank   a quantile of a fixed `rank` (median: 1/2).
  enum class Role : uint8_t { kNone, kPlainField, kRankInName, kFixedRank };
  Role role = Role::kNone;
  uint64_t rank_num = 0;  // kFixedRank: the rank rank_num / rank_den.
  uint64_t rank_den = 1;
  // rate(): a value per second of the group's time bucket. The planner
  // sets the column's rank to 1 / the bucket width in seconds (the first
  // group-by field whose value is bucket(x, <duration>)), and refuses a
  // query without one.
  bool per_bucket_second = false;
  // cumsum(): the column shows the running total, over the result's rows in
  // their order, of an aggregate's values: cumsum(x) of sum(x) (this
  // entry's own state), cumsum(agg(x)) of agg(x). Not an order key or a
  // `having` operand (it depends on the rows around it).
  bool running_total = false;
  // topk(x, k): the aggregation takes a second argument, a whole number
  // from 1 to max_count; the planner sets the column's rank to {k, 1}
  // (columns of one field share one state, whatever their k). 0: it takes
  // none.
  uint32_t max_count = 0;
  // histogram(x, w): the aggregation takes a second argument, a positive
  // number that its state is built with (StateOptions::parameter); slots
  // of one field with different arguments keep different states.
  bool takes_width = false;
};

// What a query's aggregate states are built with (CompileOptions; the
// defaults below). They change results, so a partial's fingerprint holds
// them when they differ from the defaults.
struct StateOptions {
  // A group's percentiles are exact while it holds at most this many
  // values; past it, a DDSketch takes over.
  uint32_t percentile_exact_values = 1024;
  // The DDSketch's relative accuracy.
  double percentile_accuracy = 0.01;
  // The slot's own argument (StateSlot::parameter), set by the engine for
  // each state it builds; always empty in Plan::state_options.
  std::string_view parameter;
  friend bool operator==(const StateOptions&, const StateOptions&) = default;
};

// The rank a quantile aggregate (median, pN) returns: the value at rank
// floor(num * (n - 1) / den) of a group's n sorted values.
struct Rank {
  uint64_t num = 0;
  uint64_t den = 1;
  friend bool operator==(const Rank&, const Rank&) = default;
};

}  // namespace mapr::plan

#endif  // MAPR_PARSER_AGGREGATE_CATALOG_H_
