// The planner's `select` clause: aggregations (names, quantile ranks,
// rates, running totals, second arguments) and the state slots they share
// (planner_internal.h).
#include "parser/planner_internal.h"

namespace mapr::parser::planner_internal {

// Reads `p99`, `p99.9`, `p0` as the rank N/100 (up to nine decimals,
// reduced): kValid with `*rank`, kOutOfRange (and an error) past p100, or
// kNot for a name that is no quantile (`p`, `px`, `percentile`).
Planner::QuantileForm Planner::QuantileName(const ast::Token& name,
                                            plan::Rank* rank) {
  const std::string_view t = name.text;
  if (t.size() < 2 || t[0] != 'p') return QuantileForm::kNot;
  uint64_t num = 0, den = 100;
  size_t i = 1, int_digits = 0, frac_digits = 0;
  bool dot = false;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.' && !dot && int_digits > 0) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') return QuantileForm::kNot;
    if (dot ? ++frac_digits > 9 : ++int_digits > 9) {
      return QuantileForm::kNot;
    }
    num = num * 10 + static_cast<uint64_t>(c - '0');
    if (dot) den *= 10;
  }
  if (dot && frac_digits == 0) return QuantileForm::kNot;
  if (num > den) {
    Error(name.span,
          absl::StrCat("'", name.text, "': a percentile is from p0 to p100"),
          "write p99, p99.9 or median");
    return QuantileForm::kOutOfRange;
  }
  const uint64_t g = std::gcd(num, den);
  *rank = {num / g, den / g};
  return QuantileForm::kValid;
}

// The aggregate `name` calls (with the rank of a quantile in `*rank`), or
// null after an error whose hint is the nearest name, the p95 spelling of
// `percentile95`, or the whole catalog.
const plan::AggregateInfo* Planner::LookupAggregate(const ast::Token& name,
                                                    plan::Rank* rank) {
  using Role = plan::AggregateInfo::Role;
  const plan::AggregateInfo* named = FindAggregate(name.text);
  if (rank != nullptr) {
    if (named != nullptr && named->role == Role::kFixedRank) {
      *rank = {named->rank_num, named->rank_den};
    } else if (named == nullptr) {
      switch (QuantileName(name, rank)) {
        case QuantileForm::kValid:
          return FindAggregate(Role::kRankInName);
        case QuantileForm::kOutOfRange:
          return nullptr;
        case QuantileForm::kNot:
          break;
      }
    }
  }
  if (named != nullptr && named->role == Role::kRankInName) {
    Error(name.span, absl::StrCat("unknown aggregation '", name.text, "'"),
          absl::StrCat(name.text,
                       " stands for p0 to p100: write p99, p99.9 or median"));
    return nullptr;
  }
  if (named != nullptr) return named;
  // percentile95 (a quantile in other tools; DTail's percentile is a rank
  // of sums) means p95.
  if (name.text.size() > 10 && name.text.starts_with("percentile") &&
      name.text.find_first_not_of("0123456789.", 10) ==
          std::string_view::npos) {
    Error(name.span, absl::StrCat("unknown aggregation '", name.text, "'"),
          absl::StrCat("write p", name.text.substr(10),
                       " for that percentile of the values (percentile() "
                       "is DTail's rank of a group's sum)"));
    return nullptr;
  }
  std::vector<std::string_view> names;
  for (const plan::AggregateInfo* a : context_.aggregates) {
    names.push_back(a->name);
  }
  std::string_view close = ClosestMatch(name.text, names);
  std::string hint;
  if (!close.empty()) {
    hint = absl::StrCat("did you mean '", util::ToAbsl(close), "'?");
    if (absl::EqualsIgnoreCase(util::ToAbsl(close), util::ToAbsl(name.text))) {
      absl::StrAppend(&hint, " aggregation names are case-sensitive");
    }
  } else {
    std::vector<absl::string_view> all;
    all.reserve(names.size());
    for (std::string_view n : names) all.push_back(util::ToAbsl(n));
    hint = absl::StrCat("known aggregations: ", absl::StrJoin(all, ", "));
  }
  Error(name.span, absl::StrCat("unknown aggregation '", name.text, "'"),
        std::move(hint));
  return nullptr;
}

