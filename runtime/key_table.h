// The key=value keys a parser was asked for, shared by the key=value log
// formats (default, generickv). Private to runtime/.
#ifndef MAPR_RUNTIME_KEY_TABLE_H_
#define MAPR_RUNTIME_KEY_TABLE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "util/scan.h"

namespace mapr::runtime {

// The requested key=value keys. Lookups go through a direct-mapped table
// indexed by (length, first byte, last byte): most tokens of a line are keys
// nobody asked for, and they are rejected with one load; a hit is confirmed
// with one compare. Slots shared by several keys fall back to a scan (few
// keys) or a hash map.
class KeyTable {
 public:
  // Up to this many keys, shared slots are resolved by a scan.
  static constexpr size_t kMaxLinearKeys = 8;
  static constexpr uint32_t kNotFound = UINT32_MAX;

  void Add(std::string_view name, uint32_t column) {
    keys_.push_back(Key{name, column});
    lengths_ |= uint64_t{1} << std::min<size_t>(name.size(), 63);
  }
  void Finish() {
    for (size_t i = 0; i < keys_.size(); ++i) {
      uint16_t& slot = slots_[Slot(keys_[i].name)];
      slot = slot == kEmpty && i < kShared ? static_cast<uint16_t>(i) : kShared;
    }
    if (keys_.size() > kMaxLinearKeys) {
      for (const Key& k : keys_) map_.emplace(k.name, k.column);
    }
  }
  bool empty() const { return keys_.empty(); }

  // False if no key is `n` bytes long (keys of 63 bytes or more count as
  // one length): a test cheaper than Find() for a parser that meets many
  // keys nobody asked for and has no other filter before the lookup.
  bool MayHaveLength(size_t n) const {
    return (lengths_ >> std::min<size_t>(n, 63)) & 1;
  }

  // Inlined into the parsers' token loops: a miss is one load, a hit one
  // compare without a call for keys up to 32 bytes.
  [[gnu::always_inline]] uint32_t Find(std::string_view key) const {
    const uint16_t slot = slots_[Slot(key)];
    if (slot == kEmpty) return kNotFound;
    if (slot != kShared) [[likely]] {
      const Key& k = keys_[slot];
      return k.name.size() == key.size() &&
                     util::BytesEqual(k.name.data(), key.data(), key.size())
                 ? k.column
                 : kNotFound;
    }
    return FindShared(key);
  }

 private:
  uint32_t FindShared(std::string_view key) const {
    if (keys_.size() <= kMaxLinearKeys) {
      for (const Key& k : keys_) {
        if (k.name == key) return k.column;
      }
      return kNotFound;
    }
    auto it = map_.find(key);
    return it == map_.end() ? kNotFound : it->second;
  }

  static constexpr uint16_t kEmpty = 0xffff;
  static constexpr uint16_t kShared = 0xfffe;

  static size_t Slot(std::string_view key) {
    if (key.empty()) return 0;
    return (key.size() * 131 + static_cast<uint8_t>(key.front()) * 31 +
            static_cast<uint8_t>(key.back())) &
           255;
  }

  struct Key {
    std::string_view name;
    uint32_t column;
  };
  std::vector<Key> keys_;
  uint64_t lengths_ = 0;  // Bit min(size, 63) of every key.
  std::array<uint16_t, 256> slots_ = MakeEmptySlots();
  absl::flat_hash_map<std::string_view, uint32_t> map_;

  static constexpr std::array<uint16_t, 256> MakeEmptySlots() {
    std::array<uint16_t, 256> a{};
    for (uint16_t& v : a) v = kEmpty;
    return a;
  }
};

// The fields a key=value format was asked for (generickv, logfmt): a
// KeyTable over the names, where a name requested twice is found once and
// copied to its other columns (CopyAliases).
class RequestedKeys {
 public:
  explicit RequestedKeys(std::span<const std::string> fields)
      : names_(fields.begin(), fields.end()) {
    for (uint32_t i = 0; i < names_.size(); ++i) {
      bool duplicate = false;
      for (uint32_t j = 0; j < i; ++j) {
        if (names_[j] == names_[i]) {
          aliases_.push_back(Alias{i, j});
          duplicate = true;
          break;
        }
      }
      if (!duplicate) keys_.Add(names_[i], i);
    }
    keys_.Finish();
  }
  RequestedKeys(const RequestedKeys&) = delete;
  RequestedKeys& operator=(const RequestedKeys&) = delete;

  bool empty() const { return keys_.empty(); }
  [[gnu::always_inline]] uint32_t Find(std::string_view key) const {
    return keys_.Find(key);
  }
  // Gives each repeated column the value of row `row` of its first one.
  void CopyAliases(std::string_view* const* columns, size_t row) const {
    for (const Alias& a : aliases_) {
      columns[a.column][row] = columns[a.source][row];
    }
  }

 private:
  struct Alias {
    uint32_t column;
    uint32_t source;
  };
  // KeyTable holds views into these (never resized).
  const std::vector<std::string> names_;
  std::vector<Alias> aliases_;
  KeyTable keys_;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_KEY_TABLE_H_
