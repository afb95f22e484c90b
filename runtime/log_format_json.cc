// The `json` log format and its aliases `ndjson`, `jsonl`
// (docs/query-language.md, "json"): one JSON object per line, parsed with
// simdjson's On-Demand API.
//
// Fields. A requested name is looked up as a path: at each object, the
// whole remaining name as a key first (`http.route` is the key
// "http.route" if the object has it), else the part before its first dot as
// a key and the rest inside that key's value (`request.method`), where an
// array takes a decimal index (`tags.0`). The tree of these lookups is built
// once per parser (Node, Entry, Request below); a line is walked once, in
// order, and only the keys of the tree are looked at.
//
// Values: a string's text, unescaped into FieldBatch memory only if it has
// escapes (else a view into the line); a number's text as written; `true`,
// `false`; objects and arrays as minified JSON text; null is missing.
// Duplicate keys: the later one wins (every key of a walked object is
// visited; On-Demand's find_field would stop at the first).
//
// Lines. Blank: ignored. Malformed: not an object, simdjson's stage 1
// fails (invalid UTF-8, an unclosed string, ...), the keys and separators
// of a walked object or array are broken (the top level, those on a
// requested path, those read whole), something follows the object, or a
// scalar the query reads is invalid (a bad literal, number or escape).
// Values the walk does not enter are skipped by their brackets without
// being checked (On-Demand's bargain), so `{"a":1,"b":[}}` is parsed unless
// `b` is read. Nothing recurses over the input's nesting (skipping and
// minifying are loops), so any depth is parsed; the walk recurses only
// along requested paths, whose depth is capped (kMaxPathDepth).
//
// Padding. simdjson reads up to SIMDJSON_PADDING bytes past the end of its
// input. When the batch promises that (FieldBatch::line_padding()), a line is
// parsed where it is; otherwise it is first copied into a padded scratch
// buffer, and views into the copy are moved back onto the line.
//
// The fast path. Most lines are plain: printable ASCII, keys without escapes,
// and every value the query reads a string without escapes, a number, a
// literal, or an object or array it looks inside. On a padded batch such a line
// is walked by hand (Fast* in log_format_json_parser.inc): vector scans for
// quotes (16 bytes, 32 on AVX2 CPUs), containers skipped a chunk at a time on a
// line without backslashes (a prefix XOR of the quotes tells which brackets are
// outside strings), each member's opening (`,"key":`) checked against the one
// the last line had at its place (one 16-byte compare, KeyCache), no structural
// index, no per-token iterator, the same lookup tree and request states, and
// the same rules as the simdjson walk (values not entered are skipped by their
// brackets, unchecked; the keys, separators and values read are checked).
// Anything it does not know, and every error, makes it give up: the line's
// cells are reset and simdjson parses it from the start, so the fast path never
// decides that a line is malformed, and a line gets the same outcome and values
// either way. Unpadded batches always take simdjson's walk, which makes the
// padded and unpadded parses of the unit tests and of json_format_fuzzer a
// comparison of the two walks.
//
// Two builds. The parser (log_format_json_parser.inc) is compiled as
// baseline x86-64 code and again for AVX2+BMI2, each in its own namespace;
// NewParser picks one per parser, as the default format does. Only the
// byte scans differ, and the tests and json_format_fuzzer run both.
//
// Memory. The simdjson parser and the copy buffer are per thread
// (Scratch()), not per parser: the engine keeps one parser per input
// source, and a run over many files would otherwise hold a simdjson parser
// (about 7 bytes per byte of the longest line) per file. Both grow
// geometrically to the longest line seen and are reused; after a line
// longer than kKeepCapacity they are released at the end of the batch.
#define SIMDJSON_EXCEPTIONS 0  // Error codes only (the library never throws).
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <atomic>
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
#include "util/scan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(MAPR_HAVE_AVX2_TARGET)
#include <immintrin.h>
#endif

