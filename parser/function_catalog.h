// The catalog of functions a `set` clause can call, as in DTail: their names
// and kinds. The planner resolves names here; runtime/functions.h applies
// them. One table (kFunctions) is the only list of function names: the
// planner's lookup, the "known functions" hints and `mapr --help` read it.
//
//   md5sum(s)      the lowercase hex MD5 of the bytes of s (32 bytes)
//   maskdigits(s)  s with every ASCII digit 0-9 replaced by '.' (same size)
//   regex(s, 're') the text of capture group 1 of the first match of the RE2
//                  pattern in s (the whole match if it has no group);
//                  missing when nothing matches
//   time(x)        epoch seconds of a timestamp in a fixed layout
//   time(x, 'fmt') epoch seconds of a timestamp in a strftime layout
//   bucket(x, 5m)  the start of x's time bucket, in x's own layout
//   bucket(x, 100) the start of x's numeric bin
//                  (runtime/time_functions.h has the layouts and rules)
//   duration(x)    seconds of a duration such as 1.5s, 18ms, 1h2m
//   bytes(x)       bytes of a size such as 10KB, 1.5MiB
//                  (runtime/unit_functions.h)
//   lower(x), upper(x)   ASCII letters in lower or upper case
//   len(x)         the length of x in bytes
//   substr(x, start, len), split(x, 'sep', i)   a part of x (1-based)
//   format_time(t, 'layout')  a time (epoch seconds, or a fixed layout)
//                  written in a strftime layout, in UTC
//   coalesce(a, b, ...)  the first value that is not missing (set
//                  expressions only, beside + - * /)
//
// Calls nest (`maskdigits(md5sum($line))`) and are applied innermost first.
#ifndef MAPR_PARSER_FUNCTION_CATALOG_H_
#define MAPR_PARSER_FUNCTION_CATALOG_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mapr::plan {

enum class FunctionKind : uint8_t {
  kMd5Sum,
  kMaskDigits,
  kRegex,
  kTime,
  kBucket,
  kDuration,
  kBytes,
  kLower,
  kUpper,
  kLen,
  kSubstr,
  kSplit,
  kCoalesce,
  kFormatTime,
};

struct FunctionInfo {
  std::string_view name;  // As written in a query (case-sensitive).
  FunctionKind kind;
  std::string_view summary;  // One line for --help and the docs.
  // How a call is written, e.g. "regex(x, 're')".
  std::string_view usage;
  // Literal arguments after the value: regex takes its pattern.
  uint8_t extra_args = 0;
  // Further literal arguments a call may leave out: time's layout.
  uint8_t optional_args = 0;
};

// Every function, in the order `mapr --help` lists them.
std::span<const FunctionInfo> Functions() noexcept;

// Returns the function called `name`, or std::nullopt if there is none.
// Names are case-sensitive, as in DTail: "md5sum", "maskdigits".
std::optional<FunctionKind> LookupFunction(std::string_view name) noexcept;

// Returns the catalog entry of `kind`.
const FunctionInfo& GetFunctionInfo(FunctionKind kind) noexcept;

// Returns the name LookupFunction() accepts for `kind` (a static string).
std::string_view FunctionName(FunctionKind kind) noexcept;

}  // namespace mapr::plan

#endif  // MAPR_PARSER_FUNCTION_CATALOG_H_
