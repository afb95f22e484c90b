// The MAPRPART frame's decoder (runtime/partial_codec.h): header checks,
// the checksum and the sections that do not need the engine.
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/partial_bytes.h"
#include "runtime/partial_codec.h"
#include "util/bytes.h"
#include "util/status_macros.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

using partial_bytes::Checksum;
using partial_bytes::InMoreCounters;
using partial_bytes::kFingerprintAt;
using partial_bytes::kFlagsAt;
using partial_bytes::kFrameSizeAt;
using partial_bytes::kGroupsAt;
using partial_bytes::kHeaderSizeAt;
using partial_bytes::kMajorAt;
using partial_bytes::kMinGroupBytes;
using partial_bytes::kMinorAt;
using partial_bytes::kSplitsAt;
using partial_bytes::LoadU16;
using partial_bytes::LoadU32;
using partial_bytes::LoadU64;
using partial_bytes::Malformed;
using partial_bytes::OmittedWhenZero;
using partial_bytes::SectionName;
using partial_bytes::Truncated;
using util::ReadBytes;
using util::ReadU32;
using util::ReadU64;
using util::ReadU8;

// The stream section (v1.4): bytes source, u8 flags (bit 0: final), u32 n,
// n x (bytes input, u64 offset).
absl::Status ReadStreamSection(std::string_view in, PartialFrame* f) {
  uint8_t flags;
  uint32_t n;
  if (!ReadBytes(&in, &f->source) || !ReadU8(&in, &flags) || flags > 1 ||
      !ReadU32(&in, &n) || n > in.size() / 12) {
    return Malformed("stream section");
  }
  f->mark.final = flags == 1;
  f->mark.positions.resize(n);
  for (InputPosition& p : f->mark.positions) {
    std::string_view input;
    if (!ReadBytes(&in, &input) || !ReadU64(&in, &p.offset)) {
      return Malformed("stream section");
    }
    p.input = std::string(input);
  }
  if (!in.empty()) return Malformed("stream section");
  return absl::OkStatus();
}

absl::Status ReadQuerySection(std::string_view in, PartialFrame* f) {
  if (!ReadBytes(&in, &f->query) || !ReadBytes(&in, &f->log_format) ||
      !ReadU64(&in, &f->max_line_bytes) || !in.empty()) {
    return Malformed("query section");
  }
  return absl::OkStatus();
}

absl::Status ReadCounterList(std::string_view in, bool more, PartialFrame* f) {
  const char* what = more ? "more counters section" : "counters section";
  uint32_t n;
  uint32_t expected = 0;
  uint32_t required = 0;
  for (const LineCounterField& field : kLineCounterFields) {
    if (InMoreCounters(field) != more) continue;
    ++expected;
    required += !OmittedWhenZero(field);
  }
  if (!ReadU32(&in, &n) || n < required || n > expected) {
    return Malformed(absl::StrCat(what, " (another set of line counters)"));
  }
  uint32_t read = 0;
  for (const LineCounterField& field : kLineCounterFields) {
    if (InMoreCounters(field) != more || read == n) continue;
    std::string_view name;
    if (!ReadBytes(&in, &name) || name != field.name ||
        !ReadU64(&in, &(f->counters.*field.value))) {
      return Malformed(absl::StrCat(what, " (another set of line counters)"));
    }
    ++read;
  }
  if (!in.empty()) return Malformed(what);
  return absl::OkStatus();
}

// `more` is empty in a v1.0 frame.
absl::Status ReadCountersSection(std::string_view in,
                                 std::optional<std::string_view> more,
                                 PartialFrame* f) {
  absl::Status s = ReadCounterList(in, false, f);
  if (s.ok() && more) s = ReadCounterList(*more, true, f);
  if (!s.ok()) return s;
  const LineCounters& c = f->counters;
  // Every line read lands in exactly one outcome.
  uint64_t sum = 0;
  bool overflow = false;
  for (const LineCounterField& field : kLineCounterFields) {
    if (!field.line_outcome) continue;
    overflow |= __builtin_add_overflow(sum, c.*field.value, &sum);
  }
  if (overflow || sum != c.lines_read) {
    return Malformed("line counters do not add up to lines_read");
  }
  return absl::OkStatus();
}

