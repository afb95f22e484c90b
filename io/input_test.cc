#include "mapr/input.h"

#include <bzlib.h>
#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "io/input_internal.h"
#include "mapr/aggregator.h"
#include "mapr/line_splitter.h"
#include "mapr/query.h"
#include "tests/testing/allocation_counter.h"
#include "tests/testing/compress.h"
#include "tests/testing/files.h"
#include "tests/testing/sanitizers.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::Deflate;
using ::mapr::testing::Gzip;
using ::mapr::testing::StatusIs;
using ::mapr::testing::Zstd;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ------------------------------------------------- fixtures, made here

std::string Xz(std::string_view data) {
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(
                6, LZMA_CHECK_CRC64, nullptr,
                reinterpret_cast<const uint8_t*>(data.data()), data.size(),
                reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

std::string Bzip2(std::string_view data) {
  unsigned n = static_cast<unsigned>(data.size() + data.size() / 100 + 700);
  std::string out(n, '\0');
  EXPECT_EQ(
      BZ2_bzBuffToBuffCompress(out.data(), &n, const_cast<char*>(data.data()),
                               static_cast<unsigned>(data.size()),
                               /*blockSize100k=*/9, 0, 0),
      BZ_OK);
  out.resize(n);
  return out;
}

struct Format {
  const char* name;  // CompressionName()
  Compression compression;
  std::function<std::string(std::string_view)> compress;
  // gzip is read twice: with ISA-L (the default) and with zlib only.
  bool zlib_only = false;
  const char* label = name;  // For failure messages.
};

// gzip through ISA-L (where it can) or through zlib only, while in scope.
class GzipLibrary {
 public:
  explicit GzipLibrary(const Format& f) {
    input_internal::SetGzipZlibOnlyForTesting(f.zlib_only);
  }
  ~GzipLibrary() { input_internal::SetGzipZlibOnlyForTesting(false); }
  GzipLibrary(const GzipLibrary&) = delete;
  GzipLibrary& operator=(const GzipLibrary&) = delete;
};

const std::vector<Format>& Formats() {
  static const auto* formats = new std::vector<Format>{
      {"none", Compression::kNone,
       [](std::string_view d) { return std::string(d); }},
      {"gzip", Compression::kGzip, Gzip, false, "gzip (ISA-L)"},
      {"gzip", Compression::kGzip, Gzip, true, "gzip (zlib)"},
      {"zstd", Compression::kZstd, Zstd},
      {"xz", Compression::kXz, Xz},
      {"bzip2", Compression::kBzip2, Bzip2},
  };
  return *formats;
}

const std::vector<Format>& CompressedFormats() {
  static const auto* formats =
      new std::vector<Format>(std::next(Formats().begin()), Formats().end());
  return *formats;
}

// About 1.3 MB of lines: more than a few reads, and a bzip2 block (900 kB).
std::string SampleText() {
  std::string s;
  for (int i = 0; i < 30000; ++i) {
    absl::StrAppend(&s, "INFO line ", i, " value=", (i * 7919) % 1000,
                    i % 3 == 0 ? " host=a" : " host=b", "\n");
  }
  return s;
}

// This process's directory for its files, removed when the tests end.
const std::filesystem::path& TempDir() {
  static const auto* dir =
      new std::filesystem::path(std::filesystem::path(::testing::TempDir()) /
                                absl::StrCat("mapr_input_test_", ::getpid()));
  return *dir;
}

class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(TempDir(), ignored);
  }
};
[[maybe_unused]] ::testing::Environment* const kCleanup =
    ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

std::string TempPath(const std::string& name) {
  std::filesystem::create_directories(TempDir());
  return (TempDir() / name).string();
}

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = TempPath(name);
  mapr::testing::WriteFile(path, content);
  return path;
}

// Reads `stream` to its end, or to its first error.
absl::StatusOr<std::string> ReadAll(ByteStream& stream,
                                    std::string* before_error = nullptr) {
  std::string out;
  std::vector<char> buf(100000);
  for (;;) {
    absl::StatusOr<size_t> n = stream.Read(buf.data(), buf.size());
    if (!n.ok()) {
      if (before_error != nullptr) *before_error = out;
      return n.status();
    }
    if (*n == 0) return out;
    out.append(buf.data(), *n);
  }
}

absl::StatusOr<std::string> ReadFileDecoded(
    const std::string& path, std::string* before_error = nullptr) {
  absl::StatusOr<std::unique_ptr<ByteStream>> in = OpenInput({.path = path});
  if (!in.ok()) return in.status();
  return ReadAll(**in, before_error);
}

// A stream of given pieces, then the end (or an error).
class PiecesStream final : public ByteStream {
 public:
  explicit PiecesStream(std::vector<std::string> pieces,
                        absl::Status end = absl::OkStatus())
      : pieces_(std::move(pieces)), end_(std::move(end)) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (next_ == pieces_.size()) {
      if (!end_.ok()) return end_;
      return 0;
    }
    std::string& piece = pieces_[next_];
    const size_t k = std::min(n, piece.size());
    std::memcpy(buf, piece.data(), k);
    piece.erase(0, k);
    if (piece.empty()) ++next_;
    return k;
  }

 private:
  std::vector<std::string> pieces_;
  size_t next_ = 0;
  absl::Status end_;
};

