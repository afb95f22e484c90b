#include "mapr/input.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "api/aggregator_internal.h"
#include "io/input_internal.h"
#include "mapr/log_format.h"
#include "util/errno_text.h"
#include "util/strings.h"

namespace mapr {
namespace input_internal {

absl::Status ErrnoError(int error_number) {
  return absl::Status(absl::ErrnoToStatusCode(error_number),
                      util::ErrnoText(error_number));
}

}  // namespace input_internal
namespace {

using input_internal::ErrnoError;

bool StartsWith(std::string_view s, std::initializer_list<unsigned char> b) {
  if (s.size() < b.size()) return false;
  size_t i = 0;
  for (unsigned char c : b) {
    if (static_cast<unsigned char>(s[i++]) != c) return false;
  }
  return true;
}

// Reads a file descriptor, whole or a byte range of it, after returning the
// bytes given to SetHead() (the magic-byte probe).
class FdStream final : public ByteStream {
 public:
  FdStream(int fd, bool owned, InputCounters* counters)
      : fd_(fd), owned_(owned), counters_(counters) {}
  ~FdStream() override {
    if (owned_) close(fd_);
  }
  FdStream(const FdStream&) = delete;
  FdStream& operator=(const FdStream&) = delete;

  void SetRange(uint64_t begin, uint64_t end) {
    ranged_ = true;
    offset_ = begin;
    end_ = end;
  }
  // `at_end`: the probe's read() returned 0. A terminal's Ctrl-D is such a
  // 0 once, and a later read() would wait for more: the end is remembered.
  void SetHead(std::string head, bool at_end) {
    head_ = std::move(head);
    at_end_ = at_end;
  }
  // Makes Read() wait for the descriptor with poll(), beside `fd`, and
  // fail with Cancelled once `fd` is readable: for a pipe read on a
  // DecoderThread, whose destructor must not wait for the pipe's writer.
  void SetInterruptFd(int fd) { interrupt_fd_ = fd; }

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (head_pos_ < head_.size()) {
      const size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(buf, head_.data() + head_pos_, k);
      head_pos_ += k;
      return k;
    }
    if (at_end_) return 0;
    if (ranged_) {
      if (offset_ >= end_) return 0;
      n = static_cast<size_t>(std::min<uint64_t>(n, end_ - offset_));
    }
    if (interrupt_fd_ >= 0) {
      if (absl::Status s = WaitReadable(); !s.ok()) return s;
    }
    ssize_t r;
    do {
      r = ranged_ ? pread(fd_, buf, n, static_cast<off_t>(offset_))
                  : read(fd_, buf, n);
    } while (r < 0 && errno == EINTR);
    if (r < 0) return ErrnoError(errno);
    if (ranged_) offset_ += static_cast<uint64_t>(r);
    if (counters_ != nullptr) {
      counters_->raw_bytes.fetch_add(static_cast<uint64_t>(r),
                                     std::memory_order_relaxed);
    }
    return static_cast<size_t>(r);
  }

 private:
  absl::Status WaitReadable() {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {interrupt_fd_, POLLIN, 0}};
    for (;;) {
      const int r = poll(fds, 2, -1);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return ErrnoError(errno);
      if (fds[1].revents != 0) return absl::CancelledError("cancelled");
      // Readable, at its end, or in error: read() tells which.
      return absl::OkStatus();
    }
  }

  int fd_;
  bool owned_;
  InputCounters* counters_;
  int interrupt_fd_ = -1;
  bool ranged_ = false;
  uint64_t offset_ = 0;
  uint64_t end_ = 0;
  std::string head_;
  size_t head_pos_ = 0;
  bool at_end_ = false;
};

// `path` as one shell word.
std::string ShellWord(std::string_view path) {
  const bool plain =
      !path.empty() && std::all_of(path.begin(), path.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9') ||
               (c != '\0' && std::strchr("_./+-,:@%=", c) != nullptr);
      });
  if (plain) return std::string(path);
  std::string out = "'";
  for (char c : path) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// The Unimplemented error for a recognized format mapr cannot read, with
// the command that makes it readable.
absl::Status Refusal(Compression compression, const InputSpec& spec) {
  const char* what = "";
  const char* command = "";
  const char* advice = "decompress it first";
  switch (compression) {
    case Compression::kLz4:
      what = "lz4-compressed input is";
      command = "lz4 -dc";
      break;
    case Compression::kLzip:
      what = "lzip-compressed input is";
      command = "lzip -dc";
      break;
    case Compression::kCompress:
      what = "compress'ed (.Z) input is";
      command = "gzip -dc";
      break;
    case Compression::kSevenZip:
      what = "7z archives are";
      command = "7z x -so";
      advice = "extract the log first";
      break;
    case Compression::kZip:
      what = "zip archives are";
      command = "unzip -p";
      advice = "extract the log first";
      break;
    default:
      return absl::InternalError("no refusal for a readable format");
  }
  const std::string file = spec.is_stdin ? "FILE" : ShellWord(spec.path);
  return absl::UnimplementedError(absl::StrCat(what, " not supported; ", advice,
                                               " (", command, " ", file, ")"));
}