// rate()'s rank: 1 / the width in seconds of the first group field that is
// a time bucket; an error under the call if there is none.
plan::Rank Planner::PerBucketSecond(const ast::Token& aggregation) {
  for (FieldId g : p_.group_by) {
    const plan::FunctionStep* f = plan::LastCall(p_, g);
    if (f != nullptr && f->binding != nullptr &&
        f->binding->BucketSeconds() > 0) {
      return {1, static_cast<uint64_t>(f->binding->BucketSeconds())};
    }
  }
  Error(aggregation.span,
        absl::StrCat(aggregation.text,
                     "() is a value per second of a time bucket, and no "
                     "'group by' field is one"),
        "group by a bucket: set $minute = bucket($time, 1m) ... group by "
        "$minute");
  return {};
}

// The ranks of the rate() columns, once the group fields are known.
void Planner::PlanRates() {
  for (const auto& [column, aggregation] : pending_rates_) {
    p_.columns[column].rank = PerBucketSecond(aggregation);
  }
}

// Items that keep the same state of the same field share one slot
// (sum(x), percentage(x) and cumsum(x) all keep x's sum), so the
// engine updates it once per row.
uint32_t Planner::Slot(const plan::AggregateInfo* aggregate, FieldId field,
                       std::string parameter) {
  plan::StateSlot slot{aggregate, field, std::move(parameter)};
  for (size_t i = 0; i < p_.slots.size(); ++i) {
    if (p_.slots[i] == slot) return static_cast<uint32_t>(i);
  }
  p_.slots.push_back(slot);
  return static_cast<uint32_t>(p_.slots.size() - 1);
}

// One column per select item, in order; the columns are the result's.
void Planner::PlanSelect() {
  for (const ast::SelectItem& item : q_.select) {
    plan::Column c;
    std::string slot_parameter;
    // A plain field renders the group's last value, as in DTail.
    c.aggregate = FindAggregate(plan::AggregateInfo::Role::kPlainField);
    if (item.aggregation) {
      if (RefusePercentileRank(item)) continue;
      c.aggregate = LookupAggregate(*item.aggregation, &c.rank);
      if (c.aggregate == nullptr) continue;
      c.storage = AggregateStorage(*item.aggregation, item.field);
      if (c.aggregate->running_total) c.running_total = c.aggregate;
      if (item.inner_aggregation && !PlanInnerAggregate(item, &c)) continue;
      if (!PlanArgument(item, &c, &slot_parameter)) continue;
    } else {
      c.storage = item.field.text;
    }
    if (item.field.kind == ast::TokenKind::kString) {
      Error(item.field.span, "a select item cannot be a string literal",
            absl::StrCat("to select a field with an unusual name, use "
                         "backticks: `",
                         item.field.text, "`"));
      continue;
    }
    c.field = Intern(item.field.text);
    if (c.aggregate == nullptr) {
      Error(item.field.span, "this planner context has no 'last' aggregate",
            "plan with runtime::RegistryPlannerContext()");
      continue;
    }
    c.slot = Slot(c.aggregate, c.field, std::move(slot_parameter));
    c.name = item.alias ? item.alias->text : c.storage;
    if (c.aggregate->per_bucket_second) {
      // Its rank waits for the group fields (PlanRates).
      pending_rates_.push_back({p_.columns.size(), item.inner_aggregation
                                                       ? *item.inner_aggregation
                                                       : *item.aggregation});
    }
    p_.columns.push_back(std::move(c));
  }
}

// cumsum(agg(x)): the column keeps agg's state and rank and adds up its
// values; only a running total takes an aggregation, and it cannot add
// text or another running total.
bool Planner::PlanInnerAggregate(const ast::SelectItem& item, plan::Column* c) {
  const ast::Token& outer = *item.aggregation;
  const ast::Token& inner = *item.inner_aggregation;
  if (!c->aggregate->running_total) {
    Error(inner.span,
          absl::StrCat(outer.text, "() takes a field, not an aggregation"),
          absl::StrCat("write ", outer.text, "(field); a running total of ",
                       "an aggregation is cumsum(", inner.text, "(...))"));
    return false;
  }
  plan::Rank rank;
  const plan::AggregateInfo* a = LookupAggregate(inner, &rank);
  if (a == nullptr) return false;
  if (a->running_total || a->result == ValueType::kText) {
    Error(inner.span,
          absl::StrCat(outer.text, "() cannot add up ", inner.text, "()"),
          a->running_total
              ? absl::StrCat(inner.text, "() is a running total already")
              : absl::StrCat(inner.text, "() gives text; ", outer.text,
                             "() adds numbers"));
    return false;
  }
  c->aggregate = a;
  c->rank = rank;
  c->storage = AggregateStorage(outer, inner, item.field);
  return true;
}

