#include "mapr/partial.h"

#include <algorithm>
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

PartialFrameReader::PartialFrameReader(uint64_t max_frame_bytes)
    : max_frame_bytes_(max_frame_bytes) {}

absl::Status PartialFrameReader::Framed(const absl::Status& problem) const {
  // After the first frame, say which one and where it starts.
  if (frames_ == 0) return problem;
  return absl::Status(problem.code(),
                      absl::StrCat("frame ", frames_ + 1, " (at byte ", offset_,
                                   "): ", problem.message()));
}

void PartialFrameReader::Append(std::string_view bytes) {
  if (!status_.ok() || bytes.empty()) return;
  seen_bytes_ = true;
  // The frame Next() gave is dropped now.
  if (start_ > 0) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  const size_t needed = buffer_.size() + bytes.size();
  if (needed > buffer_.capacity()) {
    // Doubling, but never past the frame in progress once its size is
    // known: a 600 MiB frame takes 600 MiB, not 1 GiB.
    size_t target = std::max(needed, buffer_.capacity() * 2);
    if (size_ > 0 && size_ >= needed) {
      target = std::min<size_t>(target, static_cast<size_t>(size_));
    }
    buffer_.reserve(target);
  }
  buffer_.append(bytes.data(), bytes.size());
}

bool PartialFrameReader::Next(std::string_view* frame) {
  if (!status_.ok()) return false;
  const std::string_view rest = pending();
  if (rest.empty()) return false;
  if (size_ == 0) {
    absl::StatusOr<uint64_t> size = runtime::PartialFrameSize(rest);
    if (!size.ok()) {
      // Too short to tell is not a problem yet: more bytes may come.
      if (size.status().code() == absl::StatusCode::kDataLoss &&
          rest.size() < kPartialFrameHeaderBytes) {
        return false;
      }
      status_ = Framed(size.status());
      return false;
    }
    if (*size > max_frame_bytes_) {
      status_ = Framed(absl::ResourceExhaustedError(
          absl::StrCat("a frame of ", *size, " bytes is over the limit of ",
                       max_frame_bytes_, " bytes (max_frame_bytes)")));
      return false;
    }
    size_ = *size;
  }
  if (rest.size() < size_) return false;
  *frame = rest.substr(0, static_cast<size_t>(size_));
  start_ += static_cast<size_t>(size_);
  offset_ += size_;
  size_ = 0;
  ++frames_;
  return true;
}

absl::Status PartialFrameReader::Finish() const {
  if (!status_.ok()) return status_;
  const std::string_view rest = pending();
  if (!rest.empty()) {
    absl::StatusOr<uint64_t> size = runtime::PartialFrameSize(rest);
    if (!size.ok()) return Framed(size.status());
    return Framed(absl::DataLossError(
        absl::StrCat("truncated partial: ", rest.size(),
                     " bytes of a frame that needs ", *size)));
  }
  if (!seen_bytes_) {
    return absl::InvalidArgumentError("not a mapr partial: the input is empty");
  }
  return absl::OkStatus();
}

}  // namespace mapr
