// histogram(x, w): how many numeric values of x fall in each bin of width
// w, the bins as bucket(x, w) names them (floor(x / w) * w, binned exactly
// for plain decimals: runtime/time_functions.h), in increasing order:
// `0: 3, 10: 5, 30: 1`. Bins with no value are not listed. NaN counts in
// the bin `NaN`; an infinity, or a value whose bin lies beyond the largest
// double (1e308 at width 0.001), in `-Inf` or `+Inf`: first, last and last
// but NaN in the list, so no numeric value goes uncounted.
//
// A group counts each bin exactly while it has at most kMaxBins of them.
// The counts are a multiset, so a merge adds them and the list is the same
// for any split, thread count and merge order. A group whose values fall
// in more bins keeps no counts and shows that the width is too small:
// whether it has more than kMaxBins bins depends only on its values, so
// that too is the same for any split.
//
// Memory per group: up to 4096 bins and their counts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/aggregate.h"
#include "runtime/aggregates/value_counts.h"
#include "runtime/time_functions.h"
#include "util/bytes.h"
#include "util/number.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

constexpr uint32_t kMaxBins = 4096;

constexpr plan::AggregateInfo kInfo = {
    .name = "histogram",
    .state = "histogram",
    .argument = plan::ArgumentKind::kNumber,
    .result = ValueType::kText,
    .summary =
        "the number of values in each bin of width w, the bins "
        "named as bucket(x, w) names them (at most 4096 bins)",
    .takes_width = true};

struct HistogramGroup {
  ValueCounts bins;
  bool too_many = false;  // More than kMaxBins bins: no counts kept.
};

class HistogramState : public AggregateState {
 public:
  // A state built without a width (the aggregate contract tests) bins by 1.
  explicit HistogramState(std::string_view width) {
    if (!ParseBinWidth(width, &width_)) ParseBinWidth("1", &width_);
  }

  void Resize(size_t groups) override { groups_.resize(groups); }
  void Clear() override { groups_.clear(); }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    char bin[kMaxBinTextSize];
    for (size_t i = 0; i < n; ++i) {
      const uint32_t row = sel[i];
      if (!f.numeric[row]) continue;
      HistogramGroup& h = groups_[gids[i]];
      if (h.too_many) continue;
      const size_t size = BucketNumber(f.values[row], width_, bin);
      const std::string_view label =
          size > 0 ? std::string_view(bin, size) : OutOfRange(f.numbers[row]);
      if (h.bins.Count(label)) Check(h);
    }
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const HistogramState&>(later);
    bool overflow = false;
    for (uint32_t from = 0; from < n; ++from) {
      const HistogramGroup& src = o.groups_[from];
      HistogramGroup& dst = groups_[to[from]];
      if (dst.too_many) continue;
      if (src.too_many) {
        dst.bins = ValueCounts();
        dst.too_many = true;
        continue;
      }
      overflow |= !dst.bins.AddAll(src.bins);
      Check(dst);
    }
    return CombineOutcome(overflow, false);
  }
  // Layout: u8 form: 0, then u32 n (at most 4096) and n (bin, u64 count
  // >= 1) in increasing byte order of the bins, each bin length-prefixed;
  // or 1, too many bins.
  void Serialize(uint32_t g, std::string* out) const override {
    const HistogramGroup& h = groups_[g];
    util::AppendU8(out, h.too_many ? 1 : 0);
    if (!h.too_many) h.bins.Append(out);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    HistogramGroup& h = groups_[g];
    uint8_t form;
    if (!util::ReadU8(in, &form) || form > 1) return false;
    h.too_many = form == 1;
    return h.too_many || h.bins.Read(in, kMaxBins, [](std::string_view bin) {
      double v;
      return (bin.size() < kMaxBinTextSize && util::ParseNumber(bin, &v) &&
              std::isfinite(v)) ||
             bin == kNaN || bin == kMinusInf || bin == kPlusInf;
    });
  }

  // Group g's bins in increasing order; `*values` is the number of values
  // counted.
  void Render(uint32_t g, std::string* out, double* values) const {
    const HistogramGroup& h = groups_[g];
    *values = 0;
    if (h.too_many) {
      absl::StrAppend(out, "more than ", kMaxBins,
                      " bins: use a wider bin width");
      return;
    }
    struct Bin {
      double at;
      std::string_view label;
      uint64_t count;
    };
    std::vector<Bin> bins;
    bins.reserve(h.bins.size());
    h.bins.ForEach([&](std::string_view label, uint64_t count) {
      // -Inf first; +Inf, then NaN (by label) last.
      double at = label == kMinusInf                   ? -HUGE_VAL
                  : label == kPlusInf || label == kNaN ? HUGE_VAL
                                                       : 0;
      if (at == 0) util::ParseNumber(label, &at);
      bins.push_back({at, label, count});
      *values += static_cast<double>(count);
    });
    std::sort(bins.begin(), bins.end(), [](const Bin& a, const Bin& b) {
      return a.at != b.at ? a.at < b.at : a.label < b.label;
    });
    for (size_t i = 0; i < bins.size(); ++i) {
      if (i > 0) out->append(", ");
      absl::StrAppend(out, util::ToAbsl(bins[i].label), ": ", bins[i].count);
    }
  }

 private:
  static constexpr std::string_view kNaN = "NaN";
  static constexpr std::string_view kMinusInf = "-Inf";
  static constexpr std::string_view kPlusInf = "+Inf";

  // The bin of a numeric value bucket() cannot name: NaN, an infinity, or
  // a finite value whose bin is beyond the largest double.
  static std::string_view OutOfRange(double v) {
    if (std::isnan(v)) return kNaN;
    return v < 0 ? kMinusInf : kPlusInf;
  }

  // A group past kMaxBins bins drops its counts for good.
  static void Check(HistogramGroup& h) {
    if (h.bins.size() <= kMaxBins) return;
    h.bins = ValueCounts();
    h.too_many = true;
  }

  BinWidth width_;
  std::vector<HistogramGroup> groups_;
};

std::unique_ptr<AggregateState> NewState(const plan::StateOptions& options) {
  return std::make_unique<HistogramState>(options.parameter);
}

void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const HistogramState&>(state);
  FinalizeComposed(which, out, [&](uint32_t g, std::string* text, double* v) {
    s.Render(g, text, v);
  });
}

}  // namespace

extern const AggregateFunction kHistogramAggregate = {
    .info = kInfo,
    .new_state = NewState,
    .finalize = Finalize,
    .partial_section = PartialSection::kDistinctStates,
    .partial_minor = 6};

}  // namespace mapr::runtime