namespace mapr::runtime {
namespace {

namespace od = simdjson::ondemand;

static_assert(kLinePadding >= simdjson::SIMDJSON_PADDING);

// Split levels of one requested name; deeper, the rest is matched only as a
// whole key. Keeps the walk's recursion (and On-Demand's depth, which its
// debug checks bound by max_depth()) small.
constexpr size_t kMaxPathDepth = 64;
// Array indexes above this are never looked up (the index table stays
// small); `tags.5000000` is missing.
constexpr size_t kMaxArrayIndex = 4096;
// The parser's first capacity, and the most kept after a batch.
constexpr size_t kInitialCapacity = size_t{4} << 10;
constexpr size_t kKeepCapacity = size_t{4} << 20;

inline bool IsJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

// A member's or element's value as On-Demand hands it out, unchecked (its
// token runs to the next token): it must start a value, not `}`, `]`, `,`
// or `:`, and no `:` may follow it. Skipping a value that breaks this runs
// past its container (a skip takes `"x":` for a key), and a line with one
// more `}` would then pass.
inline bool IsValueToken(std::string_view token) {
  const char c = token[0];
  // (The next token's first byte is readable: at worst the padding.)
  return c != '}' && c != ']' && c != ',' && c != ':' &&
         token.data()[token.size()] != ':';
}

// The index `key` names if it is a canonical decimal (no sign, no leading
// zero) of at most kMaxArrayIndex.
std::optional<size_t> ArrayIndex(std::string_view key) {
  if (key.empty() || key.size() > 4 || (key.size() > 1 && key[0] == '0')) {
    return std::nullopt;
  }
  size_t v = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  if (v > kMaxArrayIndex) return std::nullopt;
  return v;
}

inline const char* SkipSpaces(const char* p, const char* end) {
  while (p < end && *p == ' ') ++p;
  return p;
}

// Bytes that end a scalar token: JSON whitespace (only spaces on a plain
// line), the structural characters and a quote.
constexpr std::array<bool, 256> kEndsScalar = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view(" ,}]:{[\"")) t[c] = true;
  return t;
}();
inline bool EndsScalar(char c) {
  return kEndsScalar[static_cast<unsigned char>(c)];
}

// The end of the run of ASCII digits at `p`, at most `end`. Reads 8 bytes
// at a time, up to 7 past `end` (a padded line only).
inline const char* PaddedDigitsEnd(const char* p, const char* end) {
  if constexpr (std::endian::native != std::endian::little) {
    while (p < end && *p >= '0' && *p <= '9') ++p;
    return p;
  }
  while (true) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    // Digits become 0-9, which the add leaves below 0x80; any other byte
    // has its high bit set in x or in the sum (a carry out of a byte that
    // is not a digit only reaches bytes after it).
    const uint64_t x = v ^ 0x3030303030303030;
    const uint64_t high = ((x + 0x7676767676767676) | x) & 0x8080808080808080;
    if (high != 0) {
      p += std::countr_zero(high) >> 3;
      break;
    }
    p += 8;
    if (p >= end) break;
  }
  return p < end ? p : end;
}

// The end of the number token at `p` (JSON's number grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, checked while its end is
// found), or null if the token there is not a JSON number. REQUIRES:
// p < end, and padded memory: the digit runs are read a word at a time, up
// to 7 bytes past `end` (both walks parse padded bytes: the batch's, or the
// scratch copy).
[[gnu::always_inline]] inline const char* NumberEnd(const char* p,
                                                    const char* end) {
  if (*p == '-') ++p;
  if (p >= end) return nullptr;
  if (*p == '0') {
    ++p;
  } else {
    const char* digits = PaddedDigitsEnd(p, end);
    if (digits == p) return nullptr;
    p = digits;
  }
  if (p < end && *p == '.') {
    const char* digits = PaddedDigitsEnd(p + 1, end);
    if (digits == p + 1) return nullptr;
    p = digits;
  }
  if (p < end && (*p | 0x20) == 'e') {
    if (++p < end && (*p == '+' || *p == '-')) ++p;
    const char* digits = PaddedDigitsEnd(p, end);
    if (digits == p) return nullptr;
    p = digits;
  }
  return p == end || EndsScalar(*p) ? p : nullptr;
}

// True if all of `s` (in padded memory) is a JSON number. For simdjson's
// walk only: kept out of line, so that the fast path's NumberEnd is the one
// inlined into the walk's code.
[[gnu::noinline]] inline bool IsJsonNumber(std::string_view s) {
  return !s.empty() &&
         NumberEnd(s.data(), s.data() + s.size()) == s.data() + s.size();
}

inline const char* ScalarEnd(const char* p, const char* end) {
  while (p < end && !EndsScalar(*p)) ++p;
  return p;
}
struct Scratch {
  od::parser parser;
  std::unique_ptr<char[]> copy;  // A line plus kLinePadding zero bytes.
  size_t copy_capacity = 0;      // Line bytes `copy` can hold.

