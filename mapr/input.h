// mapr/input.h: reading log input from files and standard input.
//
// The one input layer of every entry point: the `mapr` command, the C API
// (mapr_aggregator_push_file), the Python module (push_file, run_file) and
// C++ hosts read files through it, so a file gives the same lines wherever
// it is read.
//
//   * OpenInput() opens a file (whole, or a byte range of a plain file) or
//     standard input, and returns a ByteStream of its decoded bytes. gzip,
//     zstd, xz and bzip2 input is decompressed, recognized by its first
//     bytes (its magic), whatever the file is called; concatenated streams
//     (gzip members, zstd frames, xz streams, bzip2 streams, as `cat a.gz
//     b.gz` or pbzip2 make them) are read one after the other. A truncated
//     or corrupt stream is an error (DataLoss), never silently short. gzip
//     is inflated by ISA-L, with zlib for what ISA-L does not read (the
//     errors are the same either way). With InputSpec::decompress_on_thread
//     the decoder runs on a thread of its own, pipelined with the reader.
//   * Compressed formats it cannot read are refused by their magic bytes,
//     never counted as lines of text: lz4 frames, lzip, Unix compress (.Z),
//     7z and zip. The error is Unimplemented ("lz4-compressed input is not
//     supported; decompress it first (lz4 -dc app.log.lz4)"): the input is
//     valid, the library lacks the decoder. (Brotli has no magic bytes and
//     is read as plain bytes.)
//   * ReadLines() cuts a stream into lines with a mapr::LineSplitter, so
//     lines and too-long lines are cut exactly as Aggregator::PushBytes cuts
//     them, and hands them to a sink in batches. It also counts the lines
//     that contain a NUL byte (InputCounters::lines_with_nul), a sign of
//     binary input.
//   * PushFile() is all of it in one call, for one Aggregator.
//
// Example:
//   absl::Status s = mapr::PushFile(aggregator, "app.log.xz");
//   if (!s.ok()) std::cerr << s.message() << "\n";  // names the file
//
// Example (the pieces, as the `mapr` command uses them):
//   mapr::InputCounters counters;
//   auto in = mapr::OpenInput({.path = "app.log.xz"}, &counters);
//   if (!in.ok()) return in.status();
//   mapr::LineSplitter splitter(/*max_line_bytes=*/1 << 20);
//   absl::Status s = mapr::ReadLines(**in, splitter,
//       [&](std::span<const std::string_view> lines) {
//         return aggregator.PushLines(lines);
//       }, &counters);
//   mapr::LineCounters stats = aggregator.stats();
//   mapr::CountTooLongLines(splitter.too_long_lines(), stats);
//
// Errors. OpenInput() and ByteStream::Read() return the reason only ("No
// such file or directory", "unexpected end of xz data"): the caller names
// the input, as the `mapr` command prints "mapr: app.log.xz: unexpected end
// of xz data". PushFile() returns "<path>: <reason>". Codes: the OS error's
// (absl::ErrnoToStatusCode: NotFound, PermissionDenied, FailedPrecondition
// for a directory, ...), DataLoss for truncated or corrupt compressed data,
// Unimplemented for a refused format, ResourceExhausted when a decoder
// cannot get memory.
//
// Thread safety: a ByteStream is thread-compatible (one thread at a time);
// use one stream, and one LineSplitter, per thread. A stream opened with
// InputSpec::decompress_on_thread owns a worker thread; its destructor
// stops and joins it (promptly, even when the worker waits for a pipe), so
// dropping the stream at any point is safe. The InputCounters passed to
// OpenInput() are then updated from that worker too. An InputCounters may be
// shared by any number of threads (its fields are atomics), for example by
// the readers of one run and a thread that shows their progress. The free
// functions are thread-safe.
#ifndef MAPR_MAPR_INPUT_H_
#define MAPR_MAPR_INPUT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/aggregator.h"
#include "mapr/export.h"
#include "mapr/line_splitter.h"
#include "mapr/result.h"

namespace mapr {

// The format an input's first bytes announce.
enum class Compression : uint8_t {
  kNone,   // Plain bytes (anything not recognized below).
  kGzip,   // 1f 8b: decompressed with ISA-L (igzip), else zlib.
  kZstd,   // 28 b5 2f fd: decompressed with libzstd.
  kXz,     // fd 37 7a 58 5a 00: decompressed with liblzma.
  kBzip2,  // "BZh" 1-9, then a block or end-of-stream magic: with libbz2.
  // Recognized and refused (OpenInput returns Unimplemented):
  kLz4,       // 04 22 4d 18 (frame), 02 21 4c 18 (legacy).
  kLzip,      // "LZIP", then version 0 or 1.
  kCompress,  // 1f 9d: Unix compress (.Z).
  kSevenZip,  // 37 7a bc af 27 1c: a 7z archive.
  kZip,       // 50 4b 03 04: a zip archive.
};

// The most leading bytes DetectCompression() looks at (bzip2's magic is
// the longest).
inline constexpr size_t kCompressionMagicBytes = 10;

// The format that `head` announces. Pass the input's first
// kCompressionMagicBytes bytes, or all of it if it is shorter: a head too
// short for a format's magic is kNone (plain bytes).
MAPR_EXPORT Compression DetectCompression(std::string_view head);

// "none", "gzip", "zstd", "xz", "bzip2", "lz4", "lzip", "compress", "7z",
// "zip".
MAPR_EXPORT std::string_view CompressionName(Compression compression);

// True for kNone and the formats OpenInput() decompresses.
MAPR_EXPORT bool CanRead(Compression compression);

// A source of decoded bytes, as OpenInput() returns it.
class MAPR_EXPORT ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Reads up to `n` (> 0) decoded bytes into `buf` and returns how many were
  // read; 0 means the end of the input. Errors carry the reason only (see
  // "Errors" above); after an error the stream is done.
  virtual absl::StatusOr<size_t> Read(char* buf, size_t n) = 0;
};

