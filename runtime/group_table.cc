#include "runtime/group_table.h"

#include <algorithm>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "util/prefault.h"

namespace mapr::runtime {

uint64_t HashKey(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

void GroupTable::Reserve(size_t n) {
  keys_.reserve(n);
  if (n > max_size_) {
    size_t capacity = 16;
    while (capacity / 4 * 3 < n) capacity *= 2;
    Rebuild(capacity);
  }
}

void GroupTable::Grow() {
  Rebuild(buckets_.empty() ? 16 : buckets_.size() * 2);
}

void GroupTable::Rebuild(size_t capacity) {
  {
    // Written whole: prefaulted in one call (util/prefault.h).
    std::vector<Bucket> buckets;
    buckets.reserve(capacity);
    util::PrefaultForWrite(buckets.data(), capacity * sizeof(Bucket));
    buckets.assign(capacity, Bucket{0, kEmpty});
    buckets_.swap(buckets);
  }
  mask_ = capacity - 1;
  max_size_ = capacity / 4 * 3;
  for (uint32_t id = 0; id < keys_.size(); ++id) {
    const uint64_t h = HashKey(keys_[id]);
    size_t i = h & mask_;
    while (buckets_[i].id != kEmpty) i = (i + 1) & mask_;
    buckets_[i] = Bucket{Tag(h), id};
  }
}

void GroupTable::Clear() {
  std::fill(buckets_.begin(), buckets_.end(), Bucket{0, kEmpty});
  keys_.clear();
  arena_.Reset();
}

void GroupTable::Release() {
  std::vector<Bucket>().swap(buckets_);
  mask_ = 0;
  max_size_ = 0;
  std::vector<std::string_view>().swap(keys_);
  arena_ = Arena(kFirstKeyBlockBytes);
}

void AppendKeyPart(std::string_view part, std::string* out) {
  uint32_t n = static_cast<uint32_t>(part.size());
  char len[4] = {
      static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
      static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 24) & 0xff)};
  out->append(len, 4);
  out->append(part.data(), part.size());
}

std::string_view KeyPart(std::string_view key, size_t parts, size_t index) {
  if (parts == 1) return key;
  size_t pos = 0;
  for (size_t i = 0; i < parts && pos + 4 <= key.size(); ++i) {
    const unsigned char* p =
        reinterpret_cast<const unsigned char*>(key.data() + pos);
    uint32_t n = p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24);
    pos += 4;
    if (i == index) return key.substr(pos, n);
    pos += n;
  }
  return std::string_view();
}

}  // namespace mapr::runtime
