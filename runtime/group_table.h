// Maps group keys to dense group ids. Keys are hashed with XXH3 once per
// row and copied into an arena once, when the group is created.
//
// The table is open addressing with linear probing over 8-byte buckets: the
// high 32 bits of the key's hash (a tag that rejects almost every wrong
// bucket without touching the key) and the group id. A lookup usually costs
// one bucket load and one key compare; Prefetch() lets a caller start the
// bucket load for a later row while it works on the current one (the table of a
// million-group query does not fit in cache).
//
// Memory: about 16 bytes of key view per group plus the key bytes, and
// 8 bytes per bucket at a load of at most 3/4 (11-21 bytes per group). Hashes
// are not stored: growing rehashes the interned keys.
#ifndef MAPR_RUNTIME_GROUP_TABLE_H_
#define MAPR_RUNTIME_GROUP_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "util/arena.h"
#include "util/prefault.h"
#include "util/scan.h"

namespace mapr::runtime {

using util::Arena;
using util::BytesEqual;

// XXH3 64-bit hash of `bytes`.
uint64_t HashKey(std::string_view bytes);

class GroupTable {
 public:
  GroupTable() = default;
  GroupTable(GroupTable&&) = default;
  GroupTable& operator=(GroupTable&&) = default;

  static constexpr uint32_t kNotFound = UINT32_MAX;

  // Returns the id of `key` (whose hash is `hash`), or kNotFound.
  uint32_t Find(std::string_view key, uint64_t hash) const {
    if (buckets_.empty()) return kNotFound;
    const uint32_t tag = Tag(hash);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Bucket s = buckets_[i];
      if (s.id == kEmpty) return kNotFound;
      if (s.tag == tag && KeyEquals(s.id, key)) return s.id;
    }
  }

  // Returns the id of `key` (with precomputed `hash`), creating the group if
  // it is new; `*created` tells which.
  uint32_t FindOrInsert(std::string_view key, uint64_t hash, bool* created) {
    if (keys_.size() + 1 > max_size_) Grow();
    const uint32_t tag = Tag(hash);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Bucket& s = buckets_[i];
      if (s.id == kEmpty) {
        const uint32_t id = static_cast<uint32_t>(keys_.size());
        // Grows in prefaulted steps (a million groups: 16 MB of views).
        util::ResizePrefaulted(keys_, keys_.size() + 1, arena_.Copy(key));
        s = Bucket{tag, id};
        *created = true;
        return id;
      }
      if (s.tag == tag && KeyEquals(s.id, key)) {
        *created = false;
        return s.id;
      }
    }
  }

  // Starts loading the bucket where a lookup of `hash` begins.
  void Prefetch(uint64_t hash) const {
    if (!buckets_.empty()) __builtin_prefetch(&buckets_[hash & mask_]);
  }

  // Makes room for `n` groups in all without growing again.
  void Reserve(size_t n);

  size_t size() const { return keys_.size(); }
  // The interned key of group `id`.
  std::string_view key(uint32_t id) const { return keys_[id]; }
  // The hash of group `id`'s key (computed again).
  uint64_t hash(uint32_t id) const { return HashKey(keys_[id]); }

  // Forgets every group; keeps the memory for reuse.
  void Clear();
  // Frees every group and the memory behind them.
  void Release();

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Bucket {
    uint32_t tag;
    uint32_t id;  // kEmpty: free
  };
  static uint32_t Tag(uint64_t hash) {
    return static_cast<uint32_t>(hash >> 32);
  }
  bool KeyEquals(uint32_t id, std::string_view key) const {
    const std::string_view k = keys_[id];
    return k.size() == key.size() && BytesEqual(k.data(), key.data(), k.size());
  }
  // Doubles the buckets (16 at first) and reinserts every group.
  void Grow();
  void Rebuild(size_t capacity);

  std::vector<Bucket> buckets_;
  size_t mask_ = 0;
  size_t max_size_ = 0;  // Groups allowed before growing (3/4 of buckets).
  std::vector<std::string_view> keys_;
  // The keys' bytes. Its blocks start small: a reducer holds a table per
  // source, many of them with a few groups.
  static constexpr size_t kFirstKeyBlockBytes = 1024;
  Arena arena_{kFirstKeyBlockBytes};
};

// Group keys of several fields are encoded as (4-byte little-endian length,
// bytes) per part, so tuples never collide (DTail joins with ',').
void AppendKeyPart(std::string_view part, std::string* out);
// Part `index` of a key of `parts` parts (the key itself if parts == 1).
std::string_view KeyPart(std::string_view key, size_t parts, size_t index);

// The start of every max_groups refusal: "more than 2 groups (max_groups)"
// ("1 group" in the singular). It names the option as the C and Python APIs
// spell it; the `mapr` command prints --max-groups instead.
inline std::string MoreGroupsThan(uint64_t max_groups) {
  return absl::StrCat("more than ", max_groups,
                      max_groups == 1 ? " group" : " groups", " (max_groups)");
}

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_GROUP_TABLE_H_