std::vector<std::string> CollectLines(ByteStream& stream,
                                      LineSplitter& splitter,
                                      absl::Status* status = nullptr,
                                      InputCounters* counters = nullptr) {
  std::vector<std::string> lines;
  absl::Status s = ReadLines(
      stream, splitter,
      [&](std::span<const std::string_view> batch) {
        for (std::string_view l : batch) lines.emplace_back(l);
        return absl::OkStatus();
      },
      counters);
  if (status != nullptr) *status = s;
  return lines;
}

// -------------------------------------------------------------- detection

TEST(InputTest, DetectsFormatsByMagicBytes) {
  using namespace std::string_view_literals;
  struct Case {
    std::string_view head;
    Compression want;
  };
  const Case cases[] = {
      {"", Compression::kNone},
      {"plain text\n", Compression::kNone},
      {"\x1f\x8b\x08\x00"sv, Compression::kGzip},
      {"\x28\xb5\x2f\xfd\x24"sv, Compression::kZstd},
      {"\xfd\x37zXZ\x00\x00\x04"sv, Compression::kXz},
      {"\xfd\x37zXY\x00\x00\x04"sv, Compression::kNone},
      {"BZh91AY&SY"sv, Compression::kBzip2},
      {"BZh1\x17\x72\x45\x38\x50\x90"sv, Compression::kBzip2},  // Empty.
      {"BZh9 is a line of text\n", Compression::kNone},
      {"BZh91AY&S", Compression::kNone},  // Too short to tell: text.
      {"\x04\x22\x4d\x18\x64\x40"sv, Compression::kLz4},
      {"\x02\x21\x4c\x18"sv, Compression::kLz4},
      {"LZIP\x01\x0c"sv, Compression::kLzip},
      {"LZIP is a word\n", Compression::kNone},
      {"\x1f\x9d\x90"sv, Compression::kCompress},
      {"7z\xbc\xaf\x27\x1c\x00\x04"sv, Compression::kSevenZip},
      {"PK\x03\x04\x14\x00"sv, Compression::kZip},
      {"PK is not zip\n", Compression::kNone},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DetectCompression(c.head), c.want) << "head: " << c.head;
  }
}

TEST(InputTest, NamesAndReadability) {
  EXPECT_EQ(CompressionName(Compression::kBzip2), "bzip2");
  EXPECT_EQ(CompressionName(Compression::kSevenZip), "7z");
  for (const Format& f : Formats()) {
    const GzipLibrary library(f);
    EXPECT_EQ(CompressionName(f.compression), f.name);
    EXPECT_TRUE(CanRead(f.compression)) << f.label;
  }
  for (Compression c :
       {Compression::kLz4, Compression::kLzip, Compression::kCompress,
        Compression::kSevenZip, Compression::kZip}) {
    EXPECT_FALSE(CanRead(c)) << CompressionName(c);
  }
}

// --------------------------------------------------------------- decoding

TEST(InputTest, EveryFormatRoundTrips) {
  const std::string text = SampleText();
  for (const Format& f : Formats()) {
    const GzipLibrary library(f);
    const std::string packed = f.compress(text);
    ASSERT_EQ(DetectCompression(packed.substr(0, kCompressionMagicBytes)),
              f.compression)
        << f.label;
    const std::string path = WriteTemp(absl::StrCat("round.", f.name), packed);
    InputCounters counters;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<ByteStream> in,
                         OpenInput({.path = path}, &counters));
    ASSERT_OK_AND_ASSIGN(std::string decoded, ReadAll(*in));
    EXPECT_TRUE(decoded == text) << f.label;
    // Progress counts the bytes of the file, compressed or not.
    EXPECT_EQ(counters.raw_bytes.load(), packed.size()) << f.label;
  }
}

TEST(InputTest, EmptyAndTinyFiles) {
  for (const std::string& content :
       {std::string(), std::string("x"), std::string("ab\n")}) {
    const std::string path = WriteTemp("tiny", content);
    ASSERT_OK_AND_ASSIGN(std::string decoded, ReadFileDecoded(path));
    EXPECT_EQ(decoded, content);
  }
  for (const Format& f : CompressedFormats()) {
    const GzipLibrary library(f);
    const std::string path =
        WriteTemp(absl::StrCat("empty.", f.name), f.compress(""));
    ASSERT_OK_AND_ASSIGN(std::string decoded, ReadFileDecoded(path));
    EXPECT_EQ(decoded, "") << f.label;
  }
}

TEST(InputTest, ConcatenatedStreamsAreReadToTheEnd) {
  const std::string text = SampleText();
  const std::string a = text.substr(0, 1000);
  const std::string b = text.substr(1000, 499000);
  const std::string c = text.substr(500000);
  for (const Format& f : CompressedFormats()) {
    const GzipLibrary library(f);
    const std::string path = WriteTemp(
        absl::StrCat("concat.", f.name),
        f.compress(a) + f.compress("") + f.compress(b) + f.compress(c));
    ASSERT_OK_AND_ASSIGN(std::string decoded, ReadFileDecoded(path));
    EXPECT_TRUE(decoded == text) << f.label;
  }
}