  // Makes room for a line of `size` bytes; false if memory ran out.
  bool Reserve(size_t size, bool need_copy) {
    if (size > parser.capacity()) {
      const size_t capacity =
          std::max({size, 2 * parser.capacity(), kInitialCapacity});
      if (parser.allocate(capacity) != simdjson::SUCCESS) {
        parser = od::parser();
        return false;
      }
    }
    if (need_copy && size > copy_capacity) {
      const size_t capacity =
          std::max({size, 2 * copy_capacity, kInitialCapacity});
      copy.reset(new (std::nothrow) char[capacity + kLinePadding]);
      copy_capacity = copy == nullptr ? 0 : capacity;
      if (copy == nullptr) return false;
    }
    return true;
  }

  // Returns memory above kKeepCapacity to the system.
  void Trim() {
    if (parser.capacity() > kKeepCapacity) {
      parser = od::parser();
    }
    if (copy_capacity > kKeepCapacity) {
      copy.reset();
      copy_capacity = 0;
    }
  }
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// Padded lines the fast path gave to simdjson's walk, on this thread (for
// the tests: that plain lines stay on the fast path).
thread_local uint64_t fast_path_give_ups = 0;

// ---- The lookup tree.
//
// A Node is one object (or array) level of the requested paths; each of its
// Entries is a key there. A Request is one requested field at one Node,
// with the part of its name still to match (`rest`): it takes the value of
// the entry whose key is `rest` (its `whole` entry), or else looks inside
// the entry whose key is `rest` up to the first dot (its `prefix` entry),
// through its `child` Request in that entry's child Node.

struct Entry {
  std::string key;
  // The request whose whole rest is this key (at most one: it is the name
  // of one field below the node's own path), or -1.
  int32_t whole = -1;
  // Requests that look inside this key's value, and the node they go on in.
  std::vector<uint32_t> prefix;
  int32_t child = -1;
};

struct Node {
  uint32_t id = 0;  // Its index among the parser's nodes.
  std::vector<Entry> entries;
  KeyTable keys;  // Entry key -> entry index.
  // Entry per array index (canonical decimal keys), -1 for none.
  std::vector<int32_t> index_entry;
  // Requests that live at this node (reset when the node is entered).
  std::vector<uint32_t> requests;
};

struct Request {
  uint32_t column;     // Index into the requested fields.
  int32_t child = -1;  // Its request in the prefix entry's child node.
};

// The fast path's memory of one member's opening: the text from the '{' or
// ',' before it to the ':' after its key, as the last line had it at this
// place of the object (written without spaces). A log's lines mostly have
// the same keys in the same order, and matching the remembered text is one
// 16-byte compare instead of checks of the separator and the colon, a scan
// for the key's closing quote and a key table lookup. Only a key that the
// scan took is remembered (no escape, no quote in it), so a match ends
// exactly where the scan would, and the entry is what the lookup would
// give: the outcome and values do not depend on the memory.
constexpr size_t kCachedMembers = 32;  // Per node; later members scan.
struct KeyCache {
  static constexpr uint32_t kNone = UINT32_MAX;

  // True if the text at `sep` (16 bytes readable: a padded line) is the
  // remembered opening, all of it before `end`.
  bool Matches(const char* sep, const char* end) const {
    if (size > static_cast<size_t>(end - sep)) return false;  // Also: none.
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sep));
    const __m128i t = _mm_load_si128(reinterpret_cast<const __m128i*>(text));
    const uint32_t same =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, t)));
    return (same & mask) == mask;
#else
    return std::memcmp(sep, text, size) == 0;
#endif
  }
  // Remembers the opening [sep, after) (whose key's lookup gave `found`),
  // or nothing if `sep` is null or the opening is over 16 bytes long.
  void Set(const char* sep, const char* after, uint32_t found) {
    if (sep == nullptr || static_cast<size_t>(after - sep) > sizeof(text)) {
      size = kNone;
      return;
    }
    const size_t n = static_cast<size_t>(after - sep);
    std::memset(text, 0, sizeof(text));
    std::memcpy(text, sep, n);
    size = static_cast<uint32_t>(n);
    mask = static_cast<uint32_t>((uint64_t{1} << n) - 1);
    entry = found;
  }

  alignas(16) char text[16] = {};  // The opening, then zeros.
  uint32_t mask = 0;               // The bytes of `text` compared.
  uint32_t size = kNone;           // The opening's length; kNone: nothing.
  uint32_t entry = KeyTable::kNotFound;
};

