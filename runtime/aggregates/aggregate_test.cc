// The contract of runtime/aggregate.h, checked for every registered
// aggregate: any split of the input into adjacent partials, combined in any
// tree shape that keeps their order, and any serialize/deserialize round
// trip on the way, gives the same final values and the same state bytes as
// one pass.
#include "runtime/aggregate.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace mapr::runtime {
namespace {

constexpr uint32_t kGroups = 7;

// What the states are built with: the defaults, and a tiny exact limit so
// that median/pN groups of this test's sizes become sketches.
plan::StateOptions g_options;

// Rows of one field: values (some missing, some text), their numbers.
struct Rows {
  std::vector<std::string> text;
  std::vector<bool> present;
  std::vector<double> numbers;
  std::vector<uint8_t> numeric;
  std::vector<uint32_t> gids;
};

Rows RandomRows(std::mt19937_64& rng, size_t n) {
  static const double kValues[] = {0.1,
                                   0.2,
                                   0.3,
                                   1e-7,
                                   12345.678,
                                   0.7,
                                   3.3333333,
                                   -0.0,
                                   0.0,
                                   -2.5,
                                   1e300,
                                   -1e300,
                                   4e18,
                                   7,
                                   std::numeric_limits<double>::quiet_NaN(),
                                   std::numeric_limits<double>::infinity()};
  Rows r;
  for (size_t i = 0; i < n; ++i) {
    r.gids.push_back(static_cast<uint32_t>(rng() % kGroups));
    const uint64_t kind = rng() % 10;
    if (kind == 0) {  // missing
      r.present.push_back(false);
      r.text.emplace_back();
      r.numbers.push_back(0);
      r.numeric.push_back(0);
    } else if (kind == 1) {  // text
      r.present.push_back(true);
      r.text.push_back(absl::StrFormat("w%d", static_cast<int>(rng() % 5)));
      r.numbers.push_back(0);
      r.numeric.push_back(0);
    } else {
      // Infinities rarely, so that most groups keep finite sums.
      double v = kValues[rng() % (std::size(kValues) - (rng() % 8 ? 2 : 0))];
      if (rng() % 2) v = static_cast<double>(rng() % 1000) / 8 - 60;
      r.present.push_back(true);
      r.text.push_back(absl::StrFormat("%.17g", v));
      r.numbers.push_back(v);
      r.numeric.push_back(1);
    }
  }
  return r;
}

// Updates `state` with rows [lo, hi) in batches of at most `batch` rows.
void Feed(AggregateState& state, const Rows& rows, size_t lo, size_t hi,
          size_t batch) {
  std::vector<std::string_view> values(rows.text.size());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] =
        rows.present[i] ? std::string_view(rows.text[i]) : std::string_view();
  }
  const FieldRows f{values.data(), rows.numbers.data(), rows.numeric.data()};
  for (size_t b = lo; b < hi; b += batch) {
    const size_t e = std::min(hi, b + batch);
    std::vector<uint32_t> sel, gids;
    for (size_t i = b; i < e; ++i) {
      sel.push_back(static_cast<uint32_t>(i));
      gids.push_back(rows.gids[i]);
    }
    state.Update(f, sel.data(), gids.data(), sel.size());
  }
}

std::string Bytes(const AggregateState& s) {
  std::string out;
  for (uint32_t g = 0; g < kGroups; ++g) s.Serialize(g, &out);
  return out;
}

// A fresh state read back from `s`'s bytes.
std::unique_ptr<AggregateState> RoundTrip(const AggregateFunction& fn,
                                          const AggregateState& s) {
  const std::string bytes = Bytes(s);
  std::string_view in = bytes;
  std::unique_ptr<AggregateState> back = fn.new_state(g_options);
  back->Resize(kGroups);
  for (uint32_t g = 0; g < kGroups; ++g) {
    EXPECT_TRUE(back->Deserialize(&in, g)) << fn.info.name << " group " << g;
  }
  EXPECT_TRUE(in.empty()) << fn.info.name;
  return back;
}

void ExpectSameFinal(const AggregateFunction& fn, const AggregateState& a,
                     const AggregateState& b, const std::string& what) {
  FinalColumn fa, fb;
  fa.rank = fb.rank = {9, 10};  // p90 for median/pN.
  const uint32_t all[kGroups] = {0, 1, 2, 3, 4, 5, 6};
  fn.finalize(a, kGroups, std::span<const uint32_t>(all, kGroups), &fa);
  fn.finalize(b, kGroups, std::span<const uint32_t>(all, kGroups), &fb);
  for (uint32_t g = 0; g < kGroups; ++g) {
    const double x = fa.values[g], y = fb.values[g];
    EXPECT_TRUE((std::isnan(x) && std::isnan(y)) ||
                std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y))
        << fn.info.name << " " << what << " group " << g << ": " << x << " vs "
        << y;
  }
  EXPECT_EQ(fa.texts, fb.texts) << fn.info.name << " " << what;
}

