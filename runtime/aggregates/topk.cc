// topk(x, k): the k most frequent values of x in a group, most frequent
// first, each with its count: `GET (120), POST (30), HEAD (5)`. Ties go to
// the smaller value (byte order), so the list is a function of the counts.
// rare(x, k), the k least frequent, reads the same state while it is exact
// (past the limit the least frequent values are the ones a summary drops).
//
// A group counts each distinct value exactly while it holds at most
// kExactLimit of them. The counts are a multiset, so a merge adds them and
// the list is the same for any split, thread count and merge order.
//
// Past the limit the group becomes a summary of two parts:
//   * a Count-Min sketch (Cormode and Muthukrishnan, 2005): kRows rows of
//     kColumns counters; a value adds its count to one counter per row,
//     chosen by its hash, and its estimate is the smallest of its counters.
//     The sketch is a sum, so it, the group's value count n and every
//     estimate are the same for any split and merge order, and an estimate
//     is never below the true count;
//   * a Misra-Gries summary (Agarwal et al., "Mergeable summaries", 2012)
//     that holds the values' texts: it drops to the kKeep largest counters
//     by subtracting the (kKeep + 1)-th largest count from each (dropping
//     those that reach 0), once it grows past 2 kKeep. Each drop removes at
//     least kKeep + 1 times what it subtracts, so the subtractions total at
//     most n / 1025, and every value that occurs more often is held, for
//     any split. Which other values it holds depends on the split.
// The list shows the held values whose estimate exceeds 2n / 1025, by
// estimate. Each of them occurs more than n / 1025 times (so every split
// holds it) unless the sketch overestimates it by more than n / 1025 in
// every row; then, and only then, could two splits list different values.
// On real data that takes a value colliding in all 6 rows with values that
// together occur n / 1025 times (Markov's bound, at most 1/8 per row, is
// far from tight). Every value occurring more than 2n / 1025 times is
// listed, and every shown count is an upper bound: `GET (<=120)`.
//
// Memory per group: up to 4096 values and counts (exact); a summary's 6 x
// 8192 counters (384 KiB) and up to 2048 values.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/aggregate.h"
#include "runtime/aggregates/value_counts.h"
#include "util/bytes.h"

namespace mapr::runtime {
namespace {

constexpr uint32_t kExactLimit = 4096;
constexpr uint32_t kKeep = 1024;
constexpr uint32_t kMaxK = 100;
constexpr uint32_t kRows = 6;
constexpr uint32_t kColumnBits = 13;
constexpr uint32_t kColumns = uint32_t{1} << kColumnBits;

// SplitMix64's finalizer.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The value with hash `hash` has its counter of row r in column
// columns[r]: 13-bit slices (lowest first) of Mix(hash + g) for rows 0 to
// 3 and of Mix(hash + 2g) for rows 4 and 5, g = 0x9e3779b97f4a7c15. Fixed:
// it is part of the partial format.
struct Columns {
  explicit Columns(uint64_t hash) {
    constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
    const uint64_t a = Mix(hash + kGolden), b = Mix(hash + 2 * kGolden);
    for (uint32_t r = 0; r < 4; ++r) {
      at[r] = static_cast<uint32_t>(a >> (kColumnBits * r)) & (kColumns - 1);
    }
    for (uint32_t r = 4; r < kRows; ++r) {
      at[r] =
          static_cast<uint32_t>(b >> (kColumnBits * (r - 4))) & (kColumns - 1);
    }
  }
  uint32_t at[kRows];
};

constexpr plan::AggregateInfo kInfo = {
    .name = "topk",
    .state = "topk",
    .argument = plan::ArgumentKind::kAnyValue,
    .result = ValueType::kText,
    .summary =
        "the k (1 to 100) most frequent values and their counts "
        "(exact up to 4096 distinct values, then upper bounds "
        "from a sketch)",
    .max_count = kMaxK};

struct TopkGroup {
  // Exact: every value and its count. A summary: the Misra-Gries counters.
  ValueCounts counts;
  // A summary's Count-Min counters, row by row (empty while exact).
  std::vector<uint64_t> sketch;
  // The values counted (exact: the sum of the counts), and a summary's
  // Misra-Gries subtractions. Invariant: the held counts plus (kKeep + 1)
  // times the error are at most n (each drop takes kKeep + 1 times what
  // it adds to the error from the held counts), so the error stays at most
  // n / (kKeep + 1) through any merge; and every count and counter is at
  // most n, so checking that n does not overflow checks them all.
  uint64_t n = 0;
  uint64_t error = 0;