// Adds the number of `lines` that hold a NUL byte to `n`.
void CountLinesWithNul(std::span<const std::string_view> lines, uint64_t& n) {
  for (std::string_view line : lines) {
    if (std::memchr(line.data(), '\0', line.size()) != nullptr) ++n;
  }
}

}  // namespace

Compression DetectCompression(std::string_view head) {
  if (StartsWith(head, {0x1f, 0x8b})) return Compression::kGzip;
  if (StartsWith(head, {0x28, 0xb5, 0x2f, 0xfd})) return Compression::kZstd;
  if (StartsWith(head, {0xfd, '7', 'z', 'X', 'Z', 0x00})) {
    return Compression::kXz;
  }
  // "BZh", the block size '1'-'9', then the magic of the first block (pi)
  // or, for an empty stream, of its end (sqrt(pi)): ten bytes, so that a
  // text line starting with "BZh9" stays text.
  if (head.size() >= 10 && head.starts_with("BZh") && head[3] >= '1' &&
      head[3] <= '9' &&
      (StartsWith(head.substr(4), {0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
       StartsWith(head.substr(4), {0x17, 0x72, 0x45, 0x38, 0x50, 0x90}))) {
    return Compression::kBzip2;
  }
  if (StartsWith(head, {0x04, 0x22, 0x4d, 0x18}) ||
      StartsWith(head, {0x02, 0x21, 0x4c, 0x18})) {
    return Compression::kLz4;
  }
  if (head.size() >= 5 && head.starts_with("LZIP") &&
      (head[4] == 0 || head[4] == 1)) {
    return Compression::kLzip;
  }
  if (StartsWith(head, {0x1f, 0x9d})) return Compression::kCompress;
  if (StartsWith(head, {'7', 'z', 0xbc, 0xaf, 0x27, 0x1c})) {
    return Compression::kSevenZip;
  }
  if (StartsWith(head, {'P', 'K', 0x03, 0x04})) return Compression::kZip;
  return Compression::kNone;
}

std::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
    case Compression::kXz:
      return "xz";
    case Compression::kBzip2:
      return "bzip2";
    case Compression::kLz4:
      return "lz4";
    case Compression::kLzip:
      return "lzip";
    case Compression::kCompress:
      return "compress";
    case Compression::kSevenZip:
      return "7z";
    case Compression::kZip:
      return "zip";
  }
  return "unknown";
}

