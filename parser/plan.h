// The compiled, immutable plan of a query: everything the runtime needs,
// resolved and checked. Built by the planner (parser/planner.h) from the AST.
#ifndef MAPR_PARSER_PLAN_H_
#define MAPR_PARSER_PLAN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"
#include "mapr/result.h"
#include "parser/aggregate_catalog.h"
#include "parser/ast.h"
#include "parser/event_start.h"
#include "parser/function_catalog.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace mapr::plan {

using FieldId = uint32_t;

// Variables every log format provides (the engine fills them).
enum class CommonVariable : uint8_t {
  kNone,  // Not a common variable: the log format (or `set`) provides it.
  kLine,
  kEmpty,
  kStar,
  kHostname,
  kServer,
  kTimezone,
  kTimeoffset,
  kFile,  // The source's name (Aggregator::SetSourceName); empty if unnamed.
};

// Returns the common variable named `name`, or kNone.
CommonVariable LookupCommonVariable(std::string_view name);
// Every common variable's name ("$line", ..., "*"), for hints.
std::vector<std::string_view> CommonVariableNames();

struct Field {
  std::string name;
  CommonVariable common = CommonVariable::kNone;
  // True if the log format must fill this field (read before any `set`
  // writes it, and not a common variable).
  bool extracted = false;
  // True if some `set` assigns it.
  bool assigned = false;
  // True for the private copy of a `set` variable that `where` reads: the
  // steps `where` depends on compute it before `where` runs.
  bool before_where = false;
};

// One aggregate state over every group: select items whose aggregates keep
// the same state (AggregateInfo::state) of the same field share a slot.
struct StateSlot {
  // The first aggregate that asked for this state; it creates the state.
  const AggregateInfo* aggregate;
  FieldId field;
  // The argument the state is built with (histogram(x, 10): "10"; see
  // AggregateInfo::takes_width); empty for the others.
  std::string parameter;
  friend bool operator==(const StateSlot& a, const StateSlot& b) {
    return a.aggregate->state == b.aggregate->state && a.field == b.field &&
           a.parameter == b.parameter;
  }
};

// Column::slot of a hidden group field: its value is the group's key part,
// read from the group key; it keeps no state.
inline constexpr uint32_t kKeyPartSlot = UINT32_MAX;

struct Column {
  std::string name;     // Output header (alias or the DTail storage text).
  std::string storage;  // DTail's FieldStorage: `count($line)`, `$time`.
  // The aggregate (`last` for a plain field, as DTail renders it).
  const AggregateInfo* aggregate;
  FieldId field;
  uint32_t slot;  // kKeyPartSlot: a hidden group field (no slot).
  bool is_group_key = false;
  // For median and pN: which rank of the sorted values.
  Rank rank;
  // Set (to the cumsum entry) when the column shows the running total of
  // `aggregate`'s values over the result's rows (AggregateInfo::
  // running_total).
  const AggregateInfo* running_total = nullptr;
};

enum class CompareOp : uint8_t {
  kFloatEq,
  kFloatNe,
  kFloatLt,
  kFloatLe,
  kFloatGt,
  kFloatGe,
  kStrEq,
  kStrNe,
  kContains,
  kNotContains,
  kHasPrefix,
  kNotHasPrefix,
  kHasSuffix,
  kNotHasSuffix,
  kRegexMatch,     // =~: an unanchored RE2 search (Condition::regex).
  kRegexNotMatch,  // !~
  kStrIEq,         // ieq: equal but for ASCII case
  kStrINe,         // ine
  kIContains,      // icontains: contains, but for ASCII case
  kNotIContains,   // nicontains
  kIn,             // in (...): equal to one of Condition::in_values
};

inline bool IsFloatOp(CompareOp op) { return op <= CompareOp::kFloatGe; }

struct Operand {
  // kValue only in `having`: a group's final value (ValueColumn()).
  enum class Kind : uint8_t { kField, kNumber, kString, kValue };
  Kind kind = Kind::kField;
  FieldId field = 0;   // kField
  uint32_t value = 0;  // kValue
  double number = 0;   // kNumber
  std::string text;    // kString; for kNumber the number as written
};

