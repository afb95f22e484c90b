// The `clf` and `combined` log formats (docs/query-language.md, "clf and
// combined"): Apache's and nginx's access logs.
//
//   clf:      host ident authuser [date] "request" status bytes
//   combined: clf + ` "referer" "user-agent"`
//
// Fields: ip ident user time request method path protocol status bytes, and
// for combined referer agent. A value that is exactly `-` is missing. The
// request splits at its first and last space into method, path and protocol;
// a request with fewer than two spaces (`-`, `""`, the bytes of a TLS
// handshake sent to a plain-HTTP port) leaves the three missing, and the line
// is still parsed. Anything after the last required field (nginx's
// "$http_x_forwarded_for", a request time, or combined's two fields under
// clf) is ignored.
//
// The scan is one pass of inline searches, one per field boundary: no regex,
// no per-byte state machine. A quoted field ends at the first '"' that is
// preceded by an even run of backslashes (Apache writes `\"` and `\\`;
// nginx writes `\x22` and `\x5C`, which stay as they are). A requested
// quoted value is unescaped into FieldBatch memory only when it holds a
// backslash, so the common line costs no copy.
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
#include "runtime/log_formats.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mapr::runtime {
namespace {

enum AccessField : uint8_t {
  kIp,
  kIdent,
  kUser,
  kTime,
  kRequest,
  kMethod,
  kPath,
  kProtocol,
  kStatus,
  kBytes,
  kReferer,
  kAgent,
  kNumAccessFields,
};

constexpr std::array<std::string_view, kNumAccessFields> kFieldNames = {
    "ip",   "ident",    "user",   "time",  "request", "method",
    "path", "protocol", "status", "bytes", "referer", "agent"};

// clf has every field but the last two.
constexpr size_t kNumClfFields = kReferer;
constexpr size_t kNumCombinedFields = kNumAccessFields;

// The first c in [p, end), or nullptr. Fields are short (a user agent is
// about a hundred bytes), so the scan stays inline, 16 bytes at a time
// (SSE2), then byte by byte: a memchr call per field boundary cost more
// than the scan (18 % of a clf query's time in memchr).
// With kPadded, at least 16 readable bytes follow `end` (a padded batch,
// FieldBatch::line_padding()), so the last block is loaded whole too.
template <bool kPadded>
inline const char* Find(const char* p, const char* end, char c) {
#if defined(__SSE2__)
  const __m128i needle = _mm_set1_epi8(c);
  if constexpr (kPadded) {
    for (; p < end; p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const uint32_t m =
          static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)));
      if (m != 0) {
        const char* hit = p + std::countr_zero(m);
        return hit < end ? hit : nullptr;
      }
    }
    return nullptr;
  }
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const uint32_t m =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)));
    if (m != 0) return p + std::countr_zero(m);
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    if (*p == c) return p;
  }
  return nullptr;
}

// The last c in [begin, end), or nullptr (for the short protocol at the end
// of a request).
inline const char* FindLast(const char* begin, const char* end, char c) {
  while (end > begin) {
    if (*--end == c) return end;
  }
  return nullptr;
}

// The closing quote of a quoted field whose text starts at `p`, or nullptr.
// A '"' after an odd run of backslashes is escaped (`\"`), after an even one
// (`\\"`) it closes the field.
template <bool kPadded>
inline const char* FindClosingQuote(const char* p, const char* end) {
  const char* const start = p;
  while (true) {
    const char* q = Find<kPadded>(p, end, '"');
    if (q == nullptr || q == start || q[-1] != '\\') return q;
    const char* b = q - 1;
    while (b > start && b[-1] == '\\') --b;
    if (((q - b) & 1) == 0) return q;
    p = q + 1;
  }
}

// `\"` -> `"` and `\\` -> `\` into batch memory; any other backslash stays.
// REQUIRES: `s` holds a backslash (so it is not empty).
std::string_view UnescapeQuoted(std::string_view s, FieldBatch& fields) {
  char* const out = fields.Allocate(s.size());
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' && i + 1 < s.size() &&
        (s[i + 1] == '"' || s[i + 1] == '\\')) {
      c = s[++i];
    }
    out[n++] = c;
  }
  return std::string_view(out, n);
}

