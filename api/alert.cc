// mapr/alert.h: the condition is compiled as the query's `having` clause and
// evaluated over the rendered result's rows (runtime/result_builder.h).
#include "mapr/alert.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/query_internal.h"
#include "runtime/result_builder.h"
#include "util/strings.h"

namespace mapr {
namespace {

// The first operand of `c` that names a value past the select items, or
// null.
const plan::Operand* HiddenValue(const plan::Condition& c, size_t columns) {
  for (const plan::Operand* o : {&c.lhs, &c.rhs}) {
    if (c.kind == plan::Condition::Kind::kCompare &&
        o->kind == plan::Operand::Kind::kValue && o->value >= columns) {
      return o;
    }
  }
  for (const plan::Condition& child : c.children) {
    if (const plan::Operand* o = HiddenValue(child, columns)) return o;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<RowCondition> RowCondition::Compile(const Query& query,
                                                   std::string_view condition) {
  const plan::Plan& plan = QueryInternal::GetPlan(query);
  if (plan.having.has_value()) {
    return absl::InvalidArgumentError(
        "the query has a having clause already: its result holds only the "
        "groups it keeps; put the whole condition in the alert instead");
  }
  // As the query was compiled: its percentile settings, and its lookup()
  // tables (the host allowed them, or the query would not have compiled).
  CompileOptions options;
  options.percentile_exact_values = plan.state_options.percentile_exact_values;
  options.percentile_accuracy = plan.state_options.percentile_accuracy;
  options.allow_file_lookups = true;
  absl::StatusOr<Query> with = Query::Compile(
      absl::StrCat(query.text(), " having ", util::ToAbsl(condition)), options);
  if (!with.ok()) return with.status();
  const plan::Plan& p = QueryInternal::GetPlan(*with);
  if (const plan::Operand* o = HiddenValue(*p.having, p.columns.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the condition reads ", plan::ValueColumn(p, o->value).name,
        ", which the query does not select: a condition over the result "
        "may name only its columns"));
  }
  return RowCondition(*std::move(with), std::string(condition));
}

std::vector<bool> RowCondition::Evaluate(const ResultTable& table) const {
  return runtime::RowsHolding(*QueryInternal::GetPlan(with_having_).having,
                              table);
}

}  // namespace mapr
