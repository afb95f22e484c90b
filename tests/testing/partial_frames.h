// Forging MAPRPART frames in tests (docs/partial-format.md): a frame cut
// into its header and sections, a section rewritten, and the frame sealed
// again with a valid size and XXH3-64 checksum, so that the decoder's own
// checks, not the checksum, must catch what is wrong. A test target that
// includes this links PkgConfig::XXHASH.
#ifndef MAPR_TESTS_TESTING_PARTIAL_FRAMES_H_
#define MAPR_TESTS_TESTING_PARTIAL_FRAMES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mapr::testing {

// Rewrites the checksum of `frame` after an edit.
inline void Reseal(std::string* frame) {
  const uint64_t sum = XXH3_64bits(frame->data(), frame->size() - 8);
  for (int i = 0; i < 8; ++i) {
    (*frame)[frame->size() - 8 + i] = static_cast<char>(sum >> (8 * i));
  }
}

inline void PutU64(std::string* frame, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    (*frame)[at + i] = static_cast<char>(v >> (8 * i));
  }
}

inline uint64_t GetU64(std::string_view bytes, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= uint64_t{static_cast<uint8_t>(bytes[at + i])} << (8 * i);
  }
  return v;
}

inline uint32_t GetU32(std::string_view bytes, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= uint32_t{static_cast<uint8_t>(bytes[at + i])} << (8 * i);
  }
  return v;
}

// A frame cut into its header and its sections (u32 kind, u64 length,
// payload), in the frame's order.
struct Sections {
  std::string header;
  std::vector<std::pair<uint32_t, std::string>> list;

  // The payload of the section of `kind` (a failure, and the first
  // section's, if there is none).
  std::string& Of(uint32_t kind) {
    for (auto& section : list) {
      if (section.first == kind) return section.second;
    }
    ADD_FAILURE() << "no section " << kind;
    return list[0].second;
  }
};

inline Sections SplitSections(const std::string& frame) {
  Sections s;
  const uint32_t header_size = GetU32(frame, 12);
  s.header = frame.substr(0, header_size);
  size_t at = header_size;
  const size_t end = frame.size() - 8;
  while (at < end) {
    const uint32_t kind = GetU32(frame, at);
    const uint64_t length = GetU64(frame, at + 4);
    s.list.emplace_back(kind, frame.substr(at + 12, length));
    at += 12 + length;
  }
  EXPECT_EQ(at, end);
  return s;
}

// The frame of `s`, its size and checksum written.
inline std::string JoinSections(const Sections& s) {
  std::string out = s.header;
  for (const auto& [kind, payload] : s.list) {
    for (int i = 0; i < 4; ++i) {
      out.push_back(static_cast<char>(kind >> (8 * i)));
    }
    const uint64_t length = payload.size();
    for (int i = 0; i < 8; ++i) {
      out.push_back(static_cast<char>(length >> (8 * i)));
    }
    out += payload;
  }
  out += std::string(8, '\0');
  PutU64(&out, 24, out.size());
  Reseal(&out);
  return out;
}

// Sets the counter `name` of a counters section's payload (u32 n, then n
// x (u32 length, name, u64 value)) to `value`.
inline void SetCounter(std::string* payload, std::string_view name,
                       uint64_t value) {
  const uint32_t n = GetU32(*payload, 0);
  size_t at = 4;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t length = GetU32(*payload, at);
    if (std::string_view(*payload).substr(at + 4, length) == name) {
      PutU64(payload, at + 4 + length, value);
      return;
    }
    at += 4 + length + 8;
  }
  ADD_FAILURE() << "no counter " << name;
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_PARTIAL_FRAMES_H_
