#include "runtime/group_table.h"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mapr::runtime {

uint64_t HashKey(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

void AppendKeyPart(std::string_view part, std::string* out) {
  uint32_t n = static_cast<uint32_t>(part.size());
  char len[4] = {
      static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
      static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 24) & 0xff)};
  out->append(len, 4);
  out->append(part.data(), part.size());
}

std::vector<std::string_view> DecodeKey(std::string_view key, size_t parts) {
  std::vector<std::string_view> out;
  out.reserve(parts);
  if (parts == 1) {
    out.push_back(key);
    return out;
  }
  size_t pos = 0;
  for (size_t i = 0; i < parts && pos + 4 <= key.size(); ++i) {
    const unsigned char* p =
        reinterpret_cast<const unsigned char*>(key.data() + pos);
    uint32_t n = p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24);
    pos += 4;
    out.push_back(key.substr(pos, n));
    pos += n;
  }
  return out;
}

}  // namespace mapr::runtime
