// Maps group keys to dense group ids. Keys are hashed with XXH3 once per
// row; the table stores the hash beside the interned key so lookups never
// rehash, and keys are copied into an arena once, when the group is created.
#ifndef MAPR_RUNTIME_GROUP_TABLE_H_
#define MAPR_RUNTIME_GROUP_TABLE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/arena.h"

namespace mapr::runtime {

// XXH3 64-bit hash of `bytes`.
uint64_t HashKey(std::string_view bytes);

class GroupTable {
 public:
  GroupTable() = default;
  GroupTable(GroupTable&&) = default;
  GroupTable& operator=(GroupTable&&) = default;

  static constexpr uint32_t kNotFound = UINT32_MAX;

  // Returns the id of `key`, or kNotFound.
  uint32_t Find(std::string_view key, uint64_t hash) const {
    auto it = map_.find(Key{key, hash});
    return it == map_.end() ? kNotFound : it->second;
  }

  // Returns the id of `key` (with precomputed `hash`), creating the group if
  // it is new; `*created` tells which.
  uint32_t FindOrInsert(std::string_view key, uint64_t hash, bool* created) {
    auto it = map_.find(Key{key, hash});
    if (it != map_.end()) {
      *created = false;
      return it->second;
    }
    uint32_t id = static_cast<uint32_t>(keys_.size());
    std::string_view owned = arena_.Copy(key);
    keys_.push_back(owned);
    map_.emplace(Key{owned, hash}, id);
    *created = true;
    return id;
  }

  size_t size() const { return keys_.size(); }
  // The interned key of group `id`.
  std::string_view key(uint32_t id) const { return keys_[id]; }

  void Clear() {
    map_.clear();
    keys_.clear();
    arena_.Reset();
  }

 private:
  struct Key {
    std::string_view bytes;
    uint64_t hash;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return k.hash; }
  };
  struct KeyEq {
    bool operator()(const Key& a, const Key& b) const {
      return a.hash == b.hash && a.bytes == b.bytes;
    }
  };

  absl::flat_hash_map<Key, uint32_t, KeyHash, KeyEq> map_;
  std::vector<std::string_view> keys_;
  Arena arena_;
};

// Group keys of several fields are encoded as (4-byte little-endian length,
// bytes) per part, so tuples never collide (DTail joins with ',').
void AppendKeyPart(std::string_view part, std::string* out);
// Splits an encoded key back into its parts.
std::vector<std::string_view> DecodeKey(std::string_view key, size_t parts);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_GROUP_TABLE_H_