TEST(InputTest, TruncatedStreamIsDataLossAfterTheBytesBeforeTheCut) {
  const std::string text = SampleText();
  for (const Format& f : CompressedFormats()) {
    const GzipLibrary library(f);
    const std::string packed = f.compress(text);
    for (size_t cut : {packed.size() / 2, packed.size() - 1, size_t{12}}) {
      const std::string path =
          WriteTemp(absl::StrCat("cut.", f.name), packed.substr(0, cut));
      std::string before;
      EXPECT_THAT(ReadFileDecoded(path, &before),
                  StatusIs(absl::StatusCode::kDataLoss,
                           absl::StrCat("unexpected end of ", f.name, " data")))
          << f.label << " cut at " << cut;
      EXPECT_TRUE(text.starts_with(before)) << f.label;
      if (cut == packed.size() / 2) {
        EXPECT_LT(before.size(), text.size()) << f.label;
      }
    }
  }
}

TEST(InputTest, CorruptDataIsDataLoss) {
  const std::string text = SampleText();
  const std::pair<std::string_view, std::string_view> want[] = {
      {"gzip", "invalid gzip data"},
      {"zstd", "invalid zstd data"},
      {"xz", "corrupt xz data"},
      {"bzip2", "corrupt bzip2 data"},
  };
  for (const Format& f : CompressedFormats()) {
    const GzipLibrary library(f);
    std::string packed = f.compress(text);
    for (size_t i = packed.size() / 2; i < packed.size() / 2 + 16; ++i) {
      packed[i] = static_cast<char>(packed[i] ^ 0x5a);
    }
    const std::string path = WriteTemp(absl::StrCat("bad.", f.name), packed);
    const auto* w =
        std::find_if(std::begin(want), std::end(want),
                     [&](const auto& p) { return p.first == f.name; });
    ASSERT_NE(w, std::end(want));
    EXPECT_THAT(ReadFileDecoded(path),
                StatusIs(absl::StatusCode::kDataLoss, StartsWith(w->second)))
        << f.label;
  }
}

TEST(InputTest, TrailingGarbageIsDataLoss) {
  const std::pair<std::string_view, std::string_view> want[] = {
      {"gzip", "trailing garbage after gzip data"},
      {"zstd", "invalid zstd data: "},
      {"xz", "corrupt xz data"},
      {"bzip2", "trailing garbage after bzip2 data"},
  };
  for (const Format& f : CompressedFormats()) {
    const GzipLibrary library(f);
    const std::string path =
        WriteTemp(absl::StrCat("garbage.", f.name),
                  f.compress("a\nb\n") + "this is not compressed data\n");
    const auto* w =
        std::find_if(std::begin(want), std::end(want),
                     [&](const auto& p) { return p.first == f.name; });
    ASSERT_NE(w, std::end(want));
    std::string before;
    EXPECT_THAT(ReadFileDecoded(path, &before),
                StatusIs(absl::StatusCode::kDataLoss, StartsWith(w->second)))
        << f.label;
  }
}

TEST(InputTest, RefusesCompressedFormatsItCannotRead) {
  using namespace std::string_view_literals;
  struct Case {
    std::string_view file;
    std::string_view content;
    std::string_view message;  // PATH: the file's path.
  };
  const Case cases[] = {
      {"app.log.lz4", "\x04\x22\x4d\x18\x64\x40\xa7 and more"sv,
       "lz4-compressed input is not supported; decompress it first "
       "(lz4 -dc PATH)"},
      {"app.log.lz", "LZIP\x01\x0c\x00 and more"sv,
       "lzip-compressed input is not supported; decompress it first "
       "(lzip -dc PATH)"},
      {"app.log.Z", "\x1f\x9d\x90 and more"sv,
       "compress'ed (.Z) input is not supported; decompress it first "
       "(gzip -dc PATH)"},
      {"logs.7z", "7z\xbc\xaf\x27\x1c\x00\x04 and more"sv,
       "7z archives are not supported; extract the log first "
       "(7z x -so PATH)"},
      {"logs.zip", "PK\x03\x04\x14\x00 and more"sv,
       "zip archives are not supported; extract the log first "
       "(unzip -p PATH)"},
  };
  for (const Case& c : cases) {
    const std::string path =
        WriteTemp(std::string(c.file), std::string(c.content));
    std::string message(c.message);
    message.replace(message.find("PATH"), 4, path);
    EXPECT_THAT(OpenInput({.path = path}),
                StatusIs(absl::StatusCode::kUnimplemented, message));
    // Every line-reading entry point refuses it, never counting lines.
    ASSERT_OK_AND_ASSIGN(Query q,
                         Query::Compile("select count($line) group by *"));
    ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
    EXPECT_THAT(PushFile(agg, path),
                StatusIs(absl::StatusCode::kUnimplemented,
                         absl::StrCat(path, ": ", message)));
    EXPECT_EQ(agg.stats().lines_read, 0u);
  }
  // A path that needs quoting is quoted for the shell.
  const std::string odd = WriteTemp("it's here.lz4", "\x04\x22\x4d\x18 x");
  EXPECT_THAT(OpenInput({.path = odd}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("(lz4 -dc '" + odd.substr(0, odd.find('\'')) +
                                 "'\\''s here.lz4')")));
}

