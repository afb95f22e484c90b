// The `syslog` log format (docs/query-language.md, "syslog"): RFC 5424 and
// RFC 3164 (BSD) lines, told apart per line, and the PRI-less lines rsyslog
// writes to /var/log/syslog and /var/log/messages.
//
//   <165>1 2003-10-11T22:14:15.003Z host app - ID47 [id@1 k="v"] msg   5424
//   <34>Oct 11 22:14:15 mymachine su: 'su root' failed ...             3164
//   Dec  1 14:00:00 myhost sshd[123]: Accepted ...                     file
//   2026-12-01T14:00:00.123456+00:00 myhost app[1]: msg                file
//
// A line is RFC 5424 when `<PRI>` is followed by a VERSION (1-3 digits, the
// first non-zero) and a space; everything else is read as RFC 3164, with or
// without a PRI. The classification (parsed or malformed) never depends on
// the requested fields: the 5424 header and structured data are always
// checked, while the 3164 HOSTNAME and TAG are split off and SD params are
// matched and unescaped only when a field needs them. Values are views into the
// line, except unescaped SD param values (FieldBatch memory) and the facility
// and severity names (copied into FieldBatch memory once per batch).
#include <array>
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

namespace mapr::runtime {
namespace {

// The fixed fields, in the order of kFieldNames.
enum Field : uint8_t {
  kPri,
  kFacility,
  kSeverity,
  kTime,
  kHost,
  kApp,
  kPid,
  kMsgid,
  kMsg,
  kNumFields,
};

constexpr std::array<std::string_view, kNumFields> kFieldNames = {
    "pri", "facility", "severity", "time", "host",
    "app", "pid",      "msgid",    "msg"};

// A field named `sd.<SD-ID>.<PARAM-NAME>` is a structured-data param.
constexpr std::string_view kSdPrefix = "sd.";

// rsyslog's names (its syslogfacility-text property), which follow the
// descriptions of RFC 5424 table 1 for 13-15 ("log audit", "log alert",
// "clock daemon").
constexpr std::array<std::string_view, 24> kFacilityNames = {
    "kern",   "user",   "mail",   "daemon", "auth",     "syslog",
    "lpr",    "news",   "uucp",   "cron",   "authpriv", "ftp",
    "ntp",    "audit",  "alert",  "clock",  "local0",   "local1",
    "local2", "local3", "local4", "local5", "local6",   "local7"};
constexpr std::array<std::string_view, 8> kSeverityNames = {
    "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"};

constexpr int kMaxPri = 191;  // Facility 23, severity 7.

// The byte order mark that may start an RFC 5424 MSG.
constexpr std::string_view kBom = "\xEF\xBB\xBF";

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Whether the 3 bytes at `p` name a month, in any case ("Dec", "DEC").
inline bool IsMonth(const char* p) {
  const uint32_t m = (static_cast<uint32_t>(static_cast<uint8_t>(p[0])) |
                      static_cast<uint32_t>(static_cast<uint8_t>(p[1])) << 8 |
                      static_cast<uint32_t>(static_cast<uint8_t>(p[2])) << 16) |
                     0x202020u;
  constexpr auto kPack = [](const char* s) {
    return static_cast<uint32_t>(s[0]) | static_cast<uint32_t>(s[1]) << 8 |
           static_cast<uint32_t>(s[2]) << 16;
  };
  switch (m) {
    case kPack("jan"):
    case kPack("feb"):
    case kPack("mar"):
    case kPack("apr"):
    case kPack("may"):
    case kPack("jun"):
    case kPack("jul"):
    case kPack("aug"):
    case kPack("sep"):
    case kPack("oct"):
    case kPack("nov"):
    case kPack("dec"):
      return true;
    default:
      return false;
  }
}

// `hh:mm:ss` at p (8 bytes available).
inline bool IsClock(const char* p) {
  return IsDigit(p[0]) && IsDigit(p[1]) && p[2] == ':' && IsDigit(p[3]) &&
         IsDigit(p[4]) && p[5] == ':' && IsDigit(p[6]) && IsDigit(p[7]);
}

// The end of a BSD timestamp `Mmm dd hh:mm:ss` at p (the day also as ` d`
// or `d`, an optional `.fraction` after the seconds), or nullptr. It must be
// followed by a space or the end of the line.
const char* BsdTimeEnd(const char* p, const char* end) {
  // The shortest form is `Mmm d hh:mm:ss`.
  if (end - p < 14 || !IsMonth(p) || p[3] != ' ') return nullptr;
  const char* q;
  if ((p[4] == ' ' || IsDigit(p[4])) && IsDigit(p[5])) {  // " d" or "dd"
    q = p + 6;
  } else if (IsDigit(p[4]) && p[5] == ' ') {
    q = p + 5;
  } else {
    return nullptr;
  }
  if (end - q < 9 || *q != ' ' || !IsClock(q + 1)) return nullptr;
  q += 9;
  if (q < end && *q == '.' && q + 1 < end && IsDigit(q[1])) {
    q += 2;
    while (q < end && IsDigit(*q)) ++q;
  }
  return q == end || *q == ' ' ? q : nullptr;
}

// The end of an RFC 3339 timestamp at p (`YYYY-MM-DDThh:mm:ss` and the rest
// of its word: fraction, offset), or nullptr.
const char* Rfc3339TimeEnd(const char* p, const char* end) {
  if (end - p < 19 || !IsDigit(p[0]) || !IsDigit(p[1]) || !IsDigit(p[2]) ||
      !IsDigit(p[3]) || p[4] != '-' || !IsDigit(p[5]) || !IsDigit(p[6]) ||
      p[7] != '-' || !IsDigit(p[8]) || !IsDigit(p[9]) || p[10] != 'T' ||
      !IsClock(p + 11)) {
    return nullptr;
  }
  const char* q = p + 19;
  while (q < end && *q != ' ') ++q;
  return q;
}

// A requested `sd.<SD-ID>.<PARAM-NAME>` field.
struct SdKey {
  std::string_view key;  // <SD-ID>.<PARAM-NAME>, a view into names_.
  uint32_t column;
};

// Where a field requested twice is copied from.
struct Alias {
  uint32_t column;
  uint32_t source;
};

// What one line gave. A default view is missing.
struct LineParts {
  int pri = -1;  // -1: no PRI.
  std::string_view pri_text, time, host, app, pid, msgid, msg;
};

class SyslogParser : public LogFormatParser {
 public:
  explicit SyslogParser(std::span<const std::string> fields)
      : names_(fields.begin(), fields.end()), columns_(fields.size()) {
    column_of_.fill(kNone);
    for (uint32_t i = 0; i < names_.size(); ++i) {
      const std::string_view name = names_[i];
      bool duplicate = false;
      for (uint32_t j = 0; j < i; ++j) {
        if (names_[j] == name) {
          aliases_.push_back(Alias{i, j});
          duplicate = true;
          break;
        }
      }
      if (duplicate) continue;
      for (size_t f = 0; f < kNumFields; ++f) {
        if (kFieldNames[f] == name) column_of_[f] = static_cast<int32_t>(i);
      }
      if (name.size() > kSdPrefix.size() && name.starts_with(kSdPrefix)) {
        sd_keys_.push_back(SdKey{name.substr(kSdPrefix.size()), i});
      }
      // Other names stay missing.
    }
    need_names_ =
        column_of_[kFacility] != kNone || column_of_[kSeverity] != kNone;
    need_tag_ = column_of_[kApp] != kNone || column_of_[kPid] != kNone ||
                column_of_[kMsg] != kNone;
    need_host_ = need_tag_ || column_of_[kHost] != kNone;
  }
  SyslogParser(const SyslogParser&) = delete;
  SyslogParser& operator=(const SyslogParser&) = delete;

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    if (need_names_ && !lines.empty()) CopyNames(fields);
    for (size_t row = 0; row < lines.size(); ++row) {
      LineParts parts;
      if (!ParseLine(lines[row], row, fields, &parts)) {
        outcomes[row] = LineOutcome::kMalformed;
        continue;
      }
      outcomes[row] = LineOutcome::kParsed;
      Emit(parts, row);
      for (const Alias& a : aliases_) {
        columns_[a.column][row] = columns_[a.source][row];
      }
    }
  }

