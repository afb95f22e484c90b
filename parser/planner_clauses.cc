// The planner's later clauses (group by, order by, limit, interval,
// outfile), the execution order of set steps and where, and the
// warnings (planner_internal.h).
#include "parser/planner_internal.h"

namespace mapr::parser::planner_internal {

// The group fields as written, or DTail's default (the first select
// item's field); marks the plain select fields that are group fields,
// whose values come from the group key.
void Planner::PlanGroupBy() {
  for (const ast::Token& t : q_.group_by) {
    p_.group_by.push_back(Intern(t.text));
  }
  // DTail's default: the first select item's field (docs/query-language.md,
  // "group by").
  if (p_.group_by.empty() && !p_.columns.empty()) {
    p_.group_by.push_back(p_.columns[0].field);
  }
  for (plan::Column& c : p_.columns) {
    c.is_group_key =
        c.aggregate->role == plan::AggregateInfo::Role::kPlainField &&
        c.storage == p_.fields[c.field].name &&
        std::find(p_.group_by.begin(), p_.group_by.end(), c.field) !=
            p_.group_by.end();
  }
}

namespace {

// True if `c` (or a child) has an operand that is field `field`.
bool ConditionReads(const plan::Condition& c, FieldId field) {
  for (const plan::Operand* o : {&c.lhs, &c.rhs}) {
    if (o->kind == plan::Operand::Kind::kField && o->field == field) {
      return true;
    }
  }
  for (const plan::Condition& child : c.children) {
    if (ConditionReads(child, field)) return true;
  }
  return false;
}

}  // namespace

std::string Planner::OtherReader(FieldId field) const {
  if (p_.where && ConditionReads(*p_.where, field)) return "'where'";
  for (const plan::SetStep& step : p_.sets) {
    bool reads = false;
    step.ForEachSource([&](FieldId id) { reads |= id == field; });
    if (reads) {
      return absl::StrCat("the set step of ", p_.fields[step.target].name);
    }
  }
  for (const plan::Column& c : p_.columns) {
    if (c.field == field && !c.is_group_key) return c.storage;
  }
  for (const plan::Column& c : p_.hidden_columns) {
    if (c.field == field && c.slot != plan::kKeyPartSlot) return c.storage;
  }
  return "";
}

// window(t, 5m, 1m) bins each line into its hop, and every result joins
// the hops into the windows that cover them. That is only sound for a
// group field that nothing else reads: a where, an aggregate or another
// set step would see the hop, not the window.
void Planner::PlanWindow() {
  for (size_t i = 0; i < window_calls_.size(); ++i) {
    const WindowCall& w = window_calls_[i];
    constexpr std::string_view kOwnStep =
        "give the window a set step of its own: set $w = window($time, 5m, "
        "1m) ... group by $w";
    if (i > 0) {
      Error(w.call.span, "a query has at most one window()",
            "group by one window; other time fields can be buckets: "
            "bucket($time, 1h)");
      continue;
    }
    const FieldId field = Intern(w.target);
    const auto at = std::find(p_.group_by.begin(), p_.group_by.end(), field);
    if (at == p_.group_by.end()) {
      Error(w.call.span,
            absl::StrCat(w.target,
                         " holds window() but is not a 'group by' field"),
            absl::StrCat("windows overlap, so a line counts in several of "
                         "them: group by ",
                         w.target));
      continue;
    }
    size_t assignments = 0;
    for (const plan::SetStep& step : p_.sets) {
      assignments += step.target == field ? 1 : 0;
    }
    if (assignments > 1) {
      Error(w.call.span,
            absl::StrCat(w.target, " is assigned by window() and again"),
            std::string(kOwnStep));
      continue;
    }
    if (const std::string reader = OtherReader(field); !reader.empty()) {
      Error(w.call.span,
            absl::StrCat(w.target, " holds window(), which only 'group by' ",
                         "may read, and ", reader, " reads it"),
            "read the time itself, or bucket($time, 1m) for a line's hop");
      continue;
    }
    const plan::FunctionStep* call = plan::LastCall(p_, field);
    if (call == nullptr || call->binding == nullptr) continue;  // An error.
    p_.window = plan::Plan::Window{
        static_cast<uint32_t>(at - p_.group_by.begin()),
        call->binding->BucketSeconds(), call->binding->HopSeconds()};
  }
}

void Planner::PlanOrder() {
  if (!q_.order) return;
  const ast::OrderClause& o = *q_.order;
  for (const ast::OrderKey& k : o.keys) {
    std::string key =
        k.aggregation ? AggregateStorage(*k.aggregation, k.inner_aggregation,
                                         k.field, k.parameter)
                      : k.field.text;
    std::optional<uint32_t> found;
    for (size_t i = 0; i < p_.columns.size() && !found; ++i) {
      if (p_.columns[i].name == key) found = static_cast<uint32_t>(i);
    }
    for (size_t i = 0; i < p_.columns.size() && !found; ++i) {
      if (p_.columns[i].storage == key) found = static_cast<uint32_t>(i);
    }
    for (size_t i = 0; i < p_.hidden_columns.size() && !found; ++i) {
      if (p_.hidden_columns[i].slot == plan::kKeyPartSlot &&
          p_.hidden_columns[i].storage == key) {
        found = static_cast<uint32_t>(p_.columns.size() + i);
      }
    }
    if (!found && !k.aggregation) found = GroupFieldValue(key);
    if (!found) {
      Error(k.span,
            absl::StrCat("'", key, "' is not a select item or group field"),
            absl::StrCat(DidYouMean(key), "order by '", key,
                         "' must name a select item, an alias or a group "
                         "field: ",
                         ValueNames()));
      continue;
    }
    if (RefuseRunningTotal(*found, k.span, "an order key")) continue;
    plan::Plan::OrderKey ok{*found, !o.reverse};
    if (k.direction) {
      bool desc = k.direction->text == "desc";
      if (o.reverse && desc) {
        Error(k.direction->span, "'desc' contradicts 'rorder'",
              "'rorder' sorts ascending; write 'order by ... desc', or "
              "drop 'desc'");
      }
      ok.descending = desc;
    }
    p_.order_by.push_back(ok);
  }
}

// A non-negative decimal integer with no sign, or nullopt.
std::optional<int64_t> Planner::ParseCount(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 0 || s[0] == '-' ||
      s[0] == '+') {
    return std::nullopt;
  }
  return v;
}

