#include "util/sketch_math.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace mapr::util {
namespace {

TEST(PortableLogTest, AgreesWithLibm) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> exponent(-300, 300);
  for (int i = 0; i < 100000; ++i) {
    const double x = std::pow(10.0, exponent(rng));
    // Within two units in the last place of libm's.
    EXPECT_NEAR(PortableLog(x), std::log(x),
                4.5e-16 * std::fabs(std::log(x)) + 2.3e-16)
        << x;
  }
  EXPECT_EQ(PortableLog(1.0), 0.0);
}

TEST(QuantileMappingTest, EveryValueIsWithinTheAccuracyOfItsBucket) {
  for (double accuracy : {0.01, 0.001, 0.05}) {
    const QuantileMapping m(accuracy);
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> exponent(-320, 308);
    for (int i = 0; i < 200000; ++i) {
      const double v = std::pow(10.0, exponent(rng));
      if (!(v > 0) || !std::isfinite(v)) continue;
      const double rep = m.Value(m.Index(v));
      EXPECT_LE(std::fabs(rep - v), accuracy * v * (1 + 1e-12)) << v;
    }
    // Powers of two, the bucket edges, the extremes.
    for (double v :
         {0x1p-1074, 0x1p-1022, 1.0, 2.0, 1.5, 0.75, 1.7976931348623157e308}) {
      const double rep = m.Value(m.Index(v));
      EXPECT_LE(std::fabs(rep - v), accuracy * v * (1 + 1e-12)) << v;
    }
  }
}

TEST(QuantileMappingTest, IndexIsMonotoneAndBounded) {
  const QuantileMapping m(0.01);
  EXPECT_NEAR(m.multiplier(), 3.0 / (4.0 * std::log(1.01 / 0.99)), 1e-12);
  EXPECT_LT(m.min_index(), -40000);
  EXPECT_GT(m.max_index(), 38000);
  std::mt19937_64 rng(3);
  std::vector<double> values;
  for (int i = 0; i < 100000; ++i) {
    values.push_back(
        std::exp(std::uniform_real_distribution<double>(-50, 50)(rng)));
  }
  std::sort(values.begin(), values.end());
  for (size_t i = 1; i < values.size(); ++i) {
    EXPECT_LE(m.Index(values[i - 1]), m.Index(values[i]));
  }
  for (double v = 1; v < 1e6; v *= 1.0001) {
    const int32_t i = m.Index(v);
    ASSERT_GE(i, m.min_index());
    ASSERT_LE(i, m.max_index());
  }
}

TEST(HyperLogLogTest, SlotSplitsTheHash) {
  size_t index;
  uint8_t value;
  HllSlot(0, &index, &value);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(value, 51);
  HllSlot(~uint64_t{0}, &index, &value);
  EXPECT_EQ(index, kHllRegisters - 1);
  EXPECT_EQ(value, 1);
  HllSlot((uint64_t{5} << 50) | (uint64_t{1} << 40), &index, &value);
  EXPECT_EQ(index, 5u);
  EXPECT_EQ(value, 10);
}

TEST(HyperLogLogTest, EstimateIsWithinTwoAndAHalfPercent) {
  std::vector<uint8_t> registers(kHllRegisters);
  EXPECT_EQ(HllEstimate(registers.data()), 0.0);
  std::mt19937_64 rng(4);
  uint64_t n = 0;
  for (uint64_t target : {100u, 1000u, 10000u, 100000u, 1000000u, 10000000u}) {
    for (; n < target; ++n) {
      size_t index;
      uint8_t value;
      HllSlot(rng(), &index, &value);
      if (value > registers[index]) registers[index] = value;
    }
    const double estimate = HllEstimate(registers.data());
    EXPECT_NEAR(estimate, static_cast<double>(n),
                0.025 * static_cast<double>(n))
        << n;
  }
}

}  // namespace
}  // namespace mapr::util