struct Condition {
  enum class Kind : uint8_t { kCompare, kAnd, kOr, kNot };
  Kind kind = Kind::kCompare;
  CompareOp op = CompareOp::kFloatEq;
  Operand lhs, rhs;
  // kRegexMatch/kRegexNotMatch: the compiled rhs pattern.
  std::shared_ptr<const re2::RE2> regex;
  // kIn: the listed values, sorted and unique (rhs is an empty string).
  std::shared_ptr<const std::vector<std::string>> in_values;
  std::vector<Condition> children;
};

// One function call of a `set` step or an expression.
struct FunctionStep {
  const FunctionInfo* info = nullptr;
  // What the function's bind hook made of the literal arguments (null if
  // it needs nothing).
  std::shared_ptr<const FunctionBinding> binding;
  bool IsTimeBucket() const { return binding && binding->IsTimeBucket(); }
};

// One operation of a set expression's postfix program.
struct ExprOp {
  enum class Kind : uint8_t {
    kField,    // pushes a field's value
    kLiteral,  // pushes `text` (a number or a string)
    kAdd,      // pops two values, pushes their sum (and so on)
    kSubtract,
    kMultiply,
    kDivide,
    kCoalesce,  // pops `args` values, pushes the first that is not missing
    kFunction,  // applies `function` to the value on top
  };
  Kind kind = Kind::kLiteral;
  FieldId field = 0;
  std::string text;
  uint32_t args = 0;
  FunctionStep function;
};

struct SetStep {
  FieldId target;
  // Applied innermost first: for md5sum(maskdigits(x)) this is
  // {kMaskDigits, kMd5Sum}.
  std::vector<FunctionStep> functions;
  // The operand: a field (missing field => target becomes missing), or a
  // literal (numbers and strings are stored as their text).
  Operand source;
  // Whether values that time() or bucket() cannot read count in
  // LineCounters::values_unparsed. False for a step whose copy in
  // Plan::sets_before_where already counted them on every parsed line.
  bool count_unparsed = true;
  // A set expression (arithmetic, coalesce()) as a postfix program; then
  // `functions` is empty and `source` is not used.
  std::vector<ExprOp> program;

  // Calls fn(FieldId&) for every field the step reads.
  template <typename Fn>
  void ForEachSource(Fn fn) {
    if (program.empty()) {
      if (source.kind == Operand::Kind::kField) fn(source.field);
      return;
    }
    for (ExprOp& op : program) {
      if (op.kind == ExprOp::Kind::kField) fn(op.field);
    }
  }
  template <typename Fn>
  void ForEachSource(Fn fn) const {
    const_cast<SetStep*>(this)->ForEachSource(
        [&](FieldId& id) { fn(static_cast<FieldId>(id)); });
  }
};

enum class TableFilter : uint8_t {
  kNone,   // No `from` (or `logformat csv` without one): every line.
  kTable,  // `from X`: the line contains `|MAPREDUCE:X|`.
  kAny,    // `from *`: the line contains `|MAPREDUCE:<name>|`.
};

struct Warning {
  std::string message;
  ast::Span span;
};

struct Plan {
  std::string text;  // The query as given.

  std::vector<Field> fields;
  // Fields the log format must fill (subset of `fields`, by id), in id order.
  std::vector<FieldId> extracted_fields;

  std::vector<Column> columns;
  std::vector<StateSlot> slots;
  // What the states are built with (CompileOptions).
  StateOptions state_options;

  std::optional<Condition> where;
  // All `set` steps, in order; they run after `where`.
  std::vector<SetStep> sets;
  // The steps `where` depends on (a $variable that `set` assigns and the log
  // format does not produce), computed before `where` into private copies of
  // their targets (Field::before_where), so `where` sees the value `set`
  // gives while the format's own variables keep their parsed values.
  std::vector<SetStep> sets_before_where;

