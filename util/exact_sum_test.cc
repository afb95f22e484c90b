#include "util/exact_sum.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/allocation_counter.h"

namespace mapr::util {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int128 kInt128Max = static_cast<int128>(~uint128{0} >> 1);
constexpr int128 kInt128Min = -kInt128Max - 1;

uint64_t Bits(double v) { return std::bit_cast<uint64_t>(v); }

// 2^e as a double (exact for -1074 <= e <= 1023).
double Pow2(int e) { return std::ldexp(1.0, e); }

// ---------------------------------------------------------------------------
// The reference: Shewchuk's exact summation with a list of non-overlapping
// partials, and the correct final rounding of Python's math.fsum, written
// independently of WideSum (only double arithmetic).
// ---------------------------------------------------------------------------

// Returns the correctly rounded sum of `values`, or sets `*ok` to false if a
// partial overflowed (then the reference cannot tell).
double ReferenceSum(const std::vector<double>& values, bool* ok) {
  *ok = true;
  // Invariant: the exact sum of the values so far equals the sum of
  // `partials`, which are nonzero, non-overlapping and increasing in
  // magnitude.
  std::vector<double> partials;
  for (double x : values) {
    size_t kept = 0;
    for (size_t i = 0; i < partials.size(); ++i) {
      double y = partials[i];
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      // Two-sum (|x| >= |y|): high + low == x + y exactly.
      const double high = x + y;
      const double low = y - (high - x);
      if (low != 0.0) partials[kept++] = low;
      x = high;
    }
    partials.resize(kept);
    if (!std::isfinite(x)) {
      *ok = false;
      return 0.0;
    }
    partials.push_back(x);
  }
  if (partials.empty()) return 0.0;
  // Add the partials from the largest down until the addition is inexact:
  // then `high` is the sum rounded to nearest and `low` the error; the
  // partials below `low` only matter to break a tie.
  size_t n = partials.size();
  double high = partials[--n];
  double low = 0.0;
  while (n > 0) {
    const double x = high;
    const double y = partials[--n];
    high = x + y;
    low = y - (high - x);
    if (low != 0.0) break;
  }
  // `high + low` with low exactly half an ulp of high was rounded to even,
  // but if the partials below push the sum the same way as `low`, the exact
  // sum is past the midpoint and must round away from `high`.
  if (n > 0 &&
      ((low < 0 && partials[n - 1] < 0) || (low > 0 && partials[n - 1] > 0))) {
    const double twice = low * 2;
    const double away = high + twice;
    if (away - high == twice) high = away;
  }
  if (!std::isfinite(high)) *ok = false;
  return high;
}

// Expects `got` to be `want` bit for bit, except that any zero matches any
// zero (the reference does not track the sign of a zero sum).
void ExpectSameDouble(double got, double want, const std::string& context) {
  if (want == 0.0) {
    EXPECT_EQ(got, 0.0) << context;
  } else {
    EXPECT_EQ(Bits(got), Bits(want))
        << context << std::hexfloat << " got " << got << " want " << want;
  }
}

std::string Encode(const WideSum& sum) {
  std::string out;
  sum.AppendTo(&out);
  return out;
}

WideSum SumOf(const std::vector<double>& values) {
  WideSum sum;
  for (double v : values) sum.Add(v);
  return sum;
}

// ---------------------------------------------------------------------------
// Random multisets.
// ---------------------------------------------------------------------------

enum class Kind {
  kDecimal,    // Typical decimal log values with random signs.
  kWide,       // Random bits, exponents over the whole finite range.
  kNarrow,     // Exponents within a few of each other: much cancellation.
  kSubnormal,  // Subnormals and the smallest normals.
  kCancel,     // Pairs x, -x and a few small values.
  kNearMax,    // A handful of values close to DBL_MAX.
  kTie,        // A sum exactly halfway between two doubles, or just off it.
};
constexpr Kind kAllKinds[] = {Kind::kDecimal,   Kind::kWide,   Kind::kNarrow,
                              Kind::kSubnormal, Kind::kCancel, Kind::kNearMax,
                              Kind::kTie};

double RandomDouble(std::mt19937_64& rng, int min_biased, int max_biased) {
  const uint64_t exponent = std::uniform_int_distribution<uint64_t>(
      static_cast<uint64_t>(min_biased),
      static_cast<uint64_t>(max_biased))(rng);
  const uint64_t bits = (rng() & (uint64_t{1} << 63)) | (exponent << 52) |
                        (rng() & ((uint64_t{1} << 52) - 1));
  return std::bit_cast<double>(bits);
}

std::vector<double> MakeValues(Kind kind, std::mt19937_64& rng) {
  std::vector<double> values;
  const size_t n = std::uniform_int_distribution<size_t>(1, 300)(rng);
  switch (kind) {
    case Kind::kDecimal: {
      static constexpr double kDecimals[] = {0.1,       0.2, 0.3,      1e-7,
                                             12345.678, 0.7, 3.3333333};
      for (size_t i = 0; i < n; ++i) {
        const double v = kDecimals[rng() % 7];
        values.push_back(rng() % 4 == 0 ? -v : v);
      }
      break;
    }
    case Kind::kWide:
      // Below 2^1012, so that 300 values cannot overflow the reference.
      for (size_t i = 0; i < n; ++i)
        values.push_back(RandomDouble(rng, 0, 2035));
      break;
    case Kind::kNarrow: {
      const int base = std::uniform_int_distribution<int>(10, 2030)(rng);
      for (size_t i = 0; i < n; ++i) {
        values.push_back(RandomDouble(rng, base - 5, base + 5));
      }
      break;
    }
    case Kind::kSubnormal:
      for (size_t i = 0; i < n; ++i) values.push_back(RandomDouble(rng, 0, 3));
      break;
    case Kind::kCancel:
      for (size_t i = 0; i < n; ++i) {
        const double v = RandomDouble(rng, 900, 2020);
        values.push_back(v);
        values.push_back(-v);
        if (rng() % 16 == 0) values.push_back(RandomDouble(rng, 0, 1100));
      }
      std::shuffle(values.begin(), values.end(), rng);
      break;
    case Kind::kNearMax:
      // The reference may overflow on these; such cases are skipped.
      for (size_t i = 0; i < 1 + n % 6; ++i) {
        values.push_back(RandomDouble(rng, 2040, 2046));
      }
      break;
    case Kind::kTie: {
      // d + ulp(d)/2 from three exact parts, plus maybe a tiny nudge split in
      // two far below; the sum is a tie (or just past or short of one).
      const double d = RandomDouble(rng, 60, 2000);
      const double ulp = std::nextafter(std::fabs(d), kInf) - std::fabs(d);
      const double quarter = std::copysign(ulp / 4, d);
      values = {d, quarter, quarter};
      const int nudge = static_cast<int>(rng() % 3);  // 0: none, 1: +, 2: -.
      if (nudge != 0) {
        const double tiny = ulp * Pow2(-40) * (nudge == 1 ? 1 : -1);
        values.push_back(tiny);
        values.push_back(tiny * 3);
        values.push_back(-tiny * 2);  // Net: 2 * tiny.
      }
      std::shuffle(values.begin(), values.end(), rng);
      break;
    }
  }
  return values;
}

// ---------------------------------------------------------------------------
// The reference itself.
// ---------------------------------------------------------------------------

TEST(ReferenceSumTest, KnownSums) {
  bool ok;
  EXPECT_EQ(ReferenceSum({0.1, 0.2, 0.3}, &ok), 0.6);
  EXPECT_EQ(ReferenceSum({1e308, 1.0, -1e308}, &ok), 1.0);
  EXPECT_EQ(ReferenceSum({Pow2(53), 1.0}, &ok), Pow2(53));  // Tie, even.
  EXPECT_EQ(ReferenceSum({Pow2(53) + 2, 1.0}, &ok), Pow2(53) + 4);
  EXPECT_EQ(ReferenceSum({Pow2(53), 1.0, Pow2(-60)}, &ok), Pow2(53) + 2);
  EXPECT_EQ(ReferenceSum({Pow2(53), 1.0, -Pow2(-60)}, &ok), Pow2(53));
  EXPECT_TRUE(ok);
  ReferenceSum({DBL_MAX, DBL_MAX}, &ok);
  EXPECT_FALSE(ok);
}

// ---------------------------------------------------------------------------
// WideSum::Round against the reference.
// ---------------------------------------------------------------------------

TEST(WideSumTest, EmptyAndZero) {
  WideSum sum;
  EXPECT_TRUE(sum.IsZero());
  EXPECT_EQ(Bits(sum.Round()), Bits(0.0));
  sum.Add(-0.0);
  sum.Add(0.0);
  EXPECT_TRUE(sum.IsZero());
  EXPECT_EQ(Bits(sum.Round()), Bits(0.0));
  sum.Add(5e-324);
  EXPECT_FALSE(sum.IsZero());
  sum.Add(-5e-324);
  EXPECT_TRUE(sum.IsZero());
  EXPECT_EQ(Bits(sum.Round()), Bits(0.0));  // Cancellation gives +0.0.
  sum.Add(-1.5);
  EXPECT_FALSE(sum.IsZero());
  EXPECT_EQ(sum.Round(), -1.5);
}

TEST(WideSumTest, SingleValuesRoundTrip) {
  std::mt19937_64 rng(1);
  const double kSpecial[] = {1.0,      -1.0,      0.1,       DBL_MAX, -DBL_MAX,
                             DBL_MIN,  -DBL_MIN,  5e-324,    -5e-324, 1e-310,
                             Pow2(62), 12345.678, -3.3333333};
  for (double v : kSpecial) {
    WideSum sum;
    sum.Add(v);
    EXPECT_EQ(Bits(sum.Round()), Bits(v)) << v;
    EXPECT_EQ(Bits(sum.RoundDividedBy(1)), Bits(v)) << v;
  }
  for (int i = 0; i < 20000; ++i) {
    const double v = RandomDouble(rng, 0, 2046);
    WideSum sum;
    sum.Add(v);
    ASSERT_EQ(Bits(sum.Round()), Bits(v)) << std::hexfloat << v;
  }
}

TEST(WideSumTest, MatchesReferenceOnRandomMultisets) {
  std::mt19937_64 rng(2);
  int compared = 0;
  for (Kind kind : kAllKinds) {
    int compared_kind = 0;
    for (int trial = 0; trial < 400; ++trial) {
      const std::vector<double> values = MakeValues(kind, rng);
      bool ok;
      const double want = ReferenceSum(values, &ok);
      if (!ok) continue;
      ++compared_kind;
      ExpectSameDouble(SumOf(values).Round(), want,
                       "kind " + std::to_string(static_cast<int>(kind)) +
                           " trial " + std::to_string(trial));
      if (HasFailure()) return;
    }
    // The generators keep most cases within the reference's range.
    EXPECT_GT(compared_kind, 100) << static_cast<int>(kind);
    compared += compared_kind;
  }
  EXPECT_GT(compared, 2000);
}

TEST(WideSumTest, HugeCancellation) {
  const std::vector<double> values = {1e308, -1e308, 1.0};
  std::vector<double> order = values;
  std::sort(order.begin(), order.end());
  do {
    EXPECT_EQ(SumOf(order).Round(), 1.0);
  } while (std::next_permutation(order.begin(), order.end()));
  // Beyond DBL_MAX on the way, finite at the end (IEEE addition from the
  // left would give inf).
  EXPECT_EQ(SumOf({DBL_MAX, DBL_MAX, -DBL_MAX}).Round(), DBL_MAX);
  EXPECT_EQ(SumOf({DBL_MAX, -DBL_MAX, 1.0}).Round(), 1.0);
  EXPECT_EQ(SumOf({1e300, 1e-300, -1e300}).Round(), 1e-300);
  EXPECT_EQ(SumOf({1e300, 5e-324, -1e300}).Round(), 5e-324);
}

TEST(WideSumTest, RoundsTiesToEven) {
  // 2^53 + 1 is halfway between 2^53 and 2^53 + 2: even is 2^53.
  EXPECT_EQ(SumOf({Pow2(53), 1.0}).Round(), Pow2(53));
  EXPECT_EQ(SumOf({Pow2(53), 0.5, 0.5}).Round(), Pow2(53));
  // 2^53 + 3 is halfway between 2^53 + 2 and 2^53 + 4: even is 2^53 + 4.
  EXPECT_EQ(SumOf({Pow2(53), 2.0, 1.0}).Round(), Pow2(53) + 4);
  // Just past or short of the tie, by far less than an ulp.
  EXPECT_EQ(SumOf({Pow2(53), 1.0, 5e-324}).Round(), Pow2(53) + 2);
  EXPECT_EQ(SumOf({Pow2(53), 1.0, -5e-324}).Round(), Pow2(53));
  EXPECT_EQ(SumOf({-Pow2(53), -1.0, -5e-324}).Round(), -Pow2(53) - 2);
  // 1 + 2^-53 is a tie too: 1.
  EXPECT_EQ(SumOf({1.0, Pow2(-53)}).Round(), 1.0);
  EXPECT_EQ(SumOf({1.0, Pow2(-53), Pow2(-1000)}).Round(), 1.0 + Pow2(-52));
}

TEST(WideSumTest, OverflowsToInfinity) {
  EXPECT_EQ(SumOf({DBL_MAX, DBL_MAX}).Round(), kInf);
  EXPECT_EQ(SumOf({-DBL_MAX, -DBL_MAX}).Round(), -kInf);
  EXPECT_EQ(SumOf({DBL_MAX, -DBL_MAX, 1.0}).Round(), 1.0);
  // Half an ulp of DBL_MAX is 2^970: DBL_MAX + 2^970 is a tie, DBL_MAX is
  // odd, so it rounds up to (the overflow threshold, hence) infinity.
  EXPECT_EQ(SumOf({DBL_MAX, Pow2(970)}).Round(), kInf);
  EXPECT_EQ(SumOf({-DBL_MAX, -Pow2(970)}).Round(), -kInf);
  EXPECT_EQ(SumOf({DBL_MAX, Pow2(970), -5e-324}).Round(), DBL_MAX);
  EXPECT_EQ(SumOf({DBL_MAX, Pow2(969)}).Round(), DBL_MAX);
  // Far beyond: 2^20 times DBL_MAX.
  WideSum big;
  for (int i = 0; i < (1 << 20); ++i) big.Add(DBL_MAX);
  EXPECT_EQ(big.Round(), kInf);
  for (int i = 0; i < (1 << 20); ++i) big.Add(-DBL_MAX);
  EXPECT_TRUE(big.IsZero());
}

TEST(WideSumTest, SubnormalSums) {
  WideSum sum;
  for (int i = 0; i < 1000; ++i) sum.Add(5e-324);
  EXPECT_EQ(sum.Round(), 1000 * 5e-324);
  // Crossing into the normal range: (2^52 - 1) * 2^-1074 + 2^-1074 is DBL_MIN.
  WideSum edge;
  edge.Add(std::nextafter(DBL_MIN, 0.0));
  edge.Add(5e-324);
  EXPECT_EQ(edge.Round(), DBL_MIN);
  edge.Add(-DBL_MIN);
  edge.Add(-DBL_MIN);
  EXPECT_EQ(edge.Round(), -DBL_MIN);
}

// ---------------------------------------------------------------------------
// Order, split and merge invariance.
// ---------------------------------------------------------------------------

// Adds `values` to a WideSum and fast-path state the way a caller would:
// ToFixed values to an int128 (spilling on overflow), the rest to the
// WideSum; the int128 is added at the end.
WideSum SumLikeACaller(const std::vector<double>& values) {
  int128 fixed = 0;
  WideSum wide;
  for (double v : values) {
    int128 units;
    if (ToFixed(v, &units)) {
      if (!AddFixed(&fixed, units)) wide.AddFixed(units);
    } else {
      wide.Add(v);
    }
  }
  wide.AddFixed(fixed);
  return wide;
}

// Sums `values` in a random order, split into random pieces (each summed
// directly or like a caller) that are merged in a random tree shape.
WideSum SumSplitAndMerged(std::vector<double> values, std::mt19937_64& rng) {
  std::shuffle(values.begin(), values.end(), rng);
  std::vector<WideSum> pieces;
  size_t begin = 0;
  while (begin < values.size()) {
    const size_t size = std::uniform_int_distribution<size_t>(
        1, std::max<size_t>(1, values.size() / 3))(rng);
    const size_t end = std::min(values.size(), begin + size);
    const std::vector<double> piece(values.begin() + begin,
                                    values.begin() + end);
    pieces.push_back(rng() % 2 == 0 ? SumOf(piece) : SumLikeACaller(piece));
    begin = end;
  }
  if (pieces.empty()) return WideSum();
  while (pieces.size() > 1) {
    const size_t a = rng() % pieces.size();
    size_t b = rng() % (pieces.size() - 1);
    if (b >= a) ++b;
    pieces[a].Merge(pieces[b]);
    pieces.erase(pieces.begin() + static_cast<ptrdiff_t>(b));
  }
  return pieces[0];
}

TEST(WideSumTest, IndependentOfOrderSplitAndMerge) {
  std::mt19937_64 rng(3);
  for (Kind kind : kAllKinds) {
    for (int trial = 0; trial < 60; ++trial) {
      const std::vector<double> values = MakeValues(kind, rng);
      const WideSum direct = SumOf(values);
      const double want = direct.Round();
      const std::string want_bytes = Encode(direct);
      bool ok;
      const double reference = ReferenceSum(values, &ok);
      if (ok) ExpectSameDouble(want, reference, "reference");
      for (int shape = 0; shape < 8; ++shape) {
        const WideSum merged = SumSplitAndMerged(values, rng);
        ASSERT_EQ(Bits(merged.Round()), Bits(want))
            << "kind " << static_cast<int>(kind) << " trial " << trial;
        ASSERT_EQ(Encode(merged), want_bytes)
            << "kind " << static_cast<int>(kind) << " trial " << trial;
        ASSERT_EQ(merged.IsZero(), direct.IsZero());
      }
    }
  }
}

TEST(WideSumTest, MergeWithItselfDoubles) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 50; ++trial) {
    // Large digits of both signs; the 31st of 40 doublings crosses the carry
    // threshold (2^30 pending additions).
    const std::vector<double> values = {RandomDouble(rng, 1500, 1900),
                                        RandomDouble(rng, 1500, 1900),
                                        RandomDouble(rng, 1000, 1100)};
    WideSum sum = SumOf(values);
    const double once = sum.Round();
    for (int i = 0; i < 40; ++i) sum.Merge(sum);
    ASSERT_EQ(Bits(sum.Round()), Bits(once * Pow2(40)));
    // Adding 2^40 copies of the negation and the original once gives the
    // original.
    WideSum negated = SumOf({-values[0], -values[1], -values[2]});
    for (int i = 0; i < 40; ++i) {
      negated.Merge(negated);
    }
    WideSum original = SumOf(values);
    sum.Merge(negated);
    sum.Merge(original);
    ASSERT_EQ(Encode(sum), Encode(original));
  }
}

