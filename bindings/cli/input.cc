#include "bindings/cli/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "util/errno_text.h"

namespace mapr::cli {
namespace {

// Compressed bytes read from the descriptor per refill.
constexpr size_t kCompressedReadBytes = size_t{256} << 10;

absl::Status ErrnoError(int error_number) {
  return absl::Status(absl::ErrnoToStatusCode(error_number),
                      util::ErrnoText(error_number));
}

// Reads a file descriptor, whole or a byte range of it, after returning the
// bytes given to SetHead() (the magic-byte probe).
class FdStream final : public ByteStream {
 public:
  FdStream(int fd, bool owned, std::atomic<uint64_t>* raw_bytes)
      : fd_(fd), owned_(owned), raw_bytes_(raw_bytes) {}
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
  void SetHead(std::string head) { head_ = std::move(head); }

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (head_pos_ < head_.size()) {
      const size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(buf, head_.data() + head_pos_, k);
      head_pos_ += k;
      return k;
    }
    if (ranged_) {
      if (offset_ >= end_) return 0;
      n = static_cast<size_t>(std::min<uint64_t>(n, end_ - offset_));
    }
    ssize_t r;
    do {
      r = ranged_ ? pread(fd_, buf, n, static_cast<off_t>(offset_))
                  : read(fd_, buf, n);
    } while (r < 0 && errno == EINTR);
    if (r < 0) return ErrnoError(errno);
    if (ranged_) offset_ += static_cast<uint64_t>(r);
    if (raw_bytes_ != nullptr) {
      raw_bytes_->fetch_add(static_cast<uint64_t>(r),
                            std::memory_order_relaxed);
    }
    return static_cast<size_t>(r);
  }

 private:
  int fd_;
  bool owned_;
  std::atomic<uint64_t>* raw_bytes_;
  bool ranged_ = false;
  uint64_t offset_ = 0;
  uint64_t end_ = 0;
  std::string head_;
  size_t head_pos_ = 0;
};

// Decompresses gzip (one or more concatenated members, as gzip(1) writes
// them) with zlib.
class GzipStream final : public ByteStream {
 public:
  explicit GzipStream(std::unique_ptr<ByteStream> in)
      : in_(std::move(in)), buf_(kCompressedReadBytes) {}
  ~GzipStream() override {
    if (initialized_) inflateEnd(&zs_);
  }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  absl::StatusOr<size_t> Read(char* out, size_t n) override {
    if (!initialized_) {
      // 15 + 32: the largest window, gzip or zlib header detected.
      if (inflateInit2(&zs_, 15 + 32) != Z_OK) {
        return absl::ResourceExhaustedError("cannot initialize zlib");
      }
      initialized_ = true;
    }
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    const uInt out_size = zs_.avail_out;
    for (;;) {
      if (zs_.avail_in == 0 && !eof_) {
        absl::StatusOr<size_t> r = in_->Read(buf_.data(), buf_.size());
        if (!r.ok()) return r.status();
        if (*r == 0) {
          eof_ = true;
        } else {
          zs_.next_in = reinterpret_cast<Bytef*>(buf_.data());
          zs_.avail_in = static_cast<uInt>(*r);
        }
      }
      if (zs_.avail_in == 0 && eof_ && !in_member_) return 0;
      const bool had_input = zs_.avail_in > 0;
      const int ret = inflate(&zs_, Z_NO_FLUSH);
      const size_t produced = out_size - zs_.avail_out;
      switch (ret) {
        case Z_STREAM_END:
          in_member_ = false;
          ++members_;
          inflateReset(&zs_);
          if (produced > 0) return produced;
          continue;
        case Z_OK:
          in_member_ = true;
          if (produced > 0) return produced;
          continue;
        case Z_BUF_ERROR:
          // No progress: more input is needed.
          if (produced > 0) return produced;
          if (eof_ && zs_.avail_in == 0) {
            return absl::DataLossError("unexpected end of gzip data");
          }
          if (had_input) return absl::DataLossError("invalid gzip data");
          continue;
        case Z_DATA_ERROR:
          if (!in_member_ && members_ > 0) {
            return absl::DataLossError("trailing garbage after gzip data");
          }
          return absl::DataLossError(absl::StrCat(
              "invalid gzip data: ", zs_.msg != nullptr ? zs_.msg : "?"));
        case Z_MEM_ERROR:
          return absl::ResourceExhaustedError("out of memory in zlib");
        default:
          return absl::DataLossError("invalid gzip data");
      }
    }
  }

 private:
  std::unique_ptr<ByteStream> in_;
  std::vector<char> buf_;
  z_stream zs_{};
  bool initialized_ = false;
  bool eof_ = false;
  bool in_member_ = false;
  uint64_t members_ = 0;
};

// Decompresses zstd (any number of frames) with libzstd.
class ZstdStream final : public ByteStream {
 public:
  explicit ZstdStream(std::unique_ptr<ByteStream> in)
      : in_(std::move(in)), buf_(kCompressedReadBytes) {}
  ~ZstdStream() override { ZSTD_freeDStream(ds_); }
  ZstdStream(const ZstdStream&) = delete;
  ZstdStream& operator=(const ZstdStream&) = delete;

