// The `json` log format and its alias `ndjson` (docs/query-language.md,
// "json"): one JSON object per line, parsed with simdjson's On-Demand API.
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
// The fast path. Most lines are plain: printable ASCII, keys without
// escapes, and every value the query reads a string without escapes, a
// number, a literal, or an object or array it looks inside. On a padded
// batch such a line is walked by hand (Fast* below): 16-byte scans for
// quotes, no structural index, no per-token iterator, the same lookup tree
// and request states, and the same rules as the simdjson walk (values not
// entered are skipped by their brackets, unchecked; the keys, separators
// and values read are checked). Anything it does not know, and every
// error, makes it give up: the line's cells are reset and simdjson parses
// it from the start, so the fast path never decides that a line is
// malformed, and a line gets the same outcome and values either way.
// Unpadded batches always take simdjson's walk, which makes the padded
// and unpadded parses of the unit tests and of json_format_fuzzer a
// comparison of the two walks.
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

// ---- Byte scans of the fast path. Each may load up to 15 bytes past
// `end` (a padded batch has kLinePadding readable bytes there) and never
// looks at what it loads there.

// The closing quote of the string whose contents start at `p`, or null if
// it does not close before `end`. Sets *escaped if the string has a
// backslash (which escapes the byte after it, as in stage 1). With
// kNoBackslash the caller knows that the line has none (IsPlainAscii), and
// only quotes are looked for.
template <bool kNoBackslash>
inline const char* ScanStringEnd(const char* p, const char* end,
                                 bool* escaped) {
  while (p < end) {
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hits = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    if constexpr (!kNoBackslash) {
      hits = _mm_or_si128(hits, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    }
    const uint32_t m = static_cast<uint32_t>(_mm_movemask_epi8(hits));
    if (m == 0) {
      p += 16;
      continue;
    }
    p += std::countr_zero(m);
    if (p >= end) return nullptr;
#else
    if (*p != '"' && *p != '\\') {
      ++p;
      continue;
    }
#endif
    if (kNoBackslash || *p == '"') return p;
    *escaped = true;
    p += 2;  // The backslash and the byte it escapes.
  }
  return nullptr;
}

// True if p[0, n) (padded) is printable ASCII or spaces: no control byte
// (stage 1 rejects one inside a string; outside one, tabs and CRs are
// whitespace the fast path does not skip) and no byte >= 0x80 (whose UTF-8
// the fast path does not check). Sets *backslash if there is a backslash.
inline bool IsPlainAscii(const char* p, size_t n, bool* backslash) {
#if defined(__SSE2__)
  // As signed bytes, 0x80-0xff are negative: one compare finds both.
  const __m128i limit = _mm_set1_epi8(0x20);
  const __m128i escape = _mm_set1_epi8('\\');
  __m128i bad = _mm_setzero_si128();
  __m128i escapes = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    bad = _mm_or_si128(bad, _mm_cmplt_epi8(v, limit));
    escapes = _mm_or_si128(escapes, _mm_cmpeq_epi8(v, escape));
  }
  uint32_t mask = static_cast<uint32_t>(_mm_movemask_epi8(bad));
  uint32_t escape_mask = static_cast<uint32_t>(_mm_movemask_epi8(escapes));
  if (i < n) {
    // The bytes past the line are loaded, not looked at.
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const uint32_t in_line = (uint32_t{1} << (n - i)) - 1;
    mask |= static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmplt_epi8(v, limit))) &
            in_line;
    escape_mask |=
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, escape))) &
        in_line;
  }
  *backslash = escape_mask != 0;
  return mask == 0;
#else
  *backslash = false;
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<signed char>(p[i]) < 0x20) return false;
    if (p[i] == '\\') *backslash = true;
  }
  return true;