TEST(InputTest, RangedInputIsReadRawWithoutDetection) {
  const std::string packed = Gzip("a\nb\n");
  const std::string path = WriteTemp("ranged.gz", "0123" + packed);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ByteStream> in,
                       OpenInput({.path = path,
                                  .ranged = true,
                                  .begin = 4,
                                  .end = 4 + packed.size()}));
  ASSERT_OK_AND_ASSIGN(std::string raw, ReadAll(*in));
  EXPECT_EQ(raw, packed);
}

TEST(InputTest, OsErrorsCarryTheReasonOnly) {
  EXPECT_THAT(
      OpenInput({.path = TempPath("missing")}),
      StatusIs(absl::StatusCode::kNotFound, "No such file or directory"));
  EXPECT_THAT(
      OpenInput({.path = ::testing::TempDir()}),
      StatusIs(absl::StatusCode::kFailedPrecondition, "Is a directory"));
  EXPECT_THAT(OpenInput({.path = std::string("a\0b", 3)}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "the path contains a NUL byte"));
}

// ------------------------------------------------- gzip: ISA-L and zlib

// A gzip member written by hand: `flags` (FEXTRA 4, FNAME 8, FCOMMENT 16)
// with their fields, raw deflate data, then the CRC-32 and length, each
// XORed with the given masks.
std::string GzipMember(std::string_view data, uint8_t flags,
                       uint32_t crc_mask = 0, uint32_t size_mask = 0) {
  std::string out = {'\x1f', '\x8b', '\x08', static_cast<char>(flags), 0, 0, 0,
                     0,      0,      '\x03'};
  if (flags & 4) out += std::string("\x05\x00XY\x01\x00Z", 7);
  if (flags & 8) out += std::string("app.log\0", 8);
  if (flags & 16) out += std::string("a comment\0", 10);
  out += Deflate(data, -15);
  const uint32_t crc = static_cast<uint32_t>(
                           crc32(0, reinterpret_cast<const Bytef*>(data.data()),
                                 static_cast<uInt>(data.size()))) ^
                       crc_mask;
  const uint32_t size = static_cast<uint32_t>(data.size()) ^ size_mask;
  for (uint32_t v : {crc, size}) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  return out;
}

const Format& GzipWith(bool zlib_only) {
  for (const Format& f : Formats()) {
    if (f.compression == Compression::kGzip && f.zlib_only == zlib_only) {
      return f;
    }
  }
  std::abort();
}

TEST(InputTest, GzipHeaderFieldsAreSkippedByBothLibraries) {
  const std::string text = SampleText();
  const std::string packed =
      GzipMember(text, 4 | 8 | 16) + GzipMember("more\n", 8) + Gzip("last\n");
  const std::string path = WriteTemp("fields.gz", packed);
  for (bool zlib_only : {false, true}) {
    const Format& f = GzipWith(zlib_only);
    const GzipLibrary library(f);
    ASSERT_OK_AND_ASSIGN(std::string decoded, ReadFileDecoded(path));
    EXPECT_TRUE(decoded == text + "more\nlast\n") << f.label;
  }
}

TEST(InputTest, GzipReadInAnyPiecesDecodesTheSame) {
  MAPR_SKIP_UNDER_TSAN();
  // Members with and without header fields, cut into two reads at every
  // point of the first member's header and at some points beyond.
  const std::string text = SampleText().substr(0, 100000);
  const std::string packed =
      GzipMember(text, 4 | 8 | 16) + GzipMember("more\n", 8) + Gzip("last\n");
  for (bool zlib_only : {false, true}) {
    const Format& f = GzipWith(zlib_only);
    const GzipLibrary library(f);
    for (size_t cut = 1; cut < packed.size(); cut += cut < 64 ? 1 : 997) {
      std::unique_ptr<ByteStream> in = input_internal::NewDecoder(
          Compression::kGzip,
          std::make_unique<PiecesStream>(std::vector<std::string>{
              packed.substr(0, cut), packed.substr(cut)}));
      ASSERT_OK_AND_ASSIGN(std::string decoded, ReadAll(*in));
      ASSERT_TRUE(decoded == text + "more\nlast\n")
          << f.label << " cut at " << cut;
    }
  }
}

