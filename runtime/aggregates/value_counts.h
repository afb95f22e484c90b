// A count per distinct text (topk's values, histogram's bins): counting a
// value, adding another map, dropping small counts, and the bytes of a map.
//
// Values are told apart by their 64-bit XXH3 hash, as dcount's are (exact
// barring a 64-bit collision): a row's lookup touches one compact slot
// (hash, count, text offset) and never the text, which is kept once, when
// the value first appears, in one buffer of all the texts. On a 2^-64
// collision the second value counts as the first.
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

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mapr::runtime {

class ValueCounts {
 public:
  size_t size() const { return index_.size(); }

  // The hash that tells values apart.
  static uint64_t Hash(std::string_view value) {
    return XXH3_64bits(value.data(), value.size());
  }

  // Counts `value` once; true if it was new.
  bool Count(std::string_view value) { return Count(value, Hash(value)); }
  // The same, for a value whose Hash() is `hash`.
  bool Count(std::string_view value, uint64_t hash) {
    return Add(value, hash, 1);
  }

  // Adds every count of `from`; false if a value's count would pass 2^64
  // - 1 (this map is then unusable: the caller refuses the merge).
  [[nodiscard]] bool AddAll(const ValueCounts& from) {
    bool overflow = false;
    for (const auto& [hash, e] : from.index_) {
      Add(from.Text(e), hash, e.count, &overflow);
    }
    return !overflow;
  }

  // Subtracts `c` from every count, dropping those that reach 0.
  void SubtractAndDrop(uint64_t c) {
    std::string kept;
    for (auto it = index_.begin(); it != index_.end();) {
      if (it->second.count <= c) {
        index_.erase(it++);
        continue;
      }
      it->second.count -= c;
      const std::string_view text = Text(it->second);
      it->second.offset = kept.size();
      kept.append(text);
      ++it;
    }
    bytes_ = std::move(kept);
  }

  // f(value, count) for each value, in no particular order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& [hash, e] : index_) f(Text(e), e.count);
  }

  // f(hash, value, count) for each value, in no particular order.
  template <typename F>
  void ForEachHashed(F&& f) const {
    for (const auto& [hash, e] : index_) f(hash, Text(e), e.count);
  }

  // u32 n, then n (value, u64 count) in increasing byte order of the
  // values, each value length-prefixed.
  void Append(std::string* out) const {
    std::vector<std::pair<std::string_view, uint64_t>> sorted;
    sorted.reserve(size());
    ForEach([&](std::string_view v, uint64_t c) { sorted.emplace_back(v, c); });
    std::sort(sorted.begin(), sorted.end());
    util::AppendU32(out, static_cast<uint32_t>(sorted.size()));
    for (const auto& [value, count] : sorted) {
      util::AppendBytes(out, value);
      util::AppendU64(out, count);
    }
  }

  // Reads what Append wrote into this empty map: at most `max` values, each
  // count at least 1, the values strictly increasing and each accepted by
  // `valid(value)`. False on anything else.
  template <typename Valid>
  bool Read(std::string_view* in, uint32_t max, Valid&& valid) {
    uint32_t n;
    // Each entry takes at least 12 bytes.
    if (!util::ReadU32(in, &n) || n > max || in->size() / 12 < n) return false;
    std::string_view previous;
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view value;
      uint64_t count;
      if (!util::ReadBytes(in, &value) || !util::ReadU64(in, &count) ||
          count == 0 || (i > 0 && value <= previous) || !valid(value) ||
          !Add(value, Hash(value), count)) {
        return false;  // (a repeated hash: a collision, not our bytes)
      }
      previous = value;
    }
    return true;
  }

 private:
  struct Entry {
    uint64_t count;
    size_t offset;  // of the text in bytes_
    uint32_t size;
  };

  std::string_view Text(const Entry& e) const {
    return std::string_view(bytes_).substr(e.offset, e.size);
  }

  // Adds `count` to `value` (whose hash is `hash`); true if it was new.
  // Sets *overflow if the count passes 2^64 - 1.
  bool Add(std::string_view value, uint64_t hash, uint64_t count,
           bool* overflow = nullptr) {
    auto [it, created] = index_.try_emplace(hash, Entry{0, 0, 0});
    if (__builtin_add_overflow(it->second.count, count, &it->second.count) &&
        overflow != nullptr) {
      *overflow = true;
    }
    if (created) {
      it->second.offset = bytes_.size();
      it->second.size = static_cast<uint32_t>(value.size());
      bytes_.append(value);
    }
    return created;
  }

  absl::flat_hash_map<uint64_t, Entry> index_;
  // The texts, one after another (no allocation per value: the buffer
  // grows geometrically, and SubtractAndDrop compacts it).
  std::string bytes_;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATES_VALUE_COUNTS_H_