 private:
  static constexpr int32_t kNone = -1;

  // The facility and severity names, in FieldBatch memory for this batch.
  void CopyNames(FieldBatch& fields) {
    for (size_t i = 0; i < kFacilityNames.size(); ++i) {
      facility_[i] = fields.Copy(kFacilityNames[i]);
    }
    for (size_t i = 0; i < kSeverityNames.size(); ++i) {
      severity_[i] = fields.Copy(kSeverityNames[i]);
    }
  }

  void Set(Field f, size_t row, std::string_view value) {
    const int32_t c = column_of_[f];
    if (c != kNone) columns_[c][row] = value;
  }

  void Emit(const LineParts& p, size_t row) {
    if (p.pri >= 0) {
      Set(kPri, row, p.pri_text);
      if (need_names_) {
        Set(kFacility, row, facility_[p.pri >> 3]);
        Set(kSeverity, row, severity_[p.pri & 7]);
      }
    }
    Set(kTime, row, p.time);
    Set(kHost, row, p.host);
    Set(kApp, row, p.app);
    Set(kPid, row, p.pid);
    Set(kMsgid, row, p.msgid);
    Set(kMsg, row, p.msg);
  }

  // Fills `parts`; false if the line is malformed.
  bool ParseLine(std::string_view line, size_t row, FieldBatch& fields,
                 LineParts* parts) {
    const char* p = line.data();
    const char* const end = p + line.size();
    if (p == end) return false;  // data() may be null.
    if (*p != '<') return ParseBsd(p, end, /*has_pri=*/false, parts);
    // PRI: 1-3 digits (leading zeros tolerated) and '>', at most 191.
    const char* digits = ++p;
    int pri = 0;
    while (p < end && IsDigit(*p) && p - digits < 3) {
      pri = pri * 10 + (*p++ - '0');
    }
    if (p == digits || p == end || *p != '>' || pri > kMaxPri) return false;
    const char* first = digits;
    while (first + 1 < p && *first == '0') ++first;  // `<034>` is pri 34.
    parts->pri = pri;
    parts->pri_text = std::string_view(first, static_cast<size_t>(p - first));
    ++p;
    // VERSION SP makes it RFC 5424: 1-3 digits, the first non-zero.
    if (p < end && *p >= '1' && *p <= '9') {
      const char* v = p + 1;
      while (v < end && v - p < 3 && IsDigit(*v)) ++v;
      if (v < end && *v == ' ') {
        return Parse5424(v + 1, end, row, fields, parts);
      }
    }
    return ParseBsd(p, end, /*has_pri=*/true, parts);
  }