// percentile(x, 95), in any case, means p95(x) in other tools; DTail's
// percentile() ranks a group's sum and takes one field.
bool Planner::RefusePercentileRank(const ast::SelectItem& item) {
  if (!item.parameter ||
      !absl::EqualsIgnoreCase(item.aggregation->text, "percentile")) {
    return false;
  }
  const std::string& rank = item.parameter->text;
  Error(item.parameter->span,
        absl::StrCat(item.aggregation->text, "() takes one argument"),
        rank.find_first_not_of("0123456789.") == std::string::npos
            ? absl::StrCat("write p", rank, "(", item.field.text,
                           ") for that percentile of the values (DTail's "
                           "percentile() takes one field: a group's sum "
                           "ranked)")
            : absl::StrCat("write percentile(", item.field.text, ")"));
  return true;
}

// topk(x, 10): the count an aggregation takes (AggregateInfo::max_count)
// becomes the column's rank; histogram(x, 0.5): the width becomes its
// slot's parameter; any other aggregation takes none.
bool Planner::PlanArgument(const ast::SelectItem& item, plan::Column* c,
                           std::string* slot_parameter) {
  const ast::Token& name = *item.aggregation;
  const uint32_t max = c->aggregate->max_count;
  if (c->aggregate->takes_width) {
    if (!item.parameter) {
      Error(name.span, absl::StrCat(name.text, "() needs a bin width"),
            absl::StrCat("write ", name.text, "(", item.field.text, ", 10)"));
      return false;
    }
    double w;
    if (!util::ParseNumber(item.parameter->text, &w) || !std::isfinite(w) ||
        w <= 0) {
      Error(item.parameter->span,
            absl::StrCat("'", item.parameter->text,
                         "' is not a positive bin width"),
            absl::StrCat(name.text, "(", item.field.text,
                         ", w) counts the values in bins of width w"));
      return false;
    }
    *slot_parameter = item.parameter->text;
    c->storage =
        AggregateStorage(name, std::nullopt, item.field, item.parameter);
    return true;
  }
  if (!item.parameter) {
    if (max == 0) return true;
    Error(name.span,
          absl::StrCat(name.text, "() needs how many values to show"),
          absl::StrCat("write ", name.text, "(", item.field.text, ", 10)"));
    return false;
  }
  const ast::Token& arg = *item.parameter;
  if (max == 0) {
    Error(arg.span, absl::StrCat(name.text, "() takes one argument"),
          absl::StrCat("write ", name.text, "(", item.field.text, ")"));
    return false;
  }
  uint32_t k = 0;
  if (!absl::SimpleAtoi(arg.text, &k) || k < 1 || k > max ||
      arg.text.find_first_not_of("0123456789") != std::string::npos) {
    Error(arg.span,
          absl::StrCat("'", arg.text, "' is not a count from 1 to ", max),
          absl::StrCat(name.text, "(", item.field.text,
                       ", k) shows the k most frequent values"));
    return false;
  }
  c->rank = {k, 1};
  c->storage = AggregateStorage(name, std::nullopt, item.field, arg);
  return true;
}

void Planner::RunningTotalError(const ast::Span& span, std::string_view storage,
                                std::string_view what) {
  Error(span,
        absl::StrCat("the running total '", util::ToAbsl(storage),
                     "' cannot be ", util::ToAbsl(what)),
        "a running total depends on the rows before it; use the aggregation "
        "it adds up");
}

bool Planner::RefuseRunningTotal(uint32_t value, const ast::Span& span,
                                 std::string_view what) {
  const plan::Column& c = plan::ValueColumn(p_, value);
  if (c.running_total == nullptr) return false;
  RunningTotalError(span, c.storage, what);
  return true;
}

}  // namespace mapr::parser::planner_internal
