// What the planner knows of a function that `set` and `where` expressions
// call: its name, usage and literal arguments, and the hook that checks
// those arguments. The functions themselves live in runtime/functions/, one
// file each (catalog entry, bind hook, batch apply), listed in
// runtime/functions/registry.cc; the planner receives their entries through
// its PlannerContext, so parser/ never includes runtime/.
//
// Calls nest (`maskdigits(md5sum($line))`) and are applied innermost first.
#ifndef MAPR_PARSER_FUNCTION_CATALOG_H_
#define MAPR_PARSER_FUNCTION_CATALOG_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "parser/ast.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace mapr::plan {

// A call's checked literal arguments, as its function's bind hook made them
// (each function has its own subclass, which its apply reads back).
class FunctionBinding {
 public:
  virtual ~FunctionBinding() = default;
  // The arguments after the value as the plan's text writes them
  // (", '%Y-%m-%d'"), or "".
  virtual std::string ArgsText() const { return ""; }
  // True if the call's results are buckets: time buckets or numeric bins
  // (bucket(x, 5m), bucket(x, 100)), a chart's series axis.
  virtual bool IsBucket() const { return false; }
  // True if they are time buckets, which results order by instant.
  virtual bool IsTimeBucket() const { return false; }
  // The width of its time buckets in seconds (IsTimeBucket), else 0.
  virtual int64_t BucketSeconds() const { return 0; }
  // window(t, 5m, 1m): the width in seconds of the hops a line is binned
  // into (the call's value), which the result joins into overlapping
  // windows of BucketSeconds(); 0 for every other call.
  virtual int64_t HopSeconds() const { return 0; }
};

// What a bind hook may use of the planner: its error list (each error with
// its span, message and hint) and its regular-expression compiler.
class BindContext {
 public:
  virtual void Error(ast::Span span, std::string message, std::string hint) = 0;
  // Compiles `pattern` (a 'quoted' string token) as `what` ("regex()"), or
  // records why it cannot and returns null.
  virtual std::shared_ptr<const re2::RE2> Pattern(const ast::Token& pattern,
                                                  std::string_view what) = 0;
  // The bytes of the file `path` (lookup()'s table), or the error that says
  // why it cannot be read: the host did not allow file lookups
  // (CompileOptions::allow_file_lookups), the file is missing or larger
  // than CompileOptions::max_lookup_bytes.
  virtual absl::StatusOr<std::string> ReadLookupFile(std::string_view path) = 0;
  // Makes `text` part of the query's fingerprint (a lookup table's hash):
  // partials whose texts differ do not merge.
  virtual void AddFingerprint(std::string text) = 0;

 protected:
  ~BindContext() = default;
};

struct FunctionInfo {
  std::string_view name;     // As written in a query (case-sensitive).
  std::string_view summary;  // One line for --help and the docs.
  std::string_view usage;    // How a call is written: "regex(x, 're')".
  // Literal arguments after the value (regex takes its pattern), and
  // further ones a call may leave out (time's layout). The planner checks
  // their number before the hook runs.
  uint8_t extra_args = 0;
  uint8_t optional_args = 0;
  // Checks the literal arguments after the value and sets *binding (null
  // if the call needs none); false after reporting why with ctx.Error().
  // Null: the function takes no arguments to check.
  bool (*bind)(std::span<const ast::Token> args, BindContext& ctx,
               std::shared_ptr<const FunctionBinding>* binding) = nullptr;
  // coalesce(a, b, ...): written as a call, computed by the expression
  // evaluator over values that may be expressions (no bind, no apply).
  bool expression_only = false;
  // The call may also be written with its first literal argument leading
  // and the value second, `lookup('hosts.csv', key, 'column')`: a quoted
  // first argument followed by an unquoted one (with at least one literal
  // after them) is read that way.
  bool first_literal_may_lead = false;
  // The apply gives a missing value a result too (isnull); every other
  // function leaves it missing.
  bool defined_on_missing = false;
  // The call is a `group by` variable's whole value and nothing else reads
  // it (window: a line counts in several groups); not a `where` operand.
  bool group_field_only = false;
};

}  // namespace mapr::plan

#endif  // MAPR_PARSER_FUNCTION_CATALOG_H_
