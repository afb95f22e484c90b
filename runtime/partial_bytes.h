// runtime/partial_bytes.h: the byte-level helpers that the partial frame's
// decoder (partial_frame.cc) and the engine side of the codec
// (partial_codec.cc) share: header offsets, little-endian loads and stores,
// section framing, the checksum and the error texts. Internal to runtime/.
#ifndef MAPR_RUNTIME_PARTIAL_BYTES_H_
#define MAPR_RUNTIME_PARTIAL_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mapr/result.h"
#include "runtime/partial_sections.h"
#include "util/bytes.h"
#include "util/strings.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mapr::runtime::partial_bytes {

using util::AppendBytes;
using util::AppendU32;
using util::AppendU64;
using util::AppendU8;
using util::ReadBytes;
using util::ReadU32;
using util::ReadU64;
using util::ReadU8;

// Header field offsets (docs/partial-format.md).
inline constexpr size_t kMajorAt = 8;
inline constexpr size_t kMinorAt = 10;
inline constexpr size_t kHeaderSizeAt = 12;
inline constexpr size_t kFlagsAt = 16;
inline constexpr size_t kFrameSizeAt = 24;
inline constexpr size_t kFingerprintAt = 32;
inline constexpr size_t kSplitsAt = 48;
inline constexpr size_t kGroupsAt = 64;
// The least a group takes: its key's length.
inline constexpr uint64_t kMinGroupBytes = 4;

inline uint16_t LoadU16(std::string_view b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) |
                               (static_cast<uint8_t>(b[at + 1]) << 8));
}
inline uint32_t LoadU32(std::string_view b, size_t at) {
  std::string_view in = b.substr(at, 4);
  uint32_t v = 0;
  ReadU32(&in, &v);
  return v;
}
inline uint64_t LoadU64(std::string_view b, size_t at) {
  std::string_view in = b.substr(at, 8);
  uint64_t v = 0;
  ReadU64(&in, &v);
  return v;
}
inline void StoreU64(std::string* out, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) (*out)[at + i] = static_cast<char>(v >> (8 * i));
}
inline void AppendU16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>(v >> 8));
}

inline uint64_t Checksum(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

inline absl::Status Truncated(uint64_t have, uint64_t need) {
  return absl::DataLossError(absl::StrCat(
      "truncated partial: ", have, " bytes of a frame that needs ", need));
}

inline absl::Status Malformed(std::string_view what) {
  return absl::DataLossError(
      absl::StrCat("malformed partial: ", util::ToAbsl(what)));
}

// Opens a section of `kind`; returns where its length goes.
inline size_t BeginSection(std::string* out, PartialSection kind) {
  AppendU32(out, static_cast<uint32_t>(kind));
  const size_t at = out->size();
  AppendU64(out, 0);
  return at;
}
inline void EndSection(std::string* out, size_t length_at) {
  StoreU64(out, length_at, out->size() - length_at - 8);
}

// The counters section holds v1.0's nine counters; the ones added since
// come in the "more counters" section (v1.1: lines_unmatched, then
// values_unparsed), which a v1.0 reader skips (it cannot have planned a
// query that counts them).
inline bool InMoreCounters(const LineCounterField& field) {
  return field.value == &LineCounters::lines_unmatched ||
         field.value == &LineCounters::values_unparsed;
}

// The more counters a writer may leave out when they are 0, so that frames
// of queries that cannot count them stay readable by earlier v1.1 readers.
inline bool OmittedWhenZero(const LineCounterField& field) {
  return field.value == &LineCounters::values_unparsed;
}

// The name of a section kind, for messages.
inline const char* SectionName(PartialSection kind) {
  switch (kind) {
    case PartialSection::kQuery:
      return "query";
    case PartialSection::kCounters:
      return "counters";
    case PartialSection::kSlots:
      return "slots";
    case PartialSection::kFieldCounts:
      return "field counts";
    case PartialSection::kGroups:
      return "groups";
    case PartialSection::kMoreCounters:
      return "more counters";
    case PartialSection::kQuantileStates:
      return "quantile states";
    case PartialSection::kDistinctStates:
      return "distinct states";
    case PartialSection::kMomentsStates:
      return "moments states";
    case PartialSection::kNotNumeric:
      return "values not numeric";
    case PartialSection::kRun:
      return "run";
    case PartialSection::kStream:
      return "stream";
    case PartialSection::kPartition:
      return "partition";
  }
  return "?";
}

}  // namespace mapr::runtime::partial_bytes

#endif  // MAPR_RUNTIME_PARTIAL_BYTES_H_
