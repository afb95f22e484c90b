// Per-group optional text values, for the aggregates that keep one value of
// a field as text (last, first): storage, serialization and finalization.
#ifndef MAPR_RUNTIME_AGGREGATES_TEXT_VALUES_H_
#define MAPR_RUNTIME_AGGREGATES_TEXT_VALUES_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/number.h"
#include "util/prefault.h"

namespace mapr::runtime {

class TextValues {
 public:
  void Resize(size_t groups) {
    text_.resize(groups);
    util::ResizePrefaulted(has_, groups, uint8_t{0});
  }
  void Clear() {
    text_.clear();
    has_.clear();
  }

  bool has(uint32_t g) const { return has_[g] != 0; }
  void Set(uint32_t g, std::string_view v) {
    text_[g].assign(v.data(), v.size());
    has_[g] = 1;
  }
  // Group g's value (an empty view without a value).
  std::string_view Get(uint32_t g) const {
    return has_[g] ? std::string_view(text_[g]) : std::string_view();
  }

  // u8 has, then the length-prefixed text if it has one.
  void Serialize(uint32_t g, std::string* out) const {
    util::AppendU8(out, has_[g]);
    if (has_[g]) util::AppendBytes(out, text_[g]);
  }
  bool Deserialize(std::string_view* in, uint32_t g) {
    uint8_t h;
    if (!util::ReadU8(in, &h) || h > 1) return false;
    std::string_view text;
    if (h && !util::ReadBytes(in, &text)) return false;
    has_[g] = h;
    text_[g].assign(text.data(), text.size());
    return true;
  }

  // The text cells of groups `which`, ordered by their values as numbers (0
  // when not numeric), as DTail orders last().
  void Finalize(std::span<const uint32_t> which, FinalColumn* out) const {
    out->values.resize(which.size());
    out->texts.resize(which.size());
    for (size_t i = 0; i < which.size(); ++i) {
      const std::string_view text = Get(which[i]);
      out->texts[i] = text;
      if (!util::ParseNumber(text, &out->values[i])) out->values[i] = 0;
    }
  }

 private:
  std::vector<std::string> text_;
  std::vector<uint8_t> has_;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATES_TEXT_VALUES_H_