// What OpenInput() opens.
struct InputSpec {
  // The file to read; ignored when `is_stdin`. "-" is a file named "-".
  std::string path;
  // Read standard input (file descriptor 0, which is not closed afterwards).
  bool is_stdin = false;
  // Read only the plain bytes [begin, end) of `path`, with no detection and
  // no decompression: for cutting a large uncompressed file into pieces
  // read by different threads.
  bool ranged = false;
  uint64_t begin = 0;
  uint64_t end = 0;
  // Decompress compressed input on a thread of its own, pipelined with the
  // reader (at most 4 MiB of decoded bytes ahead), so that a reader that
  // parses lines uses a second core. The stream is then no longer tied to
  // one core: a caller that runs readers on N threads sets this only while
  // it has cores to spare (the `mapr` command counts the decoder thread
  // against --threads). Off by default, as a library starts no thread
  // unasked. No effect on plain input.
  bool decompress_on_thread = false;
};

// Counters that OpenInput() and ReadLines() add to as they go, for progress
// reports and warnings. Atomics: readers on several threads may share one,
// and another thread may read it meanwhile. Each read adds once per field
// (never once per line).
struct InputCounters {
  // Bytes read from the file or standard input: compressed bytes for
  // compressed input (comparable with the file's size).
  std::atomic<uint64_t> raw_bytes{0};
  // Lines read, too-long ones included (LineCounters::lines_read, once the
  // lines are pushed and the too-long ones counted).
  std::atomic<uint64_t> lines{0};
  // Of `lines`, those that contain a NUL byte, too-long ones excluded. Text
  // logs have none: a count above zero suggests binary input. Costs one
  // memchr() over each read (nothing when ReadLines() gets no counters);
  // the lines themselves are searched only when the read holds a NUL byte.
  std::atomic<uint64_t> lines_with_nul{0};
};

// Opens `spec`. Unless `spec.ranged`, the first bytes decide whether the
// input is decompressed (and are then returned by the stream's first reads,
// so a pipe works too). `counters`, if not null, gets raw_bytes added.
// Errors (the reason only): the OS's ("No such file or directory", "Is a
// directory"); Unimplemented for a refused format, with the command that
// decompresses it; a read error of the first bytes; InvalidArgument for a
// path with a NUL byte in it.
MAPR_EXPORT absl::StatusOr<std::unique_ptr<ByteStream>> OpenInput(
    const InputSpec& spec, InputCounters* counters = nullptr);

// Receives a batch of lines; the views are valid only during the call. A
// non-OK status stops ReadLines(), which returns it.
using LineSink =
    absl::FunctionRef<absl::Status(std::span<const std::string_view> lines)>;

// Reads `stream` to its end, kReadBytes at a time, cuts it into lines with
// `splitter` and passes every line to `sink`, in order, in batches (the
// lines of one read). A line ends at '\n' (a '\r' before it is left for the
// engine to trim); a final line without '\n' is a line too. A line longer
// than splitter.max_line_bytes() is never split nor buffered whole: it is
// dropped and counted in splitter.too_long_lines(), which the caller adds to
// its counters with CountTooLongLines(). At most about max_line_bytes +
// 2 * kReadBytes is buffered, and a long line costs time linear in its
// length. On a read error the unfinished last line is dropped (the lines
// before it were passed) and the error is returned as the stream gave it.
// `counters`, if not null, gets `lines` and `lines_with_nul` added.
// `splitter` is left ready for the next stream. Every line passed to `sink`
// is followed by at least kLinePadding (mapr/log_format.h) readable bytes,
// so a sink may hand the lines to a format that reads past a line's end
// (the `mapr` command pushes them as padded lines).
MAPR_EXPORT absl::Status ReadLines(ByteStream& stream, LineSplitter& splitter,
                                   LineSink sink,
                                   InputCounters* counters = nullptr);

// Adds `n` lines that a LineSplitter dropped as too long to `counters`, as
// Aggregator::PushBytes counts them: each is a line read and a line too long.
MAPR_EXPORT void CountTooLongLines(uint64_t n, LineCounters& counters);

// Reads the file `path` (decompressed as OpenInput() does) into `aggregator`
// as the byte stream of `source`, then ends that stream: the same as
// aggregator.PushBytes() of the file's decoded bytes followed by
// aggregator.EndSource(source) (a line that PushBytes left unfinished in
// `source` is continued by the file's first bytes). `path` becomes the
// source's `$file` (Aggregator::SetSourceName). Input errors are
// "<path>: <reason>" with the codes listed above. If the file cannot be
// opened, nothing is pushed; if reading fails later, the lines before the
// error count, the unfinished last line is dropped (as ReadLines() drops
// it) and `source` is ended. Once the file is done, `source` holds neither
// its parser nor its name (a run over many files holds neither per file).
// Errors of the aggregator (FailedPrecondition after FinishInput, a sticky
// failure, ResourceExhausted from max_groups) are returned unchanged,
// before the file is opened if the aggregator cannot take lines at all. The
// file is read in kReadBytes pieces; nothing is buffered whole.
MAPR_EXPORT absl::Status PushFile(Aggregator& aggregator, std::string_view path,
                                  SourceId source = 0);

// The size of one read from a file descriptor: small enough that the bytes
// read are still in the L2 cache when their lines are parsed (1 MiB reads
// cost about a quarter more CPU), large enough to keep syscalls rare.
inline constexpr size_t kReadBytes = size_t{256} << 10;

}  // namespace mapr

#endif  // MAPR_MAPR_INPUT_H_
