#include "runtime/arithmetic.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace mapr::runtime {
namespace {

std::string Calc(std::string_view a, char op, std::string_view b) {
  const ArithmeticOp o = op == '+'   ? ArithmeticOp::kAdd
                         : op == '-' ? ArithmeticOp::kSubtract
                         : op == '*' ? ArithmeticOp::kMultiply
                                     : ArithmeticOp::kDivide;
  char out[kMaxArithmeticTextSize];
  size_t size = 0;
  switch (Arithmetic(o, a, b, out, &size)) {
    case ArithmeticOutcome::kOk:
      return std::string(out, size);
    case ArithmeticOutcome::kNotANumber:
      return "<nan>";
    case ArithmeticOutcome::kDivisionByZero:
      return "<div0>";
  }
  return "?";
}

TEST(ArithmeticTest, DecimalsAreExact) {
  EXPECT_EQ(Calc("0.1", '+', "0.2"), "0.3");
  EXPECT_EQ(Calc("1.50", '+', "1"), "2.5");
  EXPECT_EQ(Calc("1700000000123", '-', "1700000000000"), "123");
  EXPECT_EQ(Calc("3", '-', "5"), "-2");
  EXPECT_EQ(Calc("-0.5", '+', "0.5"), "0");
  EXPECT_EQ(Calc("1.5", '*', "2"), "3");
  EXPECT_EQ(Calc("0.1", '*', "0.1"), "0.01");
  EXPECT_EQ(Calc("12345678901234567890", '*', "1000"),
            "12345678901234567890000");
  EXPECT_EQ(Calc("99999999999999999999999999999999999", '+', "1"),
            "100000000000000000000000000000000000");
  EXPECT_EQ(Calc("+7", '-', "-3"), "10");
  EXPECT_EQ(Calc("5.", '*', ".5"), "2.5");
}

TEST(ArithmeticTest, TerminatingQuotientsAreExact) {
  EXPECT_EQ(Calc("1", '/', "8"), "0.125");
  EXPECT_EQ(Calc("10", '/', "4"), "2.5");
  EXPECT_EQ(Calc("-9", '/', "3"), "-3");
  EXPECT_EQ(Calc("1", '/', "-0.05"), "-20");
  EXPECT_EQ(Calc("0.3", '/', "0.1"), "3");
  EXPECT_EQ(Calc("7", '/', "1024"), "0.0068359375");
  EXPECT_EQ(Calc("0", '/', "7"), "0");
}

TEST(ArithmeticTest, OthersGoThroughDoubles) {
  EXPECT_EQ(Calc("1", '/', "3"), "0.3333333333333333");
  EXPECT_EQ(Calc("2", '/', "3"), "0.6666666666666666");
  EXPECT_EQ(Calc("1e3", '+', "1"), "1001");
  EXPECT_EQ(Calc("2.5E-3", '*', "2"), "0.005");
  // Beyond 128 bits.
  EXPECT_EQ(Calc("99999999999999999999999999999999999", '*',
                 "99999999999999999999999999999999999"),
            "9.999999999999999e+69");
  EXPECT_EQ(Calc("-0", '*', "1e3"), "0");
}

TEST(ArithmeticTest, NonNumbersAndZeroDivisors) {
  EXPECT_EQ(Calc("abc", '+', "1"), "<nan>");
  EXPECT_EQ(Calc("1", '+', ""), "<nan>");
  EXPECT_EQ(Calc("18ms", '*', "2"), "<nan>");
  EXPECT_EQ(Calc("1", '/', "0"), "<div0>");
  EXPECT_EQ(Calc("1", '/', "0.000"), "<div0>");
  EXPECT_EQ(Calc("1", '/', "0e5"), "<div0>");
  EXPECT_EQ(Calc("1.2.3", '+', "1"), "<nan>");
}

}  // namespace
}  // namespace mapr::runtime
