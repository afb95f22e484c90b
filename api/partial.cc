#include "mapr/partial.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/partial_codec.h"
#include "util/status_macros.h"

namespace mapr {

absl::StatusOr<PartialInfo> InspectPartial(std::string_view frame) {
  MAPR_ASSIGN_OR_RETURN(runtime::PartialFrame f,
                        runtime::DecodePartialFrame(frame));
  PartialInfo info;
  info.major = f.major;
  info.minor = f.minor;
  info.query = std::string(f.query);
  info.log_format = std::string(f.log_format);
  info.fingerprint = f.fingerprint;
  info.splits = f.splits;
  info.run_id = std::string(f.run_id);
  info.source = std::string(f.source);
  info.mark = std::move(f.mark);
  if (f.partition.has_value()) {
    info.partitions = f.partition->count;
    info.partition = f.partition->index;
  }
  info.counters = f.counters;
  info.groups = f.groups;
  info.frame_bytes = f.frame_bytes;
  return info;
}

static_assert(kPartialFrameHeaderBytes == runtime::kPartialHeaderBytes);
static_assert(kPartialMajorVersion == runtime::kPartialMajor &&
              kPartialMinorVersion == runtime::kPartialMinor);

absl::StatusOr<uint64_t> PartialFrameSize(std::string_view bytes) {
  return runtime::PartialFrameSize(bytes);
}

absl::StatusOr<std::vector<std::string_view>> SplitPartialFrames(
    std::string_view bytes) {
  std::vector<std::string_view> frames;
  uint64_t offset = 0;
  do {
    absl::StatusOr<uint64_t> size = runtime::PartialFrameSize(bytes);
    absl::Status problem = size.status();
    if (size.ok() && bytes.size() < *size) {
      problem = absl::DataLossError(
          absl::StrCat("truncated partial: ", bytes.size(),
                       " bytes of a frame that needs ", *size));
    }
    if (!problem.ok()) {
      // After the first frame, say which one and where it starts.
      if (frames.empty()) return problem;
      return absl::Status(
          problem.code(),
          absl::StrCat("frame ", frames.size() + 1, " (at byte ", offset,
                       "): ", problem.message()));
    }
    frames.push_back(bytes.substr(0, *size));
    bytes.remove_prefix(*size);
    offset += *size;
  } while (!bytes.empty());
  return frames;
}

}  // namespace mapr
