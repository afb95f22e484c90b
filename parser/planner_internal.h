// The planner's class, shared by its three files: planner.cc (format,
// table, select, where, having), planner_set.cc (set: functions,
// expressions, time layouts, bucket widths) and planner_clauses.cc (group
// by, order by, limit, interval, outfile, execution order, warnings).
// Private to parser/: only those files include it.
#ifndef MAPR_PARSER_PLANNER_INTERNAL_H_
#define MAPR_PARSER_PLANNER_INTERNAL_H_

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "parser/planner.h"
#include "parser/regex.h"
#include "parser/source_span.h"
#include "re2/re2.h"
#include "util/number.h"
#include "util/strings.h"

namespace mapr::parser::planner_internal {

using plan::CompareOp;
using plan::FieldId;

inline constexpr FieldId kNoField = UINT32_MAX;

inline constexpr std::string_view kRegexSyntaxHint =
    "patterns are RE2 syntax: https://github.com/google/re2/wiki/Syntax";

inline std::string AggregateStorage(const ast::Token& agg,
                                    const ast::Token& field) {
  return absl::StrCat(agg.text, "(", field.text, ")");
}

// `agg(field)`, `agg(inner(field))` (cumsum(count($line))), or
// `agg(field,arg)` (topk(x,3): the argument as written).
inline std::string AggregateStorage(
    const ast::Token& agg, const std::optional<ast::Token>& inner,
    const ast::Token& field,
    const std::optional<ast::Token>& parameter = std::nullopt) {
  if (parameter) {
    return absl::StrCat(agg.text, "(", field.text, ",", parameter->text, ")");
  }
  if (!inner) return AggregateStorage(agg, field);
  return absl::StrCat(agg.text, "(", AggregateStorage(*inner, field), ")");
}

class Planner {
 public:
  Planner(const ast::Query& query, std::string_view text,
          const PlannerContext& context)
      : q_(query), text_(text), context_(context) {}

  absl::StatusOr<plan::Plan> Build();

  // Records an error (also for functions' bind hooks: planner_set.cc).
  void Error(ast::Span span, std::string message, std::string hint = "") {
    errors_.push_back(QueryError{span, std::move(message), std::move(hint)});
  }

  // Compiles `pattern` (a string token) for `what`, or records the error
  // under it and returns null.
  std::shared_ptr<const re2::RE2> Pattern(const ast::Token& pattern,
                                          std::string_view what);
  // True if a call of `function` (quoted value first: `value_quoted`; its
  // first literal quoted: `first_quoted`; `literals` after the value) is
  // written with its first literal leading and the value second, which its
  // FunctionInfo::first_literal_may_lead allows.
  bool LiteralLeads(std::string_view function, bool value_quoted,
                    bool first_quoted, size_t literals) const;
  // rate(): the rank 1 / the width in seconds of the first group field
  // holding time buckets, or an error under `aggregation` (PlanRates sets
  // the select items', once the group fields are known).
  plan::Rank PerBucketSecond(const ast::Token& aggregation);
  void PlanRates();
  std::vector<std::pair<size_t, ast::Token>> pending_rates_;
  // A lookup() table's bytes (PlannerContext::read_lookup_file).
  absl::StatusOr<std::string> ReadLookupFile(std::string_view path) const {
    if (!context_.read_lookup_file) {
      return absl::FailedPreconditionError(
          absl::StrCat(kLookupNotAllowed,
                       " (CompileOptions::allow_file_lookups; the mapr "
                       "command does)"));
    }
    return context_.read_lookup_file(path);
  }
  void AddFingerprint(std::string text) {
    p_.fingerprint_extras.push_back(std::move(text));
  }

 private:
  FieldId Intern(const std::string& name);

  void PlanFormat();
  // `multiline RULE` (parser/event_start.h).
  void PlanMultiline();

  void PlanTable();

  const plan::AggregateInfo* FindAggregate(std::string_view name) const {
    for (const plan::AggregateInfo* a : context_.aggregates) {
      if (a->name == name) return a;
    }
    return nullptr;
  }
  // The aggregate with `role` (AggregateInfo::Role); every catalog has one.
  const plan::AggregateInfo* FindAggregate(
      plan::AggregateInfo::Role role) const {
    for (const plan::AggregateInfo* a : context_.aggregates) {
      if (a->role == role) return a;
    }
    return nullptr;
  }

  // `pN` / `pN.N` (0 <= N <= 100) as a rank: N / 100 as a fraction.
  enum class QuantileForm { kNot, kValid, kOutOfRange };
  QuantileForm QuantileName(const ast::Token& name, plan::Rank* rank);

  const plan::AggregateInfo* LookupAggregate(const ast::Token& name,
                                             plan::Rank* rank = nullptr);

  uint32_t Slot(const plan::AggregateInfo* aggregate, FieldId field,
                std::string parameter = "");

  void PlanSelect();
  // cumsum(agg(x)): makes `c` agg's column, shown as a running total;
  // false after reporting why it cannot be.
  bool RefusePercentileRank(const ast::SelectItem& item);
  bool PlanArgument(const ast::SelectItem& item, plan::Column* c,
                    std::string* slot_parameter);
  bool PlanInnerAggregate(const ast::SelectItem& item, plan::Column* c);
  // Reports that the running total `storage` cannot be `what` ("an order
  // key", "compared").
  void RunningTotalError(const ast::Span& span, std::string_view storage,
                         std::string_view what);
  // True (after reporting it) if value `value` is a running total, which
  // `what` cannot be.
  bool RefuseRunningTotal(uint32_t value, const ast::Span& span,
                          std::string_view what);

  plan::Operand FloatOperand(const ast::Token& t);