// The KeyCache slots are per thread, as Scratch is, not per parser: the
// engine keeps a parser per open input source (until EndSource), and a
// host or daemon with many sources open would otherwise hold ~1 KB per
// source and node. They belong to one parser at a time, named by an id no
// other parser has (a freed parser's address could be reused); another
// parser's first batch starts them over.
class KeyCacheMemory {
 public:
  // `slots` empty slots for parser `owner`, or those it left.
  KeyCache* For(uint64_t owner, size_t slots) {
    if (owner != owner_ || slots_.size() < slots) {
      owner_ = owner;
      slots_.assign(slots, KeyCache{});
    }
    return slots_.data();
  }

 private:
  uint64_t owner_ = 0;
  std::vector<KeyCache> slots_;
};

KeyCacheMemory& ThreadKeyCache() {
  thread_local KeyCacheMemory memory;
  return memory;
}

std::atomic<uint64_t> last_parser_id{0};
uint64_t NewParserId() {
  return last_parser_id.fetch_add(1, std::memory_order_relaxed) + 1;
}

// Per-request state of the line being walked.
enum RequestState : uint8_t {
  kUnset = 0,  // Nothing matched at its node yet.
  kViaPrefix,  // The value comes from inside the prefix entry.
  kWhole,      // The whole key matched: the prefix entry is ignored.
  kInactive,   // A parent request matched its whole key: nothing to do.
};

namespace baseline {
#include "runtime/log_format_json_parser.inc"
}  // namespace baseline

#if defined(MAPR_HAVE_AVX2_TARGET)
#include "util/avx2_begin.inc"
namespace avx2 {
// The same parser again, compiled for AVX2 in a namespace of its own.
// NOLINTNEXTLINE(readability-duplicate-include)
#include "runtime/log_format_json_parser.inc"
}  // namespace avx2
#include "util/avx2_end.inc"
#endif

std::atomic<bool> force_baseline{false};

class JsonLogFormat : public BuiltinLogFormat {
 public:
  // Any key can be a field, `$`-names included: never warn.
  explicit JsonLogFormat(std::string name)
      : BuiltinLogFormat(
            std::move(name),
            "one JSON object per line (NDJSON); each key is a field, and "
            "a.b or tags.0 reach into objects and arrays",
            "{\"level\":\"info\",\"status\":200,\"req\":{\"method\":"
            "\"GET\"},\"tags\":[\"a\"]}",
            std::nullopt) {}
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
#if defined(MAPR_HAVE_AVX2_TARGET)
    if (util::CpuHasAvx2Bmi() &&
        !force_baseline.load(std::memory_order_relaxed)) {
      return std::make_unique<avx2::JsonParser>(fields);
    }
#endif
    return std::make_unique<baseline::JsonParser>(fields);
  }
};

// journald's entries as `journalctl -o json` and mapr::JournalReader print
// them: the json format, plus `$time`, the entry's __REALTIME_TIMESTAMP
// (epoch microseconds).
class JournalLogFormat : public BuiltinLogFormat {
 public:
  JournalLogFormat()
      : BuiltinLogFormat(
            "journal",
            "journald entries as `journalctl -o json` prints them (mapr "
            "--journal reads them so); each field is a field, and $time "
            "is __REALTIME_TIMESTAMP",
            "{\"__REALTIME_TIMESTAMP\":\"1700000000000000\",\"MESSAGE\":"
            "\"started\"}",
            std::nullopt) {}
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    std::vector<std::string> keys(fields.begin(), fields.end());
    for (std::string& key : keys) {
      if (key == "$time") key = "__REALTIME_TIMESTAMP";
    }
    return json_.NewParser(keys);
  }

 private:
  JsonLogFormat json_{"json"};
};

}  // namespace

std::shared_ptr<const LogFormat> NewJsonLogFormat(std::string name) {
  return std::make_shared<JsonLogFormat>(std::move(name));
}

std::shared_ptr<const LogFormat> NewJournalLogFormat() {
  return std::make_shared<JournalLogFormat>();
}

uint64_t JsonFastPathGiveUpsForTesting() { return fast_path_give_ups; }

bool UseBaselineJsonParserForTesting(bool baseline) {
  force_baseline.store(baseline, std::memory_order_relaxed);
#if defined(MAPR_HAVE_AVX2_TARGET)
  return util::CpuHasAvx2Bmi();
#else
  return false;
#endif
}

}  // namespace mapr::runtime
