// first(x): the value of x in the group's first row that has one, as text;
// the mirror of last(). When partials combine, the earlier one's value stays.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/number.h"

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "first", "first", plan::ArgumentKind::kAnyValue, ValueType::kText,
    "the field's first value"};

class FirstState : public AggregateState {
 public:
  void Resize(size_t groups) override {
    text_.resize(groups);
    has_.resize(groups, 0);
  }
  void Clear() override {
    text_.clear();
    has_.clear();
  }
  // A group takes the first value it meets and keeps it: after its first
  // batch the loop only tests one byte per row.
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t g = gids[i];
      if (has_[g]) continue;
      const std::string_view v = f.values[sel[i]];
      if (v.data() == nullptr) continue;
      text_[g].assign(v.data(), v.size());
      has_[g] = 1;
    }
  }
  // The earlier partial's value stays.
  void Combine(const AggregateState& later, const uint32_t* to,
               size_t n) override {
    const auto& o = static_cast<const FirstState&>(later);
    for (uint32_t from = 0; from < n; ++from) {
      if (!o.has_[from] || has_[to[from]]) continue;
      text_[to[from]] = o.text_[from];
      has_[to[from]] = 1;
    }
  }
  void Serialize(uint32_t g, std::string* out) const override {
    util::AppendU8(out, has_[g]);
    if (has_[g]) util::AppendBytes(out, text_[g]);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    uint8_t h;
    if (!util::ReadU8(in, &h) || h > 1) return false;
    std::string_view text;
    if (h && !util::ReadBytes(in, &text)) return false;
    has_[g] = h;
    text_[g].assign(text.data(), text.size());
    return true;
  }

  std::string_view Text(uint32_t g) const {
    return has_[g] ? std::string_view(text_[g]) : std::string_view();
  }

 private:
  std::vector<std::string> text_;
  std::vector<uint8_t> has_;
};

void Finalize(const AggregateState& state, size_t /*groups*/,
              std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const FirstState&>(state);
  out->values.resize(which.size());
  out->texts.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    const std::string_view text = s.Text(which[i]);
    out->texts[i] = text;
    // The value that orders the column: the text as a number, else 0.
    if (!util::ParseNumber(text, &out->values[i])) out->values[i] = 0;
  }
}

}  // namespace

extern const AggregateFunction kFirstAggregate = {
    kInfo, [] { return std::unique_ptr<AggregateState>(new FirstState); },
    Finalize};

}  // namespace mapr::runtime
