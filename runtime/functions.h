// The implementations of the functions a `set` clause can call (their names
// and kinds are in parser/function_catalog.h):
//
//   md5sum(s)      the lowercase hex MD5 of the bytes of s (32 bytes)
//   maskdigits(s)  s with every ASCII digit 0-9 replaced by '.' (same size)
//
// Calls nest (`maskdigits(md5sum($line))`) and are applied innermost first.
// Every function writes a result whose size depends only on the input size
// (FunctionOutputSize), so the caller can reserve the bytes up front, e.g. in
// a runtime::Arena, and no function allocates.
//
// Example:
//
//   std::optional<FunctionKind> kind = plan::LookupFunction("md5sum");
//   char* out = arena.Allocate(FunctionOutputSize(*kind, value.size()));
//   ApplyFunction(*kind, value, out);
//   std::string_view result(out, FunctionOutputSize(*kind, value.size()));
//
// All functions here are thread-safe.
#ifndef MAPR_RUNTIME_FUNCTIONS_H_
#define MAPR_RUNTIME_FUNCTIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "parser/function_catalog.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace mapr::runtime {

using plan::FunctionKind;

// Size in bytes of the hex MD5 digest that md5sum() produces.
inline constexpr size_t kMd5HexSize = 32;

// Returns the size of the result of `kind` applied to `input_size` bytes:
// kMd5HexSize for kMd5Sum, `input_size` for kMaskDigits. (kRegex needs its
// pattern: RegexExtract applies it; kTime and kBucket need a TimeReader:
// runtime/time_functions.h; here they count as a copy.)
size_t FunctionOutputSize(FunctionKind kind, size_t input_size) noexcept;

// Writes `kind` applied to `in` into out[0, FunctionOutputSize(kind,
// in.size())). REQUIRES: `out` has room for that many bytes. For kMaskDigits
// `out` may be `in.data()` (in-place); for kMd5Sum it must not overlap `in`.
void ApplyFunction(FunctionKind kind, std::string_view in, char* out) noexcept;

// Writes the MD5 digest (RFC 1321) of the bytes of `in` as 32 lowercase hex
// characters to out[0, 32). No terminating NUL is written.
// REQUIRES: `out` does not overlap `in`.
void Md5Hex(std::string_view in, char out[kMd5HexSize]) noexcept;

// Copies `in` to out[0, in.size()) with every ASCII digit '0'-'9' replaced by
// '.'. All other bytes, including non-ASCII digits, are copied unchanged.
// `out` may be `in.data()` (in-place); no other overlap is allowed.
void MaskDigits(std::string_view in, char* out) noexcept;

// substr(s, start, length): the bytes of `in` from `start` (1-based; a
// negative start counts from the end, -1 is the last byte), `length` of
// them or, if length < 0, to the end; clamped to the value (never
// missing). A view into `in`.
std::string_view Substr(std::string_view in, int64_t start,
                        int64_t length) noexcept;

// split(s, 'sep', i): piece `piece` of `in` cut at every `separator`
// (1-based; negative counts from the end, -1 is the last piece); a missing
// view (data() == nullptr) if there are fewer pieces. A view into `in`.
// REQUIRES: separator is not empty, piece != 0.
std::string_view SplitPiece(std::string_view in, std::string_view separator,
                            int64_t piece) noexcept;

// regex(s, 're'): the part of `in` that capture group 1 of the first match
// of `re` covers, or the whole match when `re` has no group; a missing view
// (data() == nullptr) when nothing matches or group 1 took no part in the
// match. The result points into `in`.
std::string_view RegexExtract(const re2::RE2& re, std::string_view in) noexcept;

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_FUNCTIONS_H_
