#include "parser/plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "re2/re2.h"
#include "util/strings.h"

namespace mapr::plan {

namespace {

constexpr struct {
  std::string_view name;
  CommonVariable variable;
} kCommonVariables[] = {
    {"$line", CommonVariable::kLine},
    {"$empty", CommonVariable::kEmpty},
    {"*", CommonVariable::kStar},
    {"$hostname", CommonVariable::kHostname},
    {"$server", CommonVariable::kServer},
    {"$timezone", CommonVariable::kTimezone},
    {"$timeoffset", CommonVariable::kTimeoffset},
    {"$file", CommonVariable::kFile},
};

}  // namespace

CommonVariable LookupCommonVariable(std::string_view name) {
  for (const auto& v : kCommonVariables) {
    if (v.name == name) return v.variable;
  }
  return CommonVariable::kNone;
}

std::vector<std::string_view> CommonVariableNames() {
  std::vector<std::string_view> names;
  for (const auto& v : kCommonVariables) names.push_back(v.name);
  return names;
}

namespace {

// The one table of comparison operators: every spelling the grammar admits,
// each operator's canonical spelling first (CompareOpName prints it).
constexpr CompareOpSpelling kCompareOps[] = {
    {"==", CompareOp::kFloatEq},
    {"!=", CompareOp::kFloatNe},
    {"<", CompareOp::kFloatLt},
    {"<=", CompareOp::kFloatLe},
    {">", CompareOp::kFloatGt},
    {">=", CompareOp::kFloatGe},
    {"eq", CompareOp::kStrEq},
    {"ne", CompareOp::kStrNe},
    {"contains", CompareOp::kContains},
    {"ncontains", CompareOp::kNotContains},
    {"hasprefix", CompareOp::kHasPrefix},
    {"nhasprefix", CompareOp::kNotHasPrefix},
    {"hassuffix", CompareOp::kHasSuffix},
    {"nhassuffix", CompareOp::kNotHasSuffix},
    {"=~", CompareOp::kRegexMatch},
    {"!~", CompareOp::kRegexNotMatch},
    {"ieq", CompareOp::kStrIEq},
    {"ine", CompareOp::kStrINe},
    {"icontains", CompareOp::kIContains},
    {"nicontains", CompareOp::kNotIContains},
    {"in", CompareOp::kIn},
    // Aliases.
    {"=<", CompareOp::kFloatLe},
    {"=>", CompareOp::kFloatGe},
    {"lacks", CompareOp::kNotContains},
};

}  // namespace

std::span<const CompareOpSpelling> CompareOpSpellings() { return kCompareOps; }

std::optional<CompareOp> LookupCompareOp(std::string_view name) {
  for (const CompareOpSpelling& o : kCompareOps) {
    if (o.name == name) return o.op;
  }
  return std::nullopt;
}

const char* CompareOpName(CompareOp op) {
  for (const CompareOpSpelling& o : kCompareOps) {
    if (o.op == op) return o.name.data();
  }
  return "?";
}

const FunctionStep* LastCall(const Plan& p, FieldId field) {
  const SetStep* last = nullptr;
  for (const SetStep& s : p.sets) {
    if (s.target == field) last = &s;
  }
  if (last == nullptr) return nullptr;
  if (!last->program.empty()) {
    return last->program.back().kind == ExprOp::Kind::kFunction
               ? &last->program.back().function
               : nullptr;
  }
  return last->functions.empty() ? nullptr : &last->functions.back();
}

namespace {

// A private before-`where` copy of a set variable prints with a prime.
std::string FieldName(const Plan& p, FieldId id) {
  const Field& f = p.fields[id];
  return f.before_where ? f.name + "'" : f.name;
}

std::string OperandString(const Plan& p, const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::kField:
      return FieldName(p, o.field);
    case Operand::Kind::kNumber:
      return o.text;
    case Operand::Kind::kString:
      return absl::StrCat("\"", o.text, "\"");
    case Operand::Kind::kValue:
      return ValueColumn(p, o.value).storage;
  }
  return "";
}

std::string ConditionString(const Plan& p, const Condition& c) {
  switch (c.kind) {
    case Condition::Kind::kCompare:
      if (c.op == CompareOp::kIn && c.in_values != nullptr) {
        std::vector<std::string> quoted;
        for (const std::string& v : *c.in_values) {
          quoted.push_back(absl::StrCat("\"", v, "\""));
        }
        return absl::StrCat("(", OperandString(p, c.lhs), " in (",
                            absl::StrJoin(quoted, ", "), "))");
      }
      return absl::StrCat("(", OperandString(p, c.lhs), " ",
                          CompareOpName(c.op), " ", OperandString(p, c.rhs),
                          ")");
    case Condition::Kind::kNot:
      return absl::StrCat("not", ConditionString(p, c.children[0]));
    case Condition::Kind::kAnd:
    case Condition::Kind::kOr: {
      std::vector<std::string> parts;
      for (const Condition& child : c.children) {
        parts.push_back(ConditionString(p, child));
      }
      return absl::StrCat(c.kind == Condition::Kind::kAnd ? "and[" : "or[",
                          absl::StrJoin(parts, " "), "]");
    }
  }
  return "";
}

// f applied to `value`, as the plan's text writes it.
std::string CallString(const FunctionStep& f, const std::string& value) {
  return absl::StrCat(util::ToAbsl(f.info->name), "(", value,
                      f.binding ? f.binding->ArgsText() : std::string(), ")");
}

// A set expression's postfix program, written back in prefix form:
// add(a, mul(b, 2)).
std::string ProgramString(const Plan& p, const std::vector<ExprOp>& program) {
  std::vector<std::string> stack;
  for (const ExprOp& op : program) {
    switch (op.kind) {
      case ExprOp::Kind::kField:
        stack.push_back(FieldName(p, op.field));
        break;
      case ExprOp::Kind::kLiteral:
        stack.push_back(absl::StrCat("'", op.text, "'"));
        break;
      case ExprOp::Kind::kFunction:
        stack.back() = CallString(op.function, stack.back());
        break;
      default: {
        const size_t n = op.kind == ExprOp::Kind::kCoalesce ? op.args : 2;
        const char* name = op.kind == ExprOp::Kind::kAdd        ? "add"
                           : op.kind == ExprOp::Kind::kSubtract ? "sub"
                           : op.kind == ExprOp::Kind::kMultiply ? "mul"
                           : op.kind == ExprOp::Kind::kDivide   ? "div"
                                                                : "coalesce";
        std::string call =
            absl::StrCat(name, "(",
                         absl::StrJoin(stack.end() - static_cast<ptrdiff_t>(n),
                                       stack.end(), ", "),
                         ")");
        stack.resize(stack.size() - n);
        stack.push_back(std::move(call));
        break;
      }
    }
  }
  return stack.empty() ? "" : stack.back();
}

std::string SetString(const Plan& p, const SetStep& s) {
  if (!s.program.empty()) {
    return absl::StrCat(FieldName(p, s.target), " = ",
                        ProgramString(p, s.program));
  }
  std::string value = OperandString(p, s.source);
  for (const FunctionStep& f : s.functions) value = CallString(f, value);
  return absl::StrCat(FieldName(p, s.target), " = ", value);
}

// The columns (hidden ones too) and the state slots of DebugString().
void AppendColumns(const Plan& p, std::string* out_ptr) {
  std::string& out = *out_ptr;
  out.append("columns:\n");
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const Column& c = p.columns[i];
    absl::StrAppend(&out, "  ", c.name, ": ", util::ToAbsl(c.aggregate->name),
                    "(", p.fields[c.field].name, ") slot ", c.slot,
                    c.is_group_key ? " [group key]" : "",
                    c.running_total != nullptr ? " [running total]" : "", "\n");
  }
  for (const Column& c : p.hidden_columns) {
    absl::StrAppend(&out, "  hidden ", c.name, ": ",
                    util::ToAbsl(c.aggregate->name), "(",
                    p.fields[c.field].name, ")");
    if (c.slot == kKeyPartSlot) {
      out.append(" [group key]\n");
    } else {
      absl::StrAppend(&out, " slot ", c.slot, "\n");
    }
  }
  out.append("states:");
  for (const StateSlot& s : p.slots) {
    absl::StrAppend(&out, " ", util::ToAbsl(s.aggregate->state), "(",
                    p.fields[s.field].name, ")");
  }
  out.append("\n");
}

}  // namespace