template <bool kPadded>
inline bool HasBackslash(std::string_view s) {
  return !s.empty() &&
         Find<kPadded>(s.data(), s.data() + s.size(), '\\') != nullptr;
}

// "-" is missing; anything else (the empty string included) is the value.
inline std::string_view DashIsMissing(std::string_view v) {
  return v.size() == 1 && v[0] == '-' ? std::string_view() : v;
}

template <bool kCombined>
class AccessParser : public LogFormatParser {
 public:
  explicit AccessParser(std::span<const std::string> fields)
      : columns_(fields.size()) {
    constexpr size_t kKnown = kCombined ? kNumCombinedFields : kNumClfFields;
    for (uint32_t i = 0; i < fields.size(); ++i) {
      for (uint8_t f = 0; f < kKnown; ++f) {
        if (fields[i] == kFieldNames[f]) {
          wanted_.push_back(Wanted{i, static_cast<AccessField>(f)});
          if (f == kMethod || f == kPath || f == kProtocol) {
            split_request_ = true;
            unescape_[kRequest] = true;
          }
          if (f == kRequest || f == kReferer || f == kAgent) {
            unescape_[f] = true;
          }
        }
      }
    }
  }

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    if (fields.line_padding() >= 16) {
      ParseRows<true>(lines, fields, outcomes);
    } else {
      ParseRows<false>(lines, fields, outcomes);
    }
  }

 private:
  template <bool kPadded>
  void ParseRows(std::span<const std::string_view> lines, FieldBatch& fields,
                 LineOutcome* outcomes) {
    std::array<std::string_view, kNumAccessFields> v;
    for (size_t row = 0; row < lines.size(); ++row) {
      if (!Split<kPadded>(lines[row], v)) {
        outcomes[row] = LineOutcome::kMalformed;
        continue;
      }
      outcomes[row] = LineOutcome::kParsed;
      if (wanted_.empty()) continue;
      bool request_copied = false;
      for (AccessField f : {kRequest, kReferer, kAgent}) {
        if (unescape_[f] && HasBackslash<kPadded>(v[f])) {
          v[f] = UnescapeQuoted(v[f], fields);
          request_copied |= f == kRequest;
        }
      }
      // An unescaped request lives in batch memory, which has no padding.
      if (split_request_) {
        // The branches differ in the template argument (the same code
        // only in the instantiation where kPadded is false).
        // NOLINTNEXTLINE(bugprone-branch-clone)
        if (request_copied) {
          SplitRequest<false>(v);
        } else {
          SplitRequest<kPadded>(v);
        }
      }
      for (const Wanted& w : wanted_) {
        columns_[w.column][row] = DashIsMissing(v[w.field]);
      }
    }
  }

  struct Wanted {
    uint32_t column;
    AccessField field;
  };

  // Cuts `line` into the raw fields (quoted ones without their quotes, not
  // unescaped; method, path and protocol are left alone). Returns false if
  // the line lacks the structure.
  template <bool kPadded>
  static bool Split(std::string_view line,
                    std::array<std::string_view, kNumAccessFields>& v) {
    if (line.empty()) return false;  // data() may be null.
    const char* p = line.data();
    const char* const end = p + line.size();
    auto view = [](const char* b, const char* e) {
      return std::string_view(b, static_cast<size_t>(e - b));
    };
    // host ident
    const char* sp = Find<kPadded>(p, end, ' ');
    if (sp == nullptr || sp == p) return false;
    v[kIp] = view(p, sp);
    p = sp + 1;
    sp = Find<kPadded>(p, end, ' ');
    if (sp == nullptr || sp == p) return false;
    v[kIdent] = view(p, sp);
    p = sp + 1;
    // authuser runs to the " [" that opens the date, so a user name may
    // hold spaces.
    const char* lb = p;
    while (true) {
      lb = Find<kPadded>(lb, end, '[');
      if (lb == nullptr) return false;
      if (lb > p && lb[-1] == ' ') break;
      ++lb;
    }
    v[kUser] = view(p, lb - 1);
    const char* rb = Find<kPadded>(lb + 1, end, ']');
    if (rb == nullptr) return false;
    v[kTime] = view(lb + 1, rb);
    // ` "request"`
    if (end - rb < 4 || rb[1] != ' ' || rb[2] != '"') return false;
    p = rb + 3;
    const char* q = FindClosingQuote<kPadded>(p, end);
    if (q == nullptr) return false;
    v[kRequest] = view(p, q);
    // ` status bytes`
    if (end - q < 4 || q[1] != ' ') return false;
    p = q + 2;
    sp = Find<kPadded>(p, end, ' ');
    if (sp == nullptr || sp == p) return false;
    v[kStatus] = view(p, sp);
    p = sp + 1;
    sp = Find<kPadded>(p, end, ' ');
    const char* bytes_end = sp == nullptr ? end : sp;
    if (bytes_end == p) return false;
    v[kBytes] = view(p, bytes_end);
    if constexpr (!kCombined) return true;  // Whatever follows is ignored.
    // ` "referer" "agent"`, then the end or a space and anything.
    p = bytes_end;
    for (AccessField f : {kReferer, kAgent}) {
      if (end - p < 3 || p[0] != ' ' || p[1] != '"') return false;
      q = FindClosingQuote<kPadded>(p + 2, end);
      if (q == nullptr) return false;
      v[f] = view(p + 2, q);
      p = q + 1;
    }
    return p == end || *p == ' ';
  }

  // method path protocol: split at the first and the last space; fewer than
  // two spaces leave all three missing.
  template <bool kPadded>
  static void SplitRequest(std::array<std::string_view, kNumAccessFields>& v) {
    const std::string_view r = v[kRequest];
    const char* const b = r.data();
    const char* const e = b + r.size();
    const char* first = r.empty() ? nullptr : Find<kPadded>(b, e, ' ');
    const char* last = first == nullptr ? nullptr : FindLast(first, e, ' ');
    if (first == nullptr || first == last) {
      v[kMethod] = v[kPath] = v[kProtocol] = std::string_view();
      return;
    }
    auto view = [](const char* x, const char* y) {
      return std::string_view(x, static_cast<size_t>(y - x));
    };
    v[kMethod] = view(b, first);
    v[kPath] = view(first + 1, last);
    v[kProtocol] = view(last + 1, e);
  }

  std::vector<Wanted> wanted_;
  bool split_request_ = false;
  // unescape_[f]: the quoted field f is needed unescaped.
  std::array<bool, kNumAccessFields> unescape_{};
  // fields.column(i) for the current batch.
  std::vector<std::string_view*> columns_;
};

