#include "parser/planner.h"

#include "parser/planner_internal.h"

namespace mapr::parser::planner_internal {

// The steps run in a fixed order, not in the order the query writes its
// clauses (DTail takes them in any order): the format first (it decides
// which names are fields), group by before rate() and having (both look
// for group fields), order after having (an order key may be a group
// field that having made a hidden value). Errors are collected, not
// returned at the first: a query with several mistakes reports them all,
// each with its caret.
absl::StatusOr<plan::Plan> Planner::Build() {
  p_.text = std::string(text_);
  p_.canonical = ast::Unparse(q_);
  p_.state_options = context_.state_options;
  PlanFormat();
  PlanMultiline();
  PlanTable();
  PlanSelect();
  PlanWhere();
  PlanSet();
  // Expression operands of `where` see what every `set` step computed.
  for (plan::SetStep& step : where_steps_) p_.sets.push_back(std::move(step));
  where_steps_.clear();
  PlanGroupBy();
  PlanRates();
  PlanHaving();
  PlanOrder();
  // After having and order by, whose hidden values may read the window.
  PlanWindow();
  PlanLimit();
  PlanInterval();
  PlanOutfile();
  if (!errors_.empty()) return QueryErrorsStatus(text_, errors_);
  PlanExecutionOrder();
  PlanWarnings();
  return std::move(p_);
}

// One id per distinct name, in first-use order, so that a field read by
// several clauses is extracted once per line.
FieldId Planner::Intern(const std::string& name) {
  auto [it, inserted] = field_ids_.try_emplace(name, 0);
  if (inserted) {
    it->second = static_cast<FieldId>(p_.fields.size());
    plan::Field f;
    f.name = name;
    f.common = plan::LookupCommonVariable(name);
    p_.fields.push_back(std::move(f));
  }
  return it->second;
}

// Without `logformat`, `from TABLE` means DTail's own line format and no
// `from` means generic lines: DTail's two modes. The format's name is
// case-blind; its argument (a regex, a CSV delimiter, a pattern) is checked
// by the format itself, through the planner context, so parser/ knows no
// format.
void Planner::PlanFormat() {
  std::string name = q_.from ? "default" : "generic";
  ast::Span span;
  if (q_.logformat) {
    name = absl::AsciiStrToLower(util::ToAbsl(q_.logformat->text));
    span = q_.logformat->span;
    p_.log_format_given = true;
  }
  std::optional<FormatInfo> info;
  if (context_.lookup_format) info = context_.lookup_format(name);
  const ast::Token* arg =
      q_.logformat_argument ? &*q_.logformat_argument : nullptr;
  if (!info) {
    std::vector<std::string> names = context_.format_names;
    std::sort(names.begin(), names.end());
    Error(span,
          absl::StrCat("unknown log format '",
                       q_.logformat ? q_.logformat->text : name, "'"),
          absl::StrCat("known log formats: ", absl::StrJoin(names, ", ")));
    return;
  }
  p_.log_format = info->name;
  format_variables_ = info->variables;
  if (arg != nullptr) p_.log_format_argument = arg->text;
  if (info->format == nullptr) {
    if (arg != nullptr) {
      Error(arg->span,
            absl::StrCat("log format '", p_.log_format, "' takes no argument"));
    }
    return;
  }
  FormatOptions options;
  options.max_regex_memory = context_.max_regex_memory;
  absl::StatusOr<std::shared_ptr<const LogFormat>> configured =
      info->format->Configure(arg != nullptr
                                  ? std::optional<std::string_view>(arg->text)
                                  : std::nullopt,
                              options);
  if (!configured.ok()) {
    std::string message(configured.status().message());
    Error(arg != nullptr ? arg->span : span, message,
          absl::StrContains(message, "regular expression")
              ? std::string(kRegexSyntaxHint)
              : std::string());
    return;
  }
  p_.format = *configured != nullptr ? *configured : info->format;
  if (*configured != nullptr) format_variables_ = p_.format->variables();
}

// A 'quoted' rule is a regex matching the lines that start an event; a
// bareword names a built-in (case-blind).
void Planner::PlanMultiline() {
  if (!q_.multiline) return;
  const ast::Token& t = *q_.multiline;
  if (t.kind == ast::TokenKind::kString) {
    absl::StatusOr<std::shared_ptr<const EventStart>> rule =
        EventStart::FromPattern(t.text, context_.max_regex_memory);
    if (!rule.ok()) {
      Error(t.span, std::string(rule.status().message()),
            std::string(kRegexSyntaxHint));
      return;
    }
    p_.event_start = *std::move(rule);
    return;
  }
  std::string name = absl::AsciiStrToLower(util::ToAbsl(t.text));
  absl::StatusOr<std::shared_ptr<const EventStart>> rule =
      EventStart::Builtin(name);
  if (!rule.ok()) {
    Error(t.span, absl::StrCat("unknown multiline rule '", t.text, "'"),
          absl::StrCat(
              "built-in rules: ", util::ToAbsl(EventStart::kBuiltinNames),
              "; or a 'quoted' regular expression that matches the "
              "lines that start an event"));
    return;
  }
  p_.event_start = *std::move(rule);
}

// `from T`: only lines whose MAPREDUCE table is T (case-blind; written
// upper-case into the marker the engine looks for); `from *`: any table.
// Without `from`, every line (the plan's default).
void Planner::PlanTable() {
  if (!q_.from) return;
  const ast::Token& t = q_.from->table;
  if (t.kind == ast::TokenKind::kBareword && t.text == "*") {
    p_.table_filter = plan::TableFilter::kAny;
    return;
  }
  if (t.text.empty() || t.text.find('|') != std::string::npos) {
    Error(t.span, absl::StrCat("invalid table name '", t.text, "'"),
          "a table name is the text after MAPREDUCE: up to the next '|'");
    return;
  }
  p_.table_filter = plan::TableFilter::kTable;
  p_.table = absl::AsciiStrToUpper(util::ToAbsl(t.text));
  p_.table_marker = absl::StrCat("|MAPREDUCE:", p_.table, "|");
}

// An operand of a numeric comparison: a bare number, or a field (a quoted
// string is an error: `x > "5"` compares no number).
plan::Operand Planner::FloatOperand(const ast::Token& t) {
  plan::Operand o;
  if (t.kind == ast::TokenKind::kString) {
    Error(t.span,
          absl::StrCat("\"", t.text,
                       "\" is a string; numeric comparisons take numbers "
                       "or fields"),
          "compare strings with eq, ne, contains, hasprefix or hassuffix");
    return o;
  }
  double v;
  if (t.kind == ast::TokenKind::kBareword && util::ParseNumber(t.text, &v)) {
    o.kind = plan::Operand::Kind::kNumber;
    o.number = v;
    o.text = t.text;
    return o;
  }
  o.kind = plan::Operand::Kind::kField;
  o.field = Intern(t.text);
  return o;
}

// An operand of a text comparison: a quoted string or a bare number is the
// literal text, any other bareword a field.
plan::Operand Planner::StringOperand(const ast::Token& t) {
  plan::Operand o;
  double v;
  if (t.kind == ast::TokenKind::kString ||
      (t.kind == ast::TokenKind::kBareword && util::ParseNumber(t.text, &v))) {
    // A bare number under a string operator is the literal text (DTail
    // would look for a field named "200").
    o.kind = plan::Operand::Kind::kString;
    o.text = t.text;
    return o;
  }
  o.kind = plan::Operand::Kind::kField;
  o.field = Intern(t.text);
  return o;
}

// One side of a comparison. In `having`: a select item, alias or group
// field (HavingOperand). In `where`: an expression, a function of one field
// (`lower(m) eq "get"`, planned as an expression), a field or a literal;
// an aggregation there is an error that points to `having`.
plan::Operand Planner::ConditionOperand(
    const ast::Expr& e, const std::optional<ast::SetExpr>& expr,
    const std::optional<ast::Token>& aggregation, const ast::Token& t,
    bool having, bool numeric) {
  if (having && expr) {
    Error(t.span,
          "'having' compares select items, aliases and group fields, "
          "not expressions",
          "compute the value with 'set' and select an aggregate of it");
    return plan::Operand{};
  }
  if (having) return HavingOperand(aggregation, t, numeric);
  if (expr) return WhereExprOperand(*expr);
  plan::Rank rank;
  if (aggregation &&
      (FindFunction(aggregation->text) != nullptr ||
       (FindAggregate(aggregation->text) == nullptr &&
        QuantileName(*aggregation, &rank) == QuantileForm::kNot))) {
    // `lower(method)`: a function of one field (a name that is no
    // aggregation either is an unknown function, with the nearest).
    const plan::FunctionInfo* f = FindFunction(aggregation->text);
    if (f != nullptr && t.kind == ast::TokenKind::kBareword && t.text.empty()) {
      Error(CallSpan(*aggregation, t),
            absl::StrCat(aggregation->text, "() needs a value"),
            absl::StrCat("write: ", util::ToAbsl(f->usage)));
      return plan::Operand{};
    }
    ast::SetExpr call;
    call.kind = ast::SetExpr::Kind::kCall;
    call.token = *aggregation;
    call.args.resize(1);
    call.args[0].token = t;
    return WhereExprOperand(call);
  }
  if (aggregation) {
    Error(CallSpan(*aggregation, t),
          "an aggregation cannot be a 'where' operand: 'where' "
          "filters lines before they are aggregated",
          absl::StrCat("to filter groups, use 'having': having ",
                       AggregateStorage(*aggregation, t), " ", e.op.text,
                       " ..."));
    return plan::Operand{};
  }
  return numeric ? FloatOperand(t) : StringOperand(t);
}

// The condition tree of `where` (having = false) or `having`: and/or/not
// nodes as written; each comparison with its operator, operands, regular
// expression or sorted `in` list.
plan::Condition Planner::PlanCondition(const ast::Expr& e, bool having) {
  plan::Condition c;
  switch (e.kind) {
    case ast::ExprKind::kAnd:
      c.kind = plan::Condition::Kind::kAnd;
      break;
    case ast::ExprKind::kOr:
      c.kind = plan::Condition::Kind::kOr;
      break;
    case ast::ExprKind::kNot:
      c.kind = plan::Condition::Kind::kNot;
      break;
    case ast::ExprKind::kCompare: {
      c.kind = plan::Condition::Kind::kCompare;
      const std::optional<plan::CompareOp> op =
          plan::LookupCompareOp(e.op.text);
      if (!op) {  // The grammar only admits known operators.
        Error(e.op.span, absl::StrCat("unknown operator '", e.op.text, "'"));
        return c;
      }
      c.op = *op;
      const bool numeric = plan::IsFloatOp(c.op);
      if (c.op == CompareOp::kRegexMatch || c.op == CompareOp::kRegexNotMatch) {
        plan::Operand lhs = ConditionOperand(e, e.lhs_expr, e.lhs_aggregation,
                                             e.lhs, having, numeric);
        if (e.rhs_aggregation) {
          Error(CallSpan(*e.rhs_aggregation, e.rhs),
                absl::StrCat("the pattern of '", e.op.text,
                             "' must be a 'quoted' string"),
                "for example: $hostname =~ '^web'");
          return c;
        }
        PlanRegexCompare(e, std::move(lhs), &c);
        return c;
      }
      c.lhs = ConditionOperand(e, e.lhs_expr, e.lhs_aggregation, e.lhs, having,
                               numeric);
      if (c.op == CompareOp::kIn) {
        PlanInList(e, &c);
        return c;
      }
      c.rhs = ConditionOperand(e, e.rhs_expr, e.rhs_aggregation, e.rhs, having,
                               numeric);
      return c;
    }
  }
  for (const ast::Expr& child : e.children) {
    c.children.push_back(PlanCondition(child, having));
  }
  return c;
}

// An expression operand of `where` becomes a hidden `set` step into a
// field of its own, computed before the condition reads it; the same
// expression twice is computed once.
plan::Operand Planner::WhereExprOperand(const ast::SetExpr& e) {
  // A name no query can write (a bareword or a backticked name holds no
  // backtick), so it never meets a field of the line or a variable.
  const FieldId id = Intern(absl::StrCat("`", ast::ExprText(e), "`"));
  plan::Operand o;
  o.kind = plan::Operand::Kind::kField;
  o.field = id;
  if (where_only_.contains(id)) return o;  // The same expression again.
  plan::SetStep step;
  if (!CompileExpr(e, &step.program)) return o;
  step.target = id;
  p_.fields[id].assigned = true;
  where_only_.insert(id);
  where_steps_.push_back(std::move(step));
  return o;
}

// The compiled regular expression of a quoted pattern (RE2, within
// CompileOptions::max_regex_memory), or null after an error under it.
std::shared_ptr<const re2::RE2> Planner::Pattern(const ast::Token& pattern,
                                                 std::string_view what) {
  if (pattern.kind != ast::TokenKind::kString) {
    Error(pattern.span,
          absl::StrCat("the pattern of ", util::ToAbsl(what),
                       " must be a 'quoted' string"),
          what == "regex()" ? "for example: regex($line, 'took (\\d+)ms')"
                            : "for example: path =~ '^/api/'");
    return nullptr;
  }
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
      CompilePattern(pattern.text, context_.max_regex_memory);
  if (!re.ok()) {
    Error(pattern.span, std::string(re.status().message()),
          absl::StrContains(re.status().message(), "more than")
              ? "raise CompileOptions::max_regex_memory, or simplify the "
                "pattern"
              : std::string(kRegexSyntaxHint));
    return nullptr;
  }
  return *std::move(re);
}

// `=~` and `!~`: a pattern that is plain text becomes contains/ncontains
// (no regex engine per line); any other keeps its compiled RE2.
void Planner::PlanRegexCompare(const ast::Expr& e, plan::Operand lhs,
                               plan::Condition* c) {
  const bool negated = c->op == CompareOp::kRegexNotMatch;
  c->lhs = std::move(lhs);
  std::shared_ptr<const re2::RE2> re =
      Pattern(e.rhs, negated ? "'!~'" : "'=~'");
  if (re == nullptr) return;
  c->rhs.kind = plan::Operand::Kind::kString;
  c->rhs.text = e.rhs.text;
  if (std::optional<std::string> literal = LiteralPattern(e.rhs.text)) {
    c->op = negated ? CompareOp::kNotContains : CompareOp::kContains;
    c->rhs.text = *std::move(literal);
    return;
  }
  c->regex = std::move(re);
}

// `x in (...)`: the listed strings and numbers as text, sorted and
// without duplicates, for a binary search per line.
void Planner::PlanInList(const ast::Expr& e, plan::Condition* c) {
  std::vector<std::string> values;
  for (const ast::Token& t : e.list) {
    double number;
    if (t.kind != ast::TokenKind::kString &&
        !(t.kind == ast::TokenKind::kBareword &&
          util::ParseNumber(t.text, &number))) {
      Error(t.span,
            absl::StrCat("'", t.text,
                         "' is not a value: the list of 'in' holds "
                         "\"strings\" and numbers"),
            absl::StrCat("write \"", t.text, "\" for the text"));
      return;
    }
    values.push_back(t.text);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  c->rhs.kind = plan::Operand::Kind::kString;
  c->in_values =
      std::make_shared<const std::vector<std::string>>(std::move(values));
}

// The value index `key` names: a select item by alias, then by how it is
// written, then a hidden value added earlier (by `having` or `order by`).
std::optional<uint32_t> Planner::FindValue(const std::string& key) const {
  for (size_t i = 0; i < p_.columns.size(); ++i) {
    if (p_.columns[i].name == key) return static_cast<uint32_t>(i);
  }
  for (size_t i = 0; i < p_.columns.size(); ++i) {
    if (p_.columns[i].storage == key) return static_cast<uint32_t>(i);
  }
  for (size_t i = 0; i < p_.hidden_columns.size(); ++i) {
    if (p_.hidden_columns[i].storage == key) {
      return static_cast<uint32_t>(p_.columns.size() + i);
    }
  }
  return std::nullopt;
}

// A group field that is not selected, as a hidden value read from the
// group key (no state).
std::optional<uint32_t> Planner::GroupFieldValue(const std::string& name) {
  for (FieldId id : p_.group_by) {
    if (p_.fields[id].name != name) continue;
    plan::Column c;
    c.name = c.storage = name;
    c.aggregate = FindAggregate(plan::AggregateInfo::Role::kPlainField);
    c.field = id;
    c.slot = plan::kKeyPartSlot;
    c.is_group_key = true;
    if (c.aggregate == nullptr) return std::nullopt;
    return AddHidden(std::move(c));
  }
  return std::nullopt;
}

// What `having` and `order by` may name, for a hint: the select items'
// names and the group fields.
std::string Planner::ValueNames() const {
  std::vector<std::string> names;
  for (const plan::Column& c : p_.columns) {
    if (std::find(names.begin(), names.end(), c.name) == names.end()) {
      names.push_back(c.name);
    }
  }
  for (FieldId id : p_.group_by) {
    const std::string& n = p_.fields[id].name;
    if (std::find(names.begin(), names.end(), n) == names.end()) {
      names.push_back(n);
    }
  }
  return absl::StrJoin(names, ", ");
}

// "did you mean 'x'? " for the select item or group field nearest `key`,
// or "" if none is near.
std::string Planner::DidYouMean(const std::string& key) const {
  std::vector<std::string_view> names;
  for (const plan::Column& c : p_.columns) names.push_back(c.name);
  for (FieldId id : p_.group_by) names.push_back(p_.fields[id].name);
  std::string_view close = ClosestMatch(key, names);
  if (close.empty()) return "";
  return absl::StrCat("did you mean '", util::ToAbsl(close), "'? ");
}

ast::Span Planner::CallSpan(const ast::Token& aggregation,
                            const ast::Token& field) {
  // Up to and including the ')' after the field (`count()`: the field is
  // empty, at the ')').
  return ast::Span{
      aggregation.span.offset,
      field.span.offset + field.span.length + 1 - aggregation.span.offset};
}

// An operand of `having`: a select item (by alias or as written), an
// aggregation of none (computed in a hidden slot), a literal, or a group
// field. A running total, or an aggregation that needs a second argument,
// is an error.
plan::Operand Planner::HavingOperand(
    const std::optional<ast::Token>& aggregation, const ast::Token& t,
    bool numeric) {
  plan::Operand o;
  o.kind = plan::Operand::Kind::kValue;
  if (aggregation) {
    const std::string key = AggregateStorage(*aggregation, t);
    if (std::optional<uint32_t> v = FindValue(key)) {
      o.value = *v;
      RefuseRunningTotal(o.value, CallSpan(*aggregation, t), "compared");
      return o;
    }
    plan::Column c;
    c.aggregate = LookupAggregate(*aggregation, &c.rank);
    if (c.aggregate == nullptr) return o;
    if (c.aggregate->running_total) {
      RunningTotalError(CallSpan(*aggregation, t), key, "compared");
      return o;
    }
    if (c.aggregate->max_count > 0 || c.aggregate->takes_width) {
      // An operand takes no second argument: topk(x) names no column.
      Error(CallSpan(*aggregation, t),
            absl::StrCat(aggregation->text, "() needs a second argument"),
            absl::StrCat("select it with one and compare its alias: select ",
                         aggregation->text, "(", t.text,
                         ", 10) as v ... having v ..."));
      return o;
    }
    c.name = c.storage = key;
    c.field = Intern(t.text);
    c.slot = Slot(c.aggregate, c.field);
    if (c.aggregate->per_bucket_second) {
      c.rank = PerBucketSecond(*aggregation);
    }
    o.value = AddHidden(std::move(c));
    return o;
  }
  if (t.kind == ast::TokenKind::kString) {
    if (numeric) return FloatOperand(t);  // Reports the error.
    o.kind = plan::Operand::Kind::kString;
    o.text = t.text;
    return o;
  }
  if (std::optional<uint32_t> v = FindValue(t.text)) {
    o.value = *v;
    RefuseRunningTotal(o.value, t.span, "compared");
    return o;
  }
  double number;
  if (t.kind == ast::TokenKind::kBareword &&
      util::ParseNumber(t.text, &number)) {
    if (numeric) return FloatOperand(t);
    o.kind = plan::Operand::Kind::kString;
    o.text = t.text;
    return o;
  }
  if (std::optional<uint32_t> v = GroupFieldValue(t.text)) {
    o.value = *v;
    return o;
  }
  Error(
      t.span,
      absl::StrCat("'", t.text, "' is not a select item, alias or group field"),
      absl::StrCat(DidYouMean(t.text),
                   "'having' compares select items, their aliases, group "
                   "fields, aggregations such as count($line), numbers "
                   "and \"strings\"; here: ",
                   ValueNames()));
  return o;
}

}  // namespace mapr::parser::planner_internal

namespace mapr::parser {

absl::StatusOr<plan::Plan> BuildPlan(const ast::Query& query,
                                     std::string_view text,
                                     const PlannerContext& context) {
  return planner_internal::Planner(query, text, context).Build();
}

}  // namespace mapr::parser
