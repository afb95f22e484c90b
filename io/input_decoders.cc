// The decompressors behind mapr/input.h: gzip (ISA-L, zlib), zstd (libzstd), xz
// (liblzma) and bzip2 (libbz2), each a ByteStream over the compressed bytes.
//
// Each reads concatenated streams (gzip members, zstd frames, xz streams,
// bzip2 streams) to the end of its input. Errors, all DataLoss unless noted:
//   "unexpected end of <format> data"       the input ends inside a stream
//   "invalid gzip data: <zlib's reason>"    damaged gzip data (for an ISA-L
//                                           member, zlib's words for ISA-L's
//                                           finding)
//   "invalid zstd data: <libzstd's reason>" damaged zstd data (trailing
//                                           garbage included)
//   "corrupt xz data", "corrupt bzip2 data" damaged xz, bzip2 data
//   "trailing garbage after gzip data"      bytes after a complete stream
//   "trailing garbage after bzip2 data"     that do not start another one
//   "out of memory in <library>"            ResourceExhausted (zlib, ISA-L,
//                                           libzstd, liblzma, libbz2)
// Bytes decoded before an error are returned first; the error comes with
// the next Read() and with every Read() after it.
#include <bzlib.h>
#include <isa-l/igzip_lib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "io/input_internal.h"

namespace mapr::input_internal {
namespace {

// Set by SetGzipZlibOnlyForTesting().
std::atomic<bool> gzip_zlib_only{false};

bool GzipInflaterIsIsal() {
  return !gzip_zlib_only.load(std::memory_order_relaxed);
}

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
  // The bytes of the input buffer before `p` if `p` points into it (as a
  // view NextInput() returned does), else none.
  std::string_view InputBefore(const char* p) const {
    const auto begin = reinterpret_cast<uintptr_t>(buf_.data());
    const auto at = reinterpret_cast<uintptr_t>(p);
    if (at < begin || at > begin + buf_.size()) return {};
    return std::string_view(buf_.data(), at - begin);
  }

 private:
  std::unique_ptr<ByteStream> in_;
  std::vector<char> buf_;
  bool input_ended_ = false;
  bool ended_ = false;
  absl::Status error_;
};

// gzip (one or more concatenated members, as gzip(1) writes them).
//
// Each member is inflated by ISA-L (isal_inflate, about 3-4x zlib's speed)
// when it starts as gzip(1) writes one (1f 8b 08) and ISA-L is not turned
// off for testing; anything else at a member boundary (trailing garbage, a
// member split across reads right at its magic, a zlib stream after a gzip
// member) goes to zlib, which reads it as it always did and gives the same
// errors. The errors of an ISA-L member use zlib's words for the same
// fault, so both paths report "unexpected end of gzip data", "invalid gzip
// data: incorrect data check" (a CRC-32 mismatch) and "trailing garbage
// after gzip data" alike; for other damage the reason after "invalid gzip
// data: " names the fault the way zlib would, though the two libraries may
// notice a fault at different points of a damaged member.
class GzipDecoder final : public Decoder {
 public:
  explicit GzipDecoder(std::unique_ptr<ByteStream> in)
      : Decoder(std::move(in)), allow_isal_(GzipInflaterIsIsal()) {}
  ~GzipDecoder() override {
    if (zlib_initialized_) inflateEnd(&zs_);
  }
  GzipDecoder(const GzipDecoder&) = delete;
  GzipDecoder& operator=(const GzipDecoder&) = delete;

 private:
  // Which library inflates the member being read.
  enum class Member : uint8_t { kNone, kIsal, kZlib };

  absl::Status Decode(char* out, size_t n, size_t& produced) override {
    produced = 0;
    for (;;) {
      if (pending_.empty() && !input_ended()) {
        absl::StatusOr<std::string_view> in = NextInput();
        if (!in.ok()) return in.status();
        pending_ = *in;
      }
      if (member_ == Member::kNone) {
        // Between members at the end of the input: done.
        if (pending_.empty()) return absl::OkStatus();
        if (absl::Status s = StartMember(); !s.ok()) return s;
      }
      absl::Status s =
          member_ == Member::kIsal
              ? InflateIsal(out + produced, n - produced, produced)
              : InflateZlib(out + produced, n - produced, produced);
      if (!s.ok() || produced > 0) return s;
    }
  }