// `limit N`: N >= 0 (0 keeps only the header).
void Planner::PlanLimit() {
  if (!q_.limit) return;
  std::optional<int64_t> v = ParseCount(q_.limit->text);
  if (!v) {
    Error(q_.limit->span,
          absl::StrCat("'limit' needs a non-negative integer, found '",
                       q_.limit->text, "'"),
          "limit 0 prints only the header; leave out 'limit' for every row");
    return;
  }
  p_.limit = *v;
}

// `interval N` in seconds, or with a unit (500ms, 30s, 2m, 1h), at most a
// year, in milliseconds.
void Planner::PlanInterval() {
  if (!q_.interval) return;
  std::string_view s = q_.interval->text;
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  std::string_view unit = s.substr(digits);
  std::optional<int64_t> n = ParseCount(s.substr(0, digits));
  int64_t scale = 0;
  if (unit.empty() || unit == "s") scale = 1000;
  if (unit == "ms") scale = 1;
  if (unit == "m") scale = 60 * 1000;
  if (unit == "h") scale = 3600 * 1000;
  constexpr int64_t kMaxMs = int64_t{366} * 24 * 3600 * 1000;
  if (!n || scale == 0 || *n > kMaxMs / scale) {
    Error(q_.interval->span,
          absl::StrCat("invalid interval '", q_.interval->text, "'"),
          "give seconds (interval 5) or a duration with a unit: 500ms, "
          "30s, 2m, 1h (at most a year)");
    return;
  }
  p_.interval_ms = *n * scale;
  p_.interval_given = true;
}

// `outfile [append] PATH`: the path as written (never empty).
void Planner::PlanOutfile() {
  if (!q_.outfile) return;
  if (q_.outfile->path.text.empty()) {
    Error(q_.outfile->path.span, "empty outfile path");
    return;
  }
  p_.outfile = q_.outfile->path.text;
  p_.outfile_append = q_.outfile->append;
}

// True if the log format fills `name` (or it is a common variable such as
// $line), so a `set` of it does not make it a variable of its own.
bool Planner::FormatKnows(const std::string& name) const {
  if (plan::LookupCommonVariable(name) != plan::CommonVariable::kNone) {
    return true;
  }
  if (!format_variables_) return false;
  return std::find(format_variables_->begin(), format_variables_->end(),
                   name) != format_variables_->end();
}