TEST(InputTest, GzipChecksumErrorsAreTheSameWithBothLibraries) {
  const std::string text = SampleText();
  struct Case {
    std::string packed;
    std::string message;
  };
  const Case cases[] = {
      {GzipMember(text, 0, /*crc_mask=*/1),
       "invalid gzip data: incorrect data check"},
      {GzipMember(text, 0, 0, /*size_mask=*/1),
       "invalid gzip data: incorrect length check"},
      // The second member's CRC: the first member's bytes come first.
      {Gzip("first\n") + GzipMember(text, 8, /*crc_mask=*/0x80000000),
       "invalid gzip data: incorrect data check"},
      {Gzip("first\n") + "\x1f", "unexpected end of gzip data"},
      {Gzip("first\n") + "\x1f\x8b", "unexpected end of gzip data"},
      {Gzip("first\n") + "\x1f\x8b\x08", "unexpected end of gzip data"},
      {Gzip("first\n") + "garbage", "trailing garbage after gzip data"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteTemp("checksum.gz", c.packed);
    std::string want_before;
    for (bool zlib_only : {false, true}) {
      const Format& f = GzipWith(zlib_only);
      const GzipLibrary library(f);
      std::string before;
      EXPECT_THAT(ReadFileDecoded(path, &before),
                  StatusIs(absl::StatusCode::kDataLoss, c.message))
          << f.label << ": " << c.message;
      // Both return the same bytes before the error.
      if (!zlib_only) {
        want_before = before;
      } else {
        EXPECT_TRUE(before == want_before) << c.message;
      }
    }
  }
}

// ---------------------------------------------------------- DecoderThread

absl::StatusOr<std::string> ReadFileOnThread(
    const std::string& path, std::string* before_error = nullptr) {
  absl::StatusOr<std::unique_ptr<ByteStream>> in =
      OpenInput({.path = path, .decompress_on_thread = true});
  if (!in.ok()) return in.status();
  return ReadAll(**in, before_error);
}

// More than the ring of buffers holds (about 5 MB of lines).
std::string LargeText() {
  std::string s;
  for (int i = 0; i < 4; ++i) s += SampleText();
  return s;
}

TEST(InputTest, DecoderThreadReadsWhatTheDecoderReads) {
  const std::string text = LargeText();
  for (const Format& f : Formats()) {
    const GzipLibrary library(f);
    const std::string packed =
        f.compress(text.substr(0, 1000)) + f.compress(text.substr(1000));
    const std::string path = WriteTemp(absl::StrCat("thread.", f.name), packed);
    InputCounters counters;
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<ByteStream> in,
        OpenInput({.path = path, .decompress_on_thread = true}, &counters));
    ASSERT_OK_AND_ASSIGN(std::string decoded, ReadAll(*in));
    EXPECT_TRUE(decoded == text) << f.label;
    EXPECT_EQ(counters.raw_bytes.load(), packed.size()) << f.label;
    // The end stays the end.
    char c;
    ASSERT_OK_AND_ASSIGN(size_t after_end, in->Read(&c, 1));
    EXPECT_EQ(after_end, 0u) << f.label;
  }
}

TEST(InputTest, DecoderThreadGivesTheBytesBeforeAnErrorThenTheError) {
  const std::string text = LargeText();
  for (const Format& f : CompressedFormats()) {
    const GzipLibrary library(f);
    const std::string packed = f.compress(text);
    const std::string path = WriteTemp(absl::StrCat("thread-cut.", f.name),
                                       packed.substr(0, packed.size() / 2));
    std::string want_before;
    const absl::StatusOr<std::string> want =
        ReadFileDecoded(path, &want_before);
    ASSERT_FALSE(want.ok()) << f.label;
    std::string before;
    EXPECT_EQ(ReadFileOnThread(path, &before).status(), want.status())
        << f.label;
    EXPECT_GT(before.size(), 0u) << f.label;
    EXPECT_TRUE(before == want_before) << f.label;
  }
}

TEST(InputTest, ReadLinesOverADecoderThreadCutsTheSameLines) {
  // ReadLines() parses a DecoderThread's buffers in place: the same lines,
  // NUL counts and too-long lines as through the copying path, also for
  // lines that span the worker's buffers.
  std::string text = LargeText();
  for (size_t i = 1; i < text.size(); i += 700001) {
    text.insert(i, std::string("nul\0here", 8));
    text.insert(i + 100, std::string(3000, 'y'));
  }
  for (const Format& f : CompressedFormats()) {
    const GzipLibrary library(f);
    const std::string path =
        WriteTemp(absl::StrCat("lines.", f.name), f.compress(text));
    std::vector<std::string> want_lines;
    InputCounters want;
    LineSplitter want_splitter(/*max_line_bytes=*/2000);
    {
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<ByteStream> in,
                           OpenInput({.path = path}));
      absl::Status s;
      want_lines = CollectLines(*in, want_splitter, &s, &want);
      ASSERT_OK(s);
    }
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<ByteStream> in,
        OpenInput({.path = path, .decompress_on_thread = true}));
    InputCounters got;
    LineSplitter splitter(/*max_line_bytes=*/2000);
    absl::Status s;
    const std::vector<std::string> lines =
        CollectLines(*in, splitter, &s, &got);
    ASSERT_OK(s);
    EXPECT_TRUE(lines == want_lines) << f.label;
    EXPECT_EQ(got.lines.load(), want.lines.load()) << f.label;
    EXPECT_EQ(got.lines_with_nul.load(), want.lines_with_nul.load()) << f.label;
    EXPECT_GT(got.lines_with_nul.load(), 0u) << f.label;
    EXPECT_EQ(splitter.too_long_lines(), want_splitter.too_long_lines())
        << f.label;
    EXPECT_GT(splitter.too_long_lines(), 0u) << f.label;
  }
}

