// count(x): the number of rows in which x has a value; rate(x): that
// number per second of the group's time bucket (the same state).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/prefault.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "count", "count", plan::ArgumentKind::kAnyValue, ValueType::kInteger,
    "the number of lines in which the field has a value"};

class CountState : public AggregateState {
 public:
  void Resize(size_t groups) override {
    util::ResizePrefaulted(count_, groups, int64_t{0});
  }
  void Clear() override { count_.clear(); }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    int64_t* count = count_.data();
    for (size_t i = 0; i < n; ++i) {
      count[gids[i]] += f.values[sel[i]].data() != nullptr;
    }
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const CountState&>(later);
    int64_t* count = count_.data();
    // No branch per group: an overflow is noted, and the state is unusable.
    bool overflow = false;
    for (size_t g = 0; g < n; ++g) {
      overflow |=
          __builtin_add_overflow(count[to[g]], o.count_[g], &count[to[g]]);
    }
    return CombineOutcome(overflow, false);
  }
  void Serialize(uint32_t g, std::string* out) const override {
    util::AppendU64(out, static_cast<uint64_t>(count_[g]));
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    uint64_t v;
    if (!util::ReadU64(in, &v) || v > uint64_t{INT64_MAX}) return false;
    count_[g] = static_cast<int64_t>(v);
    return true;
  }

  int64_t Value(uint32_t g) const { return count_[g]; }

 private:
  std::vector<int64_t> count_;
};

constexpr plan::AggregateInfo kRateInfo = {
    "rate",
    "count",
    plan::ArgumentKind::kAnyValue,
    ValueType::kNumber,
    "lines with a value per second of the group's time bucket (group by "
    "bucket($time, 1m))",
    false,
    plan::AggregateInfo::Role::kNone,
    0,
    1,
    /*per_bucket_second=*/true};

// count * rank: the rank is 1 / the bucket's seconds (the planner's).
void FinalizeRate(const AggregateState& state, size_t /*groups*/,
                  std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const CountState&>(state);
  const double seconds =
      static_cast<double>(out->rank.den) / static_cast<double>(out->rank.num);
  out->values.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    out->values[i] = static_cast<double>(s.Value(which[i])) / seconds;
  }
}

}  // namespace

extern const AggregateFunction kCountAggregate = {kInfo, NewStateOf<CountState>,
                                                  FinalizeValues<CountState>};
extern const AggregateFunction kRateAggregate = {
    kRateInfo, NewStateOf<CountState>, FinalizeRate};

}  // namespace mapr::runtime