// The sum of `sign` (1 or 2: the encoding's tag) times `word` * 2^1056
// (word 67 of the encoding).
WideSum TopWord(uint8_t sign, uint32_t word) {
  std::string bytes = {static_cast<char>(sign), 0x43, 0x01};
  for (int i = 0; i < 4; ++i)
    bytes.push_back(static_cast<char>(word >> (8 * i)));
  std::string_view in = bytes;
  WideSum sum;
  EXPECT_TRUE(WideSum::ReadFrom(&in, &sum));
  return sum;
}

TEST(WideSumTest, MergeCheckedRefusesSumsOf2To1086OrMore) {
  // 2^1085 - 2^1056, twice: 2^1086 - 2^1057, the last step below.
  const WideSum near = TopWord(1, 0x1fffffff);
  WideSum sum = near;
  ASSERT_TRUE(sum.MergeChecked(near));
  EXPECT_EQ(Encode(sum), Encode(TopWord(1, 0x3ffffffe)));
  // 2^1056 more is 2^1086 - 2^1056, 2^1056 more again 2^1086: refused,
  // the sum unchanged.
  ASSERT_TRUE(sum.MergeChecked(TopWord(1, 1)));
  const std::string before = Encode(sum);
  EXPECT_FALSE(sum.MergeChecked(TopWord(1, 1)));
  EXPECT_EQ(Encode(sum), before);
  // The same for negative sums: -2^1086 is refused, -2^1086 + 2^-1074 not.
  WideSum negative = TopWord(2, 0x20000000 - 1);
  ASSERT_TRUE(negative.MergeChecked(TopWord(2, 0x20000000)));
  EXPECT_FALSE(WideSum(negative).MergeChecked(TopWord(2, 1)));
  WideSum tiny;
  tiny.Add(std::bit_cast<double>(uint64_t{1}));
  WideSum almost = TopWord(2, 0x20000000);
  ASSERT_TRUE(almost.MergeChecked(TopWord(2, 0x20000000 - 1)));
  ASSERT_TRUE(almost.MergeChecked(tiny));
  EXPECT_TRUE(almost.MergeChecked(TopWord(2, 1)));
  // Near sums of opposite signs cancel.
  WideSum cancel = TopWord(1, 0x3fffffff);
  ASSERT_TRUE(cancel.MergeChecked(TopWord(2, 0x3fffffff)));
  EXPECT_TRUE(cancel.IsZero());
}

