// Semantic checks and plan construction: AST -> plan::Plan. Unlike the
// parser, the planner collects every error it finds and reports them
// together (the first one's span is the status payload).
#ifndef MAPR_PARSER_PLANNER_H_
#define MAPR_PARSER_PLANNER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "parser/ast.h"
#include "parser/plan.h"

namespace mapr::parser {

// What the planner needs to know about a log format.
struct FormatInfo {
  std::string name;  // Canonical, lower-case.
  // The $-variables the format provides besides the common ones, for the
  // unknown-variable warnings; nullopt means "do not warn" (a host format
  // that declares nothing).
  std::optional<std::vector<std::string>> variables;
  // The format object, configured by the planner with the query's
  // argument (LogFormat::Configure); null in tests that plan without one.
  std::shared_ptr<const LogFormat> format;
};

struct PlannerContext {
  // Looks up a format by lower-cased name.
  std::function<std::optional<FormatInfo>(std::string_view)> lookup_format;
  // Every known format name, for the error hint.
  std::vector<std::string> format_names;
  // Every aggregate a select item may call (runtime::Aggregates()). A plain
  // field uses the one whose AggregateInfo::role is kPlainField (last).
  std::vector<const plan::AggregateInfo*> aggregates;
  // Every function an expression may call (runtime::ScalarFunctions()), in
  // the order of the "known functions" hint.
  std::vector<const plan::FunctionInfo*> functions;
  // Memory bound per compiled regular expression
  // (CompileOptions::max_regex_memory).
  int64_t max_regex_memory = 8 << 20;
  // What aggregate states are built with (CompileOptions).
  plan::StateOptions state_options;
  // Reads a lookup() table (CompileOptions::allow_file_lookups and
  // max_lookup_bytes); null: lookup() is refused.
  std::function<absl::StatusOr<std::string>(std::string_view path)>
      read_lookup_file;
};

// How a lookup() that may read no file starts its error.
inline constexpr char kLookupNotAllowed[] =
    "lookup() reads files only where the host allows it";

// Checks `query` (parsed from `text`) and builds its plan.
absl::StatusOr<plan::Plan> BuildPlan(const ast::Query& query,
                                     std::string_view text,
                                     const PlannerContext& context);

}  // namespace mapr::parser

#endif  // MAPR_PARSER_PLANNER_H_