std::string DebugString(const Plan& p) {
  std::string out;
  absl::StrAppend(&out, "format: ", p.log_format);
  if (p.log_format_argument) {
    absl::StrAppend(&out, " '", *p.log_format_argument, "'");
  }
  absl::StrAppend(&out, p.log_format_given ? " (logformat)" : " (default rule)",
                  "\n");
  if (p.event_start != nullptr) {
    absl::StrAppend(&out, "events: ",
                    p.event_start->builtin()
                        ? absl::StrCat("built-in ", p.event_start->text())
                        : absl::StrCat("lines matching '",
                                       p.event_start->text(), "' start one"),
                    "\n");
  }
  switch (p.table_filter) {
    case TableFilter::kNone:
      out.append("table: every line\n");
      break;
    case TableFilter::kAny:
      out.append("table: any |MAPREDUCE:<table>|\n");
      break;
    case TableFilter::kTable:
      absl::StrAppend(&out, "table: ", p.table_marker, "\n");
      break;
  }
  std::vector<std::string> extracted;
  for (FieldId id : p.extracted_fields) extracted.push_back(p.fields[id].name);
  absl::StrAppend(&out, "extract: ", absl::StrJoin(extracted, ", "), "\n");
  if (!p.sets_before_where.empty()) {
    std::vector<std::string> pre;
    for (const SetStep& s : p.sets_before_where) pre.push_back(SetString(p, s));
    absl::StrAppend(&out, "set before where: ", absl::StrJoin(pre, ", "), "\n");
  }
  if (p.where) {
    absl::StrAppend(&out, "where: ", ConditionString(p, *p.where), "\n");
  }
  if (!p.sets.empty()) {
    std::vector<std::string> sets;
    for (const SetStep& s : p.sets) sets.push_back(SetString(p, s));
    absl::StrAppend(&out, "set: ", absl::StrJoin(sets, ", "), "\n");
  }
  std::vector<std::string> groups;
  for (FieldId id : p.group_by) groups.push_back(p.fields[id].name);
  absl::StrAppend(&out, "group by: ", absl::StrJoin(groups, ", "), "\n");
  if (p.window) {
    absl::StrAppend(&out, "windows: ", p.window->width_seconds, "s every ",
                    p.window->hop_seconds, "s, joined from the hops of ",
                    p.fields[p.group_by[p.window->key_part]].name, "\n");
  }
  AppendColumns(p, &out);
  if (p.having) {
    absl::StrAppend(&out, "having: ", ConditionString(p, *p.having), "\n");
  }
  if (!p.order_by.empty()) {
    std::vector<std::string> keys;
    for (const Plan::OrderKey& k : p.order_by) {
      keys.push_back(absl::StrCat(ValueColumn(p, k.value).name,
                                  k.descending ? " desc" : " asc"));
    }
    absl::StrAppend(&out, "order by: ", absl::StrJoin(keys, ", "), "\n");
  }
  if (p.limit >= 0) absl::StrAppend(&out, "limit: ", p.limit, "\n");
  absl::StrAppend(&out, "interval: ", p.interval_ms, "ms\n");
  if (p.outfile) {
    absl::StrAppend(&out, "outfile: ", *p.outfile,
                    p.outfile_append ? " (append)" : "", "\n");
  }
  for (const Warning& w : p.warnings) {
    absl::StrAppend(&out, "warning: ", w.message, "\n");
  }
  return out;
}

}  // namespace mapr::plan