TEST(WideSumTest, MergeCheckedEqualsMergeBelowTheLimit) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 200; ++trial) {
    WideSum a =
        SumOf({RandomDouble(rng, 0, 2046), -RandomDouble(rng, 0, 2046)});
    WideSum b = SumOf({RandomDouble(rng, 0, 2046), RandomDouble(rng, 0, 2046)});
    // Some near the limit: 2^40 doublings of a value near 2^1023.
    if (trial % 4 == 0) {
      for (int i = 0; i < 40; ++i) a.Merge(a);
    }
    WideSum merged = a;
    merged.Merge(b);
    WideSum checked = a;
    ASSERT_TRUE(checked.MergeChecked(b));
    ASSERT_EQ(Encode(checked), Encode(merged));
  }
}

TEST(WideSumTest, AddAtTheCarryThreshold) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 50; ++trial) {
    const std::vector<double> values = {RandomDouble(rng, 1500, 1900),
                                        -RandomDouble(rng, 1500, 1900),
                                        RandomDouble(rng, 0, 1900)};
    // 30 doublings leave 2^30 - 1 additions pending (digits near 2^62); the
    // next Add() reaches the threshold and carries.
    WideSum sum = SumOf(values);
    for (int i = 0; i < 30; ++i) sum.Merge(sum);
    std::vector<double> want = {values[0] * Pow2(30), values[1] * Pow2(30),
                                values[2] * Pow2(30)};
    for (int i = 0; i < 3; ++i) {
      const double v = RandomDouble(rng, 1000, 1900);
      sum.Add(v);
      want.push_back(v);
      bool ok;
      ExpectSameDouble(sum.Round(), ReferenceSum(want, &ok), "threshold");
      ASSERT_TRUE(ok);
    }
  }
}

