// histogram(x, w): exact decimal bins, merges, the bin limit (the same for
// any split) and the bytes.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/number.h"

namespace mapr::runtime {
namespace {

const AggregateFunction& Histogram() {
  for (const AggregateFunction* fn : Aggregates()) {
    if (fn->info.name == "histogram") return *fn;
  }
  ADD_FAILURE() << "no histogram aggregate";
  return *Aggregates()[0];
}

std::unique_ptr<AggregateState> NewState(std::string_view width) {
  plan::StateOptions options;
  options.parameter = width;
  std::unique_ptr<AggregateState> s = Histogram().new_state(options);
  s->Resize(1);
  return s;
}

// Adds values[lo, hi) to group 0 (numeric where they parse), 500 a batch.
void Add(AggregateState& s, const std::vector<std::string>& values, size_t lo,
         size_t hi) {
  for (size_t b = lo; b < hi; b += 500) {
    const size_t e = std::min(hi, b + 500);
    std::vector<std::string_view> rows(values.begin() + b, values.begin() + e);
    std::vector<double> numbers(rows.size());
    std::vector<uint8_t> numeric(rows.size());
    std::vector<uint32_t> sel(rows.size()), gids(rows.size(), 0);
    for (size_t i = 0; i < rows.size(); ++i) {
      numeric[i] = util::ParseNumber(rows[i], &numbers[i]);
      sel[i] = static_cast<uint32_t>(i);
    }
    s.Update(FieldRows{rows.data(), numbers.data(), numeric.data()}, sel.data(),
             gids.data(), rows.size());
  }
}

std::string List(const AggregateState& s) {
  FinalColumn out;
  const uint32_t which[] = {0};
  Histogram().finalize(s, 1, std::span<const uint32_t>(which, 1), &out);
  return std::string(out.texts[0]);
}

std::string Bytes(const AggregateState& s) {
  std::string out;
  s.Serialize(0, &out);
  return out;
}

TEST(HistogramTest, DecimalBinsAreExactAndOrderedByValue) {
  const std::unique_ptr<AggregateState> s = NewState("0.1");
  // 0.3 / 0.1 is 2.9999999999999996 in doubles; its bin is still 0.3.
  Add(*s, {"0.3", "0.35", "0.29", "-0.01", "x", "nan", "1e-1", "0.1", "2"}, 0,
      9);
  EXPECT_EQ(List(*s), "-0.1: 1, 0.1: 2, 0.2: 1, 0.3: 2, 2.0: 1, NaN: 1");
  const std::unique_ptr<AggregateState> wide = NewState("100");
  Add(*wide, {"-1", "0", "99.9", "100", "250", "-100"}, 0, 6);
  EXPECT_EQ(List(*wide), "-100: 2, 0: 2, 100: 1, 200: 1");
  EXPECT_EQ(List(*NewState("5")), "");
}

TEST(HistogramTest, NaNInfinitiesAndOverflowingBinsAreCounted) {
  // Every numeric value lands in a bin: NaN in NaN, infinities and values
  // whose bin is past the largest double in -Inf or +Inf.
  const std::unique_ptr<AggregateState> s = NewState("0.001");
  Add(*s,
      {"5", "NaN", "-Inf", "1e308", "inf", "-1e308", "nan", "+Inf", "-1.5",
       "x"},
      0, 10);
  EXPECT_EQ(List(*s), "-Inf: 2, -1.500: 1, 5.000: 1, +Inf: 3, NaN: 2");
  // They round-trip, and split anywhere they add up alike.
  const std::string bytes = Bytes(*s);
  const std::unique_ptr<AggregateState> back = NewState("0.001");
  std::string_view in = bytes;
  ASSERT_TRUE(back->Deserialize(&in, 0));
  EXPECT_EQ(List(*back), List(*s));
  const std::vector<std::string> values = {"NaN",  "1",     "inf", "2",
                                           "-inf", "1e308", "3"};
  for (size_t cut = 0; cut <= values.size(); ++cut) {
    const std::unique_ptr<AggregateState> a = NewState("0.001"),
                                          b = NewState("0.001");
    Add(*a, values, 0, cut);
    Add(*b, values, cut, values.size());
    const uint32_t to[] = {0};
    ASSERT_EQ(a->Combine(*b, to, 1), CombineStatus::kOk);
    EXPECT_EQ(List(*a),
              "-Inf: 1, 1.000: 1, 2.000: 1, 3.000: 1, +Inf: 2, NaN: 1")
        << cut;
  }
}

TEST(HistogramTest, TheSameForAnySplitAndTooManyBinsAlike) {
  std::mt19937_64 rng(5);
  for (int distinct_bins : {300, 5000}) {
    std::vector<std::string> values;
    values.reserve(20000);
    for (int i = 0; i < 20000; ++i) {
      values.push_back(absl::StrCat(static_cast<int>(rng() % distinct_bins),
                                    ".", rng() % 10));
    }
    const std::unique_ptr<AggregateState> one = NewState("1");
    Add(*one, values, 0, values.size());
    const bool too_many = distinct_bins > 4096;
    EXPECT_EQ(List(*one).starts_with("more than 4096 bins"), too_many);
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<size_t> cuts = {0, values.size()};
      for (int i = 0; i < 5; ++i) cuts.push_back(rng() % values.size());
      std::sort(cuts.begin(), cuts.end());
      const std::unique_ptr<AggregateState> all = NewState("1");
      Add(*all, values, cuts[0], cuts[1]);
      for (size_t i = 1; i + 1 < cuts.size(); ++i) {
        const std::unique_ptr<AggregateState> part = NewState("1");
        Add(*part, values, cuts[i], cuts[i + 1]);
        const uint32_t to[] = {0};
        ASSERT_EQ(all->Combine(*part, to, 1), CombineStatus::kOk);
      }
      EXPECT_EQ(Bytes(*all), Bytes(*one));
      EXPECT_EQ(List(*all), List(*one));
    }
  }
}

TEST(HistogramTest, BytesRoundTripAndMalformedStatesAreRefused) {
  const std::unique_ptr<AggregateState> s = NewState("0.5");
  Add(*s, {"1", "1.2", "7", "-3"}, 0, 4);
  const std::string bytes = Bytes(*s);
  const std::unique_ptr<AggregateState> back = NewState("0.5");
  std::string_view in = bytes;
  ASSERT_TRUE(back->Deserialize(&in, 0));
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(Bytes(*back), bytes);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::string_view short_in(bytes.data(), cut);
    EXPECT_FALSE(NewState("0.5")->Deserialize(&short_in, 0)) << cut;
  }
  auto bins = [](const std::vector<std::pair<std::string, uint64_t>>& e) {
    std::string out;
    util::AppendU8(&out, 0);
    util::AppendU32(&out, static_cast<uint32_t>(e.size()));
    for (const auto& [v, c] : e) {
      util::AppendBytes(&out, v);
      util::AppendU64(&out, c);
    }
    return out;
  };
  auto reads = [](const std::string& b) {
    std::string_view rest = b;
    return NewState("1")->Deserialize(&rest, 0) && rest.empty();
  };
  EXPECT_TRUE(reads(bins({{"-1", 2}, {"0", 1}})));
  EXPECT_TRUE(reads(std::string(1, '\1')));         // too many bins
  EXPECT_FALSE(reads(std::string(1, '\2')));        // form
  EXPECT_FALSE(reads(bins({{"0", 0}})));            // count 0
  EXPECT_FALSE(reads(bins({{"1", 1}, {"0", 1}})));  // order
  EXPECT_FALSE(reads(bins({{"x", 1}})));            // not a number
  EXPECT_FALSE(reads(bins({{"inf", 1}})));          // not a bin's name
  EXPECT_TRUE(reads(bins({{"+Inf", 1}, {"-Inf", 2}, {"NaN", 3}})));
}

}  // namespace
}  // namespace mapr::runtime
