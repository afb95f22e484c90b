// topk(x, k): exact lists up to 4096 distinct values, Misra-Gries summaries
// past them, whose bounds hold for any split; ties, merges and the bytes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "runtime/aggregate.h"
#include "util/bytes.h"

namespace mapr::runtime {
namespace {

const AggregateFunction& Named(std::string_view name) {
  for (const AggregateFunction* fn : Aggregates()) {
    if (fn->info.name == name) return *fn;
  }
  ADD_FAILURE() << "no " << name << " aggregate";
  return *Aggregates()[0];
}

const AggregateFunction& Topk() { return Named("topk"); }

std::unique_ptr<AggregateState> NewState() {
  std::unique_ptr<AggregateState> s = Topk().new_state(plan::StateOptions());
  s->Resize(1);
  return s;
}

// Adds values[lo, hi) to group 0, 1000 rows per batch.
void Add(AggregateState& s, const std::vector<std::string>& values, size_t lo,
         size_t hi) {
  for (size_t b = lo; b < hi; b += 1000) {
    const size_t e = std::min(hi, b + 1000);
    std::vector<std::string_view> rows(values.begin() + b, values.begin() + e);
    std::vector<uint32_t> sel(rows.size()), gids(rows.size(), 0);
    for (size_t i = 0; i < rows.size(); ++i) sel[i] = static_cast<uint32_t>(i);
    s.Update(FieldRows{rows.data(), nullptr, nullptr}, sel.data(), gids.data(),
             rows.size());
  }
}

std::string List(const AggregateState& s, uint64_t k,
                 std::string_view name = "topk") {
  FinalColumn out;
  out.rank = {k, 1};
  const uint32_t which[] = {0};
  Named(name).finalize(s, 1, std::span<const uint32_t>(which, 1), &out);
  return std::string(out.texts[0]);
}

std::string Bytes(const AggregateState& s) {
  std::string out;
  s.Serialize(0, &out);
  return out;
}

// The state of values[cuts[i], cuts[i + 1]) for each i, folded left.
std::unique_ptr<AggregateState> Folded(const std::vector<std::string>& values,
                                       const std::vector<size_t>& cuts) {
  std::unique_ptr<AggregateState> all = NewState();
  Add(*all, values, cuts[0], cuts[1]);
  for (size_t i = 1; i + 1 < cuts.size(); ++i) {
    std::unique_ptr<AggregateState> part = NewState();
    Add(*part, values, cuts[i], cuts[i + 1]);
    const uint32_t to[] = {0};
    all->Combine(*part, to, 1);
  }
  return all;
}

// A Zipf-like stream: value i with weight 1 / (i + 1), `distinct` values.
std::vector<std::string> Skewed(size_t n, uint32_t distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> weights(distinct);
  for (uint32_t i = 0; i < distinct; ++i) weights[i] = 1.0 / (i + 1);
  std::discrete_distribution<uint32_t> pick(weights.begin(), weights.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(absl::StrCat("v", pick(rng)));
  return out;
}

TEST(TopkTest, ExactListTiesByValueMissingSkippedEmptyShown) {
  std::unique_ptr<AggregateState> s = NewState();
  const std::vector<std::string> values = {
      "GET", "POST", "GET", "HEAD", "b", "a", "", "POST", "GET", "a", "b"};
  Add(*s, values, 0, values.size());
  const std::string_view missing[] = {std::string_view()};
  const uint32_t sel[] = {0}, gids[] = {0};
  s->Update(FieldRows{missing, nullptr, nullptr}, sel, gids, 1);
  EXPECT_EQ(List(*s, 1), "GET (3)");
  EXPECT_EQ(List(*s, 4), "GET (3), POST (2), a (2), b (2)");
  EXPECT_EQ(List(*s, 100),
            "GET (3), POST (2), a (2), b (2), \"\" (1), HEAD (1)");
  EXPECT_EQ(List(*NewState(), 3), "");
  // rare(): the least frequent first, the same ties.
  EXPECT_EQ(List(*s, 3, "rare"), "\"\" (1), HEAD (1), POST (2)");
  EXPECT_EQ(List(*s, 100, "rare"),
            "\"\" (1), HEAD (1), POST (2), a (2), b (2), GET (3)");
}

TEST(TopkTest, RareSaysWhenItHasNoExactCounts) {
  const std::vector<std::string> values = Skewed(30000, 9000, 4);
  const std::unique_ptr<AggregateState> s = NewState();
  Add(*s, values, 0, values.size());
  EXPECT_EQ(List(*s, 5, "rare"),
            "more than 4096 distinct values: rare() counts up to 4096");
  EXPECT_TRUE(List(*s, 1).starts_with("v0 (")) << List(*s, 1);
  // rare reads topk's state, and so shares its slot and section.
  EXPECT_EQ(Named("rare").info.state, Topk().info.state);
  EXPECT_EQ(Named("rare").partial_section, Topk().partial_section);
}

TEST(TopkTest, ExactListsAreTheSameForAnySplitUpToTheLimit) {
  std::mt19937_64 rng(31);
  // 4096 distinct values at most: exact, whatever the split.
  const std::vector<std::string> values = Skewed(50000, 4096, 1);
  const std::unique_ptr<AggregateState> one = NewState();
  Add(*one, values, 0, values.size());
  std::map<std::string, uint64_t> truth;
  for (const std::string& v : values) ++truth[v];
  ASSERT_LE(truth.size(), 4096u);
  EXPECT_EQ(Bytes(*one)[0], 0) << "exact form";
  const std::string list = List(*one, 5);
  EXPECT_TRUE(list.starts_with(absl::StrCat("v0 (", truth["v0"], "), v1 (")))
      << list;
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<size_t> cuts = {0, values.size()};
    for (int i = 0; i < 6; ++i) cuts.push_back(rng() % values.size());
    std::sort(cuts.begin(), cuts.end());
    const std::unique_ptr<AggregateState> folded = Folded(values, cuts);
    EXPECT_EQ(Bytes(*folded), Bytes(*one));
    EXPECT_EQ(List(*folded, 5), list);
  }
}

// Checks a summary's list against the true counts: each shown value's
// count within its lo..hi, and every value more frequent than n / 1025
// held (shown with k = 2048, which lists every counter).
void ExpectWithinBounds(const AggregateState& s,
                        const std::map<std::string, uint64_t>& truth,
                        uint64_t n) {
  const std::string all = List(s, 2048);
  std::map<std::string, std::pair<uint64_t, uint64_t>> shown;
  for (absl::string_view entry : absl::StrSplit(all, ", ")) {
    const size_t open = entry.rfind(" (");
    ASSERT_NE(open, absl::string_view::npos) << entry;
    const absl::string_view range =
        entry.substr(open + 2, entry.size() - open - 3);
    const size_t dots = range.find("..");
    ASSERT_NE(dots, absl::string_view::npos) << entry;
    uint64_t lo, hi;
    ASSERT_TRUE(absl::SimpleAtoi(range.substr(0, dots), &lo));
    ASSERT_TRUE(absl::SimpleAtoi(range.substr(dots + 2), &hi));
    shown[std::string(entry.substr(0, open))] = {lo, hi};
  }
  ASSERT_FALSE(shown.empty());
  const uint64_t error =
      shown.begin()->second.second - shown.begin()->second.first;
  EXPECT_LE(error * 1025, n);
  for (const auto& [value, range] : shown) {
    const uint64_t f = truth.at(value);
    EXPECT_LE(range.first, f) << value;
    EXPECT_GE(range.second, f) << value;
    EXPECT_EQ(range.second - range.first, error);
  }
  for (const auto& [value, f] : truth) {
    if (f > error) {
      EXPECT_TRUE(shown.contains(value)) << value << " " << f;
    }
  }
}

TEST(TopkTest, SummaryBoundsHoldForAnySplit) {
  std::mt19937_64 rng(7);
  const std::vector<std::string> values = Skewed(200000, 30000, 2);
  std::map<std::string, uint64_t> truth;
  for (const std::string& v : values) ++truth[v];
  ASSERT_GT(truth.size(), 4096u);
  const std::unique_ptr<AggregateState> one = NewState();
  Add(*one, values, 0, values.size());
  EXPECT_EQ(Bytes(*one)[0], 1) << "summary form";
  ExpectWithinBounds(*one, truth, values.size());
  // The most frequent values stand far above the error: the same top 3
  // for any split.
  const std::string top = List(*one, 3);
  EXPECT_TRUE(top.starts_with("v0 (")) << top;
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<size_t> cuts = {0, values.size()};
    for (int i = 0; i < 5; ++i) cuts.push_back(rng() % values.size());
    std::sort(cuts.begin(), cuts.end());
    const std::unique_ptr<AggregateState> folded = Folded(values, cuts);
    EXPECT_EQ(Bytes(*folded)[0], 1);
    ExpectWithinBounds(*folded, truth, values.size());
    std::string names, want;
    for (absl::string_view e : absl::StrSplit(List(*folded, 3), ", ")) {
      absl::StrAppend(&names, e.substr(0, e.find(' ')), " ");
    }
    for (absl::string_view e : absl::StrSplit(top, ", ")) {
      absl::StrAppend(&want, e.substr(0, e.find(' ')), " ");
    }
    EXPECT_EQ(names, want);
  }
}

TEST(TopkTest, BecomesASummaryWhenTheUnionPassesTheLimit) {
  // Two halves of 3000 distinct values each, 5000 together: each half is
  // exact, their merge is a summary, as one pass is.
  std::vector<std::string> values;
  values.reserve(5000);
  for (int i = 0; i < 5000; ++i) values.push_back(absl::StrCat("v", i % 5000));
  std::sort(values.begin(), values.end());
  const std::unique_ptr<AggregateState> a = NewState(), b = NewState();
  Add(*a, values, 0, 3000);
  Add(*b, values, 2000, 5000);
  EXPECT_EQ(Bytes(*a)[0], 0);
  const uint32_t to[] = {0};
  a->Combine(*b, to, 1);
  EXPECT_EQ(Bytes(*a)[0], 1);
  const std::unique_ptr<AggregateState> one = NewState();
  Add(*one, values, 0, values.size());
  EXPECT_EQ(Bytes(*one)[0], 1);
}

TEST(TopkTest, BytesRoundTripAndMalformedStatesAreRefused) {
  for (const std::vector<std::string>& values :
       {std::vector<std::string>{"x", "y", "x"}, Skewed(30000, 9000, 3)}) {
    const std::unique_ptr<AggregateState> s = NewState();
    Add(*s, values, 0, values.size());
    const std::string bytes = Bytes(*s);
    const std::unique_ptr<AggregateState> back = NewState();
    std::string_view in = bytes;
    ASSERT_TRUE(back->Deserialize(&in, 0));
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(Bytes(*back), bytes);
    EXPECT_EQ(List(*back, 10), List(*s, 10));
    // Every cut of the bytes is refused.
    for (size_t cut = 0; cut < bytes.size();
         cut += std::max<size_t>(1, bytes.size() / 200)) {
      const std::unique_ptr<AggregateState> t = NewState();
      std::string_view short_in(bytes.data(), cut);
      EXPECT_FALSE(t->Deserialize(&short_in, 0)) << cut;
    }
  }
  auto entries = [](uint8_t form, uint64_t error,
                    const std::vector<std::pair<std::string, uint64_t>>& e) {
    std::string out;
    util::AppendU8(&out, form);
    if (form == 1) util::AppendU64(&out, error);
    util::AppendU32(&out, static_cast<uint32_t>(e.size()));
    for (const auto& [v, c] : e) {
      util::AppendBytes(&out, v);
      util::AppendU64(&out, c);
    }
    return out;
  };
  auto reads = [](const std::string& bytes) {
    std::string_view in = bytes;
    return NewState()->Deserialize(&in, 0) && in.empty();
  };
  EXPECT_TRUE(reads(entries(0, 0, {{"a", 1}, {"b", 2}})));
  EXPECT_TRUE(reads(entries(1, 4, {{"a", 1}, {"b", 2}})));
  EXPECT_FALSE(reads(entries(2, 0, {})));                    // form
  EXPECT_FALSE(reads(entries(1, 0, {{"a", 1}})));            // no error
  EXPECT_FALSE(reads(entries(0, 0, {{"a", 0}})));            // count 0
  EXPECT_FALSE(reads(entries(0, 0, {{"b", 1}, {"a", 1}})));  // order
  EXPECT_FALSE(reads(entries(0, 0, {{"a", 1}, {"a", 1}})));  // duplicate
  std::string too_many;
  util::AppendU8(&too_many, 0);
  util::AppendU32(&too_many, 4097);
  too_many.append(4097 * 12, '\0');
  EXPECT_FALSE(reads(too_many));
}

}  // namespace
}  // namespace mapr::runtime