TEST(WideSumTest, ManyAdditionsOfOneValue) {
  // 3 * 2^22 additions of the largest significand at one position, then the
  // same negated: large digits both ways.
  const double v = std::nextafter(Pow2(100), 0.0);
  WideSum sum;
  const int kCount = 3 << 22;
  for (int i = 0; i < kCount; ++i) sum.Add(v);
  EXPECT_EQ(sum.Round(), v * kCount);
  EXPECT_EQ(sum.RoundDividedBy(kCount), v);
  for (int i = 0; i < kCount; ++i) sum.Add(-v);
  EXPECT_TRUE(sum.IsZero());
}

// ---------------------------------------------------------------------------
// The fixed-point fast path.
// ---------------------------------------------------------------------------

// ToFixed's contract, from libm: finite, below 2^62, and v * 2^64 an integer.
bool ReferenceToFixed(double v, int128* units) {
  if (!std::isfinite(v) || std::fabs(v) >= Pow2(62)) return false;
  const double scaled = std::ldexp(v, 64);  // Exact: no overflow.
  if (std::trunc(scaled) != scaled) return false;
  *units = static_cast<int128>(scaled);  // Exact: an integer below 2^126.
  return true;
}

TEST(ToFixedTest, Boundaries) {
  int128 units = 12345;
  EXPECT_TRUE(ToFixed(0.0, &units));
  EXPECT_EQ(units, 0);
  units = 12345;
  EXPECT_TRUE(ToFixed(-0.0, &units));
  EXPECT_EQ(units, 0);
  EXPECT_TRUE(ToFixed(1.0, &units));
  EXPECT_EQ(units, int128{1} << 64);
  EXPECT_TRUE(ToFixed(-1.0, &units));
  EXPECT_EQ(units, -(int128{1} << 64));
  EXPECT_TRUE(ToFixed(-12.5, &units));
  EXPECT_EQ(units, -(int128{25} << 63));
  EXPECT_TRUE(ToFixed(1e18, &units));
  EXPECT_EQ(units, int128{1000000000000000000} << 64);
  // Granularity 2^-64.
  EXPECT_TRUE(ToFixed(Pow2(-64), &units));
  EXPECT_EQ(units, 1);
  EXPECT_TRUE(ToFixed(-3 * Pow2(-64), &units));
  EXPECT_EQ(units, -3);
  EXPECT_FALSE(ToFixed(Pow2(-65), &units));
  EXPECT_FALSE(ToFixed(3 * Pow2(-65), &units));
  EXPECT_TRUE(ToFixed(6 * Pow2(-65), &units));
  EXPECT_EQ(units, 3);
  // Every value >= 2^-12 qualifies; 2^-13 with an odd significand does not.
  EXPECT_TRUE(ToFixed(Pow2(-12) * (1 + Pow2(-52)), &units));
  EXPECT_EQ(units, (int128{1} << 52) + 1);
  EXPECT_FALSE(ToFixed(Pow2(-13) * (1 + Pow2(-52)), &units));
  EXPECT_TRUE(ToFixed(Pow2(-13) * (1 + Pow2(-51)), &units));
  // Decimal values.
  EXPECT_TRUE(ToFixed(0.1, &units));
  EXPECT_EQ(units, static_cast<int128>(std::ldexp(0.1, 64)));
  EXPECT_FALSE(ToFixed(1e-7, &units));
  EXPECT_FALSE(ToFixed(-1e-7, &units));
  // Magnitude 2^62 and up.
  const double below = std::nextafter(Pow2(62), 0.0);
  EXPECT_TRUE(ToFixed(below, &units));
  EXPECT_EQ(units, ((int128{1} << 62) - 512) << 64);
  EXPECT_TRUE(ToFixed(-below, &units));
  EXPECT_EQ(units, -(((int128{1} << 62) - 512) << 64));
  EXPECT_FALSE(ToFixed(Pow2(62), &units));
  EXPECT_FALSE(ToFixed(-Pow2(62), &units));
  EXPECT_FALSE(ToFixed(Pow2(63), &units));
  EXPECT_FALSE(ToFixed(-Pow2(63), &units));   // Shift 0: magnitude 2^127.
  EXPECT_FALSE(ToFixed(-Pow2(191), &units));  // Shift 0 after the mask.
  EXPECT_FALSE(ToFixed(-Pow2(-65), &units));  // Shift 0 after the mask.
  EXPECT_FALSE(ToFixed(-Pow2(-66), &units));
  EXPECT_FALSE(ToFixed(DBL_MAX, &units));
  // Special values, subnormals, the smallest normals.
  EXPECT_FALSE(ToFixed(kInf, &units));
  EXPECT_FALSE(ToFixed(-kInf, &units));
  EXPECT_FALSE(ToFixed(kNaN, &units));
  EXPECT_FALSE(ToFixed(-kNaN, &units));
  EXPECT_FALSE(ToFixed(5e-324, &units));
  EXPECT_FALSE(ToFixed(-5e-324, &units));
  EXPECT_FALSE(ToFixed(DBL_MIN, &units));
  EXPECT_FALSE(ToFixed(std::nextafter(DBL_MIN, 0.0), &units));
}