// Appends the fields the comparisons of `c` read.
void Planner::CollectConditionFields(const plan::Condition& c,
                                     std::vector<FieldId>* out) const {
  if (c.kind == plan::Condition::Kind::kCompare) {
    if (c.lhs.kind == plan::Operand::Kind::kField) out->push_back(c.lhs.field);
    if (c.rhs.kind == plan::Operand::Kind::kField) out->push_back(c.rhs.field);
    return;
  }
  for (const plan::Condition& child : c.children) {
    CollectConditionFields(child, out);
  }
}

// Makes the comparisons of `c` read shadow[f] instead of each field f
// that has one.
void Planner::RemapCondition(plan::Condition& c,
                             const std::vector<FieldId>& shadow) {
  auto remap = [&](plan::Operand& o) {
    if (o.kind == plan::Operand::Kind::kField && shadow[o.field] != kNoField) {
      o.field = shadow[o.field];
    }
  };
  remap(c.lhs);
  remap(c.rhs);
  for (plan::Condition& child : c.children) RemapCondition(child, shadow);
}

void Planner::PlanExecutionOrder() {
  std::vector<FieldId> where_fields;
  if (p_.where) CollectConditionFields(*p_.where, &where_fields);

  // Backward liveness from the $variables `where` reads that only `set`
  // produces: a step is needed if it assigns a live variable.
  absl::flat_hash_set<FieldId> live;
  for (FieldId id : where_fields) {
    if (p_.fields[id].assigned && !FormatKnows(p_.fields[id].name)) {
      live.insert(id);
    }
  }
  std::vector<bool> needed(p_.sets.size(), false);
  for (size_t i = p_.sets.size(); i-- > 0;) {
    const plan::SetStep& step = p_.sets[i];
    if (!live.contains(step.target)) continue;
    needed[i] = true;
    live.erase(step.target);
    step.ForEachSource([&](FieldId id) { live.insert(id); });
  }
  // The needed steps, renamed onto private copies of their targets.
  std::vector<FieldId> shadow(p_.fields.size(), kNoField);
  for (size_t i = 0; i < p_.sets.size(); ++i) {
    if (!needed[i]) continue;
    plan::SetStep step = p_.sets[i];
    step.ForEachSource([&](FieldId& id) {
      if (shadow[id] != kNoField) id = shadow[id];
    });
    if (shadow[step.target] == kNoField) {
      plan::Field copy;
      copy.name = p_.fields[step.target].name;
      copy.before_where = true;
      shadow[step.target] = static_cast<FieldId>(p_.fields.size());
      p_.fields.push_back(std::move(copy));
      shadow.push_back(kNoField);
    }
    step.target = shadow[step.target];
    p_.sets_before_where.push_back(std::move(step));
    // The copy reads every parsed line: it counts unreadable values.
    p_.sets[i].count_unparsed = false;
  }
  // The steps of `where`'s expression operands have done their work there.
  std::erase_if(p_.sets, [&](const plan::SetStep& s) {
    return where_only_.contains(s.target);
  });
  if (p_.where && !p_.sets_before_where.empty()) {
    RemapCondition(*p_.where, shadow);
    where_fields.clear();
    CollectConditionFields(*p_.where, &where_fields);
  }

  // Simulate the per-line order: a field is extracted if it is read
  // before any set writes it.
  std::vector<bool> written(p_.fields.size(), false);
  auto read = [&](FieldId id) {
    plan::Field& f = p_.fields[id];
    if (!written[id] && f.common == plan::CommonVariable::kNone &&
        !f.before_where) {
      f.extracted = true;
    }
  };
  auto run_sets = [&](const std::vector<plan::SetStep>& steps) {
    for (const plan::SetStep& s : steps) {
      s.ForEachSource([&](FieldId id) { read(id); });
      written[s.target] = true;
    }
  };
  run_sets(p_.sets_before_where);
  for (FieldId id : where_fields) read(id);
  run_sets(p_.sets);
  for (FieldId id : p_.group_by) read(id);
  for (const plan::Column& c : p_.columns) read(c.field);
  for (const plan::Column& c : p_.hidden_columns) read(c.field);
  for (FieldId id = 0; id < p_.fields.size(); ++id) {
    if (p_.fields[id].extracted) p_.extracted_fields.push_back(id);
  }
}

