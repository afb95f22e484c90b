// dcount(x): exact sets up to 4096 values, HyperLogLog sketches past them;
// merges of sets and sketches in every combination, and the sketch's bytes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/aggregate.h"
#include "util/bytes.h"

namespace mapr::runtime {
namespace {

const AggregateFunction& Dcount() {
  for (const AggregateFunction* fn : Aggregates()) {
    if (fn->info.name == "dcount") return *fn;
  }
  ADD_FAILURE() << "no dcount aggregate";
  return *Aggregates()[0];
}

std::unique_ptr<AggregateState> NewState(size_t groups = 1) {
  std::unique_ptr<AggregateState> s = Dcount().new_state(plan::StateOptions());
  s->Resize(groups);
  return s;
}

// Adds the values "v<lo>" .. "v<hi - 1>" to group g (one batch per 1000).
void AddRange(AggregateState& s, int lo, int hi, uint32_t g = 0) {
  for (int b = lo; b < hi; b += 1000) {
    const int e = std::min(hi, b + 1000);
    std::vector<std::string> text;
    for (int i = b; i < e; ++i) text.push_back(absl::StrCat("v", i));
    std::vector<std::string_view> values(text.begin(), text.end());
    std::vector<uint32_t> sel, gids;
    for (size_t i = 0; i < values.size(); ++i) {
      sel.push_back(static_cast<uint32_t>(i));
      gids.push_back(g);
    }
    const FieldRows rows{values.data(), nullptr, nullptr};
    s.Update(rows, sel.data(), gids.data(), sel.size());
  }
}

double Count(const AggregateState& s, uint32_t g = 0, size_t groups = 1) {
  FinalColumn out;
  const uint32_t which[] = {g};
  Dcount().finalize(s, groups, std::span<const uint32_t>(which, 1), &out);
  return out.values[0];
}

std::string Bytes(const AggregateState& s, uint32_t g = 0) {
  std::string out;
  s.Serialize(g, &out);
  return out;
}

// A set's bytes (form 0): the hashes, which must be increasing.
std::string SetBytes(const std::vector<uint64_t>& hashes) {
  std::string out;
  util::AppendU8(&out, 0);
  util::AppendU32(&out, static_cast<uint32_t>(hashes.size()));
  for (uint64_t h : hashes) util::AppendU64(&out, h);
  return out;
}

TEST(DistinctTest, ExactUpToTheLimitMissingValuesIgnored) {
  std::unique_ptr<AggregateState> s = NewState();
  AddRange(*s, 0, 4096);
  AddRange(*s, 100, 200);  // repeats
  // A missing value is not one; an empty one is.
  const std::string_view values[] = {std::string_view(), ""};
  const uint32_t sel[] = {0, 1}, gids[] = {0, 0};
  s->Update(FieldRows{values, nullptr, nullptr}, sel, gids, 1);
  EXPECT_EQ(Count(*s), 4096);
  s->Update(FieldRows{values, nullptr, nullptr}, sel, gids, 2);
  // One more than the limit: a sketch, whose estimate is near.
  EXPECT_NEAR(Count(*s), 4097, 4097 * 0.05);
  EXPECT_EQ(Bytes(*s)[0], 1);  // form 1, the sketch
}

TEST(DistinctTest, SketchesEstimateAndMergeAsOnePass) {
  // Two overlapping halves of 0..8999, each past the limit.
  std::unique_ptr<AggregateState> a = NewState(), b = NewState();
  AddRange(*a, 0, 6000);
  AddRange(*b, 3000, 9000);
  std::unique_ptr<AggregateState> one = NewState();
  AddRange(*one, 0, 9000);
  // One standard error is about 0.8 %: 5 % is far out.
  EXPECT_NEAR(Count(*a), 6000, 300);
  EXPECT_NEAR(Count(*one), 9000, 450);
  const uint32_t to[] = {0};
  ASSERT_EQ(a->Combine(*b, to, 1), CombineStatus::kOk);
  // A register-wise max is the sketch of the union: the same bytes.
  EXPECT_EQ(Bytes(*a), Bytes(*one));
  EXPECT_EQ(Count(*a), Count(*one));

  // A sketch into an exact set, and a set into a sketch.
  std::unique_ptr<AggregateState> small = NewState();
  AddRange(*small, 8990, 9010);
  ASSERT_EQ(Count(*small), 20);
  std::unique_ptr<AggregateState> into_small = NewState();
  AddRange(*into_small, 8990, 9010);
  ASSERT_EQ(into_small->Combine(*one, to, 1), CombineStatus::kOk);
  std::unique_ptr<AggregateState> all = NewState();
  AddRange(*all, 0, 9010);
  EXPECT_EQ(Bytes(*into_small), Bytes(*all));
  ASSERT_EQ(one->Combine(*small, to, 1), CombineStatus::kOk);
  EXPECT_EQ(Bytes(*one), Bytes(*all));
}

TEST(DistinctTest, SketchBytesRoundTripAndAreChecked) {
  std::unique_ptr<AggregateState> s = NewState();
  AddRange(*s, 0, 5000);
  const std::string bytes = Bytes(*s);
  ASSERT_EQ(bytes.size(), 1 + (size_t{1} << 14));
  std::unique_ptr<AggregateState> back = NewState();
  std::string_view in = bytes;
  ASSERT_TRUE(back->Deserialize(&in, 0));
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(Bytes(*back), bytes);
  EXPECT_EQ(Count(*back), Count(*s));
  // A register holds at most 64 - 14 + 1 = 51.
  for (const uint8_t r : {51, 52, 255}) {
    std::string edited = bytes;
    edited[1 + 77] = static_cast<char>(r);
    std::unique_ptr<AggregateState> t = NewState();
    std::string_view e = edited;
    EXPECT_EQ(t->Deserialize(&e, 0), r <= 51) << int{r};
  }
  std::string_view cut(bytes.data(), bytes.size() - 1);
  EXPECT_FALSE(NewState()->Deserialize(&cut, 0));
  // Unknown forms.
  std::string_view form2("\x02", 1);
  EXPECT_FALSE(NewState()->Deserialize(&form2, 0));
}

// The hash 0 is kept beside the table (0 marks its empty slots); no value
// of a test hashes to it, but a set read from bytes may hold it.
TEST(DistinctTest, TheZeroHashIsAValueLikeAnyOther) {
  const std::string with_zero = SetBytes({0, 5, 9});
  std::unique_ptr<AggregateState> s = NewState();
  std::string_view in = with_zero;
  ASSERT_TRUE(s->Deserialize(&in, 0));
  EXPECT_EQ(Count(*s), 3);
  EXPECT_EQ(Bytes(*s), with_zero);
  // Merged into a set that has it already, and one that has not.
  std::unique_ptr<AggregateState> t = NewState(2);
  std::string_view in2 = with_zero;
  ASSERT_TRUE(t->Deserialize(&in2, 1));
  const uint32_t to[] = {1};
  ASSERT_EQ(t->Combine(*s, to, 1), CombineStatus::kOk);
  EXPECT_EQ(Count(*t, 1, 2), 3);
  std::unique_ptr<AggregateState> u = NewState();
  AddRange(*u, 0, 10);
  const uint32_t to0[] = {0};
  ASSERT_EQ(u->Combine(*s, to0, 1), CombineStatus::kOk);
  EXPECT_EQ(Count(*u), 13);
  // Past the limit the zero hash goes into the sketch too: the same sketch
  // as the values added the other way round.
  AddRange(*u, 10, 5000);
  std::unique_ptr<AggregateState> v = NewState();
  AddRange(*v, 0, 5000);
  ASSERT_EQ(v->Combine(*s, to0, 1), CombineStatus::kOk);
  EXPECT_EQ(Bytes(*u), Bytes(*v));
  EXPECT_NEAR(Count(*u), 5003, 250);
  // Hashes out of order, repeated, or more than the limit: refused.
  for (const std::string& bad : {SetBytes({5, 0}), SetBytes({5, 5}),
                                 SetBytes(std::vector<uint64_t>(4097, 1))}) {
    std::string_view b = bad;
    EXPECT_FALSE(NewState()->Deserialize(&b, 0));
  }
}

}  // namespace
}  // namespace mapr::runtime
