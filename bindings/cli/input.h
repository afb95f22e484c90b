// bindings/cli/input.h: reading log input for the `mapr` command.
//
// A ByteStream yields the decoded bytes of one input: a plain file (whole or
// a byte range of it), standard input, or a gzip or zstd stream (recognized
// by its magic bytes, whatever the file is called). ReadLines() splits a
// stream into lines with a bounded buffer and hands them to a sink in
// batches.
//
// Example:
//   absl::StatusOr<std::unique_ptr<ByteStream>> in =
//       OpenInput({.path = "app.log.gz"}, /*raw_bytes=*/nullptr);
//   if (!in.ok()) return in.status();
//   absl::Status s = ReadLines(**in, /*max_line_bytes=*/1 << 20,
//       [&](std::span<const std::string_view> lines) {
//         return aggregator.PushLines(lines);
//       });
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

// Reads `stream` to its end and passes every line to `sink`, in order, in
// batches. A line ends at '\n'; a '\r' before it is dropped; a final line
// without '\n' is a line too. At most about max_line_bytes + 1 MiB is
// buffered: a line longer than `max_line_bytes` is never split, it is passed
// as one view of max_line_bytes + 2 bytes (its beginning) so that the engine
// counts it as too long. `lines`, if not null, is increased by the number
// of lines passed.
absl::Status ReadLines(ByteStream& stream, size_t max_line_bytes,
                       const LineSink& sink,
                       std::atomic<uint64_t>* lines = nullptr);

// The size of one read from a file descriptor: small enough that the bytes
// read are still in the L2 cache when their lines are parsed (1 MiB reads
// cost about a quarter more CPU), large enough to keep syscalls rare.
inline constexpr size_t kReadBytes = size_t{256} << 10;

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_INPUT_H_
