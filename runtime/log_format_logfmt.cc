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
// The scan is hand-written: short byte loops for keys and plain values,
// memchr for quoted ones. Quoted values are unescaped into FieldBatch memory
// only when requested and holding a backslash. A query that requests no key
// (count($line) alone) only has to find unterminated quotes: a line without
// any '"' is parsed after one memchr.
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

namespace mapr::runtime {
namespace {

// The value of a bare key.
constexpr std::string_view kTrue = "true";

inline bool IsSpace(char c) { return static_cast<unsigned char>(c) <= ' '; }

// SWAR (8 bytes per step) searches. In a word x, bit 7 of byte i of
// LessThan21(x) is set if byte i is < 0x21 (<= ' '), of Equal(x, c) if byte
// i is c. Borrows only run upwards, so the lowest set bit is exact (higher
// ones may be false), which is all a search needs.
constexpr uint64_t kOnes = 0x0101010101010101;
constexpr uint64_t kHighs = 0x8080808080808080;
inline uint64_t LessThan21(uint64_t x) { return (x - kOnes * 0x21) & ~x & kHighs; }
inline uint64_t Equal(uint64_t x, char c) {
  const uint64_t y = x ^ (kOnes * static_cast<uint8_t>(c));
  return (y - kOnes) & ~y & kHighs;
}
// 8 bytes, the first in the lowest bits.
inline uint64_t Load8(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    x = __builtin_bswap64(x);
  }
  return x;
}
inline const char* FirstFlagged(const char* p, uint64_t m) {
  return p + (std::countr_zero(m) >> 3);
}

// The first byte at or after p that is whitespace; end if none.
inline const char* FindSpace(const char* p, const char* end) {
  for (; end - p >= 8; p += 8) {
    const uint64_t m = LessThan21(Load8(p));
    if (m != 0) return FirstFlagged(p, m);
  }
  while (p < end && !IsSpace(*p)) ++p;
  return p;
}

// The first byte at or after p that is whitespace or '='; end if none.
inline const char* FindKeyEnd(const char* p, const char* end) {
  for (; end - p >= 8; p += 8) {
    const uint64_t x = Load8(p);
    const uint64_t m = LessThan21(x) | Equal(x, '=');
    if (m != 0) return FirstFlagged(p, m);
  }
  while (p < end && !IsSpace(*p) && *p != '=') ++p;
  return p;
}

// The first '"' at or after p; nullptr if none.
inline const char* FindQuote(const char* p, const char* end) {
  for (; end - p >= 8; p += 8) {
    const uint64_t m = Equal(Load8(p), '"');
    if (m != 0) return FirstFlagged(p, m);
  }
  for (; p < end; ++p) {
    if (*p == '"') return p;
  }
  return nullptr;
}

// The closing quote of a quoted value whose text starts at `p`, or nullptr.
// A '"' after an odd run of backslashes is escaped.
inline const char* FindClosingQuote(const char* p, const char* end) {
  const char* const start = p;
  while (true) {
    const char* q = FindQuote(p, end);
    if (q == nullptr || q == start || q[-1] != '\\') return q;
    const char* b = q - 1;
    while (b > start && b[-1] == '\\') --b;
    if (((q - b) & 1) == 0) return q;
    p = q + 1;
  }
}

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the `\uXXXX` at s[i] (s[i] == '\\'), or -1.
inline int32_t ParseU16(std::string_view s, size_t i) {
  if (i + 6 > s.size() || s[i + 1] != 'u') return -1;
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
      : names_(fields.begin(), fields.end()), columns_(fields.size()) {
    // A field requested twice is produced once and copied (aliases_).
    for (uint32_t i = 0; i < names_.size(); ++i) {
      bool duplicate = false;
      for (uint32_t j = 0; j < i; ++j) {
        if (names_[j] == names_[i]) {
          aliases_.push_back(Alias{i, j});
          duplicate = true;
          break;
        }
      }
      if (!duplicate) keys_.Add(names_[i], i);
    }
    keys_.Finish();
  }
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
      for (const Alias& a : aliases_) {
        columns_[a.column][row] = columns_[a.source][row];
      }
      outcomes[row] = LineOutcome::kParsed;
    }
  }

 private:
  struct Alias {
    uint32_t column;
    uint32_t source;
  };

  // Returns false for an unterminated quote. kEmit: write the requested
  // keys' values (else only check the quotes).
  template <bool kEmit>
  bool ParseLine(std::string_view line, size_t row, FieldBatch& fields) {
    if (line.empty()) return true;  // data() may be null.
    const char* p = line.data();
    const char* const end = p + line.size();
    while (true) {
      while (p < end && IsSpace(*p)) ++p;
      if (p == end) return true;
      const char* const key = p;
      p = FindKeyEnd(p, end);
      const std::string_view name(key, static_cast<size_t>(p - key));
      if (p == end || *p != '=') {
        if constexpr (kEmit) Emit(name, kTrue, row);
        continue;
      }
      ++p;  // The '='.
      if (p < end && *p == '"') {
        const char* const close = FindClosingQuote(p + 1, end);
        if (close == nullptr) return false;
        if constexpr (kEmit) {
          const uint32_t column = keys_.Find(name);
          if (column != KeyTable::kNotFound) {
            std::string_view value(p + 1, static_cast<size_t>(close - p - 1));
            if (value.empty()) {
              value = FieldBatch::kEmptyValue;
            } else if (std::memchr(value.data(), '\\', value.size()) !=
                       nullptr) {
              value = Unescape(value, fields);
            }
            columns_[column][row] = value;
          }
        }
        p = close + 1;
        continue;
      }
      const char* const value = p;
      p = FindSpace(p, end);
      if constexpr (kEmit) {
        Emit(name,
             p == value ? FieldBatch::kEmptyValue
                        : std::string_view(value, static_cast<size_t>(p - value)),
             row);
      }
    }
  }

  void Emit(std::string_view name, std::string_view value, size_t row) {
    const uint32_t column = keys_.Find(name);
    if (column != KeyTable::kNotFound) columns_[column][row] = value;
  }

  // Requested names; keys_ holds views into these (never resized).
  const std::vector<std::string> names_;
  std::vector<Alias> aliases_;
  KeyTable keys_;
  // fields.column(i) for the current batch.
  std::vector<std::string_view*> columns_;
};

class LogfmtLogFormat : public LogFormat {
 public:
  std::string name() const override { return "logfmt"; }
  std::string description() const override {
    return "logfmt lines, k=v k=\"quoted value\" k ...: each key is a field "
           "(Heroku, Go slog/logrus)";
  }
  // Keys are open-ended: never warn.
  std::optional<std::vector<std::string>> variables() const override {
    return std::nullopt;
  }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return std::make_unique<LogfmtParser>(fields);
  }
};

}  // namespace

std::shared_ptr<const LogFormat> NewLogfmtLogFormat() {
  return std::make_shared<LogfmtLogFormat>();
}

}  // namespace mapr::runtime
