// Turning byte offsets in a query into `line:col` positions and the
// mtail/DuckDB-style error text:
//
//   1:32-35: unknown aggregation 'avgg'
//   from STATS select count($line),avgg($goroutines)
//                                  ^~~~
//   hint: did you mean 'avg'?
#ifndef MAPR_PARSER_SOURCE_SPAN_H_
#define MAPR_PARSER_SOURCE_SPAN_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "parser/ast.h"

namespace mapr::parser {

struct LineCol {
  size_t line = 1;    // 1-based
  size_t column = 1;  // 1-based, in bytes
};

// The line and column of byte `offset` in `text` (offset may equal
// text.size(), meaning the end).
LineCol OffsetToLineCol(std::string_view text, size_t offset);

// Longest snippet line shown; longer lines are cut around the span with
// "..." on the cut side(s).
inline constexpr size_t kMaxSnippetWidth = 96;

// One error: where, what, and an optional hint.
struct QueryError {
  ast::Span span;
  std::string message;
  std::string hint;  // Empty if none.
};

// Renders `error` as the multi-line text above (no trailing newline).
std::string RenderQueryError(std::string_view text, const QueryError& error);

// An InvalidArgument status with the rendered text of `error` and its span
// attached as a payload (mapr::GetSourceSpan).
absl::Status QueryErrorStatus(std::string_view text, const QueryError& error);

// Joins several errors into one InvalidArgument status: their renderings
// separated by blank lines; the payload is the first error's span.
// REQUIRES: !errors.empty().
absl::Status QueryErrorsStatus(std::string_view text,
                               const std::vector<QueryError>& errors);

// The extent of the token that starts at `offset`, for underlining: a quoted
// string or backticked name as a whole, otherwise up to the next space or
// comma; at least one byte unless offset is at the end.
ast::Span TokenSpanAt(std::string_view text, size_t offset);

// Levenshtein distance, for "did you mean" hints.
size_t EditDistance(std::string_view a, std::string_view b);

// Returns the candidate closest to `word` (case-insensitive compare counts a
// case difference as 0), or empty if none is close enough.
std::string_view ClosestMatch(std::string_view word,
                              const std::vector<std::string_view>& candidates);

}  // namespace mapr::parser

#endif  // MAPR_PARSER_SOURCE_SPAN_H_
