// last(x): the value of x in the group's last row that has one, as text. A
// plain field in a select list (`select $time`) is last($time), as in DTail.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "runtime/aggregate.h"
#include "runtime/aggregates/text_values.h"
#include "util/prefault.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "last",
    "last",
    plan::ArgumentKind::kAnyValue,
    ValueType::kText,
    "the field's last value (a plain field in a select list is last(field))",
    /*one_row_value=*/true,
    plan::AggregateInfo::Role::kPlainField};

class LastState : public AggregateState {
 public:
  void Resize(size_t groups) override {
    values_.Resize(groups);
    util::ResizePrefaulted(last_row_, groups, int32_t{-1});
  }
  void Clear() override {
    values_.Clear();
    last_row_.clear();
  }
  // Only the last row of each group in the batch matters: find it first,
  // then copy each group's string once per batch.
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      if (f.values[sel[i]].data() != nullptr) {
        last_row_[gids[i]] = static_cast<int32_t>(i);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const uint32_t g = gids[i];
      const int32_t row = last_row_[g];
      if (row < 0) continue;
      last_row_[g] = -1;
      values_.Set(g, f.values[sel[row]]);
    }
  }
  // The later partial's value wins.
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const TextValues& o = static_cast<const LastState&>(later).values_;
    for (uint32_t from = 0; from < n; ++from) {
      if (o.has(from)) values_.Set(to[from], o.Get(from));
    }
    return CombineStatus::kOk;
  }
  void Serialize(uint32_t g, std::string* out) const override {
    values_.Serialize(g, out);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    return values_.Deserialize(in, g);
  }

  const TextValues& values() const { return values_; }

 private:
  TextValues values_;
  std::vector<int32_t> last_row_;  // Scratch of Update, -1 between batches.
};

void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  static_cast<const LastState&>(state).values().Finalize(which, out);
}

}  // namespace

extern const AggregateFunction kLastAggregate = {kInfo, NewStateOf<LastState>,
                                                 Finalize};

}  // namespace mapr::runtime
