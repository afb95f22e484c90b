// A count per distinct text (topk's values, histogram's bins): counting a
// value, adding another map, and the bytes of a map.
#ifndef MAPR_RUNTIME_AGGREGATES_VALUE_COUNTS_H_
#define MAPR_RUNTIME_AGGREGATES_VALUE_COUNTS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "util/bytes.h"
#include "util/strings.h"

namespace mapr::runtime {

using ValueCounts = absl::flat_hash_map<std::string, uint64_t>;

// Counts `value` once; true if it was new.
inline bool CountValue(ValueCounts& counts, std::string_view value) {
  auto it = counts.find(util::ToAbsl(value));
  if (it != counts.end()) {
    ++it->second;
    return false;
  }
  counts.emplace(std::string(value), 1);
  return true;
}

// Adds every count of `from` to `to`.
inline void AddCounts(const ValueCounts& from, ValueCounts& to) {
  for (const auto& [value, count] : from) to[value] += count;
}

// u32 n, then n (value, u64 count) in increasing byte order of the values,
// each value length-prefixed.
inline void AppendCounts(const ValueCounts& counts, std::string* out) {
  std::vector<std::pair<std::string_view, uint64_t>> sorted(counts.begin(),
                                                            counts.end());
  std::sort(sorted.begin(), sorted.end());
  util::AppendU32(out, static_cast<uint32_t>(sorted.size()));
  for (const auto& [value, count] : sorted) {
    util::AppendBytes(out, value);
    util::AppendU64(out, count);
  }
}

// Reads what AppendCounts wrote into the empty `counts`: at most `max`
// values, each count at least 1, the values strictly increasing and each
// accepted by `valid(value)`. False on anything else.
template <typename Valid>
bool ReadCounts(std::string_view* in, uint32_t max, ValueCounts* counts,
                Valid&& valid) {
  uint32_t n;
  // Each entry takes at least 12 bytes.
  if (!util::ReadU32(in, &n) || n > max || in->size() / 12 < n) return false;
  std::string_view previous;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view value;
    uint64_t count;
    if (!util::ReadBytes(in, &value) || !util::ReadU64(in, &count) ||
        count == 0 || (i > 0 && value <= previous) || !valid(value)) {
      return false;
    }
    previous = value;
    counts->emplace(std::string(value), count);
  }
  return true;
}

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATES_VALUE_COUNTS_H_