TEST(ToFixedTest, MatchesReferenceOnRandomValues) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 400000; ++i) {
    double v;
    switch (i % 4) {
      case 0:  // Anything, including NaN and infinities.
        v = std::bit_cast<double>(rng());
        break;
      case 1:  // Around the accepted exponent range.
        v = RandomDouble(rng, 950, 1090);
        break;
      case 2: {  // Few significant bits: more of them are multiples.
        v = RandomDouble(rng, 950, 1090);
        v = std::bit_cast<double>(Bits(v) &
                                  ~((uint64_t{1} << (rng() % 53)) - 1));
        break;
      }
      default:  // Integers and decimals.
        v = static_cast<double>(static_cast<int64_t>(rng() >> (rng() % 64))) /
            static_cast<double>(uint64_t{1} << (rng() % 20));
        break;
    }
    int128 want = 0;
    int128 got = 0;
    const bool want_ok = ReferenceToFixed(v, &want);
    ASSERT_EQ(ToFixed(v, &got), want_ok) << std::hexfloat << v;
    if (want_ok) {
      ASSERT_EQ(got, want) << std::hexfloat << v;
      ASSERT_EQ(Bits(RoundFixed(got)), Bits(v == 0 ? 0.0 : v));
    }
  }
}

// units * 2^-64 correctly rounded, via the reference: units split into exact
// 43-bit pieces.
double ReferenceRoundFixed(int128 units) {
  const bool negative = units < 0;
  const uint128 magnitude =
      negative ? -static_cast<uint128>(units) : static_cast<uint128>(units);
  std::vector<double> pieces;
  for (int shift = 0; shift < 128; shift += 43) {
    const uint64_t piece =
        static_cast<uint64_t>(magnitude >> shift) & ((uint64_t{1} << 43) - 1);
    const double v = std::ldexp(static_cast<double>(piece), shift - 64);
    pieces.push_back(negative ? -v : v);
  }
  bool ok;
  const double sum = ReferenceSum(pieces, &ok);
  EXPECT_TRUE(ok);
  return sum;
}

TEST(RoundFixedTest, MatchesReference) {
  EXPECT_EQ(Bits(RoundFixed(0)), Bits(0.0));
  EXPECT_EQ(RoundFixed(1), Pow2(-64));
  EXPECT_EQ(RoundFixed(-1), -Pow2(-64));
  EXPECT_EQ(RoundFixed(kInt128Min), -Pow2(63));
  EXPECT_EQ(RoundFixed(kInt128Max), Pow2(63));  // 2^63 - 2^-64 rounds up.
  // Ties near 2^63, where 74 or 75 bits are rounded off. 2^62 + 2^9 is
  // halfway between 2^62 and 2^62 + 2^10 (one ulp): even is 2^62.
  const int128 tie = ((int128{1} << 53) + 1) << 73;
  EXPECT_EQ(RoundFixed(tie), Pow2(62));
  EXPECT_EQ(RoundFixed(tie + 1), Pow2(62) + Pow2(10));
  EXPECT_EQ(RoundFixed(tie - 1), Pow2(62));
  EXPECT_EQ(RoundFixed(-tie - 1), -Pow2(62) - Pow2(10));
  EXPECT_EQ(RoundFixed(-tie), -Pow2(62));
  const int128 odd_tie = ((int128{1} << 53) + 3) << 73;  // 2^62 + 1.5 ulp.
  EXPECT_EQ(RoundFixed(odd_tie), Pow2(62) + 2 * Pow2(10));
  // Below 2^63 the ulp is 2^10: 2^63 - 2^9 ties to 2^63 (even), and
  // 2^63 - 2^10 - 2^9 to 2^63 - 2^11.
  const int128 top = kInt128Min;  // -2^127 units, -2^63.
  EXPECT_EQ(RoundFixed(-(top + (int128{1} << 73))), Pow2(63));
  EXPECT_EQ(RoundFixed(-(top + (int128{3} << 73))), Pow2(63) - Pow2(11));
  EXPECT_EQ(RoundFixed(top + (int128{3} << 73) - 1), -Pow2(63) + Pow2(10));
  EXPECT_EQ(RoundFixed(top + (int128{1} << 73)), -Pow2(63));
  // 2^53 + 1 in units of 2^-64 * 2^0: exact integers round like doubles.
  EXPECT_EQ(RoundFixed(((int128{1} << 53) + 1) << 64), Pow2(53));

  std::mt19937_64 rng(6);
  for (int i = 0; i < 200000; ++i) {
    uint128 bits = (static_cast<uint128>(rng()) << 64) | rng();
    bits >>= rng() % 128;
    if (rng() % 4 == 0) {  // Force a tie or near-tie pattern in the low bits.
      const int length = 128 - static_cast<int>(rng() % 60);
      if (length > 54) {
        const int drop = length - 53;
        bits |= uint128{1} << (length - 1);
        bits &= ~((uint128{1} << drop) - 1);
        bits |= uint128{1} << (drop - 1);
        if (rng() % 2) bits |= 1;
      }
    }
    int128 units = static_cast<int128>(bits);
    if (rng() % 2) units = static_cast<int128>(-static_cast<uint128>(units));
    ASSERT_EQ(Bits(RoundFixed(units)), Bits(ReferenceRoundFixed(units)))
        << static_cast<double>(units);
  }
}

