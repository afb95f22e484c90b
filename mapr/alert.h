// mapr/alert.h: a condition over the rows of a query's result, in the
// `having` grammar: `mapr --follow --alert 'count($line) > 100'` reports the
// groups for which it starts and stops holding.
//
// Example:
//   absl::StatusOr<mapr::RowCondition> alert =
//       mapr::RowCondition::Compile(query, "count($line) > 100");
//   if (!alert.ok()) return alert.status();
//   std::vector<bool> firing = alert->Evaluate(result);
//
// Thread safety: Evaluate() is const and may run on several threads.
#ifndef MAPR_MAPR_ALERT_H_
#define MAPR_MAPR_ALERT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "mapr/export.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr {

class MAPR_EXPORT RowCondition {
 public:
  // `condition` over the select items of `query`, as a `having` clause of
  // it would be written (aggregates and fields by the names the select
  // list uses, literals, and/or/not, parentheses). Errors are those of
  // compiling "QUERY having CONDITION", with the position and caret in
  // that text; InvalidArgument if the query has a `having` clause already
  // (its result holds only the groups it keeps: put the whole condition
  // here) or if the condition reads a value that is not a select item
  // (the result has no column for it).
  static absl::StatusOr<RowCondition> Compile(const Query& query,
                                              std::string_view condition);

  // For each row of `table` (a result of the query), whether the condition
  // holds for it, as `having` would decide for its group.
  std::vector<bool> Evaluate(const ResultTable& table) const;

  // The condition as given.
  const std::string& text() const { return text_; }

 private:
  RowCondition(Query with_having, std::string text)
      : with_having_(std::move(with_having)), text_(std::move(text)) {}

  Query with_having_;  // The query with the condition as its having clause.
  std::string text_;
};

}  // namespace mapr

#endif  // MAPR_MAPR_ALERT_H_
