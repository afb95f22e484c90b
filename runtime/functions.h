// Text kernels of the functions that `set` and `where` call (each function
// is a file of runtime/functions/, which applies these to a batch): MD5,
// digit masking, substrings, split pieces and regex extraction. None
// allocates.
//
// Example:
//   char out[kMd5HexSize];
//   Md5Hex(value, out);  // 32 lowercase hex digits
//
// All functions here are thread-safe.
#ifndef MAPR_RUNTIME_FUNCTIONS_H_
#define MAPR_RUNTIME_FUNCTIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace re2 {
class RE2;
}  // namespace re2

namespace mapr::runtime {

// Size in bytes of the hex MD5 digest that md5sum() produces.
inline constexpr size_t kMd5HexSize = 32;

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
