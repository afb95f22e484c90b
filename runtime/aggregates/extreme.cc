// min(x), max(x): the smallest (largest) numeric value, as DTail computes
// them: the first value initialises the state and later values replace it
// only if they compare smaller (larger). A NaN therefore sticks when it comes
// first and is ignored when it comes later. To stay mergeable whatever the
// split, the state keeps the extreme of the non-NaN values plus whether the
// group's first value was NaN ("has" bits also keep a missing value from
// ever turning into 0 when partials merge, DTail bug B6).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/prefault.h"

namespace mapr::runtime {
namespace {

// `has` bits: the group has a value; its first value was NaN; it has a
// non-NaN value (in `value_`).
constexpr uint8_t kAny = 1, kFirstNan = 2, kNumber = 4;

template <bool kMin>
class ExtremeState : public AggregateState {
 public:
  void Resize(size_t groups) override {
    util::ResizePrefaulted(value_, groups, 0.0);
    util::ResizePrefaulted(has_, groups, uint8_t{0});
  }
  void Clear() override {
    value_.clear();
    has_.clear();
  }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    double* value = value_.data();
    uint8_t* has = has_.data();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t r = sel[i];
      if (!f.numeric[r]) continue;
      const uint32_t g = gids[i];
      const double v = f.numbers[r];
      uint8_t h = has[g];
      if (h & kNumber) {
        // The common case. A NaN compares false and is ignored.
        if (kMin ? v < value[g] : v > value[g]) value[g] = v;
        continue;
      }
      const bool nan = std::isnan(v);
      if (h == 0) h = nan ? kAny | kFirstNan : kAny;
      if (!nan) {
        value[g] = v;
        h |= kNumber;
      }
      has[g] = h;
    }
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const ExtremeState&>(later);
    for (uint32_t from = 0; from < n; ++from) {
      const uint32_t t = to[from];
      if (o.has_[from] == 0) continue;
      // The earlier partial's first value stays the group's first value.
      if (has_[t] == 0) has_[t] = o.has_[from] & (kAny | kFirstNan);
      if (o.has_[from] & kNumber) {
        const double v = o.value_[from];
        const bool better = kMin ? v < value_[t] : v > value_[t];
        if (!(has_[t] & kNumber) || better) value_[t] = v;
        has_[t] |= kNumber;
      }
    }
    return CombineStatus::kOk;
  }
  void Serialize(uint32_t g, std::string* out) const override {
    util::AppendU8(out, has_[g]);
    if (has_[g] & kNumber) util::AppendF64(out, value_[g]);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    uint8_t h;
    if (!util::ReadU8(in, &h) || (h & ~(kAny | kFirstNan | kNumber)) != 0 ||
        (h != 0 && !(h & kAny)) || (h & kAny && !(h & (kFirstNan | kNumber)))) {
      return false;
    }
    double v = 0;
    if ((h & kNumber) && (!util::ReadF64(in, &v) || std::isnan(v))) {
      return false;
    }
    has_[g] = h;
    value_[g] = v;
    return true;
  }

  // The rendered value of group g (0 if it has none).
  double Value(uint32_t g) const {
    if (has_[g] == 0) return 0;
    if (has_[g] & kFirstNan) return std::numeric_limits<double>::quiet_NaN();
    return value_[g];
  }

 private:
  std::vector<double> value_;
  std::vector<uint8_t> has_;
};

constexpr plan::AggregateInfo kMinInfo = {
    "min", "min", plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the smallest numeric value"};
constexpr plan::AggregateInfo kMaxInfo = {
    "max", "max", plan::ArgumentKind::kNumber, ValueType::kNumber,
    "the largest numeric value"};

}  // namespace

extern const AggregateFunction kMinAggregate = {
    kMinInfo, NewStateOf<ExtremeState<true>>,
    FinalizeValues<ExtremeState<true>>};
extern const AggregateFunction kMaxAggregate = {
    kMaxInfo, NewStateOf<ExtremeState<false>>,
    FinalizeValues<ExtremeState<false>>};

}  // namespace mapr::runtime
