// mapr/status.h: positions attached to query errors.
//
// Every error that mapr::Query::Compile returns for a problem in the query
// text carries the byte range of the offending part as a status payload, so a
// host can draw its own caret (an editor underline, an HTML highlight) instead
// of parsing the message.
//
// Example:
//   absl::StatusOr<mapr::Query> q = mapr::Query::Compile(text);
//   if (!q.ok()) {
//     std::optional<mapr::SourceSpan> span = mapr::GetSourceSpan(q.status());
//     if (span.has_value()) Highlight(span->offset, span->length);
//   }
#ifndef MAPR_MAPR_STATUS_H_
#define MAPR_MAPR_STATUS_H_

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "mapr/export.h"

namespace mapr {

// The status payload type URL under which the span is stored.
inline constexpr char kSourceSpanPayloadUrl[] = "type.mapr.dev/SourceSpan";

// A byte range in the query text. `line` and `column` are 1-based and refer
// to the first byte of the range.
struct MAPR_EXPORT SourceSpan {
  size_t offset = 0;
  size_t length = 0;
  size_t line = 1;
  size_t column = 1;
  friend bool operator==(const SourceSpan&, const SourceSpan&) = default;
};

// Returns the span attached to `status`, or nullopt if it has none.
MAPR_EXPORT std::optional<SourceSpan> GetSourceSpan(const absl::Status& status);

// Attaches `span` to `status` (replacing any previous span).
MAPR_EXPORT void SetSourceSpan(absl::Status& status, const SourceSpan& span);

}  // namespace mapr

#endif  // MAPR_MAPR_STATUS_H_
