// The `logfmt` log format (docs/query-language.md, "logfmt"): Heroku's
// router lines, Go's log/slog and logrus text output, and other
// `key=value key="quoted value"` logs.
//
// Pairs are separated by runs of whitespace (any byte <= ' '). A key runs to
// the first '=' or whitespace. `k=v` gives v, which runs to the next
// whitespace and may hold '=' and '"' (`url=/a?b=c` is `/a?b=c`); `k=` gives
// the empty value; a bare `k` gives `true`; `k="..."` gives the quoted text,
// whose escapes `\" \\ \/ \b \f \n \r \t \uXXXX` are decoded (any other
// backslash stays). Text right after a closing quote starts the next pair,
// as in go-logfmt. A later duplicate key wins. A quoted value without its
// closing quote makes the line malformed (go-logfmt's "unterminated quoted
// value"); everything else parses.
//
// The scan is hand-written, with no regex and no loop over bytes: 64-byte
// masks of the line whose bits are walked (see ParseLine). Quoted values
// are unescaped into FieldBatch memory only when requested and holding a
// backslash. A query that requests no key (count($line) alone) only has to
// find unterminated quotes: a line without any '"' is parsed after one
// memchr. tests/testing/logfmt_reference.h reads the same rules byte by
// byte; the unit test and the fuzzer compare the two.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapr/log_format.h"
#include "runtime/key_table.h"
#include "runtime/log_formats.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mapr::runtime {
namespace {

// The value of a bare key.
constexpr std::string_view kTrue = "true";

[[maybe_unused]] inline bool IsSpace(char c) {
  return static_cast<unsigned char>(c) <= ' ';
}

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the `\uXXXX` at s[i] (s[i] == '\\'), or -1.
inline int32_t ParseU16(std::string_view s, size_t i) {
  if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return -1;
  int32_t u = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    const int d = HexDigit(s[k]);
    if (d < 0) return -1;
    u = u * 16 + d;
  }
  return u;
}

inline size_t PutUtf8(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

// Decodes the escapes of a quoted value into batch memory. Every escape is
// at least as long as what it decodes to (`\uXXXX`: 6 bytes for at most 3;
// a surrogate pair: 12 for 4), so s.size() bytes suffice. REQUIRES: `s`
// holds a backslash.
std::string_view Unescape(std::string_view s, FieldBatch& fields) {
  char* const out = fields.Allocate(s.size());
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c != '\\' || i + 1 == s.size()) {
      out[n++] = c;
      continue;
    }
    char decoded;
    switch (s[i + 1]) {
      case '"':
      case '\\':
      case '/':
        decoded = s[i + 1];
        break;
      case 'b':
        decoded = '\b';
        break;
      case 'f':
        decoded = '\f';
        break;
      case 'n':
        decoded = '\n';
        break;
      case 'r':
        decoded = '\r';
        break;
      case 't':
        decoded = '\t';
        break;
      case 'u': {
        int32_t u = ParseU16(s, i);
        if (u < 0) {
          out[n++] = c;  // Not \uXXXX: kept as it is.
          continue;
        }
        i += 5;
        uint32_t cp = static_cast<uint32_t>(u);
        if (cp >= 0xD800 && cp < 0xE000) {
          // A high surrogate followed by a low one is one code point; any
          // other surrogate is U+FFFD, as in Go.
          const int32_t low = cp < 0xDC00 ? ParseU16(s, i + 1) : -1;
          if (low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) +
                 (static_cast<uint32_t>(low) - 0xDC00);
            i += 6;
          } else {
            cp = 0xFFFD;
          }
        }
        n += PutUtf8(cp, out + n);
        continue;
      }
      default:
        out[n++] = c;  // An unknown escape is kept as it is.
        continue;
    }
    out[n++] = decoded;
    ++i;
  }
  return n == 0 ? FieldBatch::kEmptyValue : std::string_view(out, n);
}

