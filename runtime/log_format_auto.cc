// `logformat auto` (mapr/format_guess.h): each line is read by the built-in
// format its shape names. The parser classifies a batch's lines, hands each
// format its lines in one call (a batch of one format, the usual case, goes
// straight through), and scatters the fields back to the lines' rows.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "mapr/format_guess.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "util/strings.h"

namespace mapr {
namespace runtime {
namespace {

// The formats auto picks from, in the order ties go (and --help lists).
enum Kind : uint8_t {
  kJson,
  kJournal,
  kSyslog,
  kDefault,
  kCombined,
  kClf,
  kGenericKv,
  kLogfmt,
  kGeneric,
  kNumKinds,
};

constexpr std::array<std::string_view, kNumKinds> kNames = {
    "json", "journal",   "syslog", "default", "combined",
    "clf",  "generickv", "logfmt", "generic"};

constexpr std::array<std::string_view, kNumKinds> kEvidence = {
    "JSON objects, one per line",
    "journald entries (JSON objects with __REALTIME_TIMESTAMP)",
    "syslog lines: a <PRI>, or a BSD or RFC 3339 timestamp, then a host",
    "DTail lines: SEVERITY|time|...|MAPREDUCE:TABLE|key=value",
    "access-log lines with a referer and a user agent (combined)",
    "access-log lines in the Common Log Format",
    "key=value tokens separated by '|'",
    "key=value pairs separated by spaces (logfmt)",
    "no format's shape: only the common variables ($line, ...)"};

bool Digit(char c) { return c >= '0' && c <= '9'; }

bool Digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (!Digit(s[i])) return false;
  }
  return true;
}

// The line without the whitespace the engine trims before a format sees it.
std::string_view Trimmed(std::string_view s) {
  return util::ToStd(absl::StripAsciiWhitespace(util::ToAbsl(s)));
}

// "<13>...": a syslog PRI of 1 to 3 digits.
bool HasPri(std::string_view s) {
  if (s.size() < 3 || s[0] != '<') return false;
  size_t i = 1;
  while (i < s.size() && i <= 3 && Digit(s[i])) ++i;
  return i > 1 && i < s.size() && s[i] == '>';
}

// "Dec 10 06:55:46 host": RFC 3164's timestamp, then a host.
bool BsdTimestamp(std::string_view s) {
  static constexpr std::string_view kMonths =
      "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (s.size() < 17) return false;
  bool month = false;
  for (size_t m = 0; m < kMonths.size(); m += 3) {
    if (s.substr(0, 3) == kMonths.substr(m, 3)) month = true;
  }
  return month && s[3] == ' ' && (s[4] == ' ' || Digit(s[4])) && Digit(s[5]) &&
         s[6] == ' ' && Digits(s, 7, 2) && s[9] == ':' && Digits(s, 10, 2) &&
         s[12] == ':' && Digits(s, 13, 2) && s[15] == ' ' && s[16] != ' ';
}

// "2024-05-01T12:00:00.123+02:00 host": rsyslog's RFC 3339 timestamp,
// then a host (a token without '=').
bool Rfc3339Host(std::string_view s) {
  if (!(Digits(s, 0, 4) && s.size() > 19 && s[4] == '-' && Digits(s, 5, 2) &&
        s[7] == '-' && Digits(s, 8, 2) && s[10] == 'T' && Digits(s, 11, 2) &&
        s[13] == ':' && Digits(s, 14, 2) && s[16] == ':' && Digits(s, 17, 2))) {
    return false;
  }
  size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && Digit(s[i])) ++i;
  }
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-') &&
             Digits(s, i + 1, 2) && i + 3 < s.size() && s[i + 3] == ':' &&
             Digits(s, i + 4, 2)) {
    i += 6;
  } else {
    return false;
  }
  if (i >= s.size() || s[i] != ' ') return false;
  const size_t end = s.find(' ', i + 1);
  const std::string_view host =
      s.substr(i + 1, end == std::string_view::npos ? s.npos : end - i - 1);
  return !host.empty() && host.find('=') == std::string_view::npos;
}

// "INFO|...": DTail's severity, upper-case letters, then '|'.
bool DtailStart(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && i < 9 && s[i] >= 'A' && s[i] <= 'Z') ++i;
  return i >= 3 && i < s.size() && s[i] == '|';
}

