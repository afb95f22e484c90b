// The decompressors behind mapr/input.h: gzip (zlib), zstd (libzstd), xz
// (liblzma) and bzip2 (libbz2), each a ByteStream over the compressed bytes.
//
// Each reads concatenated streams (gzip members, zstd frames, xz streams,
// bzip2 streams) to the end of its input. Errors, all DataLoss unless noted:
//   "unexpected end of <format> data"       the input ends inside a stream
//   "invalid gzip data: <zlib's reason>"    damaged gzip data
//   "invalid zstd data: <libzstd's reason>" damaged zstd data (trailing
//                                           garbage included)
//   "corrupt xz data", "corrupt bzip2 data" damaged xz, bzip2 data
//   "trailing garbage after gzip data"      bytes after a complete stream
//   "trailing garbage after bzip2 data"     that do not start another one
//   "out of memory in <library>"            ResourceExhausted
// Bytes decoded before an error are returned first; the error comes with
// the next Read() and with every Read() after it.
#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mapr/input_internal.h"

namespace mapr::input_internal {
namespace {

// Compressed bytes read per refill.
constexpr size_t kCompressedReadBytes = size_t{256} << 10;
// The most output asked of a library per call: its counters are 32 bits.
constexpr size_t kMaxDecodeBytes = size_t{1} << 30;

// What every decoder shares: the compressed input, read a buffer at a time,
// and the contract of Read() (bytes before an error first, then the error
// for good).
class Decoder : public ByteStream {
 public:
  absl::StatusOr<size_t> Read(char* out, size_t n) final {
    if (!error_.ok()) return error_;
    if (ended_ || n == 0) return 0;
    size_t produced = 0;
    absl::Status s = Decode(out, std::min(n, kMaxDecodeBytes), produced);
    if (!s.ok()) {
      error_ = std::move(s);
      if (produced > 0) return produced;
      return error_;
    }
    ended_ = produced == 0;
    return produced;
  }

 protected:
  explicit Decoder(std::unique_ptr<ByteStream> in)
      : in_(std::move(in)), buf_(kCompressedReadBytes) {}

  // Decodes into out[0, n) (n > 0) and sets `produced`: more than 0, or 0
  // with an OK status at the end of the data.
  virtual absl::Status Decode(char* out, size_t n, size_t& produced) = 0;

  // The next piece of compressed input (valid until the next call); empty
  // once the input has ended.
  absl::StatusOr<std::string_view> NextInput() {
    if (input_ended_) return std::string_view();
    absl::StatusOr<size_t> r = in_->Read(buf_.data(), buf_.size());
    if (!r.ok()) return r.status();
    if (*r == 0) input_ended_ = true;
    return std::string_view(buf_.data(), *r);
  }
  bool input_ended() const { return input_ended_; }

 private:
  std::unique_ptr<ByteStream> in_;
  std::vector<char> buf_;
  bool input_ended_ = false;
  bool ended_ = false;
  absl::Status error_;
};

// gzip (one or more concatenated members, as gzip(1) writes them).
class GzipDecoder final : public Decoder {
 public:
  explicit GzipDecoder(std::unique_ptr<ByteStream> in)
      : Decoder(std::move(in)) {}
  ~GzipDecoder() override {
    if (initialized_) inflateEnd(&zs_);
  }
  GzipDecoder(const GzipDecoder&) = delete;
  GzipDecoder& operator=(const GzipDecoder&) = delete;

 private:
  absl::Status Decode(char* out, size_t n, size_t& produced) override {
    if (!initialized_) {
      // 15 + 32: the largest window, gzip or zlib header detected.
      if (inflateInit2(&zs_, 15 + 32) != Z_OK) {
        return absl::ResourceExhaustedError("out of memory in zlib");
      }
      initialized_ = true;
    }
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = static_cast<uInt>(n);
    for (;;) {
      if (zs_.avail_in == 0) {
        absl::StatusOr<std::string_view> in = NextInput();
        if (!in.ok()) return in.status();
        zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in->data()));
        zs_.avail_in = static_cast<uInt>(in->size());
      }
      // Between members at the end of the input: done.
      if (zs_.avail_in == 0 && !in_member_) return absl::OkStatus();
      const bool had_input = zs_.avail_in > 0;
      const int ret = inflate(&zs_, Z_NO_FLUSH);
      produced = n - zs_.avail_out;
      switch (ret) {
        case Z_STREAM_END:
          in_member_ = false;
          ++members_;
          inflateReset(&zs_);
          if (produced > 0) return absl::OkStatus();
          continue;
        case Z_OK:
          in_member_ = true;
          if (produced > 0) return absl::OkStatus();
          continue;
        case Z_BUF_ERROR:
          // No progress: the input has ended inside a member.
          if (produced > 0) return absl::OkStatus();
          if (!had_input) {
            return absl::DataLossError("unexpected end of gzip data");
          }
          return absl::DataLossError("invalid gzip data");
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

  z_stream zs_{};
  bool initialized_ = false;
  bool in_member_ = false;
  uint64_t members_ = 0;
};

// zstd (any number of frames; skippable frames are skipped).
class ZstdDecoder final : public Decoder {
 public:
  explicit ZstdDecoder(std::unique_ptr<ByteStream> in)
      : Decoder(std::move(in)) {}
  ~ZstdDecoder() override { ZSTD_freeDStream(ds_); }
  ZstdDecoder(const ZstdDecoder&) = delete;
  ZstdDecoder& operator=(const ZstdDecoder&) = delete;

