// Maps group keys to dense group ids. Keys are hashed with XXH3 once per
// row; the table keeps each group's hash beside its interned key so lookups
// and growth never rehash, and keys are copied into an arena once, when the
// group is created.
//
// Memory: the hash set holds only 4-byte group ids (plus absl's control
// byte); a group's key view and hash live once, in per-group vectors. About
// 24 bytes per group plus the key bytes and ~10 bytes of set slots.
#ifndef MAPR_RUNTIME_GROUP_TABLE_H_
#define MAPR_RUNTIME_GROUP_TABLE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "runtime/arena.h"

namespace mapr::runtime {

// XXH3 64-bit hash of `bytes`.
uint64_t HashKey(std::string_view bytes);

class GroupTable {
 public:
  GroupTable()
      : store_(std::make_unique<Store>()),
        set_(0, IdHash{store_.get()}, IdEq{store_.get()}) {}
  // The set's functors point at *store_, which moves along with it.
  GroupTable(GroupTable&&) = default;
  GroupTable& operator=(GroupTable&&) = default;

  static constexpr uint32_t kNotFound = UINT32_MAX;

  // Returns the id of `key`, or kNotFound.
  uint32_t Find(std::string_view key, uint64_t hash) const {
    auto it = set_.find(Probe{key, hash});
    return it == set_.end() ? kNotFound : *it;
  }

  // Returns the id of `key` (with precomputed `hash`), creating the group if
  // it is new; `*created` tells which.
  uint32_t FindOrInsert(std::string_view key, uint64_t hash, bool* created) {
    auto it = set_.find(Probe{key, hash});
    if (it != set_.end()) {
      *created = false;
      return *it;
    }
    const uint32_t id = static_cast<uint32_t>(store_->keys.size());
    store_->keys.push_back(store_->arena.Copy(key));
    store_->hashes.push_back(hash);
    set_.insert(id);
    *created = true;
    return id;
  }

  // Makes room for `n` groups in all without growing again.
  void Reserve(size_t n) {
    store_->keys.reserve(n);
    store_->hashes.reserve(n);
    set_.reserve(n);
  }

  size_t size() const { return store_->keys.size(); }
  // The interned key of group `id`.
  std::string_view key(uint32_t id) const { return store_->keys[id]; }
  // The hash of group `id`'s key.
  uint64_t hash(uint32_t id) const { return store_->hashes[id]; }

  void Clear() {
    set_.clear();
    store_->keys.clear();
    store_->hashes.clear();
    store_->arena.Reset();
  }

  // Frees every group and the memory behind them.
  void Release() {
    absl::flat_hash_set<uint32_t, IdHash, IdEq>(0, IdHash{store_.get()},
                                                IdEq{store_.get()})
        .swap(set_);
    std::vector<std::string_view>().swap(store_->keys);
    std::vector<uint64_t>().swap(store_->hashes);
    store_->arena = Arena();
  }

 private:
  struct Store {
    std::vector<std::string_view> keys;
    std::vector<uint64_t> hashes;
    Arena arena;
  };
  struct Probe {
    std::string_view bytes;
    uint64_t hash;
  };
  struct IdHash {
    using is_transparent = void;
    const Store* store;
    size_t operator()(uint32_t id) const { return store->hashes[id]; }
    size_t operator()(const Probe& p) const { return p.hash; }
  };
  struct IdEq {
    using is_transparent = void;
    const Store* store;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, const Probe& b) const {
      return store->hashes[a] == b.hash && store->keys[a] == b.bytes;
    }
    bool operator()(const Probe& a, uint32_t b) const { return (*this)(b, a); }
  };

  std::unique_ptr<Store> store_;
  absl::flat_hash_set<uint32_t, IdHash, IdEq> set_;
};

// Group keys of several fields are encoded as (4-byte little-endian length,
// bytes) per part, so tuples never collide (DTail joins with ',').
void AppendKeyPart(std::string_view part, std::string* out);
// Splits an encoded key back into its parts.
std::vector<std::string_view> DecodeKey(std::string_view key, size_t parts);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_GROUP_TABLE_H_