  absl::StatusOr<size_t> Read(char* out, size_t n) override {
    if (ds_ == nullptr) {
      ds_ = ZSTD_createDStream();
      if (ds_ == nullptr) {
        return absl::ResourceExhaustedError("cannot initialize zstd");
      }
      ZSTD_initDStream(ds_);
    }
    ZSTD_outBuffer ob{out, n, 0};
    for (;;) {
      if (ib_.pos == ib_.size && !eof_) {
        absl::StatusOr<size_t> r = in_->Read(buf_.data(), buf_.size());
        if (!r.ok()) return r.status();
        if (*r == 0) {
          eof_ = true;
        } else {
          ib_ = ZSTD_inBuffer{buf_.data(), *r, 0};
        }
      }
      if (ib_.pos == ib_.size && eof_) {
        // All input consumed: done if the last frame was complete and
        // flushed, else flush what the decoder still holds.
        if (last_ret_ == 0) return ob.pos;
        const size_t ret = ZSTD_decompressStream(ds_, &ob, &ib_);
        if (ZSTD_isError(ret)) return Error(ret);
        last_ret_ = ret;
        if (ob.pos > 0) return ob.pos;
        if (ret != 0) return absl::DataLossError("unexpected end of zstd data");
        return 0;
      }
      const size_t ret = ZSTD_decompressStream(ds_, &ob, &ib_);
      if (ZSTD_isError(ret)) return Error(ret);
      last_ret_ = ret;
      if (ob.pos > 0) return ob.pos;
    }
  }

 private:
  static absl::Status Error(size_t code) {
    return absl::DataLossError(
        absl::StrCat("invalid zstd data: ", ZSTD_getErrorName(code)));
  }

  std::unique_ptr<ByteStream> in_;
  std::vector<char> buf_;
  ZSTD_DStream* ds_ = nullptr;
  ZSTD_inBuffer ib_{nullptr, 0, 0};
  size_t last_ret_ = 0;
  bool eof_ = false;
};

}  // namespace

Compression DetectCompression(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    return Compression::kGzip;
  }
  if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0x28 &&
      static_cast<unsigned char>(head[1]) == 0xb5 &&
      static_cast<unsigned char>(head[2]) == 0x2f &&
      static_cast<unsigned char>(head[3]) == 0xfd) {
    return Compression::kZstd;
  }
  return Compression::kNone;
}

absl::StatusOr<std::unique_ptr<ByteStream>> OpenInput(
    const InputSpec& spec, std::atomic<uint64_t>* raw_bytes) {
  int fd = 0;
  if (!spec.is_stdin) {
    do {
      fd = open(spec.path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return ErrnoError(errno);
  }
  auto stream = std::make_unique<FdStream>(fd, !spec.is_stdin, raw_bytes);
  struct stat st;
  if (fstat(fd, &st) != 0) return ErrnoError(errno);
  if (S_ISDIR(st.st_mode)) return ErrnoError(EISDIR);
  if (spec.ranged) {
    stream->SetRange(spec.begin, spec.end);
    return std::unique_ptr<ByteStream>(std::move(stream));
  }
  // Probe the magic bytes; they are returned again by the first reads.
  std::string head(4, '\0');
  size_t have = 0;
  while (have < head.size()) {
    absl::StatusOr<size_t> r =
        stream->Read(head.data() + have, head.size() - have);
    if (!r.ok()) return r.status();
    if (*r == 0) break;
    have += *r;
  }
  head.resize(have);
  const Compression compression = DetectCompression(head);
  stream->SetHead(std::move(head));
  switch (compression) {
    case Compression::kGzip:
      return std::unique_ptr<ByteStream>(
          std::make_unique<GzipStream>(std::move(stream)));
    case Compression::kZstd:
      return std::unique_ptr<ByteStream>(
          std::make_unique<ZstdStream>(std::move(stream)));
    case Compression::kNone:
      break;
  }
  return std::unique_ptr<ByteStream>(std::move(stream));
}

absl::Status ReadLines(ByteStream& stream, LineSplitter& splitter,
                       const LineSink& sink, std::atomic<uint64_t>* lines) {
  // Lines are views into `buf` or into the splitter: no read copies bytes
  // that are already buffered.
  auto buf = std::make_unique_for_overwrite<char[]>(kReadBytes);
  for (;;) {
    absl::StatusOr<size_t> n = stream.Read(buf.get(), kReadBytes);
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
      batch = splitter.Split(std::string_view(buf.get(), *n));
    }
    if (lines != nullptr) {
      lines->fetch_add(batch.size() + (splitter.too_long_lines() - too_long),
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

}  // namespace mapr::cli
