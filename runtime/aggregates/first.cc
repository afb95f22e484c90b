// first(x): the value of x in the group's first row that has one, as text;
// the mirror of last(). When partials combine, the earlier one's value stays.
#include <cstdint>
#include <memory>
#include <span>

#include "runtime/aggregate.h"
#include "runtime/aggregates/text_values.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {"first",
                                       "first",
                                       plan::ArgumentKind::kAnyValue,
                                       ValueType::kText,
                                       "the field's first value",
                                       /*one_row_value=*/true};

class FirstState : public AggregateState {
 public:
  void Resize(size_t groups) override { values_.Resize(groups); }
  void Clear() override { values_.Clear(); }
  // A group takes the first value it meets and keeps it: after its first
  // batch the loop only tests one byte per row.
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t g = gids[i];
      if (values_.has(g)) continue;
      const std::string_view v = f.values[sel[i]];
      if (v.data() != nullptr) values_.Set(g, v);
    }
  }
  // The earlier partial's value stays.
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const TextValues& o = static_cast<const FirstState&>(later).values_;
    for (uint32_t from = 0; from < n; ++from) {
      if (o.has(from) && !values_.has(to[from])) {
        values_.Set(to[from], o.Get(from));
      }
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
};

void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  static_cast<const FirstState&>(state).values().Finalize(which, out);
}

}  // namespace

extern const AggregateFunction kFirstAggregate = {kInfo, NewStateOf<FirstState>,
                                                  Finalize};

}  // namespace mapr::runtime
