#include "parser/planner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "parser/regex.h"
#include "parser/source_span.h"
#include "re2/re2.h"
#include "util/number.h"
#include "util/strings.h"

namespace mapr::parser {
namespace {

using plan::CompareOp;
using plan::FieldId;

constexpr FieldId kNoField = UINT32_MAX;

struct OpName {
  std::string_view name;
  CompareOp op;
};

constexpr OpName kOps[] = {
    {"==", CompareOp::kFloatEq},
    {"!=", CompareOp::kFloatNe},
    {"<", CompareOp::kFloatLt},
    {"<=", CompareOp::kFloatLe},
    {"=<", CompareOp::kFloatLe},
    {">", CompareOp::kFloatGt},
    {">=", CompareOp::kFloatGe},
    {"=>", CompareOp::kFloatGe},
    {"eq", CompareOp::kStrEq},
    {"ne", CompareOp::kStrNe},
    {"contains", CompareOp::kContains},
    {"ncontains", CompareOp::kNotContains},
    {"lacks", CompareOp::kNotContains},
    {"hasprefix", CompareOp::kHasPrefix},
    {"nhasprefix", CompareOp::kNotHasPrefix},
    {"hassuffix", CompareOp::kHasSuffix},
    {"nhassuffix", CompareOp::kNotHasSuffix},
    {"=~", CompareOp::kRegexMatch},
    {"!~", CompareOp::kRegexNotMatch},
};

constexpr std::string_view kRegexSyntaxHint =
    "patterns are RE2 syntax: https://github.com/google/re2/wiki/Syntax";

std::string AggregateStorage(const ast::Token& agg, const ast::Token& field) {
  return absl::StrCat(agg.text, "(", field.text, ")");
}

class Planner {
 public:
  Planner(const ast::Query& query, std::string_view text,
          const PlannerContext& context)
      : q_(query), text_(text), context_(context) {}

  absl::StatusOr<plan::Plan> Build() {
    p_.text = std::string(text_);
    p_.canonical = ast::Unparse(q_);
    p_.state_options = context_.state_options;
    PlanFormat();
    PlanTable();
    PlanSelect();
    PlanWhere();
    PlanSet();
    PlanGroupBy();
    PlanHaving();
    PlanOrder();
    PlanLimit();
    PlanInterval();
    PlanOutfile();
    if (!errors_.empty()) return QueryErrorsStatus(text_, errors_);
    PlanExecutionOrder();
    PlanWarnings();
    return std::move(p_);
  }

 private:
  void Error(ast::Span span, std::string message, std::string hint = "") {
    errors_.push_back(QueryError{span, std::move(message), std::move(hint)});
  }

