#include "util/number.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "tests/testing/allocation_counter.h"

namespace mapr::util {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct NumericCase {
  std::string_view input;
  double want;
};

// Compares bit patterns so that -0.0 and 0.0 differ.
uint64_t Bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

void ExpectParses(const NumericCase& c) {
  double got = 12345.0;
  ASSERT_TRUE(ParseNumber(c.input, &got)) << "input: \"" << c.input << "\"";
  EXPECT_EQ(Bits(got), Bits(c.want))
      << "input: \"" << c.input << "\" got " << got << " want " << c.want;
  EXPECT_TRUE(IsNumeric(c.input)) << "input: \"" << c.input << "\"";
}

void ExpectRejects(std::string_view input) {
  double got = 12345.0;
  EXPECT_FALSE(ParseNumber(input, &got)) << "input: \"" << input << "\"";
  EXPECT_EQ(got, 12345.0) << "output changed for \"" << input << "\"";
  EXPECT_FALSE(IsNumeric(input)) << "input: \"" << input << "\"";
}

bool IsDigitOrPoint(char c) { return (c >= '0' && c <= '9') || c == '.'; }

TEST(ParseNumberTest, AcceptsIntegers) {
  const NumericCase kCases[] = {
      {"0", 0.0},
      {"7", 7.0},
      {"200", 200.0},
      {"00012", 12.0},
      {"+5", 5.0},
      {"-5", -5.0},
      {"-0", -0.0},
      {"+0", 0.0},
      {"123456789012345", 123456789012345.0},    // 15 digits: fast path
      {"1234567890123456", 1234567890123456.0},  // 16 digits: slow path
      {"9007199254740993", 9007199254740992.0},  // 2^53 + 1 rounds to even
      {"18446744073709551616", 18446744073709551616.0},  // 2^64
      {"000000000000000000000001", 1.0},
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

TEST(ParseNumberTest, AcceptsDecimalFractions) {
  const NumericCase kCases[] = {
      {"1.5", 1.5},
      {"0.125", 0.125},
      {"12.345", 12.345},
      {"-12.345", -12.345},
      {".5", 0.5},
      {"-.5", -0.5},
      {"+.5", 0.5},
      {"5.", 5.0},
      {"-5.", -5.0},
      {"0.1", 0.1},
      {"0.3", 0.3},
      {"-0.0", -0.0},
      {"0.000", 0.0},
      {"123456.789012345", 123456.789012345},
      {"1.00000000000000000000000000001", 1.0},
      {"3.14159265358979323846264338327950288", 3.141592653589793},
      {"0.1000000000000000055511151231257827021181583404541015625", 0.1},
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

TEST(ParseNumberTest, AcceptsExponents) {
  const NumericCase kCases[] = {
      {"1e3", 1000.0},
      {"1E3", 1000.0},
      {"1e+3", 1000.0},
      {"1e-3", 0.001},
      {"-1e3", -1000.0},
      {"+1e3", 1000.0},
      {".5e1", 5.0},
      {"5.e1", 50.0},
      {"1e0", 1.0},
      {"1e00000000000000000000003", 1000.0},
      {"0e999999", 0.0},
      {"-0e5", -0.0},
      {"1e308", 1e308},
      {"1.7976931348623157e308", 1.7976931348623157e308},
      {"2.2250738585072014e-308", 2.2250738585072014e-308},
      {"0.0001e312", 1e308},
      {"100000e-5", 1.0},
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

TEST(ParseNumberTest, AcceptsInfinityInAnyCaseWithOptionalSign) {
  const NumericCase kCases[] = {
      {"inf", kInf},       {"Inf", kInf},        {"INF", kInf},
      {"+inf", kInf},      {"-inf", -kInf},      {"-Inf", -kInf},
      {"infinity", kInf},  {"Infinity", kInf},   {"INFINITY", kInf},
      {"+infinity", kInf}, {"-infinity", -kInf}, {"iNfInItY", kInf},
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

TEST(ParseNumberTest, AcceptsUnsignedNanInAnyCase) {
  for (std::string_view input : {"nan", "NaN", "NAN", "nAn"}) {
    double got = 0.0;
    ASSERT_TRUE(ParseNumber(input, &got)) << input;
    EXPECT_TRUE(std::isnan(got)) << input;
  }
}

// Go's strconv.ParseFloat accepts a sign only before inf/infinity.
TEST(ParseNumberTest, RejectsSignedNanLikeGo) {
  for (std::string_view input : {"+nan", "-nan", "-NaN", "+NAN"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsEmptyAndSignsAlone) {
  for (std::string_view input : {"", "+", "-", ".", "+.", "-.", "+-5", "-+5",
                                 "--5", "++5", "+-inf", "--inf", "+ 5"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsHexWithoutExponent) {
  for (std::string_view input : {"0x10", "0X10", "0xff", "-0x10", "+0x10"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsHexFloatWithExponent) {
  for (std::string_view input : {"0x1p4", "0x1P4", "-0x1p-2", "0x1.8p1"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsUnderscores) {
  for (std::string_view input : {"1_000", "_1", "1_", "1.0_0", "1e1_0"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsSurroundingWhitespace) {
  for (std::string_view input : {" 5", "5 ", " 5 ", "\t5", "5\n", "5\r", " inf",
                                 "nan ", "1.5 ", " -1e3"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsMalformedDecimals) {
  for (std::string_view input : {"1,5",   "1.2.3",
                                 "..5",   "1..5",
                                 "e5",    "E5",
                                 ".e5",   "1e",
                                 "1E",    "1e+",
                                 "1e-",   "1e5.0",
                                 "1ee5",  "1e5e5",
                                 "5a",    "a5",
                                 "12abc", "1.5x",
                                 "1/2",   "5%",
                                 "$5",    "1d",
                                 "1f",    "0b101",
                                 "0o17",  "\xd9\xa1\xd9\xa2"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsPartialOrDecoratedSpecialValues) {
  for (std::string_view input :
       {"in", "infin", "infinit", "infinityy", "infx", "inff", "na", "nanx",
        "nan(123)", "nan()", "NaN(0x1)", "-nan(1)", "+in", "-infinit",
        "information", "nano", "i", "n"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsOverflow) {
  for (std::string_view input :
       {"1e309", "1e400", "-1e400", "+1e400", "1.7976931348623159e308",
        "1e99999999999999999999999", "-1e99999999999999999999999",
        "0.00001e314", "99999999999999999999e300"}) {
    ExpectRejects(input);
  }
}

TEST(ParseNumberTest, RejectsOverflowWithVeryLongMantissa) {
  const std::string input = "1" + std::string(400, '0');
  ExpectRejects(input);
  ExpectRejects(std::string(400, '9') + ".5");
}

TEST(ParseNumberTest, AcceptsUnderflowAsZeroLikeGo) {
  const NumericCase kCases[] = {
      {"1e-400", 0.0},
      {"-1e-400", -0.0},
      {"+1e-400", 0.0},
      {"2e-324", 0.0},  // below half the smallest denormal
      {"1e-99999999999999999999999", 0.0},
      {"0.00000000000000000000000000000000000000001e-300", 0.0},
      {"1000e-330", 0.0},
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

TEST(ParseNumberTest, AcceptsDenormals) {
  const double kMinDenormal = std::numeric_limits<double>::denorm_min();
  const NumericCase kCases[] = {
      {"5e-324", kMinDenormal},
      {"3e-324", kMinDenormal},
      {"-4.9406564584124654e-324", -kMinDenormal},
      {"2.225073858507201e-308", 2.225073858507201e-308},
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

TEST(ParseNumberTest, AcceptsLongInputs) {
  // A long fraction whose digits run far past double precision.
  const std::string long_fraction = "0." + std::string(1000, '3');
  ExpectParses({long_fraction, 1.0 / 3.0});
  // Many leading zeros in front of a small number.
  const std::string leading_zeros = std::string(1000, '0') + "42";
  ExpectParses({leading_zeros, 42.0});
  const std::string tiny = "0." + std::string(1000, '0') + "1e1000";
  ExpectParses({tiny, 0.1});
}

TEST(ParseNumberTest, DoesNotReadPastTheView) {
  // Only "12" is in view; the following bytes must not be consumed.
  const char buffer[] = "12e5";
  ExpectParses({std::string_view(buffer, 2), 12.0});
  const char dot[] = "1.5";
  ExpectParses({std::string_view(dot, 2), 1.0});
  const char inf[] = "infinity";
  ExpectParses({std::string_view(inf, 3), kInf});
  ExpectRejects(std::string_view(inf, 5));
}

TEST(ParseNumberTest, RejectsEmbeddedNul) {
  ExpectRejects(std::string_view("1\0", 2));
  ExpectRejects(
      std::string_view("\0"
                       "1",
                       2));
}

// The fast path (short digits) and std::from_chars must agree exactly.
TEST(ParseNumberTest, FastPathMatchesCorrectRounding) {
  const NumericCase kCases[] = {
      {"0.1", 0.1},
      {"0.2", 0.2},
      {"0.7", 0.7},
      {"1.005", 1.005},
      {"2.675", 2.675},
      {"99.999", 99.999},
      {"12345.678", 12345.678},
      {"0.000000000000001", 1e-15},
      {"999999999999999", 999999999999999.0},
      {"9.99999999999999", 9.99999999999999},
      {"0.30000000000000004", 0.30000000000000004},  // 17 digits: slow path
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

// Random decimal strings of up to 20 digits, with or without a point and an
// exponent, parse to the same double as std::from_chars (correctly rounded),
// whichever path ParseNumber takes.
TEST(ParseNumberTest, AgreesWithFromCharsOnRandomDecimals) {
  std::mt19937_64 rng(1234);
  for (int i = 0; i < 200000; ++i) {
    std::string s;
    const int num_digits = 1 + static_cast<int>(rng() % 20);
    const int point = static_cast<int>(rng() % (num_digits + 2)) - 1;
    for (int d = 0; d < num_digits; ++d) {
      if (d == point) s.push_back('.');
      s.push_back(static_cast<char>('0' + rng() % 10));
    }
    if (point == num_digits) s.push_back('.');
    if (rng() % 4 == 0) {
      s += (rng() % 2 == 0) ? "e-" : "e";
      s += std::to_string(rng() % 30);
    }
    double want = 0.0;
    const auto result = std::from_chars(s.data(), s.data() + s.size(), want);
    ASSERT_EQ(result.ec, std::errc()) << s;
    ASSERT_EQ(result.ptr, s.data() + s.size()) << s;
    double got = 0.0;
    ASSERT_TRUE(ParseNumber(s, &got)) << s;
    ASSERT_EQ(Bits(got), Bits(want)) << s;
    ASSERT_TRUE(ParseNumber("-" + s, &got)) << s;
    ASSERT_EQ(Bits(got), Bits(-want)) << s;
  }
}

// Random strings over digits, '.', 'e', 'E', signs and a few letters: where
// the unsigned part starts with a digit or '.', ParseNumber accepts exactly
// what std::from_chars takes whole and in range (the cheap syntax check in
// front of it must neither reject a number nor let junk through).
TEST(ParseNumberTest, AgreesWithFromCharsOnRandomNumberLikeText) {
  // '/' and ':' border the digits, and "\xb0", "\xb9" and NUL are
  // digits with other high bits, for the word-at-a-time fast path.
  static constexpr char kAlphabet[] = "0123456789..eE+-bx/:\xb0\xb9\0";
  std::mt19937_64 rng(99);
  int accepted = 0;
  for (int i = 0; i < 400000; ++i) {
    std::string s;
    // Up to 18 bytes: the 8-byte and the 9-to-16-byte fast paths and past.
    const int len = 1 + static_cast<int>(rng() % 18);
    for (int k = 0; k < len; ++k) {
      s.push_back(kAlphabet[rng() % (sizeof(kAlphabet) - 1)]);
    }
    if (!(IsDigitOrPoint(s[0]))) continue;
    double want = 0.0;
    const auto result = std::from_chars(s.data(), s.data() + s.size(), want);
    // Out of range: an underflow is 0 (as in Go), an overflow is rejected.
    // (libstdc++'s from_chars leaves the value alone then, so strtod, which
    // also reads hex, decides those without an 'x'.)
    char* strtod_end = nullptr;
    errno = 0;
    const double by_strtod = std::strtod(s.c_str(), &strtod_end);
    const bool underflow = errno == ERANGE && !std::isinf(by_strtod) &&
                           strtod_end == s.c_str() + s.size() &&
                           s.find('x') == std::string::npos;
    const bool valid =
        (result.ec == std::errc() && result.ptr == s.data() + s.size()) ||
        underflow;
    double got = 0.0;
    ASSERT_EQ(ParseNumber(s, &got), valid) << s;
    if (valid && !underflow) {
      ASSERT_EQ(Bits(got), Bits(want)) << s;
      ++accepted;
    }
  }
  EXPECT_GT(accepted, 1000);
}

// The 9-to-16-byte fast path: at most one '.', at most 15 digits; the
// rest (16 digits, two points, an exponent) goes on to the slow path and
// is still parsed (or rejected) exactly.
TEST(ParseNumberTest, MediumLengthDecimals) {
  const NumericCase kCases[] = {
      {"1733097600123", 1733097600123.0},
      {"-1733097600123", -1733097600123.0},
      {"123456789", 123456789.0},
      {"123456789.", 123456789.0},
      {".123456789", 0.123456789},
      {"0.000123456", 0.000123456},
      {"12345678.87654321", 12345678.87654321},  // 16 digits: slow path
      {"9999999999999999", 9999999999999999.0},  // 16 digits: slow path
      {"999999999999999", 999999999999999.0},
      {"1234567.1234567", 1234567.1234567},
      {"00000000000000.5", 0.5},
      {"-0.00000000", -0.0},
      {"1234567.5e3", 1234567500.0},  // An exponent: slow path.
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
  ExpectRejects("1234.5678.9");
  ExpectRejects("12345678a");
  ExpectRejects("1234567890123x");
  ExpectRejects("00026976d83738d4");
  ExpectRejects("-.");
}

TEST(ParseNumberTest, DoesNotAllocate) {
  const std::string long_digits = std::string(2000, '7') + ".5e-1900";
  const std::string long_overflow = std::string(2000, '9') + "e400";
  const std::string_view kInputs[] = {
      "42",  "-12.345",   "1e3",       "1e-400",      "1e400",
      "nan", "-Infinity", "0x10",      "1_000",       "nan(123)",
      " 5",  "",          long_digits, long_overflow,
  };
  const size_t before = ::mapr::testing::AllocationCount();
  size_t numeric = 0;
  for (std::string_view input : kInputs) {
    double v;
    numeric += ParseNumber(input, &v) ? 1 : 0;
  }
  EXPECT_EQ(::mapr::testing::AllocationCount(), before);
  EXPECT_EQ(numeric, 7u);  // all but the overflow, hex, _, nan(), space, ""
}

// Out-of-range values are told apart (overflow rejected, underflow is 0)
// whatever the exponent's spelling: upper-case E, explicit sign, leading
// zeros in the mantissa or the exponent.
TEST(ParseNumberTest, OutOfRangeClassificationIgnoresExponentSpelling) {
  for (std::string_view input :
       {"1E400", "1e+400", "1E+400", "-1E+0400", "0001e+400", "0.01E+410"}) {
    ExpectRejects(input);
  }
  const NumericCase kCases[] = {
      {"1E-400", 0.0},    {"-1E-400", -0.0}, {"1e-0400", 0.0},
      {"0.01E-400", 0.0}, {"100E-330", 0.0}, {"0001E-400", 0.0},
  };
  for (const NumericCase& c : kCases) ExpectParses(c);
}

}  // namespace
}  // namespace mapr::util
