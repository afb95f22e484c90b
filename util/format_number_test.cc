#include "util/format_number.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "util/number.h"

namespace mapr::util {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMax = std::numeric_limits<double>::max();
constexpr double kMinDenormal = std::numeric_limits<double>::denorm_min();
constexpr double kTwo63 = 9223372036854775808.0;

struct FormatCase {
  double input;
  std::string want;
};

uint64_t Bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

double FromBits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

// DBL_MAX printed exactly, as Go's %f does.
constexpr std::string_view kMaxFixed =
    "17976931348623157081452742373170435679807056752584499659891747680315726078"
    "00285387605895586327668781715404589535143824642343213268894641827684675467"
    "03537516986049910576551282076245490090389328944075868508455133942304583236"
    "90322294816580855933212334827479782620414472316873817718091929988125040402"
    "6184124858368.000000";

TEST(FormatGoFloatTest, PrintsSixDecimals) {
  const FormatCase kCases[] = {
      {0.0, "0.000000"},
      {1.0, "1.000000"},
      {14.0, "14.000000"},
      {-7.5, "-7.500000"},
      {0.1, "0.100000"},
      {0.3, "0.300000"},
      {4.35, "4.350000"},
      {2.675, "2.675000"},
      {1e-6, "0.000001"},
      {15.0, "15.000000"},
      {6941.0 / 597.0, "11.626466"},
      {123456789.123456789, "123456789.123457"},
  };
  for (const FormatCase& c : kCases) {
    EXPECT_EQ(FormatGoFloat(c.input), c.want) << c.input;
  }
}

TEST(FormatGoFloatTest, RoundsHalfToEvenFromTheExactBinaryValue) {
  const FormatCase kCases[] = {
      {0.0078125, "0.007812"},  // exact tie, previous digit even: down
      {0.0234375, "0.023438"},  // exact tie, previous digit odd: up
      {0.0000005, "0.000000"},  // binary value is just below the tie
      {0.0000015, "0.000002"},  // binary value is just above the tie
      {2.5e-7, "0.000000"},
      {1.0000005, "1.000001"},
      {3.0000005, "3.000001"},
      {0.9999995, "1.000000"},
      {999999.9999995, "999999.999999"},
  };
  for (const FormatCase& c : kCases) {
    EXPECT_EQ(FormatGoFloat(c.input), c.want) << c.input;
  }
}

TEST(FormatGoFloatTest, NeverUsesAnExponent) {
  const FormatCase kCases[] = {
      {1e20, "100000000000000000000.000000"},
      {1e22, "10000000000000000000000.000000"},
      {1e23, "99999999999999991611392.000000"},
      {kTwo63, "9223372036854775808.000000"},
      {-1e20, "-100000000000000000000.000000"},
      {kMax, std::string(kMaxFixed)},
      {kMinDenormal, "0.000000"},
      {2.2250738585072014e-308, "0.000000"},
  };
  for (const FormatCase& c : kCases) {
    EXPECT_EQ(FormatGoFloat(c.input), c.want) << c.input;
  }
  EXPECT_EQ(FormatGoFloat(-kMax), "-" + std::string(kMaxFixed));
}

TEST(FormatGoFloatTest, KeepsTheSignOfNegativeZero) {
  EXPECT_EQ(FormatGoFloat(-0.0), "-0.000000");
  EXPECT_EQ(FormatGoFloat(-1e-9), "-0.000000");
  EXPECT_EQ(FormatGoFloat(-kMinDenormal), "-0.000000");
}

TEST(FormatGoFloatTest, PrintsSpecialValuesLikeGo) {
  EXPECT_EQ(FormatGoFloat(kNaN), "NaN");
  EXPECT_EQ(FormatGoFloat(-kNaN), "NaN");
  EXPECT_EQ(FormatGoFloat(FromBits(0x7ff0000000000001)), "NaN");  // signaling
  EXPECT_EQ(FormatGoFloat(FromBits(0xfff8000000000000)), "NaN");  // negative
  EXPECT_EQ(FormatGoFloat(kInf), "+Inf");
  EXPECT_EQ(FormatGoFloat(-kInf), "-Inf");
}

TEST(FormatGoFloatTest, AppendKeepsExistingContents) {
  std::string out = "x=";
  AppendGoFloat(1.5, &out);
  out += ',';
  AppendGoFloat(kInf, &out);
  out += ',';
  AppendGoFloat(kNaN, &out);
  EXPECT_EQ(out, "x=1.500000,+Inf,NaN");
}

// The whole-number fast path prints what the general %f path prints, at
// and around its 2^53 edge and for random magnitudes.
TEST(FormatGoFloatTest, WholeNumberFastPathMatchesTheGeneralPath) {
  auto general = [](double v) {
    char buf[352];
    auto r =
        std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 6);
    return std::string(buf, r.ptr);
  };
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                10.0,
                                999999.0,
                                9007199254740991.0,
                                -9007199254740991.0,
                                9007199254740992.0,
                                9007199254740994.0,
                                1e17,
                                -1e300,
                                0.5,
                                -0.5,
                                2.5e-7};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const int scale = static_cast<int>(rng() % 60);
    double v = std::ldexp(static_cast<double>(rng() >> 11), scale - 53);
    if (rng() % 2 == 0) v = std::trunc(v);
    values.push_back(rng() % 2 == 0 ? v : -v);
  }
  for (double v : values) {
    ASSERT_EQ(FormatGoFloat(v), general(v)) << v;
  }
}

