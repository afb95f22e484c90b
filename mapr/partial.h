// mapr/partial.h: an aggregator's state as bytes, for MapReduce across
// processes and machines.
//
// A partial is one self-delimiting, versioned little-endian frame
// (docs/partial-format.md): magic `MAPRPART`, version, flags, frame size, a
// fingerprint of the query, the input splits it covers [begin, end), the
// group count, then the canonical query text, the line counters, the slot
// layout and every group's aggregate states, sorted by key bytes, and an
// XXH3-64 checksum. Frames concatenate. A map step writes one with
// Aggregator::SerializePartial(); a combine or reduce step reads it with
// Aggregator::FromPartial() and adds more with Aggregator::MergeSerialized().
// The bytes of one pass and of any tree of adjacent merges over the same
// splits are identical.
//
// Example (a reducer over the partials of splits 0..n-1, in split order):
//   absl::StatusOr<mapr::Aggregator> agg =
//       mapr::Aggregator::FromPartial(parts[0]);
//   if (!agg.ok()) return agg.status();
//   for (size_t i = 1; i < parts.size(); ++i) {
//     if (absl::Status s = agg->MergeSerialized(parts[i]); !s.ok()) return s;
//   }
//   absl::Status s = agg->FinishInput();
//   absl::StatusOr<mapr::ResultTable> result = agg->TakeResult();
//
// Error codes, here and in Aggregator's partial methods:
//   InvalidArgument     not a partial (empty, text, no magic), unknown flag
//                       bits, another query's partial, overlapping splits;
//   DataLoss            truncated, checksum mismatch, malformed content
//                       (also a partition but the first that carries line
//                       counters), missing splits between two partials,
//                       counts or exact sums that overflow when merged
//                       (docs/partial-format.md, "What a reader refuses");
//   FailedPrecondition  a newer major version (the message names both
//                       versions), a call in the wrong phase;
//   ResourceExhausted   more groups than AggregatorOptions::max_groups.
//
// Thread safety: the functions here are thread-safe (they read only their
// argument).
#ifndef MAPR_MAPR_PARTIAL_H_
#define MAPR_MAPR_PARTIAL_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/export.h"
#include "mapr/options.h"
#include "mapr/result.h"

