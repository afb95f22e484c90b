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
// Past the limit the group keeps a Misra-Gries summary (Agarwal et al.,
// "Mergeable summaries", 2012): it drops to the kKeep largest counts by
// subtracting the (kKeep + 1)-th largest count c from every counter
// (dropping those that reach 0), and adds c to the group's `error`. It grows
// to 2 kKeep counters before it drops again, and a merge adds counters and
// errors, then drops. Every drop removes at least (kKeep + 1) c of the
// group's n values, so error <= n / (kKeep + 1), and:
//   * a held value's true count is within [count, count + error];
//   * a value not held occurs at most `error` times, so every value that
//     occurs more often than n / 1025 is held.
// The list then shows each count as `lo..hi`. A group becomes a summary
// exactly when its distinct values pass the limit, whichever way it got
// there, so an exact list is exact for any split; a summary's counts
// depend on how the input was split (each within its bounds).
//
// Memory per group: up to 4096 values and counts (exact), 2048 (summary).
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

constexpr plan::AggregateInfo kInfo = {
    .name = "topk",
    .state = "topk",
    .argument = plan::ArgumentKind::kAnyValue,
    .result = ValueType::kText,
    .summary =
        "the k (1 to 100) most frequent values and their counts "
        "(exact up to 4096 distinct values, then within stated "
        "bounds)",
    .max_count = kMaxK};

struct TopkGroup {
  ValueCounts counts;
  // A summary's total subtraction (0 while exact).
  uint64_t error = 0;
  bool summary = false;
};

constexpr plan::AggregateInfo kRareInfo = {
    .name = "rare",
    .state = "topk",
    .argument = plan::ArgumentKind::kAnyValue,
    .result = ValueType::kText,
    .summary =
        "the k (1 to 100) least frequent values and their counts "
        "(up to 4096 distinct values)",
    .max_count = kMaxK};

// The group's first k counters, largest count first (smallest for
// `rare`), ties by value.
std::vector<std::pair<std::string_view, uint64_t>> Ranked(const TopkGroup& t,
                                                          uint64_t k,
                                                          bool rare) {
  std::vector<std::pair<std::string_view, uint64_t>> out;
  out.reserve(t.counts.size());
  t.counts.ForEach([&](std::string_view value, uint64_t count) {
    out.emplace_back(value, count);
  });
  const auto shown =
      out.begin() + static_cast<ptrdiff_t>(std::min<uint64_t>(k, out.size()));
  std::partial_sort(out.begin(), shown, out.end(),
                    [rare](const auto& a, const auto& b) {
                      if (a.second != b.second) {
                        return rare ? a.second < b.second : a.second > b.second;
                      }
                      return a.first < b.first;
                    });
  out.erase(shown, out.end());
  return out;
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
      if (t.counts.Count(v)) Normalize(t);
    }
  }
  void Combine(const AggregateState& later, const uint32_t* to,
               size_t n) override {
    const auto& o = static_cast<const TopkState&>(later);
    for (uint32_t from = 0; from < n; ++from) {
      const TopkGroup& src = o.groups_[from];
      TopkGroup& dst = groups_[to[from]];
      dst.summary |= src.summary;
      dst.error += src.error;
      dst.counts.AddAll(src.counts);
      Normalize(dst);
    }
  }
  // Layout: u8 form (0 exact, 1 summary); a summary's u64 error (>= 1);
  // u32 n; then n (value, u64 count >= 1) in increasing byte order of the
  // values, each value length-prefixed.
  void Serialize(uint32_t g, std::string* out) const override {
    const TopkGroup& t = groups_[g];
    util::AppendU8(out, t.summary ? 1 : 0);
    if (t.summary) util::AppendU64(out, t.error);
    t.counts.Append(out);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    TopkGroup& t = groups_[g];
    uint8_t form;
    if (!util::ReadU8(in, &form) || form > 1) return false;
    t.summary = form == 1;
    if (t.summary && (!util::ReadU64(in, &t.error) || t.error == 0)) {
      return false;
    }
    return t.counts.Read(in, t.summary ? 2 * kKeep : kExactLimit,
                         [](std::string_view) { return true; });
  }

  // Group g's list of its k most (or, `rare`, least) frequent values;
  // `*top` is the first one's count (0 for an empty group). A summary has
  // no least frequent values (those it dropped are): `rare` says so.
  void Render(uint32_t g, uint64_t k, bool rare, std::string* out,
              double* top) const {
    const TopkGroup& t = groups_[g];
    *top = 0;
    if (rare && t.summary) {
      absl::StrAppend(out, "more than ", kExactLimit,
                      " distinct values: rare() counts up to ", kExactLimit);
      return;
    }
    const std::vector<std::pair<std::string_view, uint64_t>> ranked =
        Ranked(t, k, rare);
    *top = ranked.empty() ? 0 : static_cast<double>(ranked[0].second);
    for (size_t i = 0; i < ranked.size(); ++i) {
      const auto& [value, count] = ranked[i];
      if (i > 0) out->append(", ");
      out->append(value.empty() ? std::string_view("\"\"") : value);
      if (t.summary) {
        absl::StrAppend(out, " (", count, "..", count + t.error, ")");
      } else {
        absl::StrAppend(out, " (", count, ")");
      }
    }
  }

 private:
  // Turns a group past the exact limit into a summary, and drops a
  // summary that grew past 2 kKeep counters back to kKeep.
  static void Normalize(TopkGroup& t) {
    if (t.counts.size() > (t.summary ? 2 * kKeep : kExactLimit)) {
      t.summary = true;
      Drop(t);
    }
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
    .partial_minor = 6};

// rare(x, k) keeps topk's state: topk(x, 3) and rare(x, 3) share one slot.
extern const AggregateFunction kRareAggregate = {
    .info = kRareInfo,
    .new_state = NewStateOf<TopkState>,
    .finalize = FinalizeRare,
    .partial_section = PartialSection::kDistinctStates,
    .partial_minor = 6};

}  // namespace mapr::runtime