TEST(InputTest, DecoderThreadStopsWhenDestroyedAtAnyPoint) {
  const std::string path = WriteTemp("thread-stop.zst", Zstd(LargeText()));
  std::vector<char> buf(1000);
  for (int reads : {0, 1, 2, 100}) {
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<ByteStream> in,
        OpenInput({.path = path, .decompress_on_thread = true}));
    for (int i = 0; i < reads; ++i) {
      ASSERT_OK(in->Read(buf.data(), buf.size()).status());
    }
    // Destroyed while the worker decodes or waits for a free buffer.
  }
  // And while ReadLines() stops at its sink's error.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ByteStream> in,
                       OpenInput({.path = path, .decompress_on_thread = true}));
  LineSplitter splitter;
  EXPECT_THAT(ReadLines(*in, splitter,
                        [](std::span<const std::string_view>) {
                          return absl::CancelledError("stop");
                        }),
              StatusIs(absl::StatusCode::kCancelled, "stop"));
}

TEST(InputTest, DecoderThreadDoesNotWaitForAPipesWriterWhenDestroyed) {
  const std::string path = TempPath("thread.fifo");
  std::filesystem::remove(path);
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  // Opened for writing too (Linux allows O_RDWR on a FIFO), so that
  // OpenInput's open() does not wait for a writer and the pipe never ends.
  const int writer = open(path.c_str(), O_RDWR);
  ASSERT_GE(writer, 0);
  // Less than the pipe holds (64 KiB), so that write() does not wait.
  const std::string part = Gzip(SampleText()).substr(0, 32 << 10);
  ASSERT_EQ(write(writer, part.data(), part.size()),
            static_cast<ssize_t>(part.size()));
  {
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<ByteStream> in,
        OpenInput({.path = path, .decompress_on_thread = true}));
    // The lines decoded so far arrive although the pipe has not ended.
    std::vector<char> buf(1000);
    ASSERT_OK_AND_ASSIGN(size_t n, in->Read(buf.data(), buf.size()));
    EXPECT_GT(n, 0u);
    // The worker now waits for the pipe: destroying must not hang.
  }
  close(writer);
}

// ------------------------------------------------------------- ReadLines

TEST(InputTest, ReadLinesCutsLinesAcrossReads) {
  PiecesStream in({"a\nb", "b\r\n", "cc", "c\nlast"});
  LineSplitter splitter;
  InputCounters counters;
  absl::Status s;
  EXPECT_THAT(CollectLines(in, splitter, &s, &counters),
              ::testing::ElementsAre("a", "bb\r", "ccc", "last"));
  EXPECT_OK(s);
  EXPECT_EQ(counters.lines.load(), 4u);
  EXPECT_EQ(counters.lines_with_nul.load(), 0u);
}

TEST(InputTest, ReadLinesDropsTheUnfinishedLineOnAReadError) {
  PiecesStream in({"a\nb\npart"}, absl::DataLossError("unexpected end"));
  LineSplitter splitter;
  absl::Status s;
  EXPECT_THAT(CollectLines(in, splitter, &s), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kDataLoss, "unexpected end"));
  EXPECT_FALSE(splitter.has_partial_line());
}

TEST(InputTest, ReadLinesCountsLinesWithNulBytes) {
  using namespace std::string_literals;
  // NUL bytes inside a read's lines, in a line carried over several reads
  // (in its first, middle or last piece), in a too-long line (not counted:
  // it is no line), and in a final line without '\n'.
  PiecesStream in({
      "clean\na\0b\nclean\n"s,
      "carried \0"s,
      "over "s,
      "reads\nclean\n"s,
      "start "s,
      "mid\0dle "s,
      "end\n"s,
      "start "s,
      "middle "s,
      "end\0\n"s,
      "toolong\0toolongtoolongtoolong\n"s,
      "clean\nlast\0"s,
  });
  LineSplitter splitter(/*max_line_bytes=*/20);
  InputCounters counters;
  absl::Status s;
  std::vector<std::string> lines = CollectLines(in, splitter, &s, &counters);
  ASSERT_OK(s);
  const size_t with_nul = static_cast<size_t>(std::count_if(
      lines.begin(), lines.end(),
      [](const std::string& l) { return l.find('\0') != std::string::npos; }));
  EXPECT_EQ(with_nul, 5u);
  EXPECT_EQ(counters.lines_with_nul.load(), 5u);
  EXPECT_EQ(counters.lines.load(), lines.size() + 1);  // + the too-long one.
  EXPECT_EQ(splitter.too_long_lines(), 1u);
}

TEST(InputTest, ReadLinesStopsAtTheSinksError) {
  PiecesStream in({"a\nb\n", "c\n"});
  LineSplitter splitter;
  int calls = 0;
  EXPECT_THAT(ReadLines(in, splitter,
                        [&](std::span<const std::string_view>) {
                          ++calls;
                          return absl::ResourceExhaustedError("full");
                        }),
              StatusIs(absl::StatusCode::kResourceExhausted, "full"));
  EXPECT_EQ(calls, 1);
}

TEST(InputTest, CountTooLongLinesCountsReadAndTooLong) {
  LineCounters c;
  CountTooLongLines(3, c);
  EXPECT_EQ(c.lines_read, 3u);
  EXPECT_EQ(c.lines_too_long, 3u);
}