TEST(AddFixedTest, DetectsOverflow) {
  int128 acc = kInt128Max - 5;
  EXPECT_TRUE(AddFixed(&acc, 5));
  EXPECT_EQ(acc, kInt128Max);
  EXPECT_FALSE(AddFixed(&acc, 1));
  EXPECT_EQ(acc, kInt128Max);
  EXPECT_TRUE(AddFixed(&acc, -kInt128Max));
  EXPECT_EQ(acc, 0);
  acc = kInt128Min + 1;
  EXPECT_TRUE(AddFixed(&acc, -1));
  EXPECT_EQ(acc, kInt128Min);
  EXPECT_FALSE(AddFixed(&acc, -1));
  EXPECT_EQ(acc, kInt128Min);
  // Values just below 2^62: two fit, a third overflows.
  int128 big;
  ASSERT_TRUE(ToFixed(std::nextafter(Pow2(62), 0.0), &big));
  acc = 0;
  EXPECT_TRUE(AddFixed(&acc, big));
  EXPECT_TRUE(AddFixed(&acc, big));
  EXPECT_FALSE(AddFixed(&acc, big));
  EXPECT_EQ(acc, 2 * big);
}

TEST(AddFixedTest, FixedSumsMixWithWideSum) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> values;
    const int n = 1 + static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) {
      switch (rng() % 4) {
        case 0:  // Near 2^62: the int128 overflows and spills.
          values.push_back(RandomDouble(rng, 1080, 1084));
          break;
        case 1:
          values.push_back(RandomDouble(rng, 1023, 1050));
          break;
        case 2:  // Mostly not on the fast path.
          values.push_back(RandomDouble(rng, 900, 1100));
          break;
        default:
          values.push_back(static_cast<double>(rng() % 1000) / 8);
          break;
      }
    }
    const WideSum direct = SumOf(values);
    const WideSum mixed = SumLikeACaller(values);
    ASSERT_EQ(Encode(mixed), Encode(direct));
    ASSERT_EQ(Bits(mixed.Round()), Bits(direct.Round()));
    bool ok;
    ExpectSameDouble(direct.Round(), ReferenceSum(values, &ok), "mixed");
  }
}

TEST(AddFixedTest, WideSumAddFixedIsExact) {
  for (int128 units : {int128{0}, int128{1}, int128{-1}, kInt128Max, kInt128Min,
                       int128{1} << 100, -(int128{3} << 90)}) {
    WideSum sum;
    sum.AddFixed(units);
    EXPECT_EQ(Bits(sum.Round()), Bits(RoundFixed(units)));
    sum.AddFixed(units);
    // Minus `units` (which may be the most negative int128).
    sum.AddFixed(-(units / 2));
    sum.AddFixed(-(units / 2));
    sum.AddFixed(-(units % 2));
    EXPECT_EQ(Bits(sum.Round()), Bits(RoundFixed(units)));
  }
  WideSum max2;
  max2.AddFixed(kInt128Max);
  max2.AddFixed(kInt128Max);
  max2.AddFixed(2);
  EXPECT_EQ(max2.Round(), Pow2(64));
}

// ---------------------------------------------------------------------------
// RoundDividedBy.
// ---------------------------------------------------------------------------

// Adds x * d * sign to `sum` exactly: x and d are split into pieces of at
// most 27 and 26 significant bits, whose products are exact doubles.
void AddProduct(WideSum* sum, double x, uint64_t d, double sign) {
  const double x_high =
      std::bit_cast<double>(Bits(x) & ~((uint64_t{1} << 26) - 1));
  const double x_low = x - x_high;  // Exact.
  const double d_high = static_cast<double>(d >> 26);
  const double d_low = static_cast<double>(d & ((uint64_t{1} << 26) - 1));
  sum->Add(sign * x_high * d_low);
  sum->Add(sign * x_low * d_low);
  sum->Add(sign * x_high * d_high * Pow2(26));
  sum->Add(sign * x_low * d_high * Pow2(26));
}

// Expects q == sum / d correctly rounded: 2 * sum lies between
// d * (q + previous(q)) and d * (q + next(q)), on a boundary only if q is
// even. REQUIRES: d < 2^52, q finite and its neighbors' products finite.
void ExpectCorrectQuotient(const WideSum& sum, uint64_t d, double q) {
  ASSERT_TRUE(std::isfinite(q));
  const double neighbors[2] = {std::nextafter(q, -kInf),
                               std::nextafter(q, kInf)};
  const bool even = (Bits(q) & 1) == 0;
  for (int side = 0; side < 2; ++side) {
    WideSum diff = sum;
    diff.Merge(sum);
    AddProduct(&diff, q, d, -1.0);
    AddProduct(&diff, neighbors[side], d, -1.0);
    const double sign = diff.Round();
    if (side == 0) {  // 2 * sum >= d * (q + previous)
      EXPECT_TRUE(sign > 0 || (sign == 0 && even))
          << std::hexfloat << "q " << q << " d " << d;
    } else {  // 2 * sum <= d * (q + next)
      EXPECT_TRUE(sign < 0 || (sign == 0 && even))
          << std::hexfloat << "q " << q << " d " << d;
    }
  }
}

TEST(RoundDividedByTest, CorrectlyRounded) {
  std::mt19937_64 rng(8);
  for (Kind kind : kAllKinds) {
    if (kind == Kind::kNearMax) continue;  // Products would overflow.
    for (int trial = 0; trial < 150; ++trial) {
      const WideSum sum = SumOf(MakeValues(kind, rng));
      ASSERT_EQ(Bits(sum.RoundDividedBy(1)), Bits(sum.Round()));
      for (uint64_t d :
           {uint64_t{2}, uint64_t{3}, uint64_t{7}, uint64_t{1 + rng() % 1000},
            uint64_t{1 + (rng() >> 13)}}) {
        const double q = sum.RoundDividedBy(d);
        ExpectCorrectQuotient(sum, d, q);
        if (HasFailure()) return;
      }
    }
  }
}

TEST(RoundDividedByTest, KnownQuotients) {
  EXPECT_EQ(SumOf({0.1, 0.2, 0.3}).RoundDividedBy(3), 0.2);
  EXPECT_EQ(SumOf({1.0, 2.0}).RoundDividedBy(2), 1.5);
  EXPECT_EQ(SumOf({1.0}).RoundDividedBy(3), 1.0 / 3);
  EXPECT_EQ(SumOf({-1.0}).RoundDividedBy(3), -1.0 / 3);
  // Beyond DBL_MAX before the division.
  EXPECT_EQ(SumOf({DBL_MAX, DBL_MAX, DBL_MAX}).RoundDividedBy(3), DBL_MAX);
  // Subnormal ties: 3 * 2^-1074 / 2 is halfway between 1 and 2 units: 2.
  EXPECT_EQ(SumOf({3 * 5e-324}).RoundDividedBy(2), 2 * 5e-324);
  EXPECT_EQ(SumOf({5e-324}).RoundDividedBy(2), 0.0);  // Tie to even 0.
  EXPECT_EQ(Bits(SumOf({-5e-324}).RoundDividedBy(2)), Bits(-0.0));
  EXPECT_EQ(SumOf({5e-324}).RoundDividedBy(3), 0.0);
  EXPECT_EQ(SumOf({2 * 5e-324}).RoundDividedBy(3), 5e-324);
  EXPECT_EQ(SumOf({5e-324}).RoundDividedBy(~uint64_t{0}), 0.0);
  EXPECT_EQ(Bits(WideSum().RoundDividedBy(5)), Bits(0.0));
  EXPECT_TRUE(std::isnan(SumOf({1.0}).RoundDividedBy(0)));
  // A huge divisor: (2^64 - 1) * 3 units of 2^-64 / (2^64 - 1).
  WideSum big;
  big.AddFixed(static_cast<int128>(~uint64_t{0}) * 3);
  EXPECT_EQ(big.RoundDividedBy(~uint64_t{0}), 3 * Pow2(-64));
}