  bool summary() const { return !sketch.empty(); }
  void Sketch(uint64_t hash, uint64_t count) {
    const Columns c(hash);
    for (uint32_t r = 0; r < kRows; ++r) {
      sketch[size_t{r} * kColumns + c.at[r]] += count;
    }
  }
  uint64_t Estimate(uint64_t hash) const {
    const Columns c(hash);
    uint64_t e = UINT64_MAX;
    for (uint32_t r = 0; r < kRows; ++r) {
      e = std::min(e, sketch[size_t{r} * kColumns + c.at[r]]);
    }
    return e;
  }
};

// Whether a summary lists a value with estimate `e`: e > 2n / (kKeep + 1),
// that is e > floor(2n / (kKeep + 1)) = 2q + floor(2r / (kKeep + 1)) with
// n = (kKeep + 1) q + r, which does not overflow.
bool Listed(const TopkGroup& t, uint64_t e) {
  const uint64_t q = t.n / (kKeep + 1), r = t.n % (kKeep + 1);
  return e > 2 * q + 2 * r / (kKeep + 1);
}

constexpr plan::AggregateInfo kRareInfo = {
    .name = "rare",
    .state = "topk",
    .argument = plan::ArgumentKind::kAnyValue,
    .result = ValueType::kText,
    .summary =
        "the k (1 to 100) least frequent values and their counts "
        "(up to 4096 distinct values)",
    .max_count = kMaxK};

// The first k of `counts`, largest count first (smallest for `rare`), ties
// by value.
std::vector<std::pair<std::string_view, uint64_t>> Ranked(
    std::vector<std::pair<std::string_view, uint64_t>> counts, uint64_t k,
    bool rare) {
  const auto shown = counts.begin() + static_cast<ptrdiff_t>(
                                          std::min<uint64_t>(k, counts.size()));
  std::partial_sort(counts.begin(), shown, counts.end(),
                    [rare](const auto& a, const auto& b) {
                      if (a.second != b.second) {
                        return rare ? a.second < b.second : a.second > b.second;
                      }
                      return a.first < b.first;
                    });
  counts.erase(shown, counts.end());
  return counts;
}

class TopkState : public AggregateState {
 public:
  void Resize(size_t groups) override { groups_.resize(groups); }
  void Clear() override { groups_.clear(); }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const std::string_view v = f.values[sel[i]];
      if (v.data() == nullptr) continue;
      TopkGroup& t = groups_[gids[i]];
      const uint64_t hash = ValueCounts::Hash(v);
      if (t.summary()) t.Sketch(hash, 1);
      ++t.n;
      if (t.counts.Count(v, hash)) Normalize(t);
    }
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const TopkState&>(later);
    for (uint32_t from = 0; from < n; ++from) {
      const TopkGroup& src = o.groups_[from];
      TopkGroup& dst = groups_[to[from]];
      // Every count, counter and the error are at most n (TopkGroup).
      uint64_t total;
      if (__builtin_add_overflow(dst.n, src.n, &total)) {
        return CombineStatus::kCountOverflow;
      }
      if (src.summary()) {
        if (!dst.summary()) StartSummary(dst);
        for (size_t i = 0; i < dst.sketch.size(); ++i) {
          dst.sketch[i] += src.sketch[i];
        }
        dst.error += src.error;
      } else if (dst.summary()) {
        src.counts.ForEachHashed(
            [&](uint64_t hash, std::string_view, uint64_t count) {
              dst.Sketch(hash, count);
            });
      }
      if (!dst.counts.AddAll(src.counts)) return CombineStatus::kCountOverflow;
      dst.n = total;
      Normalize(dst);
    }
    return CombineStatus::kOk;
  }
  // Layout: u8 form. Form 0, exact: u32 n, then n (value, u64 count >= 1)
  // in increasing byte order of the values, each value length-prefixed
  // (the counts summing to at most 2^64 - 1). Form 2, a summary: u64
  // values counted (> 4096), u64 Misra-Gries error (>= 1); the sketch's
  // counters, row by row, each a varint (each row's sum to the values
  // counted; written whole, so that a state's memory is at most 8 times
  // its bytes); then the held values as form 0 writes them (at most 2048;
  // their counts and 1025 times the error at most the values counted).
  // Form 1 (stop 42's summary, without a sketch) is refused.
  void Serialize(uint32_t g, std::string* out) const override {
    const TopkGroup& t = groups_[g];
    if (!t.summary()) {
      util::AppendU8(out, 0);
      t.counts.Append(out);
      return;
    }
    util::AppendU8(out, 2);
    util::AppendU64(out, t.n);
    util::AppendU64(out, t.error);
    for (const uint64_t counter : t.sketch) util::AppendVarU64(out, counter);
    t.counts.Append(out);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    TopkGroup& t = groups_[g];
    uint8_t form;
    if (!util::ReadU8(in, &form)) return false;
    if (form == 0) {
      if (!t.counts.Read(in, kExactLimit,
                         [](std::string_view) { return true; })) {
        return false;
      }
      // n, the sum of the counts, fits.
      bool overflow = false;
      t.counts.ForEach([&](std::string_view, uint64_t count) {
        overflow |= __builtin_add_overflow(t.n, count, &t.n);
      });
      return !overflow;
    }
    if (form != 2 || !util::ReadU64(in, &t.n) || !util::ReadU64(in, &t.error) ||
        t.n <= kExactLimit || t.error == 0 || t.error > t.n / (kKeep + 1)) {
      return false;
    }
    // Every counter takes a byte at least, so the bytes bound the memory.
    if (in->size() < size_t{kRows} * kColumns) return false;
    t.sketch.assign(size_t{kRows} * kColumns, 0);
    for (uint32_t r = 0; r < kRows; ++r) {
      uint64_t* row = t.sketch.data() + size_t{r} * kColumns;
      uint64_t sum = 0;
      for (uint32_t c = 0; c < kColumns; ++c) {
        if (!util::ReadVarU64(in, &row[c]) || row[c] > t.n - sum) return false;
        sum += row[c];
      }
      if (sum != t.n) return false;
    }
    if (!t.counts.Read(in, 2 * kKeep, [](std::string_view) { return true; })) {
      return false;
    }
    // A held count is at most its value's true count, so at most its
    // estimate; and the held counts and (kKeep + 1) times the error are at
    // most n (TopkGroup): else a merge could drop past the error's bound.
    bool bounded = true;
    uint64_t accounted = t.error * (kKeep + 1);  // <= n, checked above
    t.counts.ForEachHashed(
        [&](uint64_t hash, std::string_view, uint64_t count) {
          bounded = bounded && count <= t.Estimate(hash) &&
                    !__builtin_add_overflow(accounted, count, &accounted);
        });
    return bounded && accounted <= t.n;
  }