TEST(FormatGoIntTest, TruncatesTowardZero) {
  const FormatCase kCases[] = {
      {0.0, "0"},
      {-0.0, "0"},
      {3.0, "3"},
      {3.9, "3"},
      {-3.9, "-3"},
      {-0.5, "0"},
      {0.999999, "0"},
      {597.0, "597"},
      {1e18, "1000000000000000000"},
      {9223372036854774784.0, "9223372036854774784"},  // largest below 2^63
      {-kTwo63, "-9223372036854775808"},
  };
  for (const FormatCase& c : kCases) {
    EXPECT_EQ(FormatGoInt(c.input), c.want) << c.input;
  }
}

TEST(FormatGoIntTest, MapsUnrepresentableValuesToInt64MinLikeAmd64) {
  for (double v : {kNaN, -kNaN, kInf, -kInf, kTwo63, -kTwo63 * 2, 1e19, -1e19,
                   1e300, -1e300, kMax}) {
    EXPECT_EQ(FormatGoInt(v), "-9223372036854775808") << v;
    EXPECT_EQ(GoInt64FromDouble(v), std::numeric_limits<int64_t>::min()) << v;
  }
}

TEST(FormatGoIntTest, AppendKeepsExistingContents) {
  std::string out = "count=";
  AppendGoInt(42.7, &out);
  EXPECT_EQ(out, "count=42");
}

TEST(FormatShortestFloatTest, PrintsShortestRoundTripDigits) {
  const FormatCase kCases[] = {
      {0.0, "0"},
      {1.0, "1"},
      {2.0, "2"},
      {100.0, "100"},
      {-7.5, "-7.5"},
      {0.1, "0.1"},
      {0.3, "0.3"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1.0 / 3.0, "0.3333333333333333"},
      {123456.789, "123456.789"},
      {1234.5, "1234.5"},
      {6941.0 / 597.0, "11.626465661641541"},
      {1e-7, "0.0000001"},
      {1.5e-10, "0.00000000015"},
      {-2.5e-3, "-0.0025"},
      {9007199254740993.0, "9007199254740992"},
  };
  for (const FormatCase& c : kCases) {
    EXPECT_EQ(FormatShortestFloat(c.input), c.want) << c.input;
  }
}