// The sections of a frame by kind (docs/partial-format.md); kinds a later
// minor added are skipped.
struct Sections {
  std::string_view payload[kLastPartialSection + 1];
  bool seen[kLastPartialSection + 1] = {};
};

absl::Status CutSections(std::string_view in, Sections* out) {
  while (!in.empty()) {
    uint32_t kind;
    uint64_t length;
    if (!ReadU32(&in, &kind) || !ReadU64(&in, &length) || length > in.size()) {
      return Malformed("section framing");
    }
    const std::string_view payload = in.substr(0, length);
    in.remove_prefix(length);
    // A later minor's section: skip it.
    if (kind < 1 || kind > kLastPartialSection) continue;
    if (out->seen[kind]) {
      return Malformed(absl::StrCat(
          "duplicate ", SectionName(static_cast<PartialSection>(kind)),
          " section"));
    }
    out->seen[kind] = true;
    out->payload[kind] = payload;
  }
  return absl::OkStatus();
}

// Sections 1-5 and 6 (v1.0's, and the more counters of v1.1).
absl::Status ReadRequiredSections(const Sections& s, PartialFrame* f) {
  for (uint32_t kind = 1; kind <= 5; ++kind) {
    if (!s.seen[kind]) {
      return Malformed(absl::StrCat(
          "no ", SectionName(static_cast<PartialSection>(kind)), " section"));
    }
  }
  MAPR_RETURN_IF_ERROR(ReadQuerySection(s.payload[1], f));
  MAPR_RETURN_IF_ERROR(ReadCountersSection(
      s.payload[2],
      s.seen[6] ? std::optional<std::string_view>(s.payload[6]) : std::nullopt,
      f));
  f->slots = s.payload[3];
  f->field_counts = s.payload[4];
  f->group_bytes = s.payload[5];
  return absl::OkStatus();
}

// The partition section (v1.5): u32 count, u32 index; exactly when the
// partitioned flag is set.
absl::Status ReadPartitionSection(const Sections& s, bool partitioned,
                                  PartialFrame* f) {
  if (partitioned != s.seen[13]) {
    return Malformed(partitioned ? "no partition section behind the "
                                   "partitioned flag"
                                 : "partition section without the "
                                   "partitioned flag");
  }
  if (!partitioned) return absl::OkStatus();
  std::string_view in = s.payload[13];
  Partition part;
  if (!ReadU32(&in, &part.count) || !ReadU32(&in, &part.index) || !in.empty() ||
      part.count == 0 || part.count > kMaxPartitions ||
      part.index >= part.count) {
    return Malformed("partition section");
  }
  f->partition = part;
  return absl::OkStatus();
}

