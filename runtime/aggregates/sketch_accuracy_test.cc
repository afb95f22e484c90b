// Accuracy of the new aggregates against exact answers computed here, on
// generated data: lognormal latencies, uniform and heavy-tailed (Pareto)
// values; 10, 1k, 100k and 10M values per group. pN is exact up to the
// exact limit and within the relative accuracy past it; dcount is exact up
// to 4096 distinct values and within 2.5 % from 10k to 10M; stddev and
// variance agree with a two-pass computation in long double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/aggregate.h"
#include "util/exact_sum.h"

namespace mapr::runtime {
namespace {

// The sanitizer builds check memory and races, not accuracy at scale: they
// skip the runs of a million values or more (the dev build runs them).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

const AggregateFunction& Find(std::string_view name) {
  for (const AggregateFunction* fn : Aggregates()) {
    if (fn->info.name == name) return *fn;
  }
  ADD_FAILURE() << name;
  return *Aggregates()[0];
}

// Feeds `values` (one group) in batches of 2048 rows.
void FeedNumbers(AggregateState& s, const std::vector<double>& values) {
  std::vector<uint32_t> sel(2048), gids(2048, 0);
  std::vector<uint8_t> numeric(2048, 1);
  std::vector<std::string_view> text(2048, std::string_view("x"));
  for (uint32_t i = 0; i < 2048; ++i) sel[i] = i;
  for (size_t lo = 0; lo < values.size(); lo += 2048) {
    const size_t n = std::min<size_t>(2048, values.size() - lo);
    const FieldRows f{text.data(), values.data() + lo, numeric.data()};
    s.Update(f, sel.data(), gids.data(), n);
  }
}

double Final(const AggregateFunction& fn, const AggregateState& s,
             plan::Rank rank = {}) {
  FinalColumn out;
  out.rank = rank;
  const uint32_t g = 0;
  fn.finalize(s, 1, std::span<const uint32_t>(&g, 1), &out);
  return out.values[0];
}

std::vector<double> Generate(const std::string& kind, size_t n,
                             std::mt19937_64& rng) {
  std::vector<double> v(n);
  std::lognormal_distribution<double> lognormal(3.0, 1.0);
  std::uniform_real_distribution<double> uniform(-1000.0, 1000.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (double& x : v) {
    if (kind == "lognormal") {
      x = lognormal(rng);
    } else if (kind == "uniform") {
      x = uniform(rng);
    } else {  // Pareto, alpha 1.2: heavy-tailed.
      x = 1.0 / std::pow(1.0 - unit(rng), 1.0 / 1.2);
    }
  }
  return v;
}

TEST(SketchAccuracyTest, PercentilesAreExactUpToTheLimitThenWithinAlpha) {
  const AggregateFunction& pn = Find("pN");
  std::mt19937_64 rng(11);
  const plan::Rank ranks[] = {{0, 1},  {1, 100},  {1, 4},      {1, 2},
                              {9, 10}, {99, 100}, {999, 1000}, {1, 1}};
  for (const std::string kind : {"lognormal", "uniform", "pareto"}) {
    for (size_t n : {size_t{10}, size_t{1000}, size_t{1024}, size_t{1025},
                     size_t{100000}, size_t{10000000}}) {
      if (n == 10000000 && (kind != "lognormal" || kSanitized)) continue;
      SCOPED_TRACE(absl::StrCat(kind, " n=", n));
      const std::vector<double> values = Generate(kind, n, rng);
      std::unique_ptr<AggregateState> s = pn.new_state(plan::StateOptions());
      s->Resize(1);
      FeedNumbers(*s, values);
      std::vector<double> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      for (const plan::Rank r : ranks) {
        const double exact =
            sorted[static_cast<size_t>(util::uint128{r.num} * (n - 1) / r.den)];
        const double got = Final(pn, *s, r);
        if (n <= 1024 || r.num == 0 || r.num == r.den) {
          EXPECT_EQ(got, exact) << r.num << "/" << r.den;
        } else {
          EXPECT_LE(std::fabs(got - exact), 0.01 * std::fabs(exact) * 1.0000001)
              << r.num << "/" << r.den << ": " << got << " vs " << exact;
        }
      }
    }
  }
}

TEST(SketchAccuracyTest, PercentileSettingsAreHonoured) {
  const AggregateFunction& pn = Find("pN");
  std::mt19937_64 rng(12);
  const std::vector<double> values = Generate("lognormal", 50000, rng);
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  // Exact for 50000 values when the limit allows them.
  std::unique_ptr<AggregateState> exact =
      pn.new_state(plan::StateOptions{65536, 0.01, {}});
  exact->Resize(1);
  FeedNumbers(*exact, values);
  EXPECT_EQ(Final(pn, *exact, {99, 100}),
            sorted[static_cast<size_t>(99ull * 49999 / 100)]);
  // 0.1 % accuracy.
  std::unique_ptr<AggregateState> fine =
      pn.new_state(plan::StateOptions{0, 0.001, {}});
  fine->Resize(1);
  FeedNumbers(*fine, values);
  const double want = sorted[static_cast<size_t>(999ull * 49999 / 1000)];
  EXPECT_LE(std::fabs(Final(pn, *fine, {999, 1000}) - want), 0.001 * want);
}

TEST(SketchAccuracyTest, SketchKeepsAtMost2048BucketsAndCollapsesTheLowest) {
  const AggregateFunction& pn = Find("pN");
  // Values over 60 orders of magnitude: more than 2048 buckets at 1 %.
  std::vector<double> values;
  for (int e = -30; e < 30; ++e) {
    for (int k = 1; k < 200; ++k) values.push_back(std::pow(10.0, e) * k / 10);
  }
  std::unique_ptr<AggregateState> s = pn.new_state(plan::StateOptions());
  s->Resize(1);
  FeedNumbers(*s, values);
  std::string bytes;
  s->Serialize(0, &bytes);
  // form, count, min, max, zeros; positive store: buckets, base, counts;
  // negative store: 0 buckets.
  ASSERT_GT(bytes.size(), 1u + 8 + 8 + 8 + 8 + 4);
  uint32_t buckets = 0;
  for (int i = 0; i < 4; ++i) {
    buckets |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[33 + i]))
               << (8 * i);
  }
  EXPECT_EQ(buckets, 2048u);
  EXPECT_EQ(bytes.size(), 41u + 8 * 2048 + 4);
  // The high quantiles keep their accuracy; the lowest ones collapsed.
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double p99 = sorted[99 * (n - 1) / 100];
  EXPECT_LE(std::fabs(Final(pn, *s, {99, 100}) - p99), 0.01 * p99);
  EXPECT_EQ(Final(pn, *s, {0, 1}), sorted.front());
}

TEST(SketchAccuracyTest, DistinctCountIsExactThenWithinTwoAndAHalfPercent) {
  const AggregateFunction& dc = Find("dcount");
  for (uint64_t distinct : {uint64_t{10}, uint64_t{1000}, uint64_t{4096},
                            uint64_t{4097}, uint64_t{10000}, uint64_t{100000},
                            uint64_t{1000000}, uint64_t{10000000}}) {
    SCOPED_TRACE(distinct);
    if (kSanitized && distinct >= 1000000) continue;
    std::unique_ptr<AggregateState> s = dc.new_state(plan::StateOptions());
    s->Resize(1);
    // Each value twice, in two passes, as text.
    std::vector<std::string> text(2048);
    std::vector<std::string_view> views(2048);
    std::vector<uint32_t> sel(2048), gids(2048, 0);
    std::vector<double> numbers(2048, 0);
    std::vector<uint8_t> numeric(2048, 0);
    for (uint32_t i = 0; i < 2048; ++i) sel[i] = i;
    for (int pass = 0; pass < 2; ++pass) {
      for (uint64_t lo = 0; lo < distinct; lo += 2048) {
        const size_t n = std::min<uint64_t>(2048, distinct - lo);
        for (size_t i = 0; i < n; ++i) {
          text[i] = absl::StrCat("session-", lo + i);
          views[i] = text[i];
        }
        const FieldRows f{views.data(), numbers.data(), numeric.data()};
        s->Update(f, sel.data(), gids.data(), n);
      }
    }
    const double got = Final(dc, *s);
    if (distinct <= 4096) {
      EXPECT_EQ(got, static_cast<double>(distinct));
    } else {
      EXPECT_NEAR(got, static_cast<double>(distinct),
                  0.025 * static_cast<double>(distinct));
    }
  }
}

TEST(SketchAccuracyTest, StddevAgreesWithTwoPassLongDouble) {
  std::mt19937_64 rng(13);
  for (const std::string kind : {"lognormal", "uniform", "pareto"}) {
    for (size_t n : {size_t{2}, size_t{10}, size_t{1000}, size_t{100000}}) {
      for (double offset : {0.0, 1e9}) {
        SCOPED_TRACE(absl::StrCat(kind, " n=", n, " offset=", offset));
        std::vector<double> values = Generate(kind, n, rng);
        for (double& v : values) v += offset;
        long double mean = 0;
        for (double v : values) mean += v;
        mean /= static_cast<long double>(n);
        long double m2 = 0;
        for (double v : values) m2 += (v - mean) * (v - mean);
        for (const auto& [name, divisor, root] :
             {std::tuple{"variance", n - 1, false},
              {"variancep", n, false},
              {"stddev", n - 1, true},
              {"stddevp", n, true}}) {
          const AggregateFunction& fn = Find(name);
          std::unique_ptr<AggregateState> s =
              fn.new_state(plan::StateOptions());
          s->Resize(1);
          FeedNumbers(*s, values);
          long double want = m2 / static_cast<long double>(divisor);
          if (root) want = std::sqrt(want);
          const double got = Final(fn, *s);
          EXPECT_NEAR(got, static_cast<double>(want),
                      1e-9 * static_cast<double>(want) + 1e-12)
              << name;
        }
      }
    }
  }
  // Fewer than two values: 0.
  const AggregateFunction& sd = Find("stddev");
  std::unique_ptr<AggregateState> s = sd.new_state(plan::StateOptions());
  s->Resize(1);
  FeedNumbers(*s, {42.0});
  EXPECT_EQ(Final(sd, *s), 0.0);
}

}  // namespace
}  // namespace mapr::runtime