template <bool kCombined>
class AccessLogFormat : public BuiltinLogFormat {
 public:
  AccessLogFormat()
      : BuiltinLogFormat(
            kCombined ? "combined" : "clf",
            kCombined
                ? "Apache/nginx combined access logs: ip ident user time "
                  "request method path protocol status bytes referer agent"
                : "Apache/nginx common log format (CLF): ip ident user time "
                  "request method path protocol status bytes",
            kCombined ? "::1 - - [10/Oct/2000:13:55:36 -0700] \"GET / "
                        "HTTP/1.1\" 200 9 \"-\" \"curl/8\""
                      : "::1 - - [10/Oct/2000:13:55:36 -0700] \"GET / "
                        "HTTP/1.1\" 200 9",
            std::vector<std::string>(
                kFieldNames.begin(),
                kFieldNames.begin() +
                    (kCombined ? kNumCombinedFields : kNumClfFields))) {}
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return std::make_unique<AccessParser<kCombined>>(fields);
  }
};

}  // namespace

std::shared_ptr<const LogFormat> NewClfLogFormat() {
  return std::make_shared<AccessLogFormat<false>>();
}

std::shared_ptr<const LogFormat> NewCombinedLogFormat() {
  return std::make_shared<AccessLogFormat<true>>();
}

}  // namespace mapr::runtime