bool CanRead(Compression compression) {
  switch (compression) {
    case Compression::kNone:
    case Compression::kGzip:
    case Compression::kZstd:
    case Compression::kXz:
    case Compression::kBzip2:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<std::unique_ptr<ByteStream>> OpenInput(const InputSpec& spec,
                                                      InputCounters* counters) {
  int fd = STDIN_FILENO;
  if (!spec.is_stdin) {
    if (spec.path.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError("the path contains a NUL byte");
    }
    do {
      fd = open(spec.path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return ErrnoError(errno);
  }
  auto stream = std::make_unique<FdStream>(fd, !spec.is_stdin, counters);
  struct stat st;
  if (fstat(fd, &st) != 0) return ErrnoError(errno);
  if (S_ISDIR(st.st_mode)) return ErrnoError(EISDIR);
  if (spec.ranged) {
    stream->SetRange(spec.begin, spec.end);
    return std::unique_ptr<ByteStream>(std::move(stream));
  }
  // Probe the magic bytes; the first reads return them again.
  std::string head(kCompressionMagicBytes, '\0');
  size_t have = 0;
  bool at_end = false;
  while (have < head.size()) {
    absl::StatusOr<size_t> r =
        stream->Read(head.data() + have, head.size() - have);
    if (!r.ok()) return r.status();
    if (*r == 0) {
      at_end = true;
      break;
    }
    have += *r;
  }
  head.resize(have);
  const Compression compression = DetectCompression(head);
  if (!CanRead(compression)) return Refusal(compression, spec);
  stream->SetHead(std::move(head), at_end);
  if (compression == Compression::kNone) {
    return std::unique_ptr<ByteStream>(std::move(stream));
  }
  FdStream* const raw = stream.get();
  std::unique_ptr<ByteStream> decoder =
      input_internal::NewDecoder(compression, std::move(stream));
  if (!spec.decompress_on_thread) return decoder;
  auto threaded =
      std::make_unique<input_internal::DecoderThread>(std::move(decoder));
  // A regular file's read() never waits for long; a pipe's may wait for
  // ever, so the worker also watches for the stream's destruction.
  if (!S_ISREG(st.st_mode)) {
    // Without the eventfd the destructor could wait for the pipe's writer:
    // decode on the caller's thread instead.
    if (threaded->interrupt_fd() < 0) return threaded->TakeDecoder();
    raw->SetInterruptFd(threaded->interrupt_fd());
    threaded->set_eager(true);
  }
  return std::unique_ptr<ByteStream>(std::move(threaded));
}

absl::Status ReadLines(ByteStream& stream, LineSplitter& splitter,
                       LineSink sink, InputCounters* counters) {
  // Lines are views into `buf` or into the splitter: no read copies bytes
  // that are already buffered. kLinePadding zero bytes follow each read, so
  // every line has them after its end (the splitter pads its own). A stream
  // decoded on a thread of its own lends its buffers instead, padding
  // included (no copy on the parsing thread, the slower of the two).
  auto* lender = dynamic_cast<input_internal::DecoderThread*>(&stream);
  std::unique_ptr<char[]> buf;
  if (lender == nullptr) {
    buf = std::make_unique_for_overwrite<char[]>(kReadBytes + kLinePadding);
  }
  // The unfinished line carried into the next read holds a NUL byte.
  bool carried_nul = false;
  for (;;) {
    absl::StatusOr<size_t> n;
    std::string_view chunk;
    if (lender != nullptr) {
      absl::StatusOr<std::string_view> lent = lender->Borrow(kReadBytes);
      if (lent.ok()) {
        chunk = *lent;
        n = chunk.size();
      } else {
        n = lent.status();
      }
    } else {
      n = stream.Read(buf.get(), kReadBytes);
      if (n.ok()) {
        std::memset(buf.get() + *n, 0, kLinePadding);
        chunk = std::string_view(buf.get(), *n);
      }
    }
    if (!n.ok()) {
      // Lines read so far still count; the partial line is dropped.
      splitter.DiscardPartialLine();
      return n.status();
    }
    const uint64_t too_long = splitter.too_long_lines();
    std::span<const std::string_view> batch;
    std::optional<std::string_view> last;
    if (*n == 0) {
      last = splitter.Finish();
      if (last.has_value()) batch = {&*last, 1};
    } else {
      batch = splitter.Split(chunk);
    }
    if (counters != nullptr) {
      // NUL bytes: one memchr() over the read. Only when the read (or the
      // line it completes) holds one are its lines searched.
      // memchr() must not see the null data pointer of an empty chunk.
      if (carried_nul ||
          (!chunk.empty() &&
           std::memchr(chunk.data(), '\0', chunk.size()) != nullptr)) {
        uint64_t with_nul = 0;
        CountLinesWithNul(batch, with_nul);
        counters->lines_with_nul.fetch_add(with_nul, std::memory_order_relaxed);
        // Does the part of the read after its last '\n' (carried over to
        // the next read) hold a NUL byte?
        const size_t tail = chunk.rfind('\n') + 1;  // 0 if there is none.
        const bool tail_nul =
            tail < chunk.size() && std::memchr(chunk.data() + tail, '\0',
                                               chunk.size() - tail) != nullptr;
        carried_nul = tail_nul || (carried_nul && tail == 0);
      }
      counters->lines.fetch_add(
          batch.size() + (splitter.too_long_lines() - too_long),
          std::memory_order_relaxed);
    }
    if (!batch.empty()) {
      if (absl::Status s = sink(batch); !s.ok()) {
        splitter.DiscardPartialLine();
        return s;
      }
    }
    if (*n == 0) return absl::OkStatus();
  }
}

void CountTooLongLines(uint64_t n, LineCounters& counters) {
  counters.lines_read += n;
  counters.lines_too_long += n;
}

absl::Status PushFile(Aggregator& aggregator, std::string_view path,
                      SourceId source) {
  // An aggregator that takes no lines (finished, failed) says so before the
  // file is opened: an empty push checks its phase and sticky error.
  if (absl::Status s = aggregator.PushBytes({}, source); !s.ok()) return s;
  if (absl::Status s = aggregator.SetSourceName(source, path); !s.ok()) {
    return s;
  }
  auto input_error = [&](const absl::Status& s) {
    return absl::Status(s.code(),
                        absl::StrCat(util::ToAbsl(path), ": ", s.message()));
  };
  InputSpec spec;
  spec.path = std::string(path);
  absl::StatusOr<std::unique_ptr<ByteStream>> stream = OpenInput(spec);
  if (!stream.ok()) return input_error(stream.status());
  // Padded as in ReadLines(), so the format may read past each line.
  auto buf = std::make_unique_for_overwrite<char[]>(kReadBytes + kLinePadding);
  for (;;) {
    absl::StatusOr<size_t> n = (*stream)->Read(buf.get(), kReadBytes);
    if (!n.ok()) {
      // As ReadLines(): the lines before the error count, the unfinished
      // one does not.
      AggregatorInternal::DiscardPartialLine(aggregator, source);
      // Its parser and name go too; the read error is what is reported.
      AggregatorInternal::EndInput(aggregator, source).IgnoreError();
      return input_error(n.status());
    }
    if (*n == 0) return AggregatorInternal::EndInput(aggregator, source);
    std::memset(buf.get() + *n, 0, kLinePadding);
    if (absl::Status s = AggregatorInternal::PushPaddedBytes(
            aggregator, std::string_view(buf.get(), *n), source);
        !s.ok()) {
      return s;
    }
  }
}

}  // namespace mapr