  // Group g's list of its k most (or, `rare`, least) frequent values;
  // `*top` is the first one's count (0 for an empty group). A summary has
  // no least frequent values (those it dropped are): `rare` says so.
  void Render(uint32_t g, uint64_t k, bool rare, std::string* out,
              double* top) const {
    const TopkGroup& t = groups_[g];
    *top = 0;
    if (rare && t.summary()) {
      absl::StrAppend(out, "more than ", kExactLimit,
                      " distinct values: rare() counts up to ", kExactLimit);
      return;
    }
    std::vector<std::pair<std::string_view, uint64_t>> counts;
    counts.reserve(t.counts.size());
    t.counts.ForEachHashed(
        [&](uint64_t hash, std::string_view value, uint64_t count) {
          if (!t.summary()) {
            counts.emplace_back(value, count);
          } else if (const uint64_t e = t.Estimate(hash); Listed(t, e)) {
            counts.emplace_back(value, e);
          }
        });
    const std::vector<std::pair<std::string_view, uint64_t>> ranked =
        Ranked(std::move(counts), k, rare);
    *top = ranked.empty() ? 0 : static_cast<double>(ranked[0].second);
    for (size_t i = 0; i < ranked.size(); ++i) {
      const auto& [value, count] = ranked[i];
      if (i > 0) out->append(", ");
      out->append(value.empty() ? std::string_view("\"\"") : value);
      absl::StrAppend(out, t.summary() ? " (<=" : " (", count, ")");
    }
  }

 private:
  // Turns a group past the exact limit into a summary, and drops a
  // summary that grew past 2 kKeep counters back to kKeep.
  static void Normalize(TopkGroup& t) {
    if (!t.summary()) {
      if (t.counts.size() <= kExactLimit) return;
      StartSummary(t);
    }
    if (t.counts.size() > 2 * kKeep) Drop(t);
  }
  // Sketches an exact group's counts (n, their sum, stays).
  static void StartSummary(TopkGroup& t) {
    t.sketch.assign(size_t{kRows} * kColumns, 0);
    t.counts.ForEachHashed([&](uint64_t hash, std::string_view,
                               uint64_t count) { t.Sketch(hash, count); });
  }
  // Subtracts the (kKeep + 1)-th largest count from every counter.
  static void Drop(TopkGroup& t) {
    std::vector<uint64_t> counts;
    counts.reserve(t.counts.size());
    t.counts.ForEach(
        [&](std::string_view, uint64_t count) { counts.push_back(count); });
    std::nth_element(counts.begin(), counts.begin() + kKeep, counts.end(),
                     std::greater<uint64_t>());
    const uint64_t c = counts[kKeep];
    t.counts.SubtractAndDrop(c);
    t.error += c;
  }

  std::vector<TopkGroup> groups_;
};

void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const TopkState&>(state);
  const uint64_t k = out->rank.num;
  FinalizeComposed(which, out, [&](uint32_t g, std::string* text, double* v) {
    s.Render(g, k, /*rare=*/false, text, v);
  });
}

void FinalizeRare(const AggregateState& state, size_t /*groups*/,
                  std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const TopkState&>(state);
  const uint64_t k = out->rank.num;
  FinalizeComposed(which, out, [&](uint32_t g, std::string* text, double* v) {
    s.Render(g, k, /*rare=*/true, text, v);
  });
}

}  // namespace

extern const AggregateFunction kTopkAggregate = {
    .info = kInfo,
    .new_state = NewStateOf<TopkState>,
    .finalize = Finalize,
    .partial_section = PartialSection::kDistinctStates,
    .partial_minor = 7};

// rare(x, k) keeps topk's state: topk(x, 3) and rare(x, 3) share one slot.
extern const AggregateFunction kRareAggregate = {
    .info = kRareInfo,
    .new_state = NewStateOf<TopkState>,
    .finalize = FinalizeRare,
    .partial_section = PartialSection::kDistinctStates,
    .partial_minor = 7};

}  // namespace mapr::runtime