TEST(AggregateContractTest, SplitMergeAndRoundTripsMatchOnePass) {
  std::mt19937_64 rng(42);
  for (const plan::StateOptions options :
       {plan::StateOptions(), plan::StateOptions{8, 0.01, {}},
        plan::StateOptions{0, 0.05, {}}}) {
    g_options = options;
    for (const AggregateFunction* fn : Aggregates()) {
      for (int trial = 0; trial < 40; ++trial) {
        const size_t n = 1 + rng() % 300;
        const Rows rows = RandomRows(rng, n);
        std::unique_ptr<AggregateState> one = fn->new_state(g_options);
        one->Resize(kGroups);
        Feed(*one, rows, 0, n, 64);

        // Adjacent pieces at random cuts, each fed in its own batch size.
        std::vector<size_t> cuts = {0, n};
        for (int k = rng() % 5; k > 0; --k) cuts.push_back(rng() % (n + 1));
        std::sort(cuts.begin(), cuts.end());
        std::vector<std::unique_ptr<AggregateState>> parts;
        for (size_t i = 0; i + 1 < cuts.size(); ++i) {
          std::unique_ptr<AggregateState> part = fn->new_state(g_options);
          part->Resize(kGroups);
          Feed(*part, rows, cuts[i], cuts[i + 1], 1 + rng() % 40);
          if (rng() % 2) part = RoundTrip(*fn, *part);
          parts.push_back(std::move(part));
        }
        // Combine random adjacent pairs (later into earlier): any tree shape.
        const uint32_t identity[kGroups] = {0, 1, 2, 3, 4, 5, 6};
        while (parts.size() > 1) {
          const size_t i = rng() % (parts.size() - 1);
          ASSERT_EQ(parts[i]->Combine(*parts[i + 1], identity, kGroups),
                    CombineStatus::kOk);
          parts.erase(parts.begin() + static_cast<ptrdiff_t>(i) + 1);
        }
        ExpectSameFinal(*fn, *one, *parts[0], "split");
        EXPECT_EQ(Bytes(*one), Bytes(*parts[0])) << fn->info.name;
        ExpectSameFinal(*fn, *one, *RoundTrip(*fn, *one), "round trip");
      }
    }
  }
  g_options = plan::StateOptions();
}

TEST(AggregateContractTest, DeserializeRejectsTruncationsAndFlips) {
  std::mt19937_64 rng(7);
  for (const AggregateFunction* fn : Aggregates()) {
    const Rows rows = RandomRows(rng, 200);
    std::unique_ptr<AggregateState> s = fn->new_state(g_options);
    s->Resize(kGroups);
    Feed(*s, rows, 0, rows.gids.size(), 50);
    for (uint32_t g = 0; g < kGroups; ++g) {
      std::string bytes;
      s->Serialize(g, &bytes);
      for (size_t cut = 0; cut < bytes.size(); ++cut) {
        std::unique_ptr<AggregateState> t = fn->new_state(g_options);
        t->Resize(kGroups);
        std::string_view in(bytes.data(), cut);
        EXPECT_FALSE(t->Deserialize(&in, g))
            << fn->info.name << " accepted " << cut << " of " << bytes.size()
            << " bytes";
      }
      // A flipped byte is rejected or read as some valid state (never a
      // crash; the sanitizer builds check memory).
      for (size_t i = 0; i < bytes.size(); ++i) {
        std::string flipped = bytes;
        flipped[i] = static_cast<char>(flipped[i] ^ (1 << (rng() % 8)));
        std::unique_ptr<AggregateState> t = fn->new_state(g_options);
        t->Resize(kGroups);
        std::string_view in = flipped;
        if (t->Deserialize(&in, g)) {
          FinalColumn f;
          const uint32_t all[kGroups] = {0, 1, 2, 3, 4, 5, 6};
          fn->finalize(*t, kGroups, std::span<const uint32_t>(all, kGroups),
                       &f);
        }
      }
    }
  }
}

TEST(AggregateContractTest, CatalogIsConsistent) {
  std::vector<std::string_view> names;
  for (const AggregateFunction* fn : Aggregates()) {
    EXPECT_FALSE(fn->info.summary.empty()) << fn->info.name;
    EXPECT_EQ(FindAggregate(fn->info), fn);
    for (std::string_view n : names) EXPECT_NE(n, fn->info.name);
    names.push_back(fn->info.name);
    // Aggregates that share a state create the same class of state.
    for (const AggregateFunction* other : Aggregates()) {
      if (other->info.state != fn->info.state) continue;
      EXPECT_EQ(other->info.argument, fn->info.argument);
      std::unique_ptr<AggregateState> a = fn->new_state(g_options);
      std::unique_ptr<AggregateState> b = other->new_state(g_options);
      const AggregateState& sa = *a;
      const AggregateState& sb = *b;
      EXPECT_EQ(typeid(sa), typeid(sb)) << fn->info.name << other->info.name;
      // ... and carry it in the same partial section.
      EXPECT_EQ(other->partial_section, fn->partial_section)
          << fn->info.name << other->info.name;
    }
    const auto section = static_cast<uint32_t>(fn->partial_section);
    EXPECT_TRUE(
        fn->partial_section == PartialSection::kGroups ||
        (section >= static_cast<uint32_t>(PartialSection::kQuantileStates) &&
         section <= static_cast<uint32_t>(PartialSection::kMomentsStates)))
        << fn->info.name << " keeps states in section " << section;
    using Role = plan::AggregateInfo::Role;
    if (fn->info.role == Role::kFixedRank) {
      EXPECT_GT(fn->info.rank_den, 0u) << fn->info.name;
      EXPECT_LE(fn->info.rank_num, fn->info.rank_den) << fn->info.name;
    }
  }
  // The planner finds the plain-field and pN aggregates by role: exactly one
  // of each.
  for (auto role : {plan::AggregateInfo::Role::kPlainField,
                    plan::AggregateInfo::Role::kRankInName}) {
    int n = 0;
    for (const AggregateFunction* fn : Aggregates()) n += fn->info.role == role;
    EXPECT_EQ(n, 1) << static_cast<int>(role);
  }
}

}  // namespace
}  // namespace mapr::runtime
