// A bump allocator for bytes with stable addresses. Used for per-batch
// scratch (unescaped CSV values, set() results) and for interned group keys.
// Memory is kept across Reset() so steady-state batches do not allocate.
#ifndef MAPR_UTIL_ARENA_H_
#define MAPR_UTIL_ARENA_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "util/prefault.h"

namespace mapr::util {

class Arena {
 public:
  static constexpr size_t kDefaultBlockBytes = 64 * 1024;

  Arena() = default;
  // An arena whose blocks start at `first_block_bytes` and double up to
  // kDefaultBlockBytes: one that may hold little (the group keys of a small
  // partial, one per source in a reducer) then takes little.
  explicit Arena(size_t first_block_bytes)
      : next_block_bytes_(std::min(first_block_bytes, kDefaultBlockBytes)) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&&) = default;
  Arena& operator=(Arena&&) = default;

  // Returns `n` bytes that stay valid until Reset() or destruction.
  char* Allocate(size_t n) {
    if (n > remaining_) NewBlock(n);
    char* p = cursor_;
    cursor_ += n;
    remaining_ -= n;
    bytes_used_ += n;
    return p;
  }

  // Copies `s` into the arena and returns a view of the copy. An empty input
  // still yields a non-null view (callers use data() == nullptr as "missing").
  std::string_view Copy(std::string_view s) {
    char* p = Allocate(s.empty() ? 1 : s.size());
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return std::string_view(p, s.size());
  }

  // Forgets every allocation but keeps the blocks for reuse.
  void Reset() {
    current_ = 0;
    bytes_used_ = 0;
    if (blocks_.empty()) {
      cursor_ = nullptr;
      remaining_ = 0;
    } else {
      cursor_ = blocks_[0].data.get();
      remaining_ = blocks_[0].size;
    }
  }

  // Bytes handed out since the last Reset().
  size_t bytes_used() const { return bytes_used_; }
  // Bytes reserved from the system.
  size_t bytes_reserved() const {
    size_t total = 0;
    for (const Block& b : blocks_) total += b.size;
    return total;
  }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size;
  };

  void NewBlock(size_t n) {
    // Reuse a following block kept from before Reset() if it is big enough.
    while (current_ + 1 < blocks_.size()) {
      ++current_;
      if (blocks_[current_].size >= n) {
        cursor_ = blocks_[current_].data.get();
        remaining_ = blocks_[current_].size;
        return;
      }
    }
    size_t size = std::max(n, next_block_bytes_);
    next_block_bytes_ = std::min(next_block_bytes_ * 2, kDefaultBlockBytes);
    // Zeroed like make_unique's, after one prefault call for its pages.
    std::unique_ptr<char[]> data(new char[size]);
    PrefaultForWrite(data.get(), size);
    std::memset(data.get(), 0, size);
    blocks_.push_back(Block{std::move(data), size});
    current_ = blocks_.size() - 1;
    cursor_ = blocks_.back().data.get();
    remaining_ = size;
  }

  std::vector<Block> blocks_;
  size_t current_ = 0;
  char* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t bytes_used_ = 0;
  size_t next_block_bytes_ = kDefaultBlockBytes;
};

}  // namespace mapr::util

#endif  // MAPR_UTIL_ARENA_H_