  // RFC 3164 after the PRI, if any: TIMESTAMP [HOSTNAME] [TAG] MSG.
  bool ParseBsd(const char* p, const char* end, bool has_pri,
                LineParts* parts) const {
    const char* t = BsdTimeEnd(p, end);
    if (t == nullptr) t = Rfc3339TimeEnd(p, end);
    if (t == nullptr) {
      // A PRI without a timestamp: all of the rest is content (RFC 3164
      // 4.3.2). Without a PRI either, the line is not syslog.
      if (!has_pri) return false;
      SplitTag(p, end, parts);
      return true;
    }
    parts->time = std::string_view(p, static_cast<size_t>(t - p));
    if (!need_host_) return true;
    p = t;
    while (p < end && *p == ' ') ++p;
    // HOSTNAME, unless the word is already the TAG (`app[1]:`, `app:`), as
    // in messages a local program sends without one.
    const char* w = p;
    bool bracket = false;
    while (w < end && *w != ' ') bracket |= *w++ == '[';
    if (w > p && !bracket && w[-1] != ':') {
      parts->host = std::string_view(p, static_cast<size_t>(w - p));
      p = w;
      while (p < end && *p == ' ') ++p;
    }
    SplitTag(p, end, parts);
    return true;
  }

  // The content [p, end): `app[pid]: msg`, `app: msg`, or just a msg. msg
  // never starts with a space.
  void SplitTag(const char* p, const char* end, LineParts* parts) const {
    if (!need_tag_) return;
    while (p < end && *p == ' ') ++p;
    const char* c = p;
    while (c < end && *c != ':' && *c != ' ') ++c;
    if (c == end || *c != ':' || c == p) {
      parts->msg = std::string_view(p, static_cast<size_t>(end - p));
      return;
    }
    std::string_view tag(p, static_cast<size_t>(c - p));
    const size_t open = tag.find('[');
    if (tag.back() == ']' && open != std::string_view::npos) {
      parts->app = tag.substr(0, open);
      parts->pid = tag.substr(open + 1, tag.size() - open - 2);
    } else {
      parts->app = tag;
    }
    ++c;
    while (c < end && *c == ' ') ++c;
    parts->msg = std::string_view(c, static_cast<size_t>(end - c));
  }