  plan::Operand StringOperand(const ast::Token& t);

  // `where` (having = false) or `having`.
  plan::Condition PlanCondition(const ast::Expr& e, bool having);
  // One operand of comparison `e`: an expression or function call (`where`
  // only), an aggregation (`having` only) or a field or literal; `numeric`
  // under a numeric operator.
  plan::Operand ConditionOperand(const ast::Expr& e,
                                 const std::optional<ast::SetExpr>& expr,
                                 const std::optional<ast::Token>& aggregation,
                                 const ast::Token& t, bool having,
                                 bool numeric);

  // `f =~ 're'` and `f !~ 're'`. A pattern that is a plain text becomes
  // (n)contains, the faster substring search with the same answers.
  void PlanRegexCompare(const ast::Expr& e, plan::Operand lhs,
                        plan::Condition* c);
  // The values of `x in (...)` into c->in_values (sorted, unique).
  void PlanInList(const ast::Expr& e, plan::Condition* c);

  void PlanWhere() {
    if (q_.where) p_.where = PlanCondition(*q_.where, /*having=*/false);
  }

  // An expression operand of `where`: a field of its own, computed by a
  // step that runs before `where` (after the `set` steps it reads).
  plan::Operand WhereExprOperand(const ast::SetExpr& e);
  // The steps of those fields, and the fields, which only `where` reads.
  std::vector<plan::SetStep> where_steps_;
  absl::flat_hash_set<FieldId> where_only_;

  // ---- having and order by: values of the merged groups -------------------

  uint32_t AddHidden(plan::Column c) {
    p_.hidden_columns.push_back(std::move(c));
    return static_cast<uint32_t>(p_.columns.size() + p_.hidden_columns.size() -
                                 1);
  }

  // The value index of the select item named `key` (alias first, then the
  // DTail storage text), or of a hidden value with that storage.
  std::optional<uint32_t> FindValue(const std::string& key) const;

  // The value index of group field `name` (a hidden column reading the key
  // part, with no state), or nullopt if `name` is not a group field.
  std::optional<uint32_t> GroupFieldValue(const std::string& name);

  // The names `having` and `order by` may use, for hints.
  std::string ValueNames() const;

  // "did you mean 'x'? " for `key` among the select items and group fields.
  std::string DidYouMean(const std::string& key) const;

  static ast::Span CallSpan(const ast::Token& aggregation,
                            const ast::Token& field);

  // An operand of `having`: a select item, an alias, a group field, an
  // aggregation that is not selected (computed in a hidden slot), or a
  // literal. `numeric`: under a numeric operator.
  plan::Operand HavingOperand(const std::optional<ast::Token>& aggregation,
                              const ast::Token& t, bool numeric);

  void PlanHaving() {
    if (q_.having) p_.having = PlanCondition(*q_.having, /*having=*/true);
  }

  // The function `name` called with the literal arguments `args` after its
  // value; false (after reporting why) if it cannot be.
  bool MakeFunctionStep(const ast::Token& name,
                        const std::vector<ast::Token>& args,
                        plan::FunctionStep* fs);

  // The function called `name` in the context, or null.
  const plan::FunctionInfo* FindFunction(std::string_view name) const;

  // The span from the first to the last token of `e` (a call's closing
  // parenthesis is not a token: one byte is added for it).
  static ast::Span SetExprSpan(const ast::SetExpr& e);

  // Compiles the set expression `e` into postfix `out`; false (after
  // reporting why) if it cannot be.
  bool CompileExpr(const ast::SetExpr& e, std::vector<plan::ExprOp>* out);

  void PlanSet();
  // A window() call of a `set` step: the step's target and the call's
  // name, for PlanWindow's errors.
  struct WindowCall {
    std::string target;
    ast::Token call;
  };
  std::vector<WindowCall> window_calls_;

  void PlanGroupBy();
  // Checks the window() calls PlanSet found (one, the whole value of its
  // step, its variable a `group by` field that nothing else reads) and
  // sets Plan::window.
  void PlanWindow();
  // The first thing that reads `field` other than `group by` and the
  // select items and order keys showing the group's key part ("where",
  // "a set step", "count($w)"), or "".
  std::string OtherReader(FieldId field) const;

  // `order by k1 [asc|desc], k2 ...`: each key names a select item (alias
  // first, then storage) or a group field.
  void PlanOrder();

  // Parses a non-negative decimal integer (digits only).
  static std::optional<int64_t> ParseCount(std::string_view s);

  void PlanLimit();

  void PlanInterval();

  void PlanOutfile();

  bool FormatKnows(const std::string& name) const;

  void CollectConditionFields(const plan::Condition& c,
                              std::vector<FieldId>* out) const;

  static void RemapCondition(plan::Condition& c,
                             const std::vector<FieldId>& shadow);

  // Which `set` steps `where` depends on, and which fields the format must
  // fill.
  void PlanExecutionOrder();

  // DTail's fork warns about $variables the format cannot produce
  // (docs/query-language.md, "Unknown variables").
  void PlanWarnings();

  ast::Span FirstSpanOf(const std::string& name) const;

  static std::optional<ast::Span> FindInSetExpr(const ast::SetExpr& e,
                                                const std::string& name);

  static std::optional<ast::Span> FindInExpr(const ast::Expr& e,
                                             const std::string& name);

  const ast::Query& q_;
  std::string_view text_;
  const PlannerContext& context_;
  plan::Plan p_;
  std::vector<QueryError> errors_;
  absl::flat_hash_map<std::string, FieldId> field_ids_;
  std::optional<std::vector<std::string>> format_variables_;
};

}  // namespace mapr::parser::planner_internal

#endif  // MAPR_PARSER_PLANNER_INTERNAL_H_