// `host ident user [time] "request" status bytes`, with ` "referer"
// "agent"` after it for combined.
Kind AccessLog(std::string_view s) {
  size_t i = 0;
  for (int token = 0; token < 3; ++token) {
    const size_t sp = s.find(' ', i);
    if (sp == std::string_view::npos || sp == i) return kNumKinds;
    i = sp + 1;
  }
  if (i >= s.size() || s[i] != '[') return kNumKinds;
  const size_t close = s.find("] \"", i);
  if (close == std::string_view::npos) return kNumKinds;
  i = close + 3;
  // The request, with backslash escapes (nginx writes \x16 and \").
  while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
  if (i + 1 >= s.size() || s[i + 1] != ' ' || !Digits(s, i + 2, 3)) {
    return kNumKinds;
  }
  i += 5;
  if (i >= s.size() || s[i] != ' ') return kNumKinds;
  ++i;
  if (i < s.size() && s[i] == '-') {
    ++i;
  } else if (i < s.size() && Digit(s[i])) {
    while (i < s.size() && Digit(s[i])) ++i;
  } else {
    return kNumKinds;
  }
  if (i == s.size()) return kClf;
  return s.substr(i, 2) == " \"" ? kCombined : kNumKinds;
}

// A logfmt or generickv key: a letter or '_', then letters, digits and
// `_ . - /`.
size_t KeyLength(std::string_view s) {
  if (s.empty() || !((s[0] >= 'a' && s[0] <= 'z') ||
                     (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) {
    return 0;
  }
  size_t i = 1;
  while (i < s.size()) {
    const char c = s[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || Digit(c) ||
        c == '_' || c == '.' || c == '-' || c == '/') {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

Kind Classify(std::string_view line) {
  const std::string_view s = Trimmed(line);
  if (s.empty()) return kGeneric;
  if (s.front() == '{' && s.back() == '}') {
    // journalctl -o json and mapr --journal: $time is the entry's time.
    return s.find("\"__REALTIME_TIMESTAMP\":") != std::string_view::npos
               ? kJournal
               : kJson;
  }
  if (HasPri(s) || BsdTimestamp(s) || Rfc3339Host(s)) return kSyslog;
  if (DtailStart(s)) return kDefault;
  if (const Kind k = AccessLog(s); k != kNumKinds) return k;
  const size_t key = KeyLength(s);
  if (key > 0 && key < s.size() && s[key] == '=') {
    // The first pair ends at '|' (generickv) or a space (logfmt); a quoted
    // logfmt value may hold either.
    const size_t bar = s.find('|');
    const size_t space = s.find(' ');
    const bool quoted = key + 1 < s.size() && s[key + 1] == '"';
    if (bar != std::string_view::npos && !quoted &&
        (space == std::string_view::npos || bar < space)) {
      return kGenericKv;
    }
    return kLogfmt;
  }
  return kGeneric;
}

// The columns a sub-format writes for the lines of one kind, scattered to
// their rows of the batch afterwards; scratch bytes come from the batch.
class SubBatch final : public FieldBatch {
 public:
  SubBatch(FieldBatch& batch, std::vector<std::string_view>& storage)
      : batch_(batch), columns_(storage) {
    columns_.resize(batch.num_fields() * kMaxBatchRows);
  }
  size_t num_fields() const override { return batch_.num_fields(); }
  std::string_view* column(size_t field) override {
    return columns_.data() + field * kMaxBatchRows;
  }
  char* Allocate(size_t n) override { return batch_.Allocate(n); }
  size_t line_padding() const override { return batch_.line_padding(); }

 private:
  FieldBatch& batch_;
  std::vector<std::string_view>& columns_;
};

class AutoParser final : public LogFormatParser {
 public:
  explicit AutoParser(
      std::array<std::unique_ptr<LogFormatParser>, kNumKinds> parsers)
      : parsers_(std::move(parsers)) {}

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    kinds_.resize(lines.size());
    std::array<size_t, kNumKinds> count = {};
    for (size_t i = 0; i < lines.size(); ++i) {
      kinds_[i] = Classify(lines[i]);
      ++count[kinds_[i]];
    }
    for (size_t k = 0; k < kNumKinds; ++k) {
      if (count[k] == lines.size()) {  // One format: no scatter.
        parsers_[k]->ParseBatch(lines, fields, outcomes);
        return;
      }
    }
    SubBatch sub(fields, columns_);
    for (size_t k = 0; k < kNumKinds; ++k) {
      if (count[k] == 0) continue;
      rows_.clear();
      sub_lines_.clear();
      for (size_t i = 0; i < lines.size(); ++i) {
        if (kinds_[i] != k) continue;
        rows_.push_back(i);
        sub_lines_.push_back(lines[i]);
      }
      const size_t n = rows_.size();
      for (size_t f = 0; f < sub.num_fields(); ++f) {
        std::fill_n(sub.column(f), n, std::string_view());
      }
      parsers_[k]->ParseBatch(sub_lines_, sub, sub_outcomes_.data());
      for (size_t f = 0; f < sub.num_fields(); ++f) {
        const std::string_view* from = sub.column(f);
        std::string_view* to = fields.column(f);
        for (size_t j = 0; j < n; ++j) to[rows_[j]] = from[j];
      }
      for (size_t j = 0; j < n; ++j) outcomes[rows_[j]] = sub_outcomes_[j];
    }
  }

 private:
  std::array<std::unique_ptr<LogFormatParser>, kNumKinds> parsers_;
  std::vector<uint8_t> kinds_;
  std::vector<size_t> rows_;
  std::vector<std::string_view> sub_lines_;
  std::vector<std::string_view> columns_;
  std::array<LineOutcome, kMaxBatchRows> sub_outcomes_ = {};
};

class AutoLogFormat final : public BuiltinLogFormat {
 public:
  AutoLogFormat()
      : BuiltinLogFormat(
            "auto",
            "each line in the built-in format its shape names: json, journal, "
            "syslog, "
            "default, combined, clf, generickv, logfmt, else generic "
            "(mapr --explain FILE... shows the pick per input)",
            "any of the above, mixed", std::nullopt),
        formats_{NewJsonLogFormat(),      NewJournalLogFormat(),
                 NewSyslogLogFormat(),    NewDefaultLogFormat(),
                 NewCombinedLogFormat(),  NewClfLogFormat(),
                 NewGenericKvLogFormat(), NewLogfmtLogFormat(),
                 NewGenericLogFormat()} {}

  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    std::array<std::unique_ptr<LogFormatParser>, kNumKinds> parsers;
    for (size_t k = 0; k < kNumKinds; ++k) {
      absl::StatusOr<std::unique_ptr<LogFormatParser>> p =
          formats_[k]->NewParser(fields);
      if (!p.ok()) return p.status();
      parsers[k] = *std::move(p);
    }
    return std::make_unique<AutoParser>(std::move(parsers));
  }

 private:
  const std::array<std::shared_ptr<const LogFormat>, kNumKinds> formats_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewAutoLogFormat() {
  return std::make_shared<AutoLogFormat>();
}

}  // namespace runtime

std::string_view AutoFormatOf(std::string_view line) {
  return runtime::kNames[runtime::Classify(line)];
}

FormatGuess GuessLogFormat(std::span<const std::string_view> lines) {
  std::array<uint64_t, runtime::kNumKinds> count = {};
  FormatGuess g;
  for (std::string_view line : lines) {
    if (runtime::Trimmed(line).empty()) continue;
    ++count[runtime::Classify(line)];
    ++g.sampled;
  }
  size_t best = runtime::kNumKinds, second = runtime::kNumKinds;
  for (size_t k = 0; k < runtime::kNumKinds; ++k) {
    if (count[k] == 0) continue;
    if (best == runtime::kNumKinds || count[k] > count[best]) {
      second = best;
      best = k;
    } else if (second == runtime::kNumKinds || count[k] > count[second]) {
      second = k;
    }
  }
  if (best == runtime::kNumKinds) return g;
  g.format = runtime::kNames[best];
  g.lines = count[best];
  g.evidence = runtime::kEvidence[best];
  if (second != runtime::kNumKinds) {
    g.runner_up = runtime::kNames[second];
    g.runner_up_lines = count[second];
  }
  return g;
}

}  // namespace mapr
