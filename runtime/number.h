// mapr's numeric rule: deciding whether a field value is a number, and which.
//
// Float operators in WHERE, and the sum/avg/min/max aggregates, only use a
// value that is numeric. DTail decides that with Go's strconv.ParseFloat;
// mapr keeps Go's decimal syntax and its special values but drops the exotic
// forms (hex floats, `_` digit separators) that no log writer emits.
//
// Example:
//
//   double v;
//   if (mapr::runtime::ParseNumber("12.5", &v)) {
//     sum += v;  // v == 12.5
//   }
//   mapr::runtime::IsNumeric("0x10");  // false
#ifndef MAPR_RUNTIME_NUMBER_H_
#define MAPR_RUNTIME_NUMBER_H_

#include <string_view>

namespace mapr::runtime {

// Parses `s` under mapr's numeric rule. Returns true and stores the value in
// `*out` if `s` is numeric; returns false and leaves `*out` unchanged if not.
//
// `s` is numeric iff the whole of it (no surrounding spaces) is one of:
//
//   * a decimal float: an optional sign (`+` or `-`), then digits with an
//     optional `.` somewhere (at least one digit in all: `5.`, `.5`, `00012`
//     are numeric, `.` is not), then an optional exponent `e`/`E` with an
//     optional sign and at least one digit (`1e3`, `1E-3`; not `1e`, `e5`);
//   * `inf` or `infinity` in any case, with an optional sign (gives +/-Inf);
//   * `nan` in any case, WITHOUT a sign (gives a quiet NaN). Go's ParseFloat
//     rejects `+nan` and `-nan`, and so does mapr.
//
// Not numeric: the empty string, hex (`0x10`, `0x1p4`), underscores
// (`1_000`), `1,5`, `nan(123)`, two signs (`+-5`), trailing junk, and decimal
// values whose magnitude overflows a double (`1e309`, `-1e400`; Go returns a
// range error for them). A value that underflows is numeric, exactly as in
// Go: `1e-400` gives 0 (`-1e-400` gives -0) and `3e-324` the smallest denormal.
//
// The result is correctly rounded (round half to even), the same double Go
// returns; `-0` gives negative zero.
//
// Never allocates. Thread-safe. Small integers and short decimals such as
// `200` or `0.125` take a fast path that does not call std::from_chars.
bool ParseNumber(std::string_view s, double* out) noexcept;

// Returns true iff ParseNumber(s) would succeed.
inline bool IsNumeric(std::string_view s) noexcept {
  double ignored;
  return ParseNumber(s, &ignored);
}

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_NUMBER_H_