  FieldId Intern(const std::string& name) {
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

  void PlanFormat() {
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
        Error(arg->span, absl::StrCat("log format '", p_.log_format,
                                      "' takes no argument"));
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

  void PlanTable() {
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
  QuantileForm QuantileName(const ast::Token& name, plan::Rank* rank) {
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

  const plan::AggregateInfo* LookupAggregate(const ast::Token& name,
                                             plan::Rank* rank = nullptr) {
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
      if (absl::EqualsIgnoreCase(util::ToAbsl(close),
                                 util::ToAbsl(name.text))) {
        absl::StrAppend(&hint, " aggregation names are case-sensitive");
      }
    } else {
      std::vector<absl::string_view> all;
      for (std::string_view n : names) all.push_back(util::ToAbsl(n));
      hint = absl::StrCat("known aggregations: ", absl::StrJoin(all, ", "));
    }
    Error(name.span, absl::StrCat("unknown aggregation '", name.text, "'"),
          std::move(hint));
    return nullptr;
  }

  uint32_t Slot(const plan::AggregateInfo* aggregate, FieldId field) {
    plan::StateSlot slot{aggregate, field};
    for (size_t i = 0; i < p_.slots.size(); ++i) {
      if (p_.slots[i] == slot) return static_cast<uint32_t>(i);
    }
    p_.slots.push_back(slot);
    return static_cast<uint32_t>(p_.slots.size() - 1);
  }

  void PlanSelect() {
    for (const ast::SelectItem& item : q_.select) {
      plan::Column c;
      // A plain field renders the group's last value, as in DTail.
      c.aggregate = FindAggregate(plan::AggregateInfo::Role::kPlainField);
      if (item.aggregation) {
        c.aggregate = LookupAggregate(*item.aggregation, &c.rank);
        if (c.aggregate == nullptr) continue;
        c.storage = AggregateStorage(*item.aggregation, item.field);
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
      c.slot = Slot(c.aggregate, c.field);
      c.name = item.alias ? item.alias->text : c.storage;
      p_.columns.push_back(std::move(c));
    }
  }

  plan::Operand FloatOperand(const ast::Token& t) {
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

  plan::Operand StringOperand(const ast::Token& t) {
    plan::Operand o;
    double v;
    if (t.kind == ast::TokenKind::kString ||
        (t.kind == ast::TokenKind::kBareword &&
         util::ParseNumber(t.text, &v))) {
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

  // `where` (having = false) or `having`.
  plan::Condition PlanCondition(const ast::Expr& e, bool having) {
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
        const OpName* op = nullptr;
        for (const OpName& o : kOps) {
          if (o.name == e.op.text) op = &o;
        }
        if (op == nullptr) {  // The grammar only admits known operators.
          Error(e.op.span, absl::StrCat("unknown operator '", e.op.text, "'"));
          return c;
        }
        c.op = op->op;
        const bool numeric = plan::IsFloatOp(c.op);
        auto operand = [&](const std::optional<ast::Token>& aggregation,
                           const ast::Token& t) {
          if (having) return HavingOperand(aggregation, t, numeric);
          if (aggregation) {
            Error(CallSpan(*aggregation, t),
                  "an aggregation cannot be a 'where' operand: 'where' "
                  "filters lines before they are aggregated",
                  absl::StrCat("to filter groups, use 'having': having ",
                               AggregateStorage(*aggregation, t), " ",
                               e.op.text, " ..."));
            return plan::Operand{};
          }
          return numeric ? FloatOperand(t) : StringOperand(t);
        };
        if (c.op == CompareOp::kRegexMatch ||
            c.op == CompareOp::kRegexNotMatch) {
          plan::Operand lhs = operand(e.lhs_aggregation, e.lhs);
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
        c.lhs = operand(e.lhs_aggregation, e.lhs);
        c.rhs = operand(e.rhs_aggregation, e.rhs);
        return c;
      }
    }
    for (const ast::Expr& child : e.children) {
      c.children.push_back(PlanCondition(child, having));
    }
    return c;
  }

  // Compiles `pattern` (a string token) for `what`, or records the error
  // under it and returns null.
  std::shared_ptr<const re2::RE2> Pattern(const ast::Token& pattern,
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

  // `f =~ 're'` and `f !~ 're'`. A pattern that is a plain text becomes
  // (n)contains, the faster substring search with the same answers.
  void PlanRegexCompare(const ast::Expr& e, plan::Operand lhs,
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

  void PlanWhere() {
    if (q_.where) p_.where = PlanCondition(*q_.where, /*having=*/false);
  }

  // ---- having and order by: values of the merged groups -------------------

  uint32_t AddHidden(plan::Column c) {
    p_.hidden_columns.push_back(std::move(c));
    return static_cast<uint32_t>(p_.columns.size() + p_.hidden_columns.size() -
                                 1);
  }

  // The value index of the select item named `key` (alias first, then the
  // DTail storage text), or of a hidden value with that storage.
  std::optional<uint32_t> FindValue(const std::string& key) const {
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

  // The value index of group field `name` (a hidden column reading the key
  // part, with no state), or nullopt if `name` is not a group field.
  std::optional<uint32_t> GroupFieldValue(const std::string& name) {
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

  // The names `having` and `order by` may use, for hints.
  std::string ValueNames() const {
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

  // "did you mean 'x'? " for `key` among the select items and group fields.
  std::string DidYouMean(const std::string& key) const {
    std::vector<std::string_view> names;
    for (const plan::Column& c : p_.columns) names.push_back(c.name);
    for (FieldId id : p_.group_by) names.push_back(p_.fields[id].name);
    std::string_view close = ClosestMatch(key, names);
    if (close.empty()) return "";
    return absl::StrCat("did you mean '", util::ToAbsl(close), "'? ");
  }

  static ast::Span CallSpan(const ast::Token& aggregation,
                            const ast::Token& field) {
    // Up to and including the ')' after the field (`count()`: the field is
    // empty, at the ')').
    return ast::Span{
        aggregation.span.offset,
        field.span.offset + field.span.length + 1 - aggregation.span.offset};
  }

  // An operand of `having`: a select item, an alias, a group field, an
  // aggregation that is not selected (computed in a hidden slot), or a
  // literal. `numeric`: under a numeric operator.
  plan::Operand HavingOperand(const std::optional<ast::Token>& aggregation,
                              const ast::Token& t, bool numeric) {
    plan::Operand o;
    o.kind = plan::Operand::Kind::kValue;
    if (aggregation) {
      const std::string key = AggregateStorage(*aggregation, t);
      if (std::optional<uint32_t> v = FindValue(key)) {
        o.value = *v;
        return o;
      }
      plan::Column c;
      c.aggregate = LookupAggregate(*aggregation, &c.rank);
      if (c.aggregate == nullptr) return o;
      c.name = c.storage = key;
      c.field = Intern(t.text);
      c.slot = Slot(c.aggregate, c.field);
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
    Error(t.span,
          absl::StrCat("'", t.text,
                       "' is not a select item, alias or group field"),
          absl::StrCat(DidYouMean(t.text),
                       "'having' compares select items, their aliases, group "
                       "fields, aggregations such as count($line), numbers "
                       "and \"strings\"; here: ",
                       ValueNames()));
    return o;
  }

  void PlanHaving() {
    if (q_.having) p_.having = PlanCondition(*q_.having, /*having=*/true);
  }

  // The function `name` called with the literal arguments `args` after its
  // value; false (after reporting why) if it cannot be.
  bool MakeFunctionStep(const ast::Token& name,
                        const std::vector<ast::Token>& args,
                        plan::FunctionStep* fs) {
    static const std::vector<std::string_view> kNames = [] {
      std::vector<std::string_view> names;
      for (const plan::FunctionInfo& f : plan::Functions()) {
        names.push_back(f.name);
      }
      return names;
    }();
    std::optional<plan::FunctionKind> f = plan::LookupFunction(name.text);
    if (!f) {
      std::string_view close = ClosestMatch(name.text, kNames);
      Error(name.span, absl::StrCat("unknown function '", name.text, "'"),
            close.empty()
                ? absl::StrCat(
                      "known functions: ",
                      absl::StrJoin(kNames, ", ",
                                    [](std::string* out, std::string_view n) {
                                      out->append(n);
                                    }))
                : absl::StrCat("did you mean '", util::ToAbsl(close), "'?"));
      return false;
    }
    const plan::FunctionInfo& info = plan::GetFunctionInfo(*f);
    const size_t max_args = info.extra_args + info.optional_args;
    if (*f == plan::FunctionKind::kCoalesce || args.size() < info.extra_args ||
        args.size() > max_args) {
      ast::Span span = name.span;
      if (args.size() > max_args) span = args[max_args].span;
      std::string takes = absl::StrCat(info.extra_args + 1);
      if (info.optional_args > 0) {
        absl::StrAppend(&takes, " or ", max_args + 1);
      }
      Error(span,
            *f == plan::FunctionKind::kCoalesce
                ? std::string("coalesce() takes two or more values")
                : absl::StrCat(name.text, "() takes ", takes,
                               max_args == 0 ? " argument" : " arguments",
                               ", not ", args.size() + 1),
            absl::StrCat("write: ", util::ToAbsl(info.usage)));
      return false;
    }
    fs->kind = *f;
    switch (*f) {
      case plan::FunctionKind::kRegex:
        fs->regex = Pattern(args[0], "regex()");
        return fs->regex != nullptr;
      case plan::FunctionKind::kTime:
        return args.empty() || TimeLayout(args[0], &fs->layout);
      case plan::FunctionKind::kFormatTime:
        return TimeLayout(args[0], &fs->layout, /*writes=*/true);
      case plan::FunctionKind::kBucket:
        return BucketWidth(args[0], fs);
      case plan::FunctionKind::kSubstr:
        return IntegerArg(args[0], name, /*nonzero=*/true, &fs->start) &&
               (args.size() < 2 ||
                (IntegerArg(args[1], name, /*nonzero=*/false, &fs->length) &&
                 NonNegative(args[1], name, fs->length)));
      case plan::FunctionKind::kSplit:
        if (args[0].kind != ast::TokenKind::kString || args[0].text.empty()) {
          Error(args[0].span,
                "the separator of split() must be a non-empty 'quoted' string",
                absl::StrCat("write: ", util::ToAbsl(info.usage)));
          return false;
        }
        fs->separator = args[0].text;
        return IntegerArg(args[1], name, /*nonzero=*/true, &fs->start);
      default:
        return true;
    }
  }

  // A whole-number argument of `fn` (substr's start, split's piece).
  bool IntegerArg(const ast::Token& t, const ast::Token& fn, bool nonzero,
                  int64_t* out) {
    int64_t v;
    if (t.kind != ast::TokenKind::kBareword ||
        !absl::SimpleAtoi(util::ToAbsl(t.text), &v) || (nonzero && v == 0) ||
        v > (int64_t{1} << 40) || v < -(int64_t{1} << 40)) {
      Error(t.span,
            absl::StrCat("expected a whole number",
                         nonzero ? " other than 0" : "", " as an argument of ",
                         fn.text, "(), found '", t.text, "'"),
            "positions count from 1; negative ones from the end: "
            "substr(x, -3) is the last three bytes");
      return false;
    }
    *out = v;
    return true;
  }
  bool NonNegative(const ast::Token& t, const ast::Token& fn, int64_t v) {
    if (v >= 0) return true;
    Error(t.span,
          absl::StrCat("the length of ", fn.text, "() cannot be negative"),
          "write: substr(x, start, length)");
    return false;
  }

  // The span from the first to the last token of `e` (a call's closing
  // parenthesis is not a token: one byte is added for it).
  static ast::Span SetExprSpan(const ast::SetExpr& e) {
    uint32_t begin = e.token.span.offset;
    uint32_t end = e.token.span.offset + e.token.span.length;
    for (const ast::SetExpr& a : e.args) {
      const ast::Span s = SetExprSpan(a);
      begin = std::min(begin, s.offset);
      end = std::max(end, s.offset + s.length);
    }
    if (e.kind == ast::SetExpr::Kind::kCall) ++end;
    return ast::Span{begin, end - begin};
  }

  // Compiles the set expression `e` into postfix `out`; false (after
  // reporting why) if it cannot be.
  bool CompileExpr(const ast::SetExpr& e, std::vector<plan::ExprOp>* out) {
    plan::ExprOp op;
    switch (e.kind) {
      case ast::SetExpr::Kind::kOperand: {
        double v;
        if (e.token.kind == ast::TokenKind::kString ||
            (e.token.kind == ast::TokenKind::kBareword &&
             util::ParseNumber(e.token.text, &v))) {
          op.kind = plan::ExprOp::Kind::kLiteral;
          op.text = e.token.text;
        } else {
          op.kind = plan::ExprOp::Kind::kField;
          op.field = Intern(e.token.text);
        }
        out->push_back(std::move(op));
        return true;
      }
      case ast::SetExpr::Kind::kBinary: {
        bool ok = CompileExpr(e.args[0], out);
        ok &= CompileExpr(e.args[1], out);
        const std::string& o = e.token.text;
        op.kind = o == "+"   ? plan::ExprOp::Kind::kAdd
                  : o == "-" ? plan::ExprOp::Kind::kSubtract
                  : o == "*" ? plan::ExprOp::Kind::kMultiply
                             : plan::ExprOp::Kind::kDivide;
        out->push_back(std::move(op));
        return ok;
      }
      case ast::SetExpr::Kind::kCall:
        break;
    }
    if (e.token.text == "coalesce") {
      bool ok = true;
      for (const ast::SetExpr& arg : e.args) ok &= CompileExpr(arg, out);
      if (e.args.size() < 2) {
        Error(e.token.span, "coalesce() takes two or more values",
              "for example: coalesce(user, remote_user, \"-\")");
        return false;
      }
      op.kind = plan::ExprOp::Kind::kCoalesce;
      op.args = static_cast<uint32_t>(e.args.size());
      out->push_back(std::move(op));
      return ok;
    }
    // A catalog function: its value may be an expression, the arguments
    // after it are literals.
    bool ok = CompileExpr(e.args[0], out);
    std::vector<ast::Token> args;
    for (size_t i = 1; i < e.args.size(); ++i) {
      if (e.args[i].kind != ast::SetExpr::Kind::kOperand) {
        Error(SetExprSpan(e.args[i]),
              absl::StrCat("the arguments of ", e.token.text,
                           "() after its value are literals, not expressions"),
              "compute the value in a set step of its own");
        return false;
      }
      args.push_back(e.args[i].token);
    }
    op.kind = plan::ExprOp::Kind::kFunction;
    ok &= MakeFunctionStep(e.token, args, &op.function);
    out->push_back(std::move(op));
    return ok;
  }

  void PlanSet() {
    for (const ast::Assignment& a : q_.set) {
      plan::SetStep step;
      bool ok = true;
      if (a.target.kind == ast::TokenKind::kString || a.target.text.empty() ||
          a.target.text[0] != '$') {
        Error(
            a.target.span,
            absl::StrCat("'set' assigns $variables, not '", a.target.text, "'"),
            absl::StrCat("write: set $",
                         a.target.text.empty() || a.target.text[0] == '$'
                             ? "name"
                             : a.target.text,
                         " = ..."));
        ok = false;
      }
      if (a.expr) {
        ok &= CompileExpr(*a.expr, &step.program);
        if (!ok) continue;
        step.target = Intern(a.target.text);
        p_.fields[step.target].assigned = true;
        p_.sets.push_back(std::move(step));
        continue;
      }
      for (size_t k = a.functions.size(); k-- > 0;) {
        static const std::vector<ast::Token> kNoArgs;
        const std::vector<ast::Token>& args =
            k < a.function_args.size() ? a.function_args[k] : kNoArgs;
        plan::FunctionStep fs;
        if (!MakeFunctionStep(a.functions[k], args, &fs)) {
          ok = false;
          continue;
        }
        step.functions.push_back(std::move(fs));
      }
      const ast::Token& src = a.operand;
      double v;
      if (src.kind == ast::TokenKind::kString) {
        step.source.kind = plan::Operand::Kind::kString;
        step.source.text = src.text;
      } else if (src.kind == ast::TokenKind::kBareword &&
                 util::ParseNumber(src.text, &v)) {
        step.source.kind = plan::Operand::Kind::kNumber;
        step.source.number = v;
        step.source.text = src.text;
      } else {
        step.source.kind = plan::Operand::Kind::kField;
        step.source.field = Intern(src.text);
      }
      if (!ok) continue;
      step.target = Intern(a.target.text);
      p_.fields[step.target].assigned = true;
      p_.sets.push_back(std::move(step));
    }
  }

  // The layout of time(x, 'layout'): a quoted strftime layout whose every
  // conversion absl::ParseTime knows, and which reads back its own output.
  // format_time()'s layout (`writes`) need not read back.
  bool TimeLayout(const ast::Token& t, std::string* layout,
                  bool writes = false) {
    const std::string_view fn = writes ? "format_time()" : "time()";
    if (t.kind != ast::TokenKind::kString) {
      Error(t.span,
            absl::StrCat("the layout of ", util::ToAbsl(fn),
                         " must be a 'quoted' string"),
            writes ? "for example: format_time($t, '%Y-%m-%d %H:%M')"
                   : "for example: time($when, '%d.%m.%Y %H:%M:%S')");
      return false;
    }
    const std::string& text = t.text;
    bool any = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '%') continue;
      size_t j = i + 1;
      // %Ez, %E*z, %E*S, %E4S, %E*f, %E4f, %E4Y, and %O variants.
      if (j < text.size() && (text[j] == 'E' || text[j] == 'O')) {
        ++j;
        if (j < text.size() && text[j] == '*') {
          ++j;
        } else {
          while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
        }
      }
      constexpr std::string_view kConversions =
          "YmdeHMSzZsaAbBhpIjyCDFTRnt%fEuUVwWgGcxXr";
      const bool known = j < text.size() &&
                         kConversions.find(text[j]) != std::string_view::npos &&
                         text[j] != 'E';
      if (!known) {
        // Columns inside the quotes: the token span covers them too.
        const uint32_t at = t.span.offset + 1 + static_cast<uint32_t>(i);
        const uint32_t length =
            static_cast<uint32_t>(std::min(j + 1, text.size()) - i);
        Error(ast::Span{at, length},
              absl::StrCat("unknown conversion '", text.substr(i, length),
                           "' in the layout of ", util::ToAbsl(fn)),
              "layouts use strftime conversions such as %Y %m %d %H %M %S "
              "%z %b %e %s %E*S (write %% for a '%')");
        return false;
      }
      any |= text[j] != '%' && text[j] != 'n' && text[j] != 't';
      i = j;
    }
    if (writes) {
      *layout = text;
      return true;
    }
    // Read back a formatted time: catches layouts such as "%Y%Y".
    const absl::Time probe = absl::FromUnixSeconds(1764598051);
    absl::Time back;
    std::string err;
    if (!any || !absl::ParseTime(util::ToAbsl(text),
                                 absl::FormatTime(util::ToAbsl(text), probe,
                                                  absl::UTCTimeZone()),
                                 &back, &err)) {
      Error(
          t.span,
          absl::StrCat("the layout of time() cannot read a time: '", text, "'"),
          any ? absl::StrCat("it does not read back its own output (", err, ")")
              : "a layout needs conversions such as %Y-%m-%d %H:%M:%S");
      return false;
    }
    *layout = text;
    return true;
  }

  // The width of bucket(x, w): a duration (30s, 5m, 1h, 1d) that divides a
  // day, or a positive number for numeric bins.
  bool BucketWidth(const ast::Token& t, plan::FunctionStep* fs) {
    constexpr std::string_view kHint =
        "give a duration that divides a day (30s, 5m, 1h, 1d) or 1w for "
        "time buckets, or a positive number (100, 0.5) for numeric bins";
    if (t.kind == ast::TokenKind::kString) {
      Error(t.span, "the width of bucket() is written bare, not quoted",
            "write: bucket(x, 5m) or bucket(x, 100)");
      return false;
    }
    const std::string& s = t.text;
    double number;
    if (util::ParseNumber(s, &number)) {
      if (!(number > 0) || !std::isfinite(number)) {
        Error(t.span, absl::StrCat("invalid bucket width '", s, "'"),
              std::string(kHint));
        return false;
      }
      fs->bin_width = s;
      return true;
    }
    size_t digits = 0;
    while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
      ++digits;
    }
    std::string_view unit = std::string_view(s).substr(digits);
    std::optional<int64_t> n =
        ParseCount(std::string_view(s).substr(0, digits));
    int64_t scale = 0;
    if (unit == "w" && s == "1w") {
      // Weeks from Monday 00:00 (ISO 8601), in the timestamp's offset.
      fs->bucket_seconds = plan::kWeekSeconds;
      return true;
    }
    if (unit == "s") scale = 1;
    if (unit == "m") scale = 60;
    if (unit == "h") scale = 3600;
    if (unit == "d") scale = 86400;
    if (!n || *n == 0 || scale == 0 || digits > 6) {
      Error(t.span, absl::StrCat("invalid bucket width '", s, "'"),
            std::string(kHint));
      return false;
    }
    const int64_t seconds = *n * scale;
    constexpr int64_t kDay = 86400;
    if (seconds > kDay || kDay % seconds != 0) {
      // The widths of the same unit on either side that divide a day.
      std::vector<std::string> near;
      for (int64_t k = *n - 1; k >= 1; --k) {
        if (kDay % (k * scale) == 0) {
          near.push_back(absl::StrCat(k, util::ToAbsl(unit)));
          break;
        }
      }
      for (int64_t k = *n + 1; k * scale <= kDay; ++k) {
        if (kDay % (k * scale) == 0) {
          near.push_back(absl::StrCat(k, util::ToAbsl(unit)));
          break;
        }
      }
      Error(t.span, absl::StrCat("bucket width ", s, " does not divide a day"),
            absl::StrCat("time buckets start at midnight, so the width must "
                         "divide 24h",
                         near.empty() ? "" : "; nearest: ",
                         absl::StrJoin(near, " or ")));
      return false;
    }
    fs->bucket_seconds = seconds;
    return true;
  }

  void PlanGroupBy() {
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

  // `order by k1 [asc|desc], k2 ...`: each key names a select item (alias
  // first, then storage) or a group field.
  void PlanOrder() {
    if (!q_.order) return;
    const ast::OrderClause& o = *q_.order;
    for (const ast::OrderKey& k : o.keys) {
      std::string key = k.aggregation
                            ? AggregateStorage(*k.aggregation, k.field)
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

  // Parses a non-negative decimal integer (digits only).
  static std::optional<int64_t> ParseCount(std::string_view s) {
    if (s.empty()) return std::nullopt;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || v < 0 ||
        s[0] == '-' || s[0] == '+') {
      return std::nullopt;
    }
    return v;
  }

  void PlanLimit() {
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

  void PlanInterval() {
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

  void PlanOutfile() {
    if (!q_.outfile) return;
    if (q_.outfile->path.text.empty()) {
      Error(q_.outfile->path.span, "empty outfile path");
      return;
    }
    p_.outfile = q_.outfile->path.text;
    p_.outfile_append = q_.outfile->append;
  }

  bool FormatKnows(const std::string& name) const {
    if (plan::LookupCommonVariable(name) != plan::CommonVariable::kNone) {
      return true;
    }
    if (!format_variables_) return false;
    return std::find(format_variables_->begin(), format_variables_->end(),
                     name) != format_variables_->end();
  }

  void CollectConditionFields(const plan::Condition& c,
                              std::vector<FieldId>* out) const {
    if (c.kind == plan::Condition::Kind::kCompare) {
      if (c.lhs.kind == plan::Operand::Kind::kField)
        out->push_back(c.lhs.field);
      if (c.rhs.kind == plan::Operand::Kind::kField)
        out->push_back(c.rhs.field);
      return;
    }
    for (const plan::Condition& child : c.children) {
      CollectConditionFields(child, out);
    }
  }

  static void RemapCondition(plan::Condition& c,
                             const std::vector<FieldId>& shadow) {
    auto remap = [&](plan::Operand& o) {
      if (o.kind == plan::Operand::Kind::kField &&
          shadow[o.field] != kNoField) {
        o.field = shadow[o.field];
      }
    };
    remap(c.lhs);
    remap(c.rhs);
    for (plan::Condition& child : c.children) RemapCondition(child, shadow);
  }

  // Which `set` steps `where` depends on, and which fields the format must
  // fill.
  void PlanExecutionOrder() {
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

  // DTail's fork warns about $variables the format cannot produce
  // (docs/query-language.md, "Unknown variables").
  void PlanWarnings() {
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
    for (const plan::SetStep& s : p_.sets) {
      s.ForEachSource([&](FieldId id) { check(p_.fields[id].name); });
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

  ast::Span FirstSpanOf(const std::string& name) const {
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

  static std::optional<ast::Span> FindInSetExpr(const ast::SetExpr& e,
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

  static std::optional<ast::Span> FindInExpr(const ast::Expr& e,
                                             const std::string& name) {
    if (e.kind == ast::ExprKind::kCompare) {
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

  const ast::Query& q_;
  std::string_view text_;
  const PlannerContext& context_;
  plan::Plan p_;
  std::vector<QueryError> errors_;
  absl::flat_hash_map<std::string, FieldId> field_ids_;
  std::optional<std::vector<std::string>> format_variables_;
};

}  // namespace

absl::StatusOr<plan::Plan> BuildPlan(const ast::Query& query,
                                     std::string_view text,
                                     const PlannerContext& context) {
  return Planner(query, text, context).Build();
}

}  // namespace mapr::parser
