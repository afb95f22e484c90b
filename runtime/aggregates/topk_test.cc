// topk(x, k): exact lists up to 4096 distinct values, summaries past them
// (a Count-Min sketch and Misra-Gries candidates) whose lists are the same
// for any split and whose counts are upper bounds; ties, merges and bytes.
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
    EXPECT_EQ(all->Combine(*part, to, 1), CombineStatus::kOk);
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

// The (value, count) pairs of a summary's list, each count shown as
// `(<=count)`.
std::map<std::string, uint64_t> Shown(const std::string& list) {
  std::map<std::string, uint64_t> shown;
  if (list.empty()) return shown;
  for (absl::string_view entry : absl::StrSplit(list, ", ")) {
    const size_t open = entry.rfind(" (<=");
    EXPECT_NE(open, absl::string_view::npos) << entry;
    if (open == absl::string_view::npos) continue;
    uint64_t hi;
    EXPECT_TRUE(
        absl::SimpleAtoi(entry.substr(open + 4, entry.size() - open - 5), &hi))
        << entry;
    shown[std::string(entry.substr(0, open))] = hi;
  }
  return shown;
}

// Checks a summary's list against the true counts: each shown count at
// least the true one (and, on these inputs, at most n / 2048 above it),
// above 2n / 1025, and every value more frequent than that listed (with
// k = 2048, which lists every held value).
void ExpectWithinBounds(const AggregateState& s,
                        const std::map<std::string, uint64_t>& truth,
                        uint64_t n) {
  const std::map<std::string, uint64_t> shown = Shown(List(s, 2048));
  ASSERT_FALSE(shown.empty());
  for (const auto& [value, hi] : shown) {
    const uint64_t f = truth.at(value);
    EXPECT_GE(hi, f) << value;
    EXPECT_LE((hi - f) * 2048, n) << value << " " << f << " " << hi;
    EXPECT_GT(hi * 1025, 2 * n) << value;
  }
  for (const auto& [value, f] : truth) {
    if (f * 1025 > 2 * n) {
      EXPECT_TRUE(shown.contains(value)) << value << " " << f;
    }
  }
}

// Merges states[lo, hi) as a balanced tree.
std::unique_ptr<AggregateState> Tree(
    std::vector<std::unique_ptr<AggregateState>>& states, size_t lo,
    size_t hi) {
  if (hi - lo == 1) return std::move(states[lo]);
  const size_t mid = lo + (hi - lo) / 2;
  std::unique_ptr<AggregateState> left = Tree(states, lo, mid);
  const std::unique_ptr<AggregateState> right = Tree(states, mid, hi);
  const uint32_t to[] = {0};
  EXPECT_EQ(left->Combine(*right, to, 1), CombineStatus::kOk);
  return left;
}

// A state read back from another's bytes.
std::unique_ptr<AggregateState> Reread(const AggregateState& s) {
  const std::string bytes = Bytes(s);
  std::unique_ptr<AggregateState> back = NewState();
  std::string_view in = bytes;
  EXPECT_TRUE(back->Deserialize(&in, 0));
  EXPECT_TRUE(in.empty());
  return back;
}

// The lists of `values` for one pass and for random splits merged left to
// right, as a tree and through their bytes: the same bytes each time, and
// within bounds.
void ExpectSameListForAnySplit(const std::vector<std::string>& values,
                               uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::string, uint64_t> truth;
  for (const std::string& v : values) ++truth[v];
  ASSERT_GT(truth.size(), 4096u);
  const std::unique_ptr<AggregateState> one = NewState();
  Add(*one, values, 0, values.size());
  EXPECT_EQ(Bytes(*one)[0], 2) << "summary form";
  ExpectWithinBounds(*one, truth, values.size());
  const std::string top = List(*one, 100), all = List(*one, 2048);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<size_t> cuts = {0, values.size()};
    const int pieces = trial < 2 ? 1 : trial < 4 ? 6 : 40;
    for (int i = 0; i < pieces; ++i) cuts.push_back(rng() % values.size());
    std::sort(cuts.begin(), cuts.end());
    const std::unique_ptr<AggregateState> folded = Folded(values, cuts);
    EXPECT_EQ(List(*folded, 100), top) << trial;
    EXPECT_EQ(List(*folded, 2048), all) << trial;
    ExpectWithinBounds(*folded, truth, values.size());
    std::vector<std::unique_ptr<AggregateState>> parts;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      std::unique_ptr<AggregateState> part = NewState();
      Add(*part, values, cuts[i], cuts[i + 1]);
      parts.push_back(trial % 2 == 0 ? Reread(*part) : std::move(part));
    }
    const std::unique_ptr<AggregateState> tree = Tree(parts, 0, parts.size());
    EXPECT_EQ(List(*Reread(*tree), 100), top) << trial;
    EXPECT_EQ(List(*tree, 2048), all) << trial;
  }
}