class LogfmtParser : public LogFormatParser {
 public:
  explicit LogfmtParser(std::span<const std::string> fields)
      : keys_(fields), columns_(fields.size()) {}
  LogfmtParser(const LogfmtParser&) = delete;
  LogfmtParser& operator=(const LogfmtParser&) = delete;

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    if (keys_.empty()) {
      // Only unterminated quotes make a line malformed, and a line without
      // '"' has none.
      for (size_t row = 0; row < lines.size(); ++row) {
        const std::string_view line = lines[row];
        const bool quotes =
            !line.empty() &&
            std::memchr(line.data(), '"', line.size()) != nullptr;
        outcomes[row] = !quotes || ParseLine<false>(line, row, fields)
                            ? LineOutcome::kParsed
                            : LineOutcome::kMalformed;
      }
      return;
    }
    for (size_t row = 0; row < lines.size(); ++row) {
      if (!ParseLine<true>(lines[row], row, fields)) {
        // Values written before the bad quote are dropped.
        for (std::string_view* column : columns_) column[row] = {};
        outcomes[row] = LineOutcome::kMalformed;
        continue;
      }
      keys_.CopyAliases(columns_.data(), row);
      outcomes[row] = LineOutcome::kParsed;
    }
  }

 private:
  // Where ParseLine is between two bytes of a line.
  enum class State : uint8_t {
    kBetween,  // Before a pair (in whitespace).
    kKey,      // In a key.
    kValue,    // In a plain value.
    kQuoted,   // In a quoted value.
  };

  // Returns false for an unterminated quote. kEmit: write the requested
  // keys' values (else only check the quotes).
  //
  // One pass over 64-byte blocks, as the default format's parser makes:
  // each block becomes three masks (bytes <= ' ', '=' and '"'), and every
  // boundary is the lowest set bit of one of them at or after `pos`. So a
  // pair costs a few bit operations on registers, not a load-and-scan per
  // token, and the only byte loads (is the stop an '='? does the value open
  // with '"'? is a quote escaped?) feed predicted branches, not the chain
  // of positions. A pair may run on into the next block: `state` says
  // where the scan stands.
  template <bool kEmit>
  bool ParseLine(std::string_view line, size_t row, FieldBatch& fields) {
    const size_t n = line.size();
    if (n == 0) return true;  // data() may be null.
    const char* const base = line.data();
    State state = State::kBetween;
    size_t pos = 0;    // The next byte to look at.
    size_t key = 0;    // The current pair's key starts here...
    size_t name = 0;   // ...and ends here;
    size_t value = 0;  // its value (inside the quotes) starts here.
    for (size_t block = 0; block < n; block += 64) {
      uint64_t space, eq, quote;
      BlockMasks(base, n, block, &space, &eq, &quote);
      const uint64_t word =
          ~space &
          (n - block >= 64 ? ~uint64_t{0} : (uint64_t{1} << (n - block)) - 1);
      if (pos < block) pos = block;
      while (true) {
        if (state == State::kBetween) {
          const uint64_t w = From(word, block, pos);
          if (w == 0) break;
          pos = key = block + static_cast<size_t>(std::countr_zero(w));
          state = State::kKey;
        }
        if (state == State::kKey) {
          const uint64_t w = From(space | eq, block, pos);
          if (w == 0) break;
          const size_t stop = block + static_cast<size_t>(std::countr_zero(w));
          name = stop;
          if (base[stop] != '=') {
            if constexpr (kEmit) Emit(Name(base, key, name), kTrue, row);
            pos = stop;
            state = State::kBetween;
            continue;
          }
          value = stop + 1;
          if (value < n && base[value] == '"') {
            pos = ++value;
            state = State::kQuoted;
          } else {
            pos = value;
            state = State::kValue;
          }
        }
        if (state == State::kValue) {
          const uint64_t w = From(space, block, pos);
          if (w == 0) break;
          pos = block + static_cast<size_t>(std::countr_zero(w));
          if constexpr (kEmit) EmitPlain(base, key, name, value, pos, row);
          state = State::kBetween;
          continue;
        }
        if (state == State::kQuoted) {
          const uint64_t w = From(quote, block, pos);
          if (w == 0) break;
          const size_t close = block + static_cast<size_t>(std::countr_zero(w));
          pos = close + 1;
          if (Escaped(base, value, close)) continue;
          if constexpr (kEmit) {
            EmitQuoted(Name(base, key, name), base + value, close - value, row,
                       fields);
          }
          // Text right after the closing quote starts the next pair.
          state = State::kBetween;
        }
      }
    }
    // The line's end ends the last pair, but not a quoted value.
    if (state == State::kQuoted) return false;
    if constexpr (kEmit) {
      if (state == State::kKey) Emit(Name(base, key, n), kTrue, row);
      if (state == State::kValue) EmitPlain(base, key, name, value, n, row);
    }
    return true;
  }

  // m's bits at and after position `pos` of the block starting at `block`
  // (pos >= block); 0 once pos is past the block.
  [[gnu::always_inline]] static uint64_t From(uint64_t m, size_t block,
                                              size_t pos) {
    const size_t i = pos - block;
    return i < 64 ? m & (~uint64_t{0} << i) : 0;
  }

  static std::string_view Name(const char* base, size_t begin, size_t end) {
    return std::string_view(base + begin, end - begin);
  }

  // Whether the '"' at `close` is escaped: after an odd run of backslashes
  // that starts at or after `open`.
  static bool Escaped(const char* base, size_t open, size_t close) {
    size_t b = close;
    while (b > open && base[b - 1] == '\\') --b;
    return ((close - b) & 1) != 0;
  }

  void EmitPlain(const char* base, size_t key, size_t name, size_t value,
                 size_t end, size_t row) {
    Emit(Name(base, key, name),
         value == end ? FieldBatch::kEmptyValue
                      : std::string_view(base + value, end - value),
         row);
  }

  void EmitQuoted(std::string_view name, const char* text, size_t size,
                  size_t row, FieldBatch& fields) {
    const uint32_t column = keys_.Find(name);
    if (column == KeyTable::kNotFound) return;
    std::string_view value = FieldBatch::kEmptyValue;
    if (size > 0) {
      value = std::string_view(text, size);
      if (std::memchr(text, '\\', size) != nullptr) {
        value = Unescape(value, fields);
      }
    }
    columns_[column][row] = value;
  }

  // The masks of the bytes [block, min(block + 64, n)) of the line at
  // `base`: bit i of *space is set if the byte is <= ' ', of *eq if it is
  // '=', of *quote if it is '"'. No bit past the line's end is set.
  static void BlockMasks(const char* base, size_t n, size_t block,
                         uint64_t* space, uint64_t* eq, uint64_t* quote) {
    const size_t left = n - block;
    if (left >= 64) {
      Masks64(base + block, space, eq, quote);
      return;
    }
    if (n >= 64) {
      // The line's last 64 bytes, shifted: no copy.
      Masks64(base + n - 64, space, eq, quote);
      *space >>= 64 - left;
      *eq >>= 64 - left;
      *quote >>= 64 - left;
      return;
    }
    alignas(16) char tail[64] = {};
    std::memcpy(tail, base, n);
    Masks64(tail, space, eq, quote);
    const uint64_t valid = (uint64_t{1} << left) - 1;
    *space &= valid;  // The zero padding would count as whitespace.
  }

  // Bit i of *space is set if p[i] <= ' ', of *eq if p[i] == '=', of *quote
  // if p[i] == '"', for i < 64. Reads exactly 64 bytes.
  static void Masks64(const char* p, uint64_t* space, uint64_t* eq,
                      uint64_t* quote) {
#if defined(__SSE2__)
    // Unrolled by hand: GCC at -O2 keeps the loop.
    const __m128i vs = _mm_set1_epi8(' ');
    const __m128i ve = _mm_set1_epi8('=');
    const __m128i vq = _mm_set1_epi8('"');
    const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i v1 =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    const __m128i v2 =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32));
    const __m128i v3 =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48));
    const auto bits = [](__m128i m) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(m)));
    };
    // v <= ' ' (unsigned) exactly when min(v, ' ') == v.
    const auto le = [&](__m128i v) {
      return bits(_mm_cmpeq_epi8(_mm_min_epu8(v, vs), v));
    };
    const auto is = [&](__m128i v, __m128i c) {
      return bits(_mm_cmpeq_epi8(v, c));
    };
    *space = le(v0) | (le(v1) << 16) | (le(v2) << 32) | (le(v3) << 48);
    *eq = is(v0, ve) | (is(v1, ve) << 16) | (is(v2, ve) << 32) |
          (is(v3, ve) << 48);
    *quote = is(v0, vq) | (is(v1, vq) << 16) | (is(v2, vq) << 32) |
             (is(v3, vq) << 48);
#else
    uint64_t s = 0, e = 0, q = 0;
    for (int i = 0; i < 64; ++i) {
      s |= static_cast<uint64_t>(IsSpace(p[i])) << i;
      e |= static_cast<uint64_t>(p[i] == '=') << i;
      q |= static_cast<uint64_t>(p[i] == '"') << i;
    }
    *space = s;
    *eq = e;
    *quote = q;
#endif
  }

  [[gnu::always_inline]] void Emit(std::string_view name,
                                   std::string_view value, size_t row) {
    const uint32_t column = keys_.Find(name);
    if (column != KeyTable::kNotFound) columns_[column][row] = value;
  }

  RequestedKeys keys_;
  // fields.column(i) for the current batch.
  std::vector<std::string_view*> columns_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewLogfmtLogFormat() {
  // Keys are open-ended: never warn.
  return std::make_shared<SimpleLogFormat<LogfmtParser>>(
      "logfmt",
      "logfmt lines, k=v k=\"quoted value\" k ...: each key is a field "
      "(Heroku, Go slog/logrus)",
      "at=info method=GET path=\"/a b\" status=200 service=18ms", std::nullopt);
}

}  // namespace mapr::runtime
