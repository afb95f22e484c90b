// mapr/line_splitter.h: turning a stream of bytes into lines.
//
// A LineSplitter takes arbitrary chunks of a byte stream (as read from a file
// or socket) and returns the complete lines in each, carrying an unfinished
// last line over to the next chunk. '\n' ends a line; a '\r' before it is
// left for the engine, which trims it. A line longer than `max_line_bytes` is
// never split into pieces: its bytes are dropped as they arrive and it is
// counted in too_long_lines().
//
// A UTF-8 byte-order mark (EF BB BF) at the very start of a stream is not
// part of its first line: the splitter drops it, so a CSV header or a JSON
// object written by a Windows tool reads as it should. A stream starts at
// construction and after Finish() or DiscardPartialLine(); ContinueStream()
// says that the next bytes do not start one (a byte range of a file that
// begins past offset 0), and keeps a mark there as it is.
//
// (Aggregator::PushBytes splits its chunks itself; a LineSplitter serves
// hosts that hand lines on, such as TurboAggregate producers.)
//
// Example:
//   mapr::LineSplitter splitter;
//   char buf[64 * 1024];
//   ssize_t n;
//   while ((n = read(fd, buf, sizeof(buf))) > 0) {
//     absl::Status s = producer.PushLines(splitter.Split({buf, size_t(n)}));
//     if (!s.ok()) return s;
//   }
//   if (auto last = splitter.Finish()) return producer.PushLines({&*last, 1});
//
// Lines longer than the limit never reach the caller, so a caller that
// feeds an Aggregator with PushLines() counts them itself, as PushBytes()
// does: each too-long line is one more in LineCounters::lines_read and in
// LineCounters::lines_too_long.
//
// Costs: lines are views into the chunk (no copy), except a line that began
// in an earlier chunk: it is completed in the splitter's carry buffer, which
// grows geometrically, so a line spread over many chunks costs time linear
// in its length. At most about max_line_bytes + one chunk is held.
//
// Padding: a line completed in the carry buffer is followed there by
// kLinePadding (mapr/log_format.h) readable bytes. So when every chunk has
// that many readable bytes after its end, every returned line has too, and
// the lines may go to a parser that reads past a line's end
// (FieldBatch::line_padding()).
//
// Lifetimes: the views returned by Split() and Finish() are valid until the
// next call on the splitter, and may point into the chunk or into the
// splitter's own carry buffer. Thread-compatible.
#ifndef MAPR_MAPR_LINE_SPLITTER_H_
#define MAPR_MAPR_LINE_SPLITTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/export.h"

namespace mapr {

class MAPR_EXPORT LineSplitter {
 public:
  // Lines longer than `max_line_bytes` (not counting "\n" or "\r\n") are
  // dropped and counted. Default: 1 MiB, like AggregatorOptions.
  explicit LineSplitter(size_t max_line_bytes = 1024 * 1024)
      : max_line_bytes_(max_line_bytes) {}

  // Returns the lines completed by `chunk` (without their '\n').
  std::span<const std::string_view> Split(std::string_view chunk);

  // Returns the unfinished last line, if there is one (a stream whose last
  // line has no final newline), and resets the splitter.
  std::optional<std::string_view> Finish();

  // Drops the unfinished last line, if any, without returning or counting
  // it, and resets the splitter (the stream broke off, e.g. on a read error:
  // where that line would have ended is unknown). too_long_lines() is kept.
  void DiscardPartialLine();

  // The limit given to the constructor.
  size_t max_line_bytes() const { return max_line_bytes_; }
  // Lines dropped for exceeding max_line_bytes so far (over every stream
  // since construction: Finish() and DiscardPartialLine() keep the count).
  uint64_t too_long_lines() const { return too_long_; }
  // True while bytes of an unfinished line are held.
  bool has_partial_line() const { return !carry_.empty() || skipping_; }
  // The next bytes continue a stream rather than start one: its first line
  // keeps a leading byte-order mark. Until Finish() or DiscardPartialLine().
  void ContinueStream() { at_stream_start_ = false; }

 private:
  // Appends the unfinished tail, or starts skipping if it is too long.
  void Carry(std::string_view tail);

  size_t max_line_bytes_;
  std::string carry_;
  std::string last_;  // A completed carried line (Split, Finish).
  bool skipping_ = false;
  // No line of the current stream has ended yet (the byte-order mark check).
  bool at_stream_start_ = true;
  uint64_t too_long_ = 0;
  std::vector<std::string_view> lines_;
  std::vector<uint32_t> newlines_;  // Scratch: newline offsets in a piece.
};

}  // namespace mapr

#endif  // MAPR_MAPR_LINE_SPLITTER_H_
