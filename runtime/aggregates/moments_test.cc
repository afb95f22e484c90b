// stddev/variance/stddevp/variancep against exact rationals: values that
// are exact doubles at offsets up to 1e18, so the exact variance is the
// rational (n Σd² - (Σd)²) / (n (n - 1)) of the integer deviations d from
// the offset, computed here in 128-bit integers.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/status_matchers.h"
#include "util/exact_sum.h"

namespace mapr {
namespace {

using util::int128;

// The four results of one group's values (the row's value() doubles).
struct Moments {
  double variance, variancep, stddev, stddevp;
};

Moments RunMoments(const std::vector<std::string>& values) {
  std::vector<std::string> lines;
  lines.reserve(values.size());
  for (const std::string& v : values) lines.push_back("v=" + v);
  absl::StatusOr<ResultTable> r = RunQuery(
      "select variance(v),variancep(v),stddev(v),stddevp(v) group by * "
      "logformat generickv",
      lines);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || r->num_rows() != 1) return {};
  return {r->value(0, 0), r->value(0, 1), r->value(0, 2), r->value(0, 3)};
}

// The nearest double to num / den (num >= 0, den > 0), by long division in
// integers: exact to the last bit but for the final rounding's ties.
double Quotient(int128 num, int128 den) {
  const int128 whole = num / den;
  int128 rest = num % den;
  long double q = static_cast<long double>(whole);
  long double unit = 1;
  for (int i = 0; i < 80 && rest != 0; ++i) {
    rest *= 2;
    unit /= 2;
    if (rest >= den) {
      q += unit;
      rest -= den;
    }
  }
  return static_cast<double>(q);
}

TEST(MomentsTest, TheIssueExampleAtEightQuadrillion) {
  const Moments m =
      RunMoments({"8000000000000000", "8000000000000001", "8000000000000002"});
  EXPECT_EQ(m.variance, 1.0);
  EXPECT_EQ(m.variancep, 2.0 / 3.0);
  EXPECT_EQ(m.stddev, 1.0);
  EXPECT_EQ(m.stddevp, std::sqrt(2.0 / 3.0));
}

TEST(MomentsTest, ExactRationalsAtOffsetsUpToOneE18) {
  std::mt19937_64 rng(27);
  for (const double offset : {0.0, 1e3, 1e9, 1.7e15, 8e15, 4.5e16, 1e17,
                              1152921504606846976.0, 1e18, -1e18}) {
    // The spacing of doubles at the offset: deviations are multiples of it,
    // so every value is an exact double.
    const double ulp =
        offset == 0
            ? 1
            : std::nextafter(std::fabs(offset), INFINITY) - std::fabs(offset);
    for (const size_t n : {size_t{2}, size_t{3}, size_t{200}, size_t{5000}}) {
      SCOPED_TRACE(absl::StrCat("offset=", offset, " n=", n));
      std::uniform_int_distribution<int64_t> dist(0, 99);
      std::vector<std::string> text;
      int128 sum = 0, squares = 0;
      for (size_t i = 0; i < n; ++i) {
        const int64_t k = dist(rng);
        const double v = offset + static_cast<double>(k) * ulp;
        ASSERT_EQ(v - offset, static_cast<double>(k) * ulp);
        char buf[64];  // The shortest text that reads back as v.
        text.emplace_back(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
        // Deviations in units of ulp (ulp is a power of two, >= 1 here).
        sum += k;
        squares += static_cast<int128>(k) * k;
      }
      const int128 nn = static_cast<int128>(n);
      // Variance in units of ulp²: (n Σk² - (Σk)²) / (n (n - 1)).
      const int128 num = nn * squares - sum * sum;
      const double u2 = ulp * ulp;
      const Moments m = RunMoments(text);
      EXPECT_DOUBLE_EQ(m.variance, Quotient(num, nn * (nn - 1)) * u2);
      EXPECT_DOUBLE_EQ(m.variancep, Quotient(num, nn * nn) * u2);
      EXPECT_DOUBLE_EQ(m.stddev, std::sqrt(Quotient(num, nn * (nn - 1))) * ulp);
      EXPECT_DOUBLE_EQ(m.stddevp, std::sqrt(Quotient(num, nn * nn)) * ulp);
    }
  }
}

TEST(MomentsTest, MicrosecondTimestampsKeepEveryDigit) {
  // 200 timestamps 1.7e15 + [0, 100): the issue's 804.429648, not 804.41.
  std::vector<std::string> text;
  int128 sum = 0, squares = 0;
  for (int i = 0; i < 200; ++i) {
    const int64_t k = (i * 37 + 11) % 100;
    text.push_back(absl::StrCat(int64_t{1700000000000000} + k));
    sum += k;
    squares += static_cast<int128>(k) * k;
  }
  const Moments m = RunMoments(text);
  EXPECT_DOUBLE_EQ(m.variance, Quotient(200 * squares - sum * sum, 200 * 199));
}

TEST(MomentsTest, DecimalFractionsAtALargeOffset) {
  // 1e9 + 0.25 steps: exact binary fractions far from zero.
  const Moments m =
      RunMoments({"1000000000.25", "1000000000.5", "1000000000.75"});
  EXPECT_EQ(m.variance, 0.0625);
  EXPECT_EQ(m.variancep, 0.125 / 3);
}

TEST(MomentsTest, ConstantValuesHaveZeroVariance) {
  const Moments m = RunMoments({"1e18", "1e18", "1e18", "1e18"});
  EXPECT_EQ(m.variance, 0.0);
  EXPECT_EQ(m.stddevp, 0.0);
}

}  // namespace
}  // namespace mapr