 private:
  absl::Status Decode(char* out, size_t n, size_t& produced) override {
    if (ds_ == nullptr) {
      ds_ = ZSTD_createDStream();
      if (ds_ == nullptr) {
        return absl::ResourceExhaustedError("out of memory in libzstd");
      }
      ZSTD_initDStream(ds_);
    }
    ZSTD_outBuffer ob{out, n, 0};
    for (;;) {
      if (ib_.pos == ib_.size && !input_ended()) {
        absl::StatusOr<std::string_view> in = NextInput();
        if (!in.ok()) return in.status();
        ib_ = ZSTD_inBuffer{in->data(), in->size(), 0};
      }
      const bool flushing = ib_.pos == ib_.size;  // The input has ended.
      // All input consumed and the last frame complete and flushed: done.
      if (flushing && last_ret_ == 0) return absl::OkStatus();
      const size_t ret = ZSTD_decompressStream(ds_, &ob, &ib_);
      produced = ob.pos;
      if (ZSTD_isError(ret)) {
        return absl::DataLossError(
            absl::StrCat("invalid zstd data: ", ZSTD_getErrorName(ret)));
      }
      last_ret_ = ret;
      if (produced > 0) return absl::OkStatus();
      if (flushing) return absl::DataLossError("unexpected end of zstd data");
    }
  }

  ZSTD_DStream* ds_ = nullptr;
  ZSTD_inBuffer ib_{nullptr, 0, 0};
  // ZSTD_decompressStream's last hint: 0 once a frame is complete and
  // flushed.
  size_t last_ret_ = 0;
};

// xz (concatenated streams and stream padding, as xz(1) reads them).
class XzDecoder final : public Decoder {
 public:
  explicit XzDecoder(std::unique_ptr<ByteStream> in) : Decoder(std::move(in)) {}
  ~XzDecoder() override { lzma_end(&strm_); }
  XzDecoder(const XzDecoder&) = delete;
  XzDecoder& operator=(const XzDecoder&) = delete;

 private:
  absl::Status Decode(char* out, size_t n, size_t& produced) override {
    if (finished_) return absl::OkStatus();
    if (!initialized_) {
      const lzma_ret r =
          lzma_stream_decoder(&strm_, UINT64_MAX, LZMA_CONCATENATED);
      if (r == LZMA_MEM_ERROR) {
        return absl::ResourceExhaustedError("out of memory in liblzma");
      }
      if (r != LZMA_OK) {
        return absl::InternalError(
            absl::StrCat("cannot initialize liblzma (error ", r, ")"));
      }
      initialized_ = true;
    }
    strm_.next_out = reinterpret_cast<uint8_t*>(out);
    strm_.avail_out = n;
    for (;;) {
      if (strm_.avail_in == 0 && !input_ended()) {
        absl::StatusOr<std::string_view> in = NextInput();
        if (!in.ok()) return in.status();
        strm_.next_in = reinterpret_cast<const uint8_t*>(in->data());
        strm_.avail_in = in->size();
      }
      // LZMA_CONCATENATED: only LZMA_FINISH tells the decoder that no other
      // stream follows.
      const lzma_ret ret =
          lzma_code(&strm_, input_ended() ? LZMA_FINISH : LZMA_RUN);
      produced = n - strm_.avail_out;
      switch (ret) {
        case LZMA_OK:
          if (produced > 0) return absl::OkStatus();
          continue;
        case LZMA_STREAM_END:
          finished_ = true;
          return absl::OkStatus();
        case LZMA_BUF_ERROR:
          // No progress possible: the input has ended inside a stream.
          if (produced > 0) return absl::OkStatus();
          return absl::DataLossError("unexpected end of xz data");
        case LZMA_MEM_ERROR:
          return absl::ResourceExhaustedError("out of memory in liblzma");
        case LZMA_OPTIONS_ERROR:
          return absl::DataLossError(
              "corrupt xz data (options this liblzma does not support)");
        case LZMA_DATA_ERROR:
        case LZMA_FORMAT_ERROR:
          return absl::DataLossError("corrupt xz data");
        default:
          return absl::DataLossError(
              absl::StrCat("corrupt xz data (liblzma error ", ret, ")"));
      }
    }
  }