#endif
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

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The end of the number token at `p` (JSON's number grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, checked while its end is
// found), or null if the token there is not a JSON number.
inline const char* NumberEnd(const char* p, const char* end) {
  if (p < end && *p == '-') ++p;
  if (p >= end) return nullptr;
  if (*p == '0') {
    ++p;
  } else if (IsDigit(*p)) {
    do ++p;
    while (p < end && IsDigit(*p));
  } else {
    return nullptr;
  }
  if (p < end && *p == '.') {
    if (++p >= end || !IsDigit(*p)) return nullptr;
    do ++p;
    while (p < end && IsDigit(*p));
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    if (++p < end && (*p == '+' || *p == '-')) ++p;
    if (p >= end || !IsDigit(*p)) return nullptr;
    do ++p;
    while (p < end && IsDigit(*p));
  }
  return p == end || EndsScalar(*p) ? p : nullptr;
}

// True if all of `s` is a JSON number.
inline bool IsJsonNumber(std::string_view s) {
  return NumberEnd(s.data(), s.data() + s.size()) == s.data() + s.size();
}

inline const char* ScalarEnd(const char* p, const char* end) {
  while (p < end && !EndsScalar(*p)) ++p;
  return p;
}

// The byte past the bracket that closes the container opening at `p`,
// counting brackets of either kind as simdjson's skip does, or null to
// give up (unclosed, or a backslash outside a string, where stage 1 might
// see a quote differently).
template <bool kNoBackslash>
inline const char* SkipContainer(const char* p, const char* end) {
  size_t depth = 0;
  for (; p < end; ++p) {
    switch (*p) {
      case '{':
      case '[':
        ++depth;
        break;
      case '}':
      case ']':
        if (--depth == 0) return p + 1;
        break;
      case '"': {
        bool escaped = false;
        p = ScanStringEnd<kNoBackslash>(p + 1, end, &escaped);
        if (p == nullptr) return nullptr;
        break;
      }
      case '\\':
        return nullptr;
      default:
        break;
    }
  }
  return nullptr;
}

// The per-thread simdjson state (see "Memory" above).
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

// Per-request state of the line being walked.
enum RequestState : uint8_t {
  kUnset = 0,  // Nothing matched at its node yet.
  kViaPrefix,  // The value comes from inside the prefix entry.
  kWhole,      // The whole key matched: the prefix entry is ignored.
  kInactive,   // A parent request matched its whole key: nothing to do.
};

class JsonParser : public LogFormatParser {
 public:
  explicit JsonParser(std::span<const std::string> fields)
      : columns_(fields.size()) {
    nodes_.emplace_back();  // The root.
    for (uint32_t i = 0; i < fields.size(); ++i) {
      // A field requested twice is produced once and copied.
      auto first = std::find(fields.begin(), fields.end(), fields[i]);
      if (first != fields.begin() + i) {
        aliases_.push_back(
            Alias{i, static_cast<uint32_t>(first - fields.begin())});
        continue;
      }
      AddRequest(0, fields[i], i, 0);
    }
    for (Node& node : nodes_) {
      for (uint32_t e = 0; e < node.entries.size(); ++e) {
        node.keys.Add(node.entries[e].key, e);
        if (std::optional<size_t> index = ArrayIndex(node.entries[e].key)) {
          if (node.index_entry.size() <= *index) {
            node.index_entry.resize(*index + 1, -1);
          }
          node.index_entry[*index] = static_cast<int32_t>(e);
        }
      }
      node.keys.Finish();
    }
    state_.resize(requests_.size());
  }
  JsonParser(const JsonParser&) = delete;
  JsonParser& operator=(const JsonParser&) = delete;

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    fields_ = &fields;
    scratch_ = &ThreadScratch();
    const bool padded = fields.line_padding() >= kLinePadding;
    for (size_t row = 0; row < lines.size(); ++row) {
      outcomes[row] = ParseLine(lines[row], row, padded);
    }
    for (const Alias& a : aliases_) {
      std::copy_n(columns_[a.source], lines.size(), columns_[a.column]);
    }
    scratch_->Trim();
    fields_ = nullptr;
    scratch_ = nullptr;
  }

 private:
  struct Alias {
    uint32_t column;
    uint32_t source;
  };

  // Adds the request for field `column` with name part `rest` at `node`.
  void AddRequest(uint32_t node, std::string_view rest, uint32_t column,
                  size_t depth) {
    const uint32_t id = static_cast<uint32_t>(requests_.size());
    requests_.push_back(Request{column});
    nodes_[node].requests.push_back(id);
    const uint32_t whole = FindOrAddEntry(node, rest);
    nodes_[node].entries[whole].whole = static_cast<int32_t>(id);
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || depth + 1 >= kMaxPathDepth) return;
    const uint32_t e = FindOrAddEntry(node, rest.substr(0, dot));
    int32_t child = nodes_[node].entries[e].child;
    if (child < 0) {
      child = static_cast<int32_t>(nodes_.size());
      nodes_[node].entries[e].child = child;
      nodes_.emplace_back();  // (Invalidates references into nodes_.)
    }
    nodes_[node].entries[e].prefix.push_back(id);
    requests_[id].child = static_cast<int32_t>(requests_.size());
    AddRequest(static_cast<uint32_t>(child), rest.substr(dot + 1), column,
               depth + 1);
  }

  uint32_t FindOrAddEntry(uint32_t node, std::string_view key) {
    std::vector<Entry>& entries = nodes_[node].entries;
    for (uint32_t e = 0; e < entries.size(); ++e) {
      if (entries[e].key == key) return e;
    }
    entries.emplace_back().key = std::string(key);
    return static_cast<uint32_t>(entries.size() - 1);
  }

  LineOutcome ParseLine(std::string_view line, size_t row, bool padded) {
    if (line.empty()) return LineOutcome::kIgnored;  // data() may be null.
    size_t lead = 0;
    while (lead < line.size() && IsJsonSpace(line[lead])) ++lead;
    if (lead == line.size()) return LineOutcome::kIgnored;
    // Most lines that are not JSON objects fail here, before simdjson.
    if (line[lead] != '{') return LineOutcome::kMalformed;
    if (padded) {
      if (TryFast(line, lead, row)) return LineOutcome::kParsed;
      // Start over: simdjson walks the line from scratch.
      for (std::string_view* column : columns_) column[row] = {};
    }
    if (!scratch_->Reserve(line.size(), !padded)) {
      return LineOutcome::kMalformed;
    }
    const char* json = line.data();
    if (!padded) {
      std::memcpy(scratch_->copy.get(), line.data(), line.size());
      std::memset(scratch_->copy.get() + line.size(), 0, kLinePadding);
      json = scratch_->copy.get();
    }
    // Views into the parsed bytes move by `shift` onto the line.
    shift_ = line.data() - json;
    row_ = row;
    od::document doc;
    if (scratch_->parser.iterate(json, line.size(), line.size() + kLinePadding)
            .get(doc) != simdjson::SUCCESS) {
      return LineOutcome::kMalformed;
    }
    doc_ = &doc;
    od::object root;
    const bool ok = doc.get_object().get(root) == simdjson::SUCCESS &&
                    WalkRoot(root) &&
                    // Nothing may follow the object.
                    doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
    doc_ = nullptr;
    return ok ? LineOutcome::kParsed : LineOutcome::kMalformed;
  }

  bool WalkRoot(od::object& object) {
    const Node& root = nodes_[0];
    for (uint32_t id : root.requests) state_[id] = kUnset;
    return WalkObject(object, root);
  }

  // Walks the members of `object` at `node`. The node's requests were
  // reset by the caller.
  bool WalkObject(od::object& object, const Node& node) {
    if (node.entries.empty()) {
      // Nothing to look up here (nothing requested, or a value read whole):
      // check the members' keys and separators only.
      for (auto member : object) {
        od::field field;
        if (std::move(member).get(field) != simdjson::SUCCESS ||
            !IsValueToken(field.value().raw_json_token())) {
          return false;
        }
      }
      return true;
    }
    for (auto member : object) {
      od::field field;
      if (std::move(member).get(field) != simdjson::SUCCESS) return false;
      od::value& value = field.value();
      // The key ends at the quote before the ':' before the value (only
      // JSON whitespace can sit between them).
      const char* key_begin = field.key().raw();
      const std::string_view token = value.raw_json_token();
      if (!IsValueToken(token)) return false;
      const char* p = token.data();
      while (IsJsonSpace(p[-1])) --p;
      --p;  // The ':'.
      while (IsJsonSpace(p[-1])) --p;
      --p;  // The closing quote.
      std::string_view key(key_begin, static_cast<size_t>(p - key_begin));
      if (std::memchr(key.data(), '\\', key.size()) != nullptr &&
          field.unescaped_key().get(key) != simdjson::SUCCESS) {
        return false;
      }
      const uint32_t e = node.keys.Find(key);
      if (e == KeyTable::kNotFound) continue;  // Skipped by the iteration.
      if (!Visit(value, node.entries[e])) return false;
    }
    return true;
  }

  // Walks the elements of `array` at `node`: element i is the key "i".
  bool WalkArray(od::array& array, const Node& node) {
    size_t index = 0;
    for (auto element : array) {
      od::value value;
      if (std::move(element).get(value) != simdjson::SUCCESS ||
          !IsValueToken(value.raw_json_token())) {
        return false;
      }
      if (index < node.index_entry.size() && node.index_entry[index] >= 0) {
        const Entry& entry =
            node.entries[static_cast<size_t>(node.index_entry[index])];
        if (!Visit(value, entry)) return false;
      }
      ++index;
    }
    return true;
  }

  // A key (or array index) of the lookup tree was met with `value`.
  // The request states as a key of the lookup tree, `entry`, is met (by
  // Visit and FastVisit). Returns the request that takes the value whole,
  // or -1; sets *descend if requests look inside the value.
  int32_t EnterEntry(const Entry& entry, bool* descend) {
    int32_t whole = entry.whole;
    if (whole >= 0) {
      uint8_t& state = state_[static_cast<size_t>(whole)];
      if (state == kInactive) {
        whole = -1;
      } else {
        state = kWhole;  // From now on its prefix entry is ignored.
      }
    }
    // Requests looking inside: a later duplicate key replaces what an
    // earlier one gave them, so they start over (missing).
    *descend = false;
    for (uint32_t id : entry.prefix) {
      if (state_[id] == kWhole || state_[id] == kInactive) continue;
      state_[id] = kViaPrefix;
      columns_[requests_[id].column][row_] = {};
      *descend = true;
    }
    return whole;
  }

  // The child node of `entry` (whose requests look inside its value), with
  // the child's requests whose parent still looks inside made live.
  const Node& EnterChild(const Entry& entry) {
    const Node& child = nodes_[static_cast<size_t>(entry.child)];
    for (uint32_t id : child.requests) state_[id] = kInactive;
    for (uint32_t id : entry.prefix) {
      if (state_[id] == kViaPrefix) {
        state_[static_cast<size_t>(requests_[id].child)] = kUnset;
      }
    }
    return child;
  }

  bool Visit(od::value& value, const Entry& entry) {
    bool descend;
    const int32_t whole = EnterEntry(entry, &descend);
    if (whole < 0 && !descend) return true;
    const std::string_view token = value.raw_json_token();
    const char first = token[0];
    if (first == '{' || first == '[') {
      // Walked, also when only read whole: On-Demand's raw_json() after
      // get_object() skips by counting brackets from inside the container,
      // which takes `{{"b":1}]` for a whole object; walking checks the
      // container's own keys and separators, and skips its values from
      // their start.
      const Node* child = descend ? &EnterChild(entry) : &no_requests_;
      bool ok;
      if (first == '{') {
        od::object object;
        ok = value.get_object().get(object) == simdjson::SUCCESS &&
             WalkObject(object, *child);
      } else {
        od::array array;
        ok = value.get_array().get(array) == simdjson::SUCCESS &&
             WalkArray(array, *child);
      }
      if (!ok) return false;
      if (whole < 0) return true;
      // The value was consumed: its text runs to the next token.
      simdjson::simdjson_result<const char*> end = doc_->current_location();
      if (end.error() != simdjson::SUCCESS) return false;
      const std::string_view raw(
          token.data(), static_cast<size_t>(end.value_unsafe() - token.data()));
      return SetContainer(TrimRight(raw), static_cast<uint32_t>(whole));
    }
    if (whole < 0) return true;
    const uint32_t id = static_cast<uint32_t>(whole);
    std::string_view* cell = &columns_[requests_[id].column][row_];
    switch (first) {
      case '"': {
        const std::string_view text = TrimRight(token);
        // (Stage 1 closed the string, so it ends in a quote.)
        if (text.size() < 2 || text.back() != '"') return false;
        const std::string_view inner = text.substr(1, text.size() - 2);
        if (std::memchr(inner.data(), '\\', inner.size()) == nullptr) {
          *cell = OnLine(inner);
          return true;
        }
        std::string_view unescaped;
        if (value.get_string().get(unescaped) != simdjson::SUCCESS) {
          return false;
        }
        *cell = fields_->Copy(unescaped);
        return true;
      }
      case 't':
      case 'f':
      case 'n': {
        const std::string_view text = TrimRight(token);
        if (text == "null") {
          *cell = {};
          return true;
        }
        if (text != "true" && text != "false") return false;
        *cell = OnLine(text);
        return true;
      }
      default: {
        const std::string_view text = TrimRight(token);
        if (!IsJsonNumber(text)) return false;
        *cell = OnLine(text);
        return true;
      }
    }
  }

  // ---- The fast path (see "The fast path" above). Each Fast* function
  // takes the position of a value (or, for FastObject and FastArray, the
  // byte after the opening bracket) and returns the position after it, or
  // null to give up.

  bool TryFast(std::string_view line, size_t lead, size_t row) {
    bool backslash;
    if (!IsPlainAscii(line.data(), line.size(), &backslash)) return false;
    row_ = row;
    shift_ = 0;
    const char* end = line.data() + line.size();
    const Node& root = nodes_[0];
    for (uint32_t id : root.requests) state_[id] = kUnset;
    // Without a backslash in the line, a string ends at the next quote.
    const char* p = backslash
                        ? FastObject<false>(line.data() + lead + 1, end, root)
                        : FastObject<true>(line.data() + lead + 1, end, root);
    // Nothing may follow the object.
    return p != nullptr && SkipSpaces(p, end) == end;
  }

  template <bool kNoBackslash>
  const char* FastObject(const char* p, const char* end, const Node& node) {
    p = SkipSpaces(p, end);
    if (p < end && *p == '}') return p + 1;
    while (true) {
      if (p >= end || *p != '"') return nullptr;
      bool escaped = false;
      const char* key_end = ScanStringEnd<kNoBackslash>(p + 1, end, &escaped);
      if (key_end == nullptr || escaped) return nullptr;
      const std::string_view key(p + 1, static_cast<size_t>(key_end - p - 1));
      // Compact JSON (`"key":value,`) first; spaces where they are. Until
      // the check after them, p is at most end + 1, inside the padding,
      // and what is read there decides nothing.
      p = key_end + 1;
      if (*p != ':') [[unlikely]] {
        p = SkipSpaces(p, end);
        if (p >= end || *p != ':') return nullptr;
      }
      ++p;
      if (*p == ' ') [[unlikely]] {
        p = SkipSpaces(p, end);
      }
      if (p >= end) return nullptr;
      // Most keys of a line are not asked for: their length alone says so.
      const uint32_t e = node.keys.MayHaveLength(key.size())
                             ? node.keys.Find(key)
                             : KeyTable::kNotFound;
      p = e == KeyTable::kNotFound
              ? FastSkip<kNoBackslash>(p, end)
              : FastVisit<kNoBackslash>(p, end, node.entries[e]);
      if (p == nullptr || p >= end) return nullptr;
      if (*p == ',') [[likely]] {
        ++p;
      } else if (*p == '}') {
        return p + 1;
      } else {
        p = SkipSpaces(p, end);
        if (p >= end) return nullptr;
        if (*p == '}') return p + 1;
        if (*p != ',') return nullptr;
        ++p;
      }
      // p <= end: the loop's first check comes before anything is used.
      if (*p == ' ') [[unlikely]] {
        p = SkipSpaces(p, end);
      }
    }
  }

  template <bool kNoBackslash>
  const char* FastArray(const char* p, const char* end, const Node& node) {
    p = SkipSpaces(p, end);
    if (p < end && *p == ']') return p + 1;
    for (size_t index = 0;; ++index) {
      if (p >= end) return nullptr;
      if (index < node.index_entry.size() && node.index_entry[index] >= 0) {
        p = FastVisit<kNoBackslash>(
            p, end, node.entries[static_cast<size_t>(node.index_entry[index])]);
      } else {
        p = FastSkip<kNoBackslash>(p, end);
      }
      if (p == nullptr) return nullptr;
      p = SkipSpaces(p, end);
      if (p >= end) return nullptr;
      if (*p == ']') return p + 1;
      if (*p != ',') return nullptr;
      p = SkipSpaces(p + 1, end);
    }
  }

  // A value nothing is read from. The caller checks what follows it.
  template <bool kNoBackslash>
  static const char* FastSkip(const char* p, const char* end) {
    if (*p == '"') [[likely]] {  // Most values of a log line are strings.
      bool escaped = false;
      const char* close = ScanStringEnd<kNoBackslash>(p + 1, end, &escaped);
      return close == nullptr ? nullptr : close + 1;
    }
    switch (*p) {
      case '{':
      case '[': {
        // As IsValueToken: no ':' may follow the value's first token.
        const char* next = SkipSpaces(p + 1, end);
        if (next >= end || *next == ':') return nullptr;
        return SkipContainer<kNoBackslash>(p, end);
      }
      case '}':
      case ']':
      case ',':
      case ':':
        return nullptr;
      default:
        return ScalarEnd(p, end);
    }
  }

  // Visit()'s rules, for the fast path.
  template <bool kNoBackslash>
  const char* FastVisit(const char* p, const char* end, const Entry& entry) {
    bool descend;
    const int32_t whole = EnterEntry(entry, &descend);
    if (whole < 0 && !descend) return FastSkip<kNoBackslash>(p, end);
    const char first = *p;
    if (first == '{' || first == '[') {
      // A container read whole is minified by simdjson's walk.
      if (whole >= 0) return nullptr;
      const Node& child = EnterChild(entry);
      return first == '{' ? FastObject<kNoBackslash>(p + 1, end, child)
                          : FastArray<kNoBackslash>(p + 1, end, child);
    }
    if (whole < 0) return FastSkip<kNoBackslash>(p, end);
    std::string_view* cell =
        &columns_[requests_[static_cast<uint32_t>(whole)].column][row_];
    switch (first) {
      case '"': {
        bool escaped = false;
        const char* close = ScanStringEnd<kNoBackslash>(p + 1, end, &escaped);
        // Escapes are unescaped by simdjson's walk.
        if (close == nullptr || escaped) return nullptr;
        *cell = std::string_view(p + 1, static_cast<size_t>(close - p - 1));
        return close + 1;
      }
      case '}':
      case ']':
      case ',':
      case ':':
        return nullptr;
      case 't':
      case 'f':
      case 'n': {
        const char* token_end = ScalarEnd(p, end);
        const std::string_view text(p, static_cast<size_t>(token_end - p));
        if (text == "null") {
          *cell = {};
        } else if (text == "true" || text == "false") {
          *cell = text;
        } else {
          return nullptr;
        }
        return token_end;
      }
      default: {
        const char* token_end = NumberEnd(p, end);
        if (token_end == nullptr) return nullptr;
        *cell = std::string_view(p, static_cast<size_t>(token_end - p));
        return token_end;
      }
    }
  }

  // An object or array value: minified JSON text (the line's own bytes if
  // there is no whitespace to remove).
  bool SetContainer(std::string_view raw, uint32_t id) {
    std::string_view* cell = &columns_[requests_[id].column][row_];
    bool spaces = false;
    for (char c : raw) spaces |= IsJsonSpace(c);
    if (!spaces) {
      *cell = OnLine(raw);
      return true;
    }
    // minify() may store whole SIMD blocks past its output.
    char* out = fields_->Allocate(raw.size() + kLinePadding);
    size_t size = 0;
    if (simdjson::minify(raw.data(), raw.size(), out, size) !=
        simdjson::SUCCESS) {
      return false;
    }
    *cell = std::string_view(out, size);
    return true;
  }

  // A view of the parsed bytes, moved onto the line.
  std::string_view OnLine(std::string_view parsed) const {
    return std::string_view(parsed.data() + shift_, parsed.size());
  }

  std::vector<Node> nodes_;
  const Node no_requests_;  // For containers read whole.
  std::vector<Request> requests_;
  std::vector<Alias> aliases_;
  // ---- The batch and line being parsed.
  std::vector<std::string_view*> columns_;
  std::vector<uint8_t> state_;  // RequestState per request.
  FieldBatch* fields_ = nullptr;
  Scratch* scratch_ = nullptr;
  od::document* doc_ = nullptr;
  ptrdiff_t shift_ = 0;
  size_t row_ = 0;
};

class JsonLogFormat : public LogFormat {
 public:
  std::string example() const override {
    return "{\"level\":\"info\",\"status\":200,\"req\":{\"method\":\"GET\"},"
           "\"tags\":[\"a\"]}";
  }
  bool line_independent() const override { return true; }
  explicit JsonLogFormat(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::string description() const override {
    return "one JSON object per line (NDJSON); each key is a field, and "
           "a.b or tags.0 reach into objects and arrays";
  }
  // Any key can be a field, `$`-names included.
  std::optional<std::vector<std::string>> variables() const override {
    return std::nullopt;
  }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return std::make_unique<JsonParser>(fields);
  }

 private:
  const std::string name_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewJsonLogFormat() {
  return std::make_shared<JsonLogFormat>("json");
}

std::shared_ptr<const LogFormat> NewNdjsonLogFormat() {
  return std::make_shared<JsonLogFormat>("ndjson");
}

}  // namespace mapr::runtime
