// len(x): the length in bytes of the group's last value of x, as DTail
// computes it (the last row's length, not a sum).
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/prefault.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "len", "len", plan::ArgumentKind::kAnyValue, ValueType::kNumber,
    "the length in bytes of the field's last value"};

class LenState : public AggregateState {
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
      const std::string_view v = f.values[sel[i]];
      if (v.data() == nullptr) continue;
      value[gids[i]] = static_cast<double>(v.size());
      has[gids[i]] = 1;
    }
  }
  // The later partial's value wins.
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const LenState&>(later);
    for (uint32_t from = 0; from < n; ++from) {
      if (!o.has_[from]) continue;
      value_[to[from]] = o.value_[from];
      has_[to[from]] = 1;
    }
    return CombineStatus::kOk;
  }
  void Serialize(uint32_t g, std::string* out) const override {
    util::AppendU8(out, has_[g]);
    if (has_[g]) util::AppendU64(out, static_cast<uint64_t>(value_[g]));
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    uint8_t h;
    uint64_t v = 0;
    if (!util::ReadU8(in, &h) || h > 1 || (h && !util::ReadU64(in, &v))) {
      return false;
    }
    // A length is exact as a double up to 2^53 (no line is longer); larger
    // would not serialize back to the same bytes (partial_fuzzer).
    if (v > (uint64_t{1} << 53)) return false;
    has_[g] = h;
    value_[g] = static_cast<double>(v);
    return true;
  }

  double Value(uint32_t g) const { return has_[g] ? value_[g] : 0; }

 private:
  std::vector<double> value_;
  std::vector<uint8_t> has_;
};

}  // namespace

extern const AggregateFunction kLenAggregate = {kInfo, NewStateOf<LenState>,
                                                FinalizeValues<LenState>};

}  // namespace mapr::runtime