namespace mapr {

// The partial format this mapr writes. It reads every minor version of this
// major (skipping sections a later minor added) and refuses other majors.
// A frame is written with the oldest minor that has everything it holds
// (docs/partial-format.md), so most frames are still v1.1.
inline constexpr uint16_t kPartialMajorVersion = 1;
inline constexpr uint16_t kPartialMinorVersion = 7;

// The header facts of one frame.
struct PartialInfo {
  uint16_t major = 0, minor = 0;
  // The canonical query text stored in the partial (Query::ToString()).
  std::string query;
  // The query's log format (canonical name).
  std::string log_format;
  // XXH3-128 (low, high) of the query, log format, slot layout and the
  // options that change results (max_line_bytes); two partials merge only
  // if theirs are equal.
  std::array<uint64_t, 2> fingerprint{};
  // The input splits the partial covers, [begin, end).
  SplitRange splits;
  // AggregatorOptions::run_id of its aggregator; empty without one.
  std::string run_id;
  // AggregatorOptions::source: the host (or daemon instance) the partial
  // comes from; empty without one. Splits are numbered per source.
  std::string source;
  // The stream mark of the last delta it holds (TakeDeltaPartial).
  StreamMark mark;
  // A partition of a hash-partitioned partial (SerializePartitions):
  // index `partition` of `partitions`; partitions == 0 when the partial is
  // not partitioned.
  uint32_t partitions = 0;
  uint32_t partition = 0;
  // The line counters of those splits.
  LineCounters counters;
  // Groups held (every group: partials are never ordered or limited).
  uint64_t groups = 0;
  // The size of this frame in bytes.
  uint64_t frame_bytes = 0;
};

// Validates one frame -- magic, version, flags, sizes, checksum, sections --
// and returns its header facts. `frame` must hold exactly one frame.
// Returns InvalidArgument if it is not a partial (empty input, text) or has
// unknown flags or bytes after the frame; DataLoss if it is truncated or
// corrupt; FailedPrecondition if its major version is newer.
MAPR_EXPORT absl::StatusOr<PartialInfo> InspectPartial(std::string_view frame);

// The bytes of a frame's fixed header: what PartialFrameSize() needs.
inline constexpr size_t kPartialFrameHeaderBytes = 72;

// The size the frame at the front of `bytes` claims, after checking its
// magic, version, header size and flags (not its checksum: InspectPartial()
// checks the whole frame). Only the first kPartialFrameHeaderBytes bytes are
// read, so a reader can take the frames of a large file one at a time.
// Errors as InspectPartial; DataLoss if `bytes` is shorter than the header.
MAPR_EXPORT absl::StatusOr<uint64_t> PartialFrameSize(std::string_view bytes);

// Cuts a concatenation of frames (a file holding several) into frames, using
// each frame's size field; the views point into `bytes`. Checks each frame's
// header and size (InspectPartial checks the rest). Errors as
// InspectPartial; empty input is InvalidArgument.
MAPR_EXPORT absl::StatusOr<std::vector<std::string_view>> SplitPartialFrames(
    std::string_view bytes);

// The largest frame a PartialFrameReader takes by default: 1 GiB.
inline constexpr uint64_t kDefaultMaxFrameBytes = uint64_t{1} << 30;

// Cuts a stream of concatenated frames (a pipe, a socket, a decompressor)
// into frames as its bytes arrive. Append() what a read returned, then take
// the whole frames with Next(). A frame's magic, version and claimed size
// are checked as soon as its header is in, so a stream that is not partials
// (text, /dev/zero) is refused after its first bytes and a frame claiming
// more than `max_frame_bytes` after its header, by name. Nothing is
// allocated for a size a frame only claims: the reader holds the bytes
// received of the frame in progress, at most `max_frame_bytes` of them.
// Only the header is checked here: InspectPartial() checks a whole frame.
//
// Example (a blocking reader; a poll loop calls the same three):
//   mapr::PartialFrameReader reader;
//   while (size_t n = read(fd, buf, sizeof(buf))) {
//     reader.Append(std::string_view(buf, n));
//     std::string_view frame;
//     while (reader.Next(&frame)) Use(frame);
//     if (!reader.status().ok()) return reader.status();
//   }
//   return reader.Finish();
//
// Errors (status(), Finish()) are those of PartialFrameSize() and
// ResourceExhausted for a frame over the limit; past the first frame they
// name the frame and where it starts ("frame 3 (at byte 1200): ...").
// Finish() is InvalidArgument for a stream without a byte, DataLoss for one
// that ends inside a frame. Thread safety: an instance is used by one
// thread at a time.
class MAPR_EXPORT PartialFrameReader {
 public:
  explicit PartialFrameReader(uint64_t max_frame_bytes = kDefaultMaxFrameBytes);

  // Takes the next bytes of the stream. Invalidates the frame Next() gave.
  // Ignored once the stream failed.
  void Append(std::string_view bytes);

  // True and *frame set to the next whole frame (valid until the next call
  // of Append() or Next()) when one is in; false when more bytes are needed
  // or the stream failed (status()).
  bool Next(std::string_view* frame);

  // OK until the stream shows it is not a stream of frames (or of frames
  // within the limit); then the reason, for good.
  const absl::Status& status() const { return status_; }

  // To call when the stream ends: status() if it failed, else OK if it
  // ended between frames after at least one, else why not.
  absl::Status Finish() const;

  // The frames Next() gave, the bytes of the stream before the frame in
  // progress, and the bytes held of it (received, not yet given).
  uint64_t frames() const { return frames_; }
  uint64_t offset() const { return offset_; }
  std::string_view pending() const {
    return std::string_view(buffer_).substr(start_);
  }

 private:
  absl::Status Framed(const absl::Status& problem) const;

  uint64_t max_frame_bytes_;
  std::string buffer_;
  size_t start_ = 0;   // The frame in progress starts here in buffer_.
  uint64_t size_ = 0;  // Its size, once its header is in (else 0).
  uint64_t frames_ = 0;
  uint64_t offset_ = 0;
  bool seen_bytes_ = false;
  absl::Status status_;
};

}  // namespace mapr

#endif  // MAPR_MAPR_PARTIAL_H_