  lzma_stream strm_ = LZMA_STREAM_INIT;
  bool initialized_ = false;
  bool finished_ = false;
};

// bzip2 (concatenated streams, as pbzip2 and `cat a.bz2 b.bz2` make them).
class Bzip2Decoder final : public Decoder {
 public:
  explicit Bzip2Decoder(std::unique_ptr<ByteStream> in)
      : Decoder(std::move(in)) {}
  ~Bzip2Decoder() override {
    if (in_stream_) BZ2_bzDecompressEnd(&bz_);
  }
  Bzip2Decoder(const Bzip2Decoder&) = delete;
  Bzip2Decoder& operator=(const Bzip2Decoder&) = delete;

 private:
  absl::Status Decode(char* out, size_t n, size_t& produced) override {
    produced = 0;
    for (;;) {
      if (bz_.avail_in == 0 && !input_ended()) {
        absl::StatusOr<std::string_view> in = NextInput();
        if (!in.ok()) return in.status();
        bz_.next_in = const_cast<char*>(in->data());
        bz_.avail_in = static_cast<unsigned>(in->size());
      }
      if (!in_stream_) {
        // Between streams at the end of the input: done.
        if (bz_.avail_in == 0) return absl::OkStatus();
        // BZ2_bzDecompressInit leaves next_in and avail_in alone.
        const int r = BZ2_bzDecompressInit(&bz_, /*verbosity=*/0, /*small=*/0);
        if (r == BZ_MEM_ERROR) {
          return absl::ResourceExhaustedError("out of memory in libbz2");
        }
        if (r != BZ_OK) {
          return absl::InternalError(
              absl::StrCat("cannot initialize libbz2 (error ", r, ")"));
        }
        in_stream_ = true;
      }
      bz_.next_out = out + produced;
      bz_.avail_out = static_cast<unsigned>(n - produced);
      const unsigned out_before = bz_.avail_out;
      const int ret = BZ2_bzDecompress(&bz_);
      produced += out_before - bz_.avail_out;
      switch (ret) {
        case BZ_STREAM_END:
          ++streams_;
          BZ2_bzDecompressEnd(&bz_);
          in_stream_ = false;
          if (produced > 0) return absl::OkStatus();
          continue;
        case BZ_OK:
          if (produced > 0) return absl::OkStatus();
          if (bz_.avail_in == 0 && input_ended()) {
            return absl::DataLossError("unexpected end of bzip2 data");
          }
          continue;
        case BZ_DATA_ERROR_MAGIC:
          if (streams_ > 0) {
            return absl::DataLossError("trailing garbage after bzip2 data");
          }
          return absl::DataLossError("corrupt bzip2 data");
        case BZ_DATA_ERROR:
          return absl::DataLossError("corrupt bzip2 data");
        case BZ_MEM_ERROR:
          return absl::ResourceExhaustedError("out of memory in libbz2");
        default:
          return absl::DataLossError(
              absl::StrCat("corrupt bzip2 data (libbz2 error ", ret, ")"));
      }
    }
  }

  bz_stream bz_{};
  bool in_stream_ = false;
  uint64_t streams_ = 0;
};

}  // namespace

std::unique_ptr<ByteStream> NewDecoder(Compression compression,
                                       std::unique_ptr<ByteStream> compressed) {
  switch (compression) {
    case Compression::kGzip:
      return std::make_unique<GzipDecoder>(std::move(compressed));
    case Compression::kZstd:
      return std::make_unique<ZstdDecoder>(std::move(compressed));
    case Compression::kXz:
      return std::make_unique<XzDecoder>(std::move(compressed));
    case Compression::kBzip2:
      return std::make_unique<Bzip2Decoder>(std::move(compressed));
    default:
      return nullptr;
  }
}

}  // namespace mapr::input_internal
