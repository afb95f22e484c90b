// duration() and bytes(): numbers written with a unit, read as plain
// numbers (docs/query-language.md, "Units").
//
//   duration(x)  seconds of a Go/Prometheus duration: 1.5s, 18ms, 250us,
//                1h2m3.5s, -2m, 0 (units h m s ms us µs μs ns)
//   bytes(x)     bytes of a size: 512, 10KB, 1.5MiB, 2 GB (K M G T P E:
//                powers of 1000, Ki Mi Gi Ti Pi Ei: powers of 1024; the
//                letters in any case, the trailing B optional)
//
// Both are exact: the text is read as decimal digits and scaled in 128-bit
// integers, and the result is written as a plain decimal without trailing
// zeros (18ms gives 0.018, 1.5MiB gives 1572864). A value that is not such a
// text, or whose result does not fit, gives no result (0).
#ifndef MAPR_RUNTIME_UNIT_FUNCTIONS_H_
#define MAPR_RUNTIME_UNIT_FUNCTIONS_H_

#include <cstddef>
#include <string_view>

namespace mapr::runtime {

// Longest text ReadDuration and ReadByteSize write.
inline constexpr size_t kMaxUnitTextSize = 64;

// duration(in): writes the seconds `in` spells to `out` and returns the
// size written, or 0 if `in` is not a duration.
size_t ReadDuration(std::string_view in, char out[kMaxUnitTextSize]) noexcept;

// bytes(in): writes the bytes `in` spells to `out` and returns the size
// written, or 0 if `in` is not a size.
size_t ReadByteSize(std::string_view in, char out[kMaxUnitTextSize]) noexcept;

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_UNIT_FUNCTIONS_H_