// ---------------------------------------------------------------------------
// Serialization.
// ---------------------------------------------------------------------------

TEST(SerializationTest, KnownEncodings) {
  EXPECT_EQ(Encode(WideSum()), std::string(1, '\0'));
  // 1.0 = 2^0: bit 1088 above 2^-1088, i.e. bit 0 of word 34.
  EXPECT_EQ(Encode(SumOf({1.0})),
            std::string("\x01\x22\x01\x01\x00\x00\x00", 7));
  EXPECT_EQ(Encode(SumOf({-1.0})),
            std::string("\x02\x22\x01\x01\x00\x00\x00", 7));
  EXPECT_EQ(Encode(SumOf({5e-324})),
            std::string("\x01\x00\x01\x00\x40\x00\x00", 7));  // Bit 14.
  EXPECT_EQ(Encode(SumOf({1.0, -1.0})), std::string(1, '\0'));
}

std::vector<WideSum> SampleSums() {
  std::mt19937_64 rng(9);
  std::vector<WideSum> sums = {WideSum(),
                               SumOf({1.0}),
                               SumOf({-1.0}),
                               SumOf({5e-324}),
                               SumOf({-DBL_MAX, -DBL_MAX}),
                               SumOf({DBL_MAX, DBL_MAX, DBL_MAX})};
  for (Kind kind : kAllKinds) {
    for (int i = 0; i < 20; ++i) sums.push_back(SumOf(MakeValues(kind, rng)));
  }
  return sums;
}

TEST(SerializationTest, RoundTrips) {
  for (const WideSum& sum : SampleSums()) {
    const std::string bytes = Encode(sum);
    ASSERT_LE(bytes.size(), 275u);
    const std::string buffer = bytes + "tail";
    std::string_view in = buffer;
    WideSum decoded;
    decoded.Add(42.0);  // Overwritten.
    ASSERT_TRUE(WideSum::ReadFrom(&in, &decoded));
    EXPECT_EQ(in, "tail");
    EXPECT_EQ(Encode(decoded), bytes);
    EXPECT_EQ(Bits(decoded.Round()), Bits(sum.Round()));
    EXPECT_EQ(decoded.IsZero(), sum.IsZero());
    // The decoded state keeps working: add the negation, get zero.
    WideSum negated;
    negated.Merge(decoded);
    decoded.Merge(sum);
    std::string twice;
    decoded.AppendTo(&twice);
    WideSum doubled = sum;
    doubled.Merge(sum);
    EXPECT_EQ(twice, Encode(doubled));
  }
}

TEST(SerializationTest, ConcatenatedEncodings) {
  const std::vector<WideSum> sums = SampleSums();
  std::string buffer;
  for (const WideSum& sum : sums) sum.AppendTo(&buffer);
  std::string_view in = buffer;
  for (const WideSum& sum : sums) {
    WideSum decoded;
    ASSERT_TRUE(WideSum::ReadFrom(&in, &decoded));
    EXPECT_EQ(Encode(decoded), Encode(sum));
  }
  EXPECT_TRUE(in.empty());
}

TEST(SerializationTest, RejectsTruncations) {
  for (const WideSum& sum : SampleSums()) {
    const std::string bytes = Encode(sum);
    for (size_t length = 0; length < bytes.size(); ++length) {
      // A copy of exactly `length` bytes, so that ASan sees any overread.
      const std::string prefix = bytes.substr(0, length);
      std::string_view in = prefix;
      WideSum decoded = SumOf({3.0});
      EXPECT_FALSE(WideSum::ReadFrom(&in, &decoded)) << length;
      EXPECT_EQ(in.size(), length);
      EXPECT_EQ(decoded.Round(), 3.0);
    }
  }
}

TEST(SerializationTest, ByteFlipsFailOrDecodeCanonically) {
  std::mt19937_64 rng(10);
  int accepted = 0;
  int rejected = 0;
  for (const WideSum& sum : SampleSums()) {
    const std::string bytes = Encode(sum);
    for (size_t at = 0; at < bytes.size(); ++at) {
      for (int flip = 0; flip < 4; ++flip) {
        std::string changed = bytes;
        changed[at] = static_cast<char>(changed[at] ^
                                        (flip == 0 ? 0xff : 1 << (rng() % 8)));
        std::string_view in = changed;
        WideSum decoded;
        if (!WideSum::ReadFrom(&in, &decoded)) {
          EXPECT_EQ(in.size(), changed.size());
          ++rejected;
          continue;
        }
        ++accepted;
        // Whatever was accepted is a canonical encoding of its value.
        const size_t used = changed.size() - in.size();
        EXPECT_EQ(Encode(decoded), changed.substr(0, used));
        decoded.Round();
      }
    }
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 100);
}

TEST(SerializationTest, RejectsMalformedInput) {
  const auto reads = [](const std::string& bytes) {
    std::string_view in = bytes;
    WideSum decoded;
    return WideSum::ReadFrom(&in, &decoded);
  };
  using std::string;
  EXPECT_TRUE(reads(string("\x01\x22\x01\x01\x00\x00\x00", 7)));
  EXPECT_FALSE(reads(string("")));
  EXPECT_FALSE(reads(string("\x03\x22\x01\x01\x00\x00\x00", 7)));  // Tag.
  EXPECT_FALSE(reads(string("\xff\x22\x01\x01\x00\x00\x00", 7)));
  EXPECT_FALSE(reads(string("\x01\x22\x00", 3)));                  // No words.
  EXPECT_FALSE(reads(string("\x01\x44\x01\x01\x00\x00\x00", 7)));  // lo 68.
  EXPECT_FALSE(reads(string("\x01\x43\x02\x01\x00\x00\x00\x01\x00\x00\x00",
                            11)));  // Past word 67.
  EXPECT_FALSE(reads(string("\x01\x22\x01\x00\x00\x00\x00", 7)));  // Zero.
  EXPECT_FALSE(reads(string("\x01\x22\x02\x01\x00\x00\x00\x00\x00\x00\x00",
                            11)));  // Zero last word.
  EXPECT_FALSE(reads(string("\x01\x22\x02\x00\x00\x00\x00\x01\x00\x00\x00",
                            11)));  // Zero first word.
  // Word 67 below 2^30 only: a magnitude below 2^1086.
  EXPECT_TRUE(reads(string("\x02\x43\x01\xff\xff\xff\x3f", 7)));
  EXPECT_FALSE(reads(string("\x02\x43\x01\x00\x00\x00\x40", 7)));
  EXPECT_FALSE(reads(string("\x02\x43\x01\xff\xff\xff\x7f", 7)));
  // The largest accepted magnitude rounds to infinity and merges without
  // undefined behavior.
  string max("\x01\x00\x44", 3);
  for (int i = 0; i < 67; ++i) max += string("\xff\xff\xff\xff", 4);
  max += string("\xff\xff\xff\x3f", 4);
  std::string_view in = max;
  WideSum decoded;
  ASSERT_TRUE(WideSum::ReadFrom(&in, &decoded));
  EXPECT_EQ(decoded.Round(), kInf);
  EXPECT_EQ(Encode(decoded), max);
  decoded.Merge(decoded);
  decoded.Round();
}