// std::to_chars' fixed shortest mode would print 1e23 as
// "99999999999999991611392"; Go prints the shortest digits padded with zeros.
TEST(FormatShortestFloatTest, PadsLargeValuesWithZerosLikeGo) {
  const FormatCase kCases[] = {
      {1e20, "100000000000000000000"},
      {1e21, "1000000000000000000000"},
      {1e23, "100000000000000000000000"},
      {-1e23, "-100000000000000000000000"},
      {kTwo63, "9223372036854776000"},  // 16 shortest digits, then zeros
      {1152921504606846976.0, "1152921504606847000"},  // 2^60
      {1.5e300, "15" + std::string(299, '0')},
      {kMax, "17976931348623157" + std::string(292, '0')},
  };
  for (const FormatCase& c : kCases) {
    EXPECT_EQ(FormatShortestFloat(c.input), c.want) << c.input;
  }
}

TEST(FormatShortestFloatTest, PrintsTinyValuesWithoutExponent) {
  EXPECT_EQ(FormatShortestFloat(kMinDenormal),
            "0." + std::string(323, '0') + "5");
  EXPECT_EQ(FormatShortestFloat(-kMinDenormal),
            "-0." + std::string(323, '0') + "5");
  EXPECT_EQ(FormatShortestFloat(2.2250738585072014e-308),
            "0." + std::string(307, '0') + "22250738585072014");
}

TEST(FormatShortestFloatTest, PrintsSpecialValuesLikeGo) {
  EXPECT_EQ(FormatShortestFloat(-0.0), "-0");
  EXPECT_EQ(FormatShortestFloat(kNaN), "NaN");
  EXPECT_EQ(FormatShortestFloat(-kNaN), "NaN");
  EXPECT_EQ(FormatShortestFloat(kInf), "+Inf");
  EXPECT_EQ(FormatShortestFloat(-kInf), "-Inf");
}

TEST(FormatShortestFloatTest, AppendKeepsExistingContents) {
  std::string out = "[";
  AppendShortestFloat(0.5, &out);
  out += ',';
  AppendShortestFloat(-kInf, &out);
  out += ']';
  EXPECT_EQ(out, "[0.5,-Inf]");
}

// ParseNumber(FormatShortestFloat(v)) gives back exactly v, for random bit
// patterns (all exponents) and for random values of log-like magnitude.
TEST(FormatShortestFloatTest, RoundTripsThroughParseNumber) {
  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<double> small(-1e6, 1e6);
  for (int i = 0; i < 20000; ++i) {
    const double v = (i % 2 == 0) ? FromBits(rng()) : small(rng);
    if (std::isnan(v)) continue;
    const std::string text = FormatShortestFloat(v);
    double parsed = 0.0;
    ASSERT_TRUE(ParseNumber(text, &parsed)) << text;
    ASSERT_EQ(Bits(parsed), Bits(v)) << text;
    EXPECT_EQ(text.find_first_of("eE"), std::string::npos) << text;
  }
  double parsed = 0.0;
  ASSERT_TRUE(ParseNumber(FormatShortestFloat(kNaN), &parsed));
  EXPECT_TRUE(std::isnan(parsed));
}

// AppendGoFloat agrees with ParseNumber: the six-decimal text is within half a
// unit of the sixth decimal of the value (plus the parse's own rounding).
TEST(FormatGoFloatTest, StaysWithinHalfAMicroOfTheValue) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  for (int i = 0; i < 20000; ++i) {
    const double v = dist(rng);
    const std::string text = FormatGoFloat(v);
    ASSERT_EQ(text.size() - text.find('.'), 7u) << text;
    double parsed = 0.0;
    ASSERT_TRUE(ParseNumber(text, &parsed)) << text;
    EXPECT_LE(std::fabs(parsed - v), 5e-7 + 2e-10) << text;
  }
}

}  // namespace
}  // namespace mapr::util