// A stream of "a\n", then `length` bytes 'x' and "\nb\n", produced as read
// (never held whole), counting its reads.
class LongLineStream final : public ByteStream {
 public:
  explicit LongLineStream(size_t length) : length_(length) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    ++reads_;
    const size_t total = length_ + 5;
    const size_t k = std::min(n, total - pos_);
    for (size_t i = 0; i < k; ++i, ++pos_) {
      buf[i] = pos_ == 1 || pos_ == length_ + 2 || pos_ == length_ + 4 ? '\n'
               : pos_ == 0                                             ? 'a'
               : pos_ == length_ + 3                                   ? 'b'
                                                                       : 'x';
    }
    return k;
  }
  size_t reads() const { return reads_; }

 private:
  size_t length_;
  size_t pos_ = 0;
  size_t reads_ = 0;
};

struct LongLineCost {
  size_t reads = 0;
  size_t allocations = 0;
  size_t allocated_bytes = 0;
};

LongLineCost ReadOneLongLine(size_t length) {
  LongLineStream in(length);
  LineSplitter splitter(/*max_line_bytes=*/length);
  size_t lines = 0;
  size_t longest = 0;
  const size_t allocations = mapr::testing::AllocationCount();
  const size_t bytes = mapr::testing::AllocatedBytes();
  absl::Status s =
      ReadLines(in, splitter, [&](std::span<const std::string_view> batch) {
        for (std::string_view l : batch) {
          ++lines;
          longest = std::max(longest, l.size());
        }
        return absl::OkStatus();
      });
  LongLineCost cost;
  cost.allocations = mapr::testing::AllocationCount() - allocations;
  cost.allocated_bytes = mapr::testing::AllocatedBytes() - bytes;
  cost.reads = in.reads();
  EXPECT_OK(s);
  EXPECT_EQ(lines, 3u);
  EXPECT_EQ(longest, length);
  return cost;
}

// The CLI was once quadratic on long lines (every read copied all that was
// pending). Counted, not timed: a line spread over many reads is read once
// (reads linear in its length) and completed in a buffer that grows
// geometrically, so the bytes allocated stay within a small multiple of
// the line (quadratic growth would allocate length^2 / (2 * kReadBytes):
// 16x more for a line 4x longer) and the allocations grow with log(length).
TEST(InputTest, LongLineCostsWorkLinearInItsLength) {
  MAPR_SKIP_UNDER_TSAN();
  constexpr size_t kMiB = size_t{1} << 20;
  const LongLineCost small = ReadOneLongLine(16 * kMiB);
  const LongLineCost large = ReadOneLongLine(64 * kMiB);
  EXPECT_EQ(small.reads, (16 * kMiB + 5 + kReadBytes - 1) / kReadBytes + 1);
  EXPECT_EQ(large.reads, (64 * kMiB + 5 + kReadBytes - 1) / kReadBytes + 1);
  EXPECT_LE(large.allocated_bytes, 5 * 64 * kMiB);
  const double ratio = static_cast<double>(large.allocated_bytes) /
                       static_cast<double>(small.allocated_bytes);
  EXPECT_LT(ratio, 8.0) << small.allocated_bytes << " -> "
                        << large.allocated_bytes;
  EXPECT_LE(large.allocations, small.allocations + 8);
}

// -------------------------------------------------------------- PushFile

constexpr char kGroupByLine[] =
    "select $line,count($line) group by $line order by count($line)";

// The result and counters of `query` over `path` through PushFile, with
// lines of up to `max_line_bytes`.
absl::StatusOr<std::pair<std::string, LineCounters>> ViaPushFile(
    const std::string& path, size_t max_line_bytes) {
  absl::StatusOr<Query> q = Query::Compile(kGroupByLine);
  if (!q.ok()) return q.status();
  AggregatorOptions options;
  options.max_line_bytes = max_line_bytes;
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, options);
  if (!agg.ok()) return agg.status();
  if (absl::Status s = PushFile(*agg, path); !s.ok()) return s;
  if (absl::Status s = agg->FinishInput(); !s.ok()) return s;
  absl::StatusOr<ResultTable> r = agg->TakeResult();
  if (!r.ok()) return r.status();
  return std::make_pair(r->ToCsv(), r->stats());
}

absl::StatusOr<std::pair<std::string, LineCounters>> ViaPushBytes(
    std::string_view data, size_t max_line_bytes) {
  absl::StatusOr<Query> q = Query::Compile(kGroupByLine);
  if (!q.ok()) return q.status();
  AggregatorOptions options;
  options.max_line_bytes = max_line_bytes;
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, options);
  if (!agg.ok()) return agg.status();
  if (absl::Status s = agg->PushBytes(data); !s.ok()) return s;
  if (absl::Status s = agg->EndSource(); !s.ok()) return s;
  if (absl::Status s = agg->FinishInput(); !s.ok()) return s;
  absl::StatusOr<ResultTable> r = agg->TakeResult();
  if (!r.ok()) return r.status();
  return std::make_pair(r->ToCsv(), r->stats());
}