  // RFC 5424 after `<PRI>VERSION SP`: TIMESTAMP HOSTNAME APP-NAME PROCID
  // MSGID, each a non-empty word ended by one space; `-` is missing.
  bool Parse5424(const char* p, const char* end, size_t row, FieldBatch& fields,
                 LineParts* parts) {
    std::string_view* header[5] = {&parts->time, &parts->host, &parts->app,
                                   &parts->pid, &parts->msgid};
    for (std::string_view* out : header) {
      const char* w = p;
      while (w < end && *w != ' ') ++w;
      if (w == p || w == end) return false;  // Empty, or no STRUCTURED-DATA.
      if (w - p != 1 || *p != '-') {
        *out = std::string_view(p, static_cast<size_t>(w - p));
      }
      p = w + 1;
    }
    if (p == end) return false;
    if (*p == '-') {
      ++p;
    } else {
      p = ParseSd(p, end, row, fields);
      if (p == nullptr) return false;
    }
    if (p == end) return true;  // No MSG.
    if (*p != ' ') return false;
    // rsyslog's RSYSLOG_SyslogProtocol23Format writes two spaces before a
    // BSD message's text; msg never starts with a space, not even after
    // the BOM that may open a MSG.
    while (p < end && *p == ' ') ++p;
    std::string_view msg(p, static_cast<size_t>(end - p));
    if (msg.starts_with(kBom)) msg.remove_prefix(kBom.size());
    while (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
    parts->msg = msg;
    return true;
  }

  // One or more SD-ELEMENTs `[SD-ID *(SP PARAM-NAME="PARAM-VALUE")]` at p
  // (which is not `-`). Returns the end of the last one, or nullptr if the
  // structured data is malformed. Sets the requested params.
  const char* ParseSd(const char* p, const char* end, size_t row,
                      FieldBatch& fields) {
    if (*p != '[') return nullptr;
    while (p < end && *p == '[') {
      ++p;
      const char* id = p;
      while (p < end && IsNameChar(*p)) ++p;
      if (p == id || p == end) return nullptr;
      const std::string_view sd_id(id, static_cast<size_t>(p - id));
      while (*p == ' ') {
        const char* name = ++p;
        while (p < end && IsNameChar(*p)) ++p;
        if (p == name || end - p < 2 || p[0] != '=' || p[1] != '"') {
          return nullptr;
        }
        const std::string_view param(name, static_cast<size_t>(p - name));
        p += 2;
        // The value ends at the first '"' not escaped by an odd run of
        // backslashes; an unescaped ']' inside it is taken as is.
        const char* value = p;
        while (true) {
          const char* q = static_cast<const char*>(
              std::memchr(p, '"', static_cast<size_t>(end - p)));
          if (q == nullptr) return nullptr;
          const char* run = q;  // The backslashes right before the quote.
          while (run > value && run[-1] == '\\') --run;
          p = q + 1;
          if ((q - run) % 2 == 0) break;
        }
        if (!sd_keys_.empty()) {
          SetParam(sd_id, param,
                   std::string_view(value, static_cast<size_t>(p - 1 - value)),
                   row, fields);
        }
        if (p == end) return nullptr;
      }
      if (*p != ']') return nullptr;
      ++p;
    }
    return p;
  }

  // SD-NAME: printable US-ASCII except '=', SP, ']' and '"'.
  static bool IsNameChar(char c) {
    return c > ' ' && c < 127 && c != '=' && c != ']' && c != '"';
  }

  void SetParam(std::string_view sd_id, std::string_view param,
                std::string_view value, size_t row, FieldBatch& fields) {
    for (const SdKey& k : sd_keys_) {
      if (k.key.size() != sd_id.size() + 1 + param.size() ||
          k.key[sd_id.size()] != '.' || !k.key.starts_with(sd_id) ||
          !k.key.ends_with(param)) {
        continue;
      }
      // A later param of the same name wins: it simply overwrites.
      // `value` is never null: it points into the line even when empty.
      columns_[k.column][row] = value.find('\\') == std::string_view::npos
                                    ? value
                                    : Unescape(value, fields);
    }
  }

  // RFC 5424 6.3.3: `\"`, `\\` and `\]` stand for the character; any other
  // backslash is kept.
  static std::string_view Unescape(std::string_view value, FieldBatch& fields) {
    char* out = fields.Allocate(value.size());
    size_t n = 0;
    for (size_t i = 0; i < value.size(); ++i) {
      const char c = value[i];
      if (c == '\\' && i + 1 < value.size() &&
          (value[i + 1] == '"' || value[i + 1] == '\\' ||
           value[i + 1] == ']')) {
        ++i;
      }
      out[n++] = value[i];
    }
    return std::string_view(out, n);
  }

  // Requested names; sd_keys_ holds views into these (never resized).
  const std::vector<std::string> names_;
  std::array<int32_t, kNumFields> column_of_;
  std::vector<SdKey> sd_keys_;
  std::vector<Alias> aliases_;
  bool need_names_ = false;  // facility or severity.
  bool need_tag_ = false;    // app, pid or msg: split the RFC 3164 TAG.
  bool need_host_ = false;   // Those or host: find the RFC 3164 HOSTNAME.
  std::array<std::string_view, 24> facility_;
  std::array<std::string_view, 8> severity_;
  // fields.column(i) for the current batch.
  std::vector<std::string_view*> columns_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewSyslogLogFormat() {
  return std::make_shared<SimpleLogFormat<SyslogParser>>(
      "syslog",
      "RFC 5424, RFC 3164 and /var/log/syslog lines: pri, facility, "
      "severity, time, host, app, pid, msgid, msg and sd.ID.param",
      "<34>Oct 11 22:14:15 mymachine su: 'su root' failed on /dev/pts/8",
      std::vector<std::string>{});  // Only barewords.
}

}  // namespace mapr::runtime