// Warnings that do not stop the query: a $variable that no `set` assigns
// and the log format does not fill, with the nearest name, under its
// first use.
void Planner::PlanWarnings() {
  if (!format_variables_) return;
  absl::flat_hash_set<std::string> assigned;
  for (const plan::SetStep& s : p_.sets) {
    assigned.insert(p_.fields[s.target].name);
  }
  std::set<std::string> unknown;
  auto check = [&](const std::string& name) {
    if (name.size() < 2 || name[0] != '$' || assigned.contains(name) ||
        FormatKnows(name)) {
      return;
    }
    unknown.insert(name);
  };
  for (const plan::Column& c : p_.columns) check(p_.fields[c.field].name);
  for (const plan::Column& c : p_.hidden_columns) {
    check(p_.fields[c.field].name);
  }
  for (FieldId id : p_.group_by) check(p_.fields[id].name);
  std::vector<FieldId> where_fields;
  if (p_.where) CollectConditionFields(*p_.where, &where_fields);
  for (FieldId id : where_fields) check(p_.fields[id].name);
  for (const std::vector<plan::SetStep>* steps :
       {&p_.sets, &p_.sets_before_where}) {
    for (const plan::SetStep& s : *steps) {
      s.ForEachSource([&](FieldId id) { check(p_.fields[id].name); });
    }
  }
  // A known variable close to the name ($lines: $line) is the likelier
  // fix; else a field of the line without the '$'.
  std::vector<std::string_view> known = plan::CommonVariableNames();
  for (const std::string& v : *format_variables_) {
    if (v.starts_with('$')) known.push_back(v);
  }
  for (const std::string& name : unknown) {
    const std::string_view close = ClosestMatch(name, known);
    p_.warnings.push_back(plan::Warning{
        absl::StrCat(name, " is not a known variable for log format \"",
                     p_.log_format, "\"; did you mean ",
                     close.empty() ? absl::StrCat("bareword ", name.substr(1))
                                   : std::string(close),
                     "?"),
        FirstSpanOf(name)});
  }
}

// Where `name` is first written (select, group by, where, having, set),
// for a warning's caret; an empty span if nowhere.
ast::Span Planner::FirstSpanOf(const std::string& name) const {
  for (const ast::SelectItem& i : q_.select) {
    if (i.field.text == name) return i.field.span;
  }
  for (const ast::Token& t : q_.group_by) {
    if (t.text == name) return t.span;
  }
  if (q_.where) {
    if (std::optional<ast::Span> span = FindInExpr(*q_.where, name)) {
      return *span;
    }
  }
  if (q_.having) {
    if (std::optional<ast::Span> span = FindInExpr(*q_.having, name)) {
      return *span;
    }
  }
  for (const ast::Assignment& a : q_.set) {
    if (a.operand.text == name) return a.operand.span;
    if (a.expr) {
      if (std::optional<ast::Span> span = FindInSetExpr(*a.expr, name)) {
        return *span;
      }
    }
  }
  return ast::Span{};
}

// The first operand of `e` that is the field `name` (not a string).
std::optional<ast::Span> Planner::FindInSetExpr(const ast::SetExpr& e,
                                                const std::string& name) {
  if (e.kind == ast::SetExpr::Kind::kOperand) {
    if (e.token.kind != ast::TokenKind::kString && e.token.text == name) {
      return e.token.span;
    }
    return std::nullopt;
  }
  for (const ast::SetExpr& a : e.args) {
    if (std::optional<ast::Span> span = FindInSetExpr(a, name)) return span;
  }
  return std::nullopt;
}

// The first place a condition reads the field `name`.
std::optional<ast::Span> Planner::FindInExpr(const ast::Expr& e,
                                             const std::string& name) {
  if (e.kind == ast::ExprKind::kCompare) {
    for (const auto* side : {&e.lhs_expr, &e.rhs_expr}) {
      if (*side) {
        if (std::optional<ast::Span> span = FindInSetExpr(**side, name)) {
          return span;
        }
      }
    }
    if (e.lhs.kind != ast::TokenKind::kString && e.lhs.text == name) {
      return e.lhs.span;
    }
    if (e.rhs.kind != ast::TokenKind::kString && e.rhs.text == name) {
      return e.rhs.span;
    }
    return std::nullopt;
  }
  for (const ast::Expr& c : e.children) {
    if (std::optional<ast::Span> span = FindInExpr(c, name)) return span;
  }
  return std::nullopt;
}

}  // namespace mapr::parser::planner_internal