// ---------------------------------------------------------------------------
// Special values.
// ---------------------------------------------------------------------------

TEST(SpecialsTest, NoteSpecial) {
  EXPECT_EQ(NoteSpecial(0, -0.0), 0);
  EXPECT_EQ(NoteSpecial(0, 0.0), kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, -1.0), kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, -5e-324), kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, DBL_MAX), kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, kNaN), kSumNaN | kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, -kNaN), kSumNaN | kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, kInf), kSumPosInf | kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, -kInf), kSumNegInf | kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(kSumNaN, 1.0), kSumNaN | kSumNonNegZero);
  // A NaN with only the lowest payload bit set, and the largest.
  EXPECT_EQ(NoteSpecial(0, std::bit_cast<double>(uint64_t{0x7ff0000000000001})),
            kSumNaN | kSumNonNegZero);
  EXPECT_EQ(NoteSpecial(0, std::bit_cast<double>(~uint64_t{0})),
            kSumNaN | kSumNonNegZero);
}

TEST(SpecialsTest, FinishSum) {
  EXPECT_EQ(FinishSum(kSumNonNegZero, 2.5), 2.5);
  EXPECT_EQ(Bits(FinishSum(kSumNonNegZero, 0.0)), Bits(0.0));
  EXPECT_EQ(Bits(FinishSum(0, 0.0)), Bits(-0.0));  // Only -0.0 added.
  EXPECT_TRUE(std::isnan(FinishSum(kSumNaN | kSumNonNegZero, 1.0)));
  EXPECT_TRUE(std::isnan(FinishSum(kSumNaN | kSumPosInf | kSumNonNegZero, 1)));
  EXPECT_TRUE(
      std::isnan(FinishSum(kSumPosInf | kSumNegInf | kSumNonNegZero, 1.0)));
  EXPECT_EQ(FinishSum(kSumPosInf | kSumNonNegZero, -7.0), kInf);
  EXPECT_EQ(FinishSum(kSumNegInf | kSumNonNegZero, 7.0), -kInf);
}

// The flags of a split multiset, merged with `|`, finish like IEEE addition
// of the values in any order.
TEST(SpecialsTest, MatchesIeeeAddition) {
  const double kValues[] = {-0.0, 0.0, 1.0, -1.0, kInf, -kInf, kNaN, 2.5};
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 5000; ++trial) {
    std::vector<double> values;
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) values.push_back(kValues[rng() % 8]);
    double ieee = values[0];
    for (int i = 1; i < n; ++i) ieee += values[i];
    uint8_t flags_a = 0;
    uint8_t flags_b = 0;
    WideSum sum;
    for (int i = 0; i < n; ++i) {
      uint8_t& flags = i % 2 == 0 ? flags_a : flags_b;
      flags = NoteSpecial(flags, values[i]);
      if (std::isfinite(values[i])) sum.Add(values[i]);
    }
    const double got = FinishSum(flags_a | flags_b, sum.Round());
    if (std::isnan(ieee)) {
      EXPECT_TRUE(std::isnan(got));
    } else {
      EXPECT_EQ(Bits(got), Bits(ieee));
    }
  }
}

TEST(WideSumTest, Size) { EXPECT_LE(sizeof(WideSum), 550u); }

TEST(WideSumTest, NeverAllocates) {
  const std::string bytes = Encode(SumOf({1e300, -3.5, 1e-300}));
  std::string out;
  out.reserve(300);
  const size_t before = ::mapr::testing::AllocationCount();
  WideSum sum;
  sum.Add(1.5);
  sum.AddFixed(12345);
  WideSum other = sum;
  other.Add(-1e-310);
  sum.Merge(other);
  sum.Merge(sum);
  EXPECT_NE(sum.Round(), 0.0);
  EXPECT_NE(sum.RoundDividedBy(7), 0.0);
  EXPECT_FALSE(sum.IsZero());
  EXPECT_NE(RoundFixed(12345), 0.0);
  sum.AppendTo(&out);  // Into reserved capacity.
  std::string_view in = bytes;
  EXPECT_TRUE(WideSum::ReadFrom(&in, &sum));
  EXPECT_EQ(::mapr::testing::AllocationCount(), before);
}

}  // namespace
}  // namespace mapr::util

namespace mapr::util {
namespace {

TEST(WideSumToFixedTest, AcceptsExactlyTheFixedRange) {
  for (int128 units : {int128{0}, int128{1}, int128{-1}, int128{12345} << 70,
                       -(int128{1} << 126), (int128{1} << 126) + 17}) {
    WideSum w;
    w.AddFixed(units);
    int128 back = 7;
    ASSERT_TRUE(w.ToFixed(&back));
    EXPECT_TRUE(back == units);
  }
  // 1e-7 has bits below 2^-64; 2^64 (2^128 units) is beyond the range.
  WideSum small;
  small.Add(1e-7);
  int128 units;
  EXPECT_FALSE(small.ToFixed(&units));
  WideSum big;
  big.Add(18446744073709551616.0);
  EXPECT_FALSE(big.ToFixed(&units));
  // The same exact value reached through the wide path comes back fixed:
  // 1e-7 - 1e-7 + 0.5.
  WideSum back_in_range;
  back_in_range.Add(1e-7);
  back_in_range.Add(-1e-7);
  back_in_range.Add(0.5);
  ASSERT_TRUE(back_in_range.ToFixed(&units));
  EXPECT_TRUE(units == (int128{1} << 63));
  // The most negative int128 fits, its negation does not.
  WideSum min;
  min.AddFixed(-(int128{1} << 126));
  min.AddFixed(-(int128{1} << 126));
  ASSERT_TRUE(min.ToFixed(&units));
  WideSum beyond;
  beyond.AddFixed(int128{1} << 126);
  beyond.AddFixed(int128{1} << 126);
  EXPECT_FALSE(beyond.ToFixed(&units));
}

}  // namespace
}  // namespace mapr::util