  // The length of the gzip header at the start of `s` (RFC 1952: 10 bytes,
  // then the optional extra field, name, comment and header CRC), or 0 if
  // `s` ends inside it.
  static size_t GzipHeaderLength(std::string_view s) {
    if (s.size() < 10) return 0;
    const auto flags = static_cast<uint8_t>(s[3]);
    size_t at = 10;
    if (flags & 4) {  // FEXTRA: a 2-byte length, then that many bytes.
      if (s.size() < at + 2) return 0;
      at += 2 + (static_cast<uint8_t>(s[at]) |
                 size_t{static_cast<uint8_t>(s[at + 1])} << 8);
    }
    for (uint8_t field : {8, 16}) {  // FNAME, FCOMMENT: NUL-terminated.
      if ((flags & field) == 0) continue;
      if (at >= s.size()) return 0;
      const size_t nul = s.find('\0', at);
      if (nul == std::string_view::npos) return 0;
      at = nul + 1;
    }
    if (flags & 2) at += 2;  // FHCRC.
    return at <= s.size() ? at : 0;
  }

  // Makes pending_ hold the whole gzip header of the member it starts, so
  // that ISA-L parses the header in one call: ISA-L 2.30 misreads some
  // headers that arrive in pieces (an extra field or a name cut after the
  // first 10 bytes, as the magic-byte probe always cuts them). False if
  // the header is not whole by the end of the input or by kMaxHeaderBytes.
  absl::StatusOr<bool> WholeHeader() {
    static constexpr size_t kMaxHeaderBytes = size_t{64} << 10;
    while (GzipHeaderLength(pending_) == 0) {
      if (input_ended() || pending_.size() > kMaxHeaderBytes) return false;
      // Copy what there is, then append the next read (once per member
      // at most a few times; the copy is freed below).
      std::string staged(pending_);
      absl::StatusOr<std::string_view> in = NextInput();
      if (!in.ok()) return in.status();
      staged.append(*in);
      staging_ = std::move(staged);
      pending_ = staging_;
    }
    return true;
  }

  // Picks the library for the member that starts at pending_ (not empty).
  absl::Status StartMember() {
    bool gzip_member =
        pending_.size() >= 3 && static_cast<uint8_t>(pending_[0]) == 0x1f &&
        static_cast<uint8_t>(pending_[1]) == 0x8b && pending_[2] == 8;
    if (allow_isal_ && gzip_member) {
      absl::StatusOr<bool> whole = WholeHeader();
      if (!whole.ok()) return whole.status();
      gzip_member = *whole;
    }
    if (allow_isal_ && gzip_member) {
      if (isal_ == nullptr) {
        isal_ =
            std::unique_ptr<inflate_state>(new (std::nothrow) inflate_state);
        if (isal_ == nullptr) {
          return absl::ResourceExhaustedError("out of memory in ISA-L");
        }
        isal_inflate_init(isal_.get());
      } else {
        isal_inflate_reset(isal_.get());
      }
      isal_->crc_flag = ISAL_GZIP;
      member_ = Member::kIsal;
      return absl::OkStatus();
    }
    if (!zlib_initialized_) {
      // 15 + 32: the largest window, gzip or zlib header detected.
      if (inflateInit2(&zs_, 15 + 32) != Z_OK) {
        return absl::ResourceExhaustedError("out of memory in zlib");
      }
      zlib_initialized_ = true;
    } else {
      inflateReset(&zs_);
    }
    member_ = Member::kZlib;
    zlib_started_ = false;
    return absl::OkStatus();
  }

  void EndMember() {
    member_ = Member::kNone;
    ++members_;
  }

  // One isal_inflate() call into out[0, n); adds what it wrote to
  // `produced`. OK with nothing produced means: call again (after a refill
  // if pending_ is empty).
  absl::Status InflateIsal(char* out, size_t n, size_t& produced) {
    inflate_state& st = *isal_;
    st.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(pending_.data()));
    st.avail_in = static_cast<uint32_t>(pending_.size());
    st.next_out = reinterpret_cast<uint8_t*>(out);
    st.avail_out = static_cast<uint32_t>(n);
    const size_t in_before = pending_.size();
    const int ret = isal_inflate(&st);
    pending_ = pending_.substr(pending_.size() - st.avail_in);
    const size_t wrote = n - st.avail_out;
    produced += wrote;
    if (ret < 0) return IsalError(ret, st);
    // ISA-L hands back the bytes it read ahead once a member is finished,
    // so pending_ starts at the next member.
    if (st.block_state == ISAL_BLOCK_FINISH) {
      EndMember();
      return absl::OkStatus();
    }
    if (wrote > 0) return absl::OkStatus();
    if (pending_.empty()) {
      if (input_ended()) {
        return absl::DataLossError("unexpected end of gzip data");
      }
      return absl::OkStatus();  // Refill.
    }
    if (pending_.size() == in_before) {
      // Input left, room for output, and no progress: cannot happen with
      // a working library; never spin on it.
      return absl::DataLossError("invalid gzip data");
    }
    return absl::OkStatus();
  }

