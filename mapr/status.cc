#include "mapr/status.h"

#include <cstdio>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_format.h"

namespace mapr {

// The payload is the four numbers as text: "offset length line column".
std::optional<SourceSpan> GetSourceSpan(const absl::Status& status) {
  auto payload = status.GetPayload(kSourceSpanPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  std::string text(*payload);
  SourceSpan span;
  unsigned long long v[4];
  if (std::sscanf(text.c_str(), "%llu %llu %llu %llu", &v[0], &v[1], &v[2],
                  &v[3]) != 4) {
    return std::nullopt;
  }
  span.offset = v[0];
  span.length = v[1];
  span.line = v[2];
  span.column = v[3];
  return span;
}

void SetSourceSpan(absl::Status& status, const SourceSpan& span) {
  status.SetPayload(
      kSourceSpanPayloadUrl,
      absl::Cord(absl::StrFormat("%u %u %u %u", span.offset, span.length,
                                 span.line, span.column)));
}

}  // namespace mapr
