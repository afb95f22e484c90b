// Regular expressions in queries: `where f =~ 're'`, `regex(f, 're')` and
// `logformat regex 're'`. Patterns are RE2 syntax
// (https://github.com/google/re2/wiki/Syntax), compiled once at plan time;
// matching is linear in the input whatever the pattern.
//
// Example:
//   absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
//       CompilePattern("took (?<ms>\\d+)ms", 8 << 20);
//   if (!re.ok()) return Error(span, re.status().message());
#ifndef MAPR_PARSER_REGEX_H_
#define MAPR_PARSER_REGEX_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "re2/re2.h"

namespace mapr::parser {

// RE2's own default memory budget per pattern (CompileOptions).
inline constexpr int64_t kDefaultMaxRegexMemory = 8 << 20;

// Returns `pattern` with every named group written `(?<name>` rewritten to
// `(?P<name>`, the only spelling Debian's RE2 knows. Escapes and character
// classes are left alone, as are `(?<=` and `(?<!` (which RE2 rejects).
std::string RewriteNamedGroups(std::string_view pattern);

// Compiles `pattern` (after RewriteNamedGroups) with at most `max_memory`
// bytes for its programs. Returns InvalidArgument with a message that
// quotes RE2's reason (`invalid regular expression: missing ): (ab`) or
// says the pattern needs more memory than allowed. Never logs.
absl::StatusOr<std::shared_ptr<const re2::RE2>> CompilePattern(
    std::string_view pattern, int64_t max_memory);

// If `pattern` matches exactly the lines that contain one fixed text (no
// metacharacters; `\.`-style escapes of punctuation allowed), returns that
// text, so that a plain substring search can stand in for the regex.
std::optional<std::string> LiteralPattern(std::string_view pattern);

}  // namespace mapr::parser

#endif  // MAPR_PARSER_REGEX_H_