// Only partition 0 of a partitioned state carries its line counters, field
// counts and values not numeric (every other writes zeros): a reducer adds
// the partitions up, so another partition's would count twice.
absl::Status CheckPartitionCounts(const PartialFrame& f) {
  if (!f.partition.has_value() || f.partition->index == 0) {
    return absl::OkStatus();
  }
  const std::string carries =
      absl::StrCat("partition ", f.partition->index, " of ", f.partition->count,
                   " carries ");
  auto refused = [&](std::string_view what, std::string_view name,
                     uint64_t value) {
    return Malformed(absl::StrCat(carries, util::ToAbsl(what), " (",
                                  util::ToAbsl(name), " ", value,
                                  "); only partition 0 does"));
  };
  for (const LineCounterField& field : kLineCounterFields) {
    if (f.counters.*field.value != 0) {
      return refused("line counters", field.name, f.counters.*field.value);
    }
  }
  // Field counts: u32 n, n x (bytes name, u64 lines).
  std::string_view in = f.field_counts;
  uint32_t n;
  if (!ReadU32(&in, &n) || n > in.size() / 12) {
    return Malformed("field counts section");
  }
  std::vector<std::string_view> names(n);
  for (std::string_view& name : names) {
    uint64_t lines;
    if (!ReadBytes(&in, &name) || !ReadU64(&in, &lines)) {
      return Malformed("field counts section");
    }
    if (lines != 0) return refused("field counts", name, lines);
  }
  if (!f.not_numeric) return absl::OkStatus();
  // Values not numeric: u32 n, n x (u64 count, bytes example).
  in = *f.not_numeric;
  uint32_t m;
  if (!ReadU32(&in, &m) || m != n) {
    return Malformed("values not numeric do not match the field counts");
  }
  for (const std::string_view name : names) {
    uint64_t count;
    std::string_view example;
    if (!ReadU64(&in, &count) || !ReadBytes(&in, &example)) {
      return Malformed("values not numeric section");
    }
    if (count != 0) return refused("values not numeric", name, count);
  }
  return absl::OkStatus();
}

// The state sections 7-9 (v1.2), behind the state sections flag; the
// quantile one opens with its settings.
absl::Status ReadStateSections(const Sections& s, bool state_sections,
                               PartialFrame* f) {
  for (uint32_t kind = 7; kind <= 9; ++kind) {
    if (s.seen[kind] && !state_sections) {
      return Malformed(
          absl::StrCat(SectionName(static_cast<PartialSection>(kind)),
                       " section without the state sections flag"));
    }
    if (s.seen[kind]) f->state_sections[kind - 7] = s.payload[kind];
  }
  if (!f->state_sections[0]) return absl::OkStatus();
  std::string_view& in7 = *f->state_sections[0];
  plan::StateOptions o;
  uint64_t accuracy_bits;
  if (!ReadU32(&in7, &o.percentile_exact_values) ||
      !ReadU64(&in7, &accuracy_bits) ||
      o.percentile_exact_values > (uint32_t{1} << 20)) {
    return Malformed("quantile states section (settings)");
  }
  o.percentile_accuracy = std::bit_cast<double>(accuracy_bits);
  if (!(o.percentile_accuracy >= 0.0001 && o.percentile_accuracy <= 0.2)) {
    return Malformed("quantile states section (settings)");
  }
  f->state_options = o;
  return absl::OkStatus();
}

// Every section after the required ones: not-numeric values (v1.3), run
// (v1.3), stream (v1.4), partition (v1.5) and the state sections (v1.2).
absl::Status ReadOptionalSections(const Sections& s, uint64_t flags,
                                  PartialFrame* f) {
  if (s.seen[10]) f->not_numeric = s.payload[10];
  if (s.seen[11]) {
    std::string_view in = s.payload[11];
    if (!ReadBytes(&in, &f->run_id) || f->run_id.empty() || !in.empty()) {
      return Malformed("run section");
    }
  }
  if (s.seen[12]) MAPR_RETURN_IF_ERROR(ReadStreamSection(s.payload[12], f));
  MAPR_RETURN_IF_ERROR(
      ReadPartitionSection(s, (flags & kPartialFlagPartitioned) != 0, f));
  return ReadStateSections(s, (flags & kPartialFlagStateSections) != 0, f);
}

}  // namespace

