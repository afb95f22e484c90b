// Parsing query text into the typed AST (parser/ast.h). Syntax only: names
// are checked by the planner. PEGTL's exceptions never leave parse.cc.
#ifndef MAPR_PARSER_PARSE_H_
#define MAPR_PARSER_PARSE_H_

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "parser/ast.h"

namespace mapr::parser {

struct ParseLimits {
  size_t max_query_bytes = 64 * 1024;
  // Nesting of parentheses, `not` and function calls.
  size_t max_depth = 64;
  // Select items, where comparisons, set assignments and group-by fields,
  // each.
  size_t max_items = 1024;
};

// Parses `text`. Errors are InvalidArgument with the position, a caret
// snippet and a hint (parser/source_span.h); the span is attached as a
// payload. Stops at the first error.
absl::StatusOr<ast::Query> Parse(std::string_view text,
                                 const ParseLimits& limits = {});

}  // namespace mapr::parser

#endif  // MAPR_PARSER_PARSE_H_
