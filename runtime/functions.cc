#include "runtime/functions.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "re2/re2.h"

namespace mapr::runtime {
namespace {

// MD5 per RFC 1321, one-shot. Words are read and written little-endian byte by
// byte, so the code does not depend on the host's byte order.

// kSine[i] = floor(2^32 * abs(sin(i + 1))).
constexpr uint32_t kSine[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
    0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
    0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

// Left-rotation amounts, four per round.
constexpr int kShift[4][4] = {
    {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

constexpr uint32_t RotateLeft(uint32_t x, int n) {
  return (x << n) | (x >> (32 - n));
}

uint32_t LoadLittleEndian32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
         uint32_t{p[3]} << 24;
}

struct Md5State {
  uint32_t a = 0x67452301;
  uint32_t b = 0xefcdab89;
  uint32_t c = 0x98badcfe;
  uint32_t d = 0x10325476;

  // Mixes one 64-byte block into the state.
  void Transform(const unsigned char* block) {
    uint32_t m[16];
    for (int i = 0; i < 16; ++i) m[i] = LoadLittleEndian32(block + 4 * i);
    uint32_t aa = a, bb = b, cc = c, dd = d;
    // One step: f is the round's boolean function of (bb, cc, dd), g the
    // index of the message word.
    auto step = [&](uint32_t f, int i, int g, int shift) {
      const uint32_t sum = aa + f + kSine[i] + m[g];
      aa = dd;
      dd = cc;
      cc = bb;
      bb = bb + RotateLeft(sum, shift);
    };
    for (int i = 0; i < 16; ++i) {
      step((bb & cc) | (~bb & dd), i, i, kShift[0][i % 4]);
    }
    for (int i = 16; i < 32; ++i) {
      step((dd & bb) | (~dd & cc), i, (5 * i + 1) % 16, kShift[1][i % 4]);
    }
    for (int i = 32; i < 48; ++i) {
      step(bb ^ cc ^ dd, i, (3 * i + 5) % 16, kShift[2][i % 4]);
    }
    for (int i = 48; i < 64; ++i) {
      step(cc ^ (bb | ~dd), i, (7 * i) % 16, kShift[3][i % 4]);
    }
    a += aa;
    b += bb;
    c += cc;
    d += dd;
  }
};

void Md5(std::string_view in, unsigned char digest[16]) {
  Md5State state;
  const auto* data = reinterpret_cast<const unsigned char*>(in.data());
  size_t size = in.size();
  const uint64_t bit_length = static_cast<uint64_t>(size) * 8;  // mod 2^64
  for (; size >= 64; data += 64, size -= 64) state.Transform(data);

  // Padding: 0x80, zeros up to 56 mod 64, then the bit length (little-endian).
  // The tail plus padding takes one or two blocks.
  unsigned char tail[128] = {};
  if (size > 0) std::memcpy(tail, data, size);
  tail[size] = 0x80;
  const size_t tail_size = size < 56 ? 64 : 128;
  for (int i = 0; i < 8; ++i) {
    tail[tail_size - 8 + i] = static_cast<unsigned char>(bit_length >> (8 * i));
  }
  state.Transform(tail);
  if (tail_size == 128) state.Transform(tail + 64);

  const uint32_t words[4] = {state.a, state.b, state.c, state.d};
  for (int w = 0; w < 4; ++w) {
    for (int i = 0; i < 4; ++i) {
      digest[4 * w + i] = static_cast<unsigned char>(words[w] >> (8 * i));
    }
  }
}

}  // namespace

std::string_view RegexExtract(const re2::RE2& re,
                              std::string_view in) noexcept {
  const re2::StringPiece text(in.data(), in.size());
  re2::StringPiece match[2];
  const int n = re.NumberOfCapturingGroups() > 0 ? 2 : 1;
  if (!re.Match(text, 0, text.size(), RE2::UNANCHORED, match, n)) {
    return std::string_view();
  }
  const re2::StringPiece& m = match[n - 1];
  if (m.data() == nullptr) return std::string_view();
  // An empty match still points into `in`: a present, empty value.
  return std::string_view(m.data(), m.size());
}

void Md5Hex(std::string_view in, char out[kMd5HexSize]) noexcept {
  static constexpr char kHex[] = "0123456789abcdef";
  unsigned char digest[16];
  Md5(in, digest);
  for (int i = 0; i < 16; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xf];
  }
}

void MaskDigits(std::string_view in, char* out) noexcept {
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    out[i] = (c >= '0' && c <= '9') ? '.' : c;
  }
}

std::string_view Substr(std::string_view in, int64_t start,
                        int64_t length) noexcept {
  const int64_t size = static_cast<int64_t>(in.size());
  int64_t begin = start > 0 ? start - 1 : size + start;
  if (begin < 0) begin = 0;
  if (begin > size) begin = size;
  int64_t end = length < 0 ? size : begin + length;
  if (end > size) end = size;
  return in.substr(static_cast<size_t>(begin),
                   static_cast<size_t>(end - begin));
}

std::string_view SplitPiece(std::string_view in, std::string_view separator,
                            int64_t piece) noexcept {
  if (piece < 0) {  // From the end: -1 is the last of the n pieces.
    int64_t n = 1;
    for (size_t at = in.find(separator); at != std::string_view::npos;
         at = in.find(separator, at + separator.size())) {
      ++n;
    }
    piece += n + 1;
    if (piece < 1) return std::string_view();
  }
  size_t at = 0;
  for (int64_t k = 1; k < piece; ++k) {
    const size_t next = in.find(separator, at);
    if (next == std::string_view::npos) return std::string_view();
    at = next + separator.size();
  }
  const size_t end = in.find(separator, at);
  // (A view into `in`, never null: in.data() + at.)
  return std::string_view(
      in.data() + at, (end == std::string_view::npos ? in.size() : end) - at);
}

}  // namespace mapr::runtime
