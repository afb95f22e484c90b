// Number rendering that matches Go byte for byte.
//
// DTail renders aggregate results with Go's fmt package: `count` with `%d` of
// the value converted to int, every other numeric aggregate with `%f`. mapr's
// terminal, CSV and golden outputs must be byte-identical, so these functions
// reproduce Go's output exactly, including NaN, infinities and negative zero.
// FormatShortestFloat is the lossless form used where a value must survive a
// round trip (serialized partials, JSON).
//
// Example:
//
//   std::string row;
//   mapr::runtime::AppendGoInt(3.9, &row);     // "3"
//   row += ',';
//   mapr::runtime::AppendGoFloat(14, &row);    // "3,14.000000"
//   mapr::runtime::FormatShortestFloat(0.1);   // "0.1"
//
// All functions are thread-safe and never fail. The Append* forms append to
// `*out` without touching its existing contents.
#ifndef MAPR_UTIL_FORMAT_NUMBER_H_
#define MAPR_UTIL_FORMAT_NUMBER_H_

#include <cstdint>
#include <string>

namespace mapr::util {

// Appends Go's `fmt.Sprintf("%f", v)`: fixed notation with exactly six
// decimals, correctly rounded (half to even) from the exact binary value, and
// never an exponent (1e20 gives "100000000000000000000.000000"). Special
// values: any NaN gives "NaN", infinities give "+Inf" and "-Inf". The sign of
// negative zero and of negative values that round to zero is kept, as in Go:
// -0.0 and -1e-9 both give "-0.000000".
void AppendGoFloat(double v, std::string* out);
std::string FormatGoFloat(double v);

// Returns Go's `int64(v)` on amd64: `v` truncated toward zero when it lies in
// [-2^63, 2^63). NaN, infinities and every other out-of-range value give
// INT64_MIN (-9223372036854775808), the "integer indefinite" result of amd64's
// CVTTSD2SQ that Go on amd64 produces. (Go's spec leaves these conversions
// implementation-defined; arm64 saturates instead. mapr picks amd64's answer
// so that output never depends on the host.)
int64_t GoInt64FromDouble(double v) noexcept;

// Appends Go's `fmt.Sprintf("%d", int(v))`, i.e. GoInt64FromDouble(v) as a
// decimal integer: 3.9 gives "3", -3.9 gives "-3", -0.5 gives "0".
void AppendGoInt(double v, std::string* out);
std::string FormatGoInt(double v);

// Appends Go's `strconv.FormatFloat(v, 'f', -1, 64)`: the shortest decimal that
// parses back to exactly `v` (ties broken toward the closest to `v`), written
// without an exponent: 0.1 gives "0.1", 1e23 gives
// "100000000000000000000000", 5e-324 gives "0.000...0005" (323 zeros after the
// point), 2.0 gives "2", -0.0 gives "-0". Special values: "NaN", "+Inf",
// "-Inf". ParseNumber() of the result gives back `v` (any NaN for "NaN").
void AppendShortestFloat(double v, std::string* out);
std::string FormatShortestFloat(double v);

}  // namespace mapr::util

#endif  // MAPR_UTIL_FORMAT_NUMBER_H_