  // zlib's words for an ISA-L error (zlib's inflate.c messages).
  absl::Status IsalError(int ret, const inflate_state& st) {
    const char* reason = "invalid data";
    switch (ret) {
      case ISAL_INVALID_BLOCK:
        reason = "invalid block type";
        break;
      case ISAL_INVALID_SYMBOL:
        reason = "invalid literal/length code";
        break;
      case ISAL_INVALID_LOOKBACK:
        reason = "invalid distance too far back";
        break;
      case ISAL_INVALID_WRAPPER:
        reason = "unknown header flags set";
        break;
      case ISAL_UNSUPPORTED_METHOD:
        reason = "unknown compression method";
        break;
      case ISAL_INCORRECT_CHECKSUM: {
        // The trailer: CRC-32, then the length mod 2^32. zlib checks the
        // CRC first; ISA-L reports both as one code, so tell them apart
        // when the trailer is still in the buffer.
        reason = TrailerCrcMatches(st) ? "incorrect length check"
                                       : "incorrect data check";
        break;
      }
      default:
        break;
    }
    return absl::DataLossError(absl::StrCat("invalid gzip data: ", reason));
  }

  // Whether the 8 bytes just before pending_ (the member's trailer, when
  // they are in the current buffer) hold the CRC-32 ISA-L computed.
  bool TrailerCrcMatches(const inflate_state& st) const {
    const std::string_view before = InputBefore(pending_.data());
    if (before.size() < 8) return false;
    const auto* t =
        reinterpret_cast<const uint8_t*>(before.data() + before.size() - 8);
    const uint32_t stored = uint32_t{t[0]} | uint32_t{t[1]} << 8 |
                            uint32_t{t[2]} << 16 | uint32_t{t[3]} << 24;
    return stored == st.crc;
  }

  // One pass of zlib's inflate() into out[0, n), as the zlib-only decoder
  // always did; adds what it wrote to `produced`.
  absl::Status InflateZlib(char* out, size_t n, size_t& produced) {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(pending_.data()));
    zs_.avail_in = static_cast<uInt>(pending_.size());
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = static_cast<uInt>(n);
    const bool had_input = zs_.avail_in > 0;
    const int ret = inflate(&zs_, Z_NO_FLUSH);
    pending_ = pending_.substr(pending_.size() - zs_.avail_in);
    const size_t wrote = n - zs_.avail_out;
    produced += wrote;
    switch (ret) {
      case Z_STREAM_END:
        EndMember();
        return absl::OkStatus();
      case Z_OK:
        zlib_started_ = true;
        return absl::OkStatus();
      case Z_BUF_ERROR:
        // No progress: the input has ended inside a member.
        if (wrote > 0) return absl::OkStatus();
        if (!had_input) {
          return absl::DataLossError("unexpected end of gzip data");
        }
        return absl::DataLossError("invalid gzip data");
      case Z_DATA_ERROR:
        if (!zlib_started_ && members_ > 0) {
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

  const bool allow_isal_;
  // The compressed bytes not yet given to a library (a view into the
  // current input buffer).
  std::string_view pending_;
  // The bytes pending_ views while a header cut between reads is put
  // together (WholeHeader()).
  std::string staging_;
  Member member_ = Member::kNone;
  std::unique_ptr<inflate_state> isal_;
  z_stream zs_{};
  bool zlib_initialized_ = false;
  // zlib has taken bytes of the current member (a Z_DATA_ERROR before
  // that, after a complete member, is trailing garbage).
  bool zlib_started_ = false;
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

void SetGzipZlibOnlyForTesting(bool zlib_only) {
  gzip_zlib_only.store(zlib_only, std::memory_order_relaxed);
}

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
