#include "util/decimal.h"

#include <string_view>

#include "gtest/gtest.h"

namespace mapr::util {
namespace {

TEST(DecimalTest, PrefixStopsAtTheFirstOtherByte) {
  size_t i = 0;
  int128 m;
  int scale;
  ASSERT_TRUE(ReadDecimalPrefix("12.50ms", &i, 36, &m, &scale));
  EXPECT_EQ(i, 5u);
  EXPECT_TRUE(m == 1250);
  EXPECT_EQ(scale, 2);
  i = 0;
  EXPECT_FALSE(ReadDecimalPrefix("ms", &i, 36, &m, &scale));
  i = 0;
  EXPECT_FALSE(ReadDecimalPrefix("1.2.3", &i, 36, &m, &scale));
  i = 0;
  EXPECT_FALSE(ReadDecimalPrefix(".", &i, 36, &m, &scale));
}

TEST(DecimalTest, LimitsCountSignificantDigitsAndDecimals) {
  int128 m;
  int scale;
  // 18 significant digits after any number of leading zeros.
  EXPECT_TRUE(ReadPlainDecimal("000999999999999999999", 18, &m, &scale));
  EXPECT_FALSE(ReadPlainDecimal("1999999999999999999", 18, &m, &scale));
  EXPECT_TRUE(ReadPlainDecimal("0.000000000000000001", 18, &m, &scale));
  EXPECT_TRUE(m == 1);
  EXPECT_EQ(scale, 18);
  EXPECT_FALSE(ReadPlainDecimal("0.0000000000000000001", 18, &m, &scale));
}

TEST(DecimalTest, WholeValueWithASign) {
  int128 m;
  int scale;
  ASSERT_TRUE(ReadPlainDecimal("-0.25", 36, &m, &scale));
  EXPECT_TRUE(m == -25);
  EXPECT_EQ(scale, 2);
  ASSERT_TRUE(ReadPlainDecimal("+5.", 36, &m, &scale));
  EXPECT_TRUE(m == 5);
  EXPECT_EQ(scale, 0);
  ASSERT_TRUE(ReadPlainDecimal(".5", 36, &m, &scale));
  EXPECT_TRUE(m == 5);
  EXPECT_EQ(scale, 1);
  for (std::string_view bad :
       {"", "-", "+", "1e3", " 1", "1 ", "--1", "0x1", "1,5"}) {
    EXPECT_FALSE(ReadPlainDecimal(bad, 36, &m, &scale)) << bad;
  }
}

}  // namespace
}  // namespace mapr::util