TEST(TopkTest, SummaryListsAreTheSameForAnySplit) {
  // A Zipf-like stream of 30000 values.
  ExpectSameListForAnySplit(Skewed(200000, 30000, 2), 7);
  // Hard for the candidates: with n = 387500, 300 values near n / 1025
  // (250 to 399 times: some held only by some splits), 250 values around
  // the listing line 2n / 1025 (600 to 999 times), and 60000 values seen
  // once or twice, in random order.
  std::vector<std::string> values;
  for (int i = 0; i < 60000; ++i) {
    for (int c = 0; c < 1 + i % 2; ++c) values.push_back(absl::StrCat("r", i));
  }
  for (int i = 0; i < 300; ++i) {
    for (int c = 0; c < 250 + i / 2; ++c)
      values.push_back(absl::StrCat("m", i));
  }
  for (int i = 0; i < 250; ++i) {
    for (int c = 0; c < 600 + (i * 8) % 400; ++c) {
      values.push_back(absl::StrCat("b", i));
    }
  }
  std::mt19937_64 rng(11);
  std::shuffle(values.begin(), values.end(), rng);
  ExpectSameListForAnySplit(values, 12);
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
  ASSERT_EQ(a->Combine(*b, to, 1), CombineStatus::kOk);
  EXPECT_EQ(Bytes(*a)[0], 2);
  const std::unique_ptr<AggregateState> one = NewState();
  Add(*one, values, 0, values.size());
  EXPECT_EQ(Bytes(*one)[0], 2);
  EXPECT_EQ(List(*a, 100), List(*one, 100));
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
  EXPECT_FALSE(reads(entries(1, 4, {{"a", 1}, {"b", 2}})));  // stop 42's
  EXPECT_FALSE(reads(entries(3, 0, {})));                    // form
  EXPECT_FALSE(reads(entries(0, 0, {{"a", 0}})));            // count 0
  EXPECT_FALSE(reads(entries(0, 0, {{"b", 1}, {"a", 1}})));  // order
  EXPECT_FALSE(reads(entries(0, 0, {{"a", 1}, {"a", 1}})));  // duplicate
  // A summary (form 2): n, error, the 6 x 8192 counters, the values. By
  // default every counter is 1, so every estimate is 1.
  struct Summary {
    uint64_t n = 8192, error = 7;
    std::vector<std::vector<uint64_t>> rows =
        std::vector<std::vector<uint64_t>>(6, std::vector<uint64_t>(8192, 1));
    std::vector<std::pair<std::string, uint64_t>> held = {{"a", 1}};
    std::string Bytes() const {
      std::string out;
      util::AppendU8(&out, 2);
      util::AppendU64(&out, n);
      util::AppendU64(&out, error);
      for (const auto& row : rows) {
        for (const uint64_t counter : row) util::AppendVarU64(&out, counter);
      }
      util::AppendU32(&out, static_cast<uint32_t>(held.size()));
      for (const auto& [v, c] : held) {
        util::AppendBytes(&out, v);
        util::AppendU64(&out, c);
      }
      return out;
    }
  };
  EXPECT_TRUE(reads(Summary().Bytes()));
  auto refused = [&](auto change) {
    Summary s;
    change(s);
    return !reads(s.Bytes());
  };
  EXPECT_FALSE(refused([](Summary& s) {  // zeros are counters too
    s.rows[3][5] = 0;
    s.rows[3][6] = 2;
  }));
  EXPECT_TRUE(refused([](Summary& s) {  // not past 4096
    s.n = 4096;
    for (auto& row : s.rows) {
      for (size_t c = 0; c < 4096; ++c) row[c] = 0;
    }
  }));
  EXPECT_TRUE(refused([](Summary& s) { s.error = 0; }));  // no error
  EXPECT_TRUE(refused([](Summary& s) { s.error = 8; }));  // > n / 1025
  EXPECT_TRUE(refused([](Summary& s) { s.n = 8193; }));   // row sums
  EXPECT_TRUE(refused([](Summary& s) { s.rows[2][9] = 2; }));
  EXPECT_TRUE(refused([](Summary& s) { s.rows.pop_back(); }));
  EXPECT_TRUE(refused([](Summary& s) { s.rows[1].pop_back(); }));
  // A held count above its estimate.
  EXPECT_TRUE(refused([](Summary& s) { s.held = {{"a", 2}}; }));
  EXPECT_TRUE(refused([](Summary& s) {
    s.held.clear();
    for (int i = 0; i < 2049; ++i) s.held.push_back({absl::StrCat(i), 1});
    std::sort(s.held.begin(), s.held.end());
  }));
  // The held counts and 1025 times the error are at most n: 2048 + 1025 *
  // 5 <= 8192 < 2048 + 1025 * 6. A state past it (no merge of real states
  // gets there) would, merged, drop past the error's bound.
  EXPECT_FALSE(refused([](Summary& s) {
    s.error = 5;
    s.held.clear();
    for (int i = 0; i < 2048; ++i) s.held.push_back({absl::StrCat(i), 1});
    std::sort(s.held.begin(), s.held.end());
  }));
  EXPECT_TRUE(refused([](Summary& s) {
    s.error = 6;
    s.held.clear();
    for (int i = 0; i < 2048; ++i) s.held.push_back({absl::StrCat(i), 1});
    std::sort(s.held.begin(), s.held.end());
  }));
  // An exact state's counts add up to at most 2^64 - 1.
  EXPECT_TRUE(reads(entries(0, 0, {{"a", UINT64_MAX - 1}, {"b", 1}})));
  EXPECT_FALSE(reads(entries(0, 0, {{"a", UINT64_MAX}, {"b", 1}})));
  {
    // A varint in a longer form than it needs: the first counter, 1.
    std::string bytes = Summary().Bytes();
    const size_t first = 1 + 8 + 8;
    ASSERT_EQ(bytes[first], 1);
    bytes[first] = static_cast<char>(0x81);
    bytes.insert(first + 1, 1, '\0');
    EXPECT_FALSE(reads(bytes));
  }
  std::string too_many;
  util::AppendU8(&too_many, 0);
  util::AppendU32(&too_many, 4097);
  too_many.append(4097 * 12, '\0');
  EXPECT_FALSE(reads(too_many));
}

}  // namespace
}  // namespace mapr::runtime