absl::StatusOr<uint64_t> PartialFrameSize(std::string_view b) {
  if (b.empty()) {
    return absl::InvalidArgumentError("not a mapr partial: the input is empty");
  }
  if (b.size() < kPartialMagic.size()) {
    if (kPartialMagic.substr(0, b.size()) == b) {
      return Truncated(b.size(), kPartialHeaderBytes);
    }
  }
  if (b.substr(0, kPartialMagic.size()) != kPartialMagic) {
    return absl::InvalidArgumentError(
        "not a mapr partial: the input does not start with MAPRPART");
  }
  if (b.size() < kHeaderSizeAt) return Truncated(b.size(), kPartialHeaderBytes);
  const uint16_t major = LoadU16(b, kMajorAt);
  const uint16_t minor = LoadU16(b, kMinorAt);
  if (major != kPartialMajor) {
    const std::string versions =
        absl::StrFormat("partial format version %d.%d; this mapr reads %d.%d",
                        major, minor, kPartialMajor, kPartialMinor);
    if (major > kPartialMajor) {
      return absl::FailedPreconditionError(
          absl::StrCat(versions, " (the partial was written by a newer mapr)"));
    }
    return absl::InvalidArgumentError(absl::StrCat("unknown ", versions));
  }
  if (b.size() < kPartialHeaderBytes) {
    return Truncated(b.size(), kPartialHeaderBytes);
  }
  const uint32_t header_size = LoadU32(b, kHeaderSizeAt);
  if (header_size < kPartialHeaderBytes) {
    return Malformed(
        absl::StrCat("header size ", header_size, " < ", kPartialHeaderBytes));
  }
  const uint64_t flags = LoadU64(b, kFlagsAt);
  if ((flags & ~(kPartialFlagStateSections | kPartialFlagPartitioned)) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "partial has unknown flags 0x%x (this mapr reads version %d.%d)", flags,
        kPartialMajor, kPartialMinor));
  }
  const uint64_t size = LoadU64(b, kFrameSizeAt);
  if (size < uint64_t{header_size} + kPartialTrailerBytes) {
    return Malformed(absl::StrCat("frame size ", size,
                                  " is smaller than its header and trailer"));
  }
  return size;
}

absl::StatusOr<PartialFrame> DecodePartialFrame(std::string_view b) {
  absl::StatusOr<uint64_t> size_or = PartialFrameSize(b);
  if (!size_or.ok()) return size_or.status();
  const uint64_t size = *size_or;
  if (b.size() < size) return Truncated(b.size(), size);
  if (b.size() > size) {
    return absl::InvalidArgumentError(
        absl::StrCat("the input holds ", b.size() - size,
                     " bytes after the partial's frame (several frames: "
                     "SplitPartialFrames)"));
  }
  PartialFrame f;
  f.major = LoadU16(b, kMajorAt);
  f.minor = LoadU16(b, kMinorAt);
  f.frame_bytes = size;
  const uint32_t header_size = LoadU32(b, kHeaderSizeAt);
  f.fingerprint = {LoadU64(b, kFingerprintAt), LoadU64(b, kFingerprintAt + 8)};
  f.splits = {LoadU64(b, kSplitsAt), LoadU64(b, kSplitsAt + 8)};
  f.groups = LoadU64(b, kGroupsAt);
  // Before anything is allocated for them: can the body hold the groups?
  const uint64_t body = size - header_size - kPartialTrailerBytes;
  if (f.groups > body / kMinGroupBytes) {
    return Malformed(absl::StrCat("group count ", f.groups,
                                  " does not fit in a frame of ", size,
                                  " bytes"));
  }
  const std::string_view covered = b.substr(0, size - kPartialTrailerBytes);
  if (Checksum(covered) != LoadU64(b, size - kPartialTrailerBytes)) {
    return absl::DataLossError(
        "partial checksum mismatch: the frame is corrupt");
  }
  if (f.splits.begin >= f.splits.end) {
    return Malformed(absl::StrCat("empty coverage [", f.splits.begin, ", ",
                                  f.splits.end, ")"));
  }

  std::string_view in = covered.substr(header_size);
  Sections sections;
  MAPR_RETURN_IF_ERROR(CutSections(in, &sections));
  MAPR_RETURN_IF_ERROR(ReadRequiredSections(sections, &f));
  MAPR_RETURN_IF_ERROR(
      ReadOptionalSections(sections, LoadU64(b, kFlagsAt), &f));
  MAPR_RETURN_IF_ERROR(CheckPartitionCounts(f));
  return f;
}

}  // namespace mapr::runtime