  std::vector<FieldId> group_by;

  // `group by $w` with `set $w = window(t, 5m, 1m)`: the groups hold hops
  // (each line in its hop's group, as bucket(t, 1m) bins it), and every
  // result joins them into windows (runtime/batch_aggregator.cc). Partials
  // keep the hops.
  struct Window {
    uint32_t key_part = 0;  // index of the window field in group_by
    int64_t width_seconds = 0;
    int64_t hop_seconds = 0;  // divides a day and width_seconds
  };
  std::optional<Window> window;

  // Values `having` and `order by` read that are not select items: hidden
  // aggregates (a slot of their own, so partials carry them, never rendered)
  // and group fields (slot kKeyPartSlot). A value index v < columns.size()
  // names columns[v], else hidden_columns[v - columns.size()].
  std::vector<Column> hidden_columns;

  // `having`: over each merged group's final values (Operand::Kind::kValue),
  // before `order by` and `limit`, in every result; never on partials.
  std::optional<Condition> having;

  // `order by`: the keys, most significant first. Ties fall back to the
  // group key tuple (ascending), so the order is total.
  struct OrderKey {
    uint32_t value;  // A value index, as for Operand::value.
    bool descending = true;
  };
  std::vector<OrderKey> order_by;

  int64_t limit = -1;  // -1: none.
  // As written (0 allowed, like DTail); effective_interval_ms() is >= 1000.
  int64_t interval_ms = 5000;
  bool interval_given = false;
  int64_t effective_interval_ms() const {
    return interval_ms <= 0 ? 1000 : interval_ms;
  }

  std::optional<std::string> outfile;
  bool outfile_append = false;

  std::string log_format;  // Canonical (lower-case) name.
  bool log_format_given = false;
  // `logformat NAME 'ARGUMENT'`.
  std::optional<std::string> log_format_argument;
  // The format, configured by its argument; null when the planner's context
  // has no format objects (tests): the runtime then looks `log_format` up.
  std::shared_ptr<const LogFormat> format;
  // `multiline RULE`: where an event starts; null reads lines.
  std::shared_ptr<const parser::EventStart> event_start;

  TableFilter table_filter = TableFilter::kNone;
  std::string table;         // Upper-cased name for kTable.
  std::string table_marker;  // `|MAPREDUCE:TABLE|` for kTable.

  std::vector<Warning> warnings;

  // A canonical query text that compiles to an equal plan.
  std::string canonical;
  // What else the results depend on (each lookup() table's hash): part of
  // a partial's fingerprint, so partials of other tables do not merge.
  std::vector<std::string> fingerprint_extras;
};

// The options slot `slot` of `p` builds its state with: the plan's, and the
// slot's own argument.
inline StateOptions SlotOptions(const Plan& p, size_t slot) {
  StateOptions o = p.state_options;
  o.parameter = p.slots[slot].parameter;
  return o;
}

// The column a value index names (Plan::hidden_columns).
inline const Column& ValueColumn(const Plan& p, uint32_t value) {
  return value < p.columns.size() ? p.columns[value]
                                  : p.hidden_columns[value - p.columns.size()];
}

// The call that gives `field` its value: the function that ends the last
// `set` step assigning it, or null.
const FunctionStep* LastCall(const Plan& p, FieldId field);

// Human-readable multi-line description (mapr --explain, tests).
std::string DebugString(const Plan& plan);

// Every spelling of a comparison operator the grammar admits (aliases such
// as =< and lacks included), each operator's canonical one first.
struct CompareOpSpelling {
  std::string_view name;
  CompareOp op;
};
std::span<const CompareOpSpelling> CompareOpSpellings();
// The operator spelt `name` (case-sensitive), or nullopt.
std::optional<CompareOp> LookupCompareOp(std::string_view name);
// The canonical spelling of `op`.
const char* CompareOpName(CompareOp op);

}  // namespace mapr::plan

#endif  // MAPR_PARSER_PLAN_H_
