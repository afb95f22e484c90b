// bindings/cli/input.h: reading log input for the `mapr` command.
//
// A ByteStream yields the decoded bytes of one input: a plain file (whole or
// a byte range of it), standard input, or a gzip or zstd stream (recognized
// by its magic bytes, whatever the file is called). ReadLines() splits a
// stream into lines with a mapr::LineSplitter (the library's splitter, so
// lines and too-long lines are cut exactly as Aggregator::PushBytes cuts
// them) and hands them to a sink in batches.
//
// Example:
//   absl::StatusOr<std::unique_ptr<ByteStream>> in =
//       OpenInput({.path = "app.log.gz"}, /*raw_bytes=*/nullptr);
//   if (!in.ok()) return in.status();
//   LineSplitter splitter(/*max_line_bytes=*/1 << 20);
//   absl::Status s = ReadLines(**in, splitter,
//       [&](std::span<const std::string_view> lines) {
//         return aggregator.PushLines(lines);
//       });
//   LineCounters stats = aggregator.stats();
//   CountTooLongLines(splitter.too_long_lines(), stats);
//
// Thread safety: thread-compatible; use one stream per thread.
#ifndef MAPR_BINDINGS_CLI_INPUT_H_
#define MAPR_BINDINGS_CLI_INPUT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/line_splitter.h"
#include "mapr/result.h"

namespace mapr::cli {

enum class Compression : uint8_t { kNone, kGzip, kZstd };

// The compression that `head` (the first bytes of an input; at least four
// are needed to recognize anything) starts with.
Compression DetectCompression(std::string_view head);

// A source of decoded bytes.
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Reads up to `n` (> 0) decoded bytes into `buf` and returns how many were
  // read; 0 means the end of the input. Errors carry the reason only (the
  // caller adds the input's name): "Input/output error",
  // "unexpected end of gzip data", ...
  virtual absl::StatusOr<size_t> Read(char* buf, size_t n) = 0;
};

// What to open.
struct InputSpec {
  // The file to read; ignored when `is_stdin`.
  std::string path;
  // Read standard input (file descriptor 0, not closed afterwards).
  bool is_stdin = false;
  // Read only the plain bytes [begin, end) of `path` (no decompression).
  // Used for chunks of a large uncompressed file.
  bool ranged = false;
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Opens `spec`. Unless `spec.ranged`, the first bytes decide whether the
// input is decompressed. `raw_bytes`, if not null, is increased by every
// byte read from the file descriptor (compressed bytes for compressed
// input), for progress reports. Errors: the OS reason ("No such file or
// directory", "Is a directory").
absl::StatusOr<std::unique_ptr<ByteStream>> OpenInput(
    const InputSpec& spec, std::atomic<uint64_t>* raw_bytes);

// Receives a batch of lines; the views are valid only during the call. A
// non-OK status stops ReadLines, which returns it.
using LineSink =
    std::function<absl::Status(std::span<const std::string_view> lines)>;

// Reads `stream` to its end, kReadBytes at a time, cuts it into lines with
// `splitter` and passes every line to `sink`, in order, in batches (the lines
// of one read). A line ends at '\n' (a '\r' before it is left for the
// engine to trim); a final line without '\n' is a line too. A line longer
// than splitter.max_line_bytes() is never split nor buffered whole: it is
// dropped and counted in splitter.too_long_lines(), which the caller adds to
// its counters with CountTooLongLines(). At most about max_line_bytes +
// 2 * kReadBytes is buffered. On a read error the unfinished last line is
// dropped (the lines before it were passed). `lines`, if not null, is
// increased by the number of lines read, too-long ones included (progress).
// `splitter` is left ready for the next stream.
absl::Status ReadLines(ByteStream& stream, LineSplitter& splitter,
                       const LineSink& sink,
                       std::atomic<uint64_t>* lines = nullptr);

// Adds `n` lines that a LineSplitter dropped as too long to `counters`, as
// Aggregator::PushBytes counts them: each is a line read and a line too long.
void CountTooLongLines(uint64_t n, LineCounters& counters);

// The size of one read from a file descriptor: small enough that the bytes
// read are still in the L2 cache when their lines are parsed (1 MiB reads
// cost about a quarter more CPU), large enough to keep syscalls rare.
inline constexpr size_t kReadBytes = size_t{256} << 10;

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_INPUT_H_