TEST(InputTest, PushFileEqualsPushBytesOfTheDecompressedBytes) {
  // Repeated lines, CRLF, empty lines, lines around the limit of 64 bytes
  // (too long ones among them), NUL bytes and no final newline.
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    absl::StrAppend(&text, "line ", i % 97, i % 5 == 0 ? "\r\n" : "\n");
    if (i % 1000 == 0)
      absl::StrAppend(&text, std::string(60 + i % 9, 'x'), "\n");
    if (i % 3000 == 0)
      absl::StrAppend(&text, "\n", std::string("nul\0!", 5), "\n");
  }
  text += "the end";
  ASSERT_OK_AND_ASSIGN(auto want, ViaPushBytes(text, 64));
  EXPECT_GT(want.second.lines_too_long, 0u);
  for (const Format& f : Formats()) {
    const GzipLibrary library(f);
    const std::string path =
        WriteTemp(absl::StrCat("push.", f.name), f.compress(text));
    ASSERT_OK_AND_ASSIGN(auto got, ViaPushFile(path, 64));
    EXPECT_EQ(got.first, want.first) << f.label;
    EXPECT_EQ(got.second, want.second) << f.label;
  }
}

TEST(InputTest, PushFileErrorsNameTheFile) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kGroupByLine));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  const std::string missing = TempPath("no-such.log");
  EXPECT_THAT(PushFile(agg, missing),
              StatusIs(absl::StatusCode::kNotFound,
                       missing + ": No such file or directory"));
  const std::string dir = ::testing::TempDir();
  EXPECT_THAT(PushFile(agg, dir),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       dir + ": Is a directory"));
  // Input errors are not the aggregator's: it goes on.
  EXPECT_OK(agg.PushBytes("ok\n"));
  EXPECT_EQ(agg.stats().lines_read, 1u);
}

TEST(InputTest, PushFileOfATruncatedFileKeepsTheCompleteLines) {
  std::string text;
  for (int i = 0; i < 50000; ++i) absl::StrAppend(&text, "line ", i, "\n");
  const std::string packed = Xz(text);
  const std::string path =
      WriteTemp("truncated.xz", packed.substr(0, packed.size() / 2));
  std::string before;
  ASSERT_FALSE(ReadFileDecoded(path, &before).ok());
  const uint64_t complete =
      static_cast<uint64_t>(std::count(before.begin(), before.end(), '\n'));
  ASSERT_GT(complete, 0u);

  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line) group by *"));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  EXPECT_THAT(PushFile(agg, path, /*source=*/7),
              StatusIs(absl::StatusCode::kDataLoss,
                       path + ": unexpected end of xz data"));
  // The unfinished line was dropped, not kept for FinishInput.
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.stats().lines_read, complete);
}

TEST(InputTest, PushFileIntoAFinishedAggregatorFailsBeforeOpening) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kGroupByLine));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  ASSERT_OK(agg.FinishInput());
  EXPECT_THAT(PushFile(agg, TempPath("no-such.log")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("after FinishInput()")));
}

TEST(InputTest, PushFileContinuesAndEndsItsSource) {
  const std::string path = WriteTemp("continue.log", Bzip2("rest\nnext"));
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kGroupByLine));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  ASSERT_OK(agg.PushBytes("first\nun", /*source=*/3));
  ASSERT_OK(PushFile(agg, path, /*source=*/3));
  // "next" was ended by PushFile: this is a line of its own.
  ASSERT_OK(agg.PushBytes("more", /*source=*/3));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line)\nfirst,1\nmore,1\nnext,1\nunrest,1\n");
}

TEST(InputTest, PushFileEndsItsSourceParserAndName) {
  // Two csv files through one source id: each is a new input with its own
  // header, and lines pushed afterwards have no $file.
  const std::string a = WriteTemp("a.csv", "n,x\n1,a\n2,b\n");
  const std::string b = WriteTemp("b.csv.bz2", Bzip2("x,n\nc,30\n"));
  ASSERT_OK_AND_ASSIGN(
      Query q, Query::Compile("select $file,sum(n),count($line) group by "
                              "$file logformat csv"));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  ASSERT_OK(PushFile(agg, a, /*source=*/6));
  ASSERT_OK(PushFile(agg, b, /*source=*/6));
  ASSERT_OK(agg.PushLines({"n", "400"}, /*source=*/6));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            absl::StrCat("$file,sum(n),count($line)\n,400.000000,1\n", a,
                         ",3.000000,2\n", b, ",30.000000,1\n"));
  EXPECT_EQ(r.stats().lines_header, 3u);
}

TEST(InputTest, PushFileNamesTheSourceForFile) {
  const std::string a = WriteTemp("a.log", "x\ny\n");
  const std::string b = WriteTemp("b.log.bz2", Bzip2("z\n"));
  ASSERT_OK_AND_ASSIGN(
      Query q, Query::Compile("select $file,count($line) group by $file"));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  ASSERT_OK(PushFile(agg, a, /*source=*/1));
  ASSERT_OK(PushFile(agg, b, /*source=*/2));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            absl::StrCat("$file,count($line)\n", a, ",2\n", b, ",1\n"));
}

}  // namespace
}  // namespace mapr
