// + - * / of set expressions (docs/query-language.md, "Arithmetic").
//
// Values are text, as every field. Two plain decimals (`12`, `-0.25`, up to
// 36 significant digits) are combined exactly in 128-bit integers: a sum,
// difference or product of decimals is a decimal, and a quotient is one
// when it terminates (1 / 8 = 0.125). Anything else that reads as a number
// (an exponent, a non-terminating quotient such as 1 / 3, a result beyond
// 128 bits) is computed in doubles. Exact results are written as plain
// decimals without trailing zeros (1.50 + 1 = 2.5); doubles in the shortest
// text that reads back as the same double.
#ifndef MAPR_RUNTIME_ARITHMETIC_H_
#define MAPR_RUNTIME_ARITHMETIC_H_

#include <cstddef>
#include <string_view>

namespace mapr::runtime {

enum class ArithmeticOp : unsigned char { kAdd, kSubtract, kMultiply, kDivide };

// Longest text Arithmetic writes.
inline constexpr size_t kMaxArithmeticTextSize = 96;

enum class ArithmeticOutcome : unsigned char {
  kOk,
  kNotANumber,      // an operand does not read as a number
  kDivisionByZero,  // the divisor is 0
};

// Writes `a op b` to `out` and sets *size; or returns why it cannot.
ArithmeticOutcome Arithmetic(ArithmeticOp op, std::string_view a,
                             std::string_view b,
                             char out[kMaxArithmeticTextSize],
                             size_t* size) noexcept;

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_ARITHMETIC_H_
