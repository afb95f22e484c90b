// The `pattern` log format (docs/query-language.md, "pattern"): `logformat
// pattern '<ip> - <user> [<time>] "<method> <path> <_>" <status> <bytes>'`,
// LogQL's and angle-grinder's patterns without a regular expression. The
// pattern is literal text and captures: `<name>` takes the line's text up
// to the next occurrence of the literal that follows it (to the end of the
// line when none follows), `<_>` skips the same way. Matching starts at the
// line's first byte; text after the last literal is ignored. A line missing
// a literal is LineOutcome::kUnmatched.
//
// Each capture is one substring search (a memchr of its first byte): no
// backtracking, no regular expression, so access-log shapes run at
// gigabytes per second.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

constexpr char kExample[] =
    "logformat pattern '<ip> - <user> [<time>] \"<method> <path> <_>\" "
    "<status> <bytes>'";

// A compiled pattern: the literal the line starts with, then per capture
// its name's index (-1 for <_>) and the literal after it ("" at the end).
struct Pattern {
  std::string prefix;
  struct Step {
    int capture;
    std::string literal;
  };
  std::vector<Step> steps;
  std::vector<std::string> names;  // Index = capture.
};

bool NameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool NameChar(char c) { return NameStart(c) || (c >= '0' && c <= '9'); }

// The length of a capture `<name>` at the front of `s`, or 0 if `s` does
// not start with one (then '<' is literal text: `<14>` in a syslog line).
size_t CaptureLength(std::string_view s) {
  if (s.size() < 3 || s[0] != '<' || !NameStart(s[1])) return 0;
  size_t i = 2;
  while (i < s.size() && NameChar(s[i])) ++i;
  return i < s.size() && s[i] == '>' ? i + 1 : 0;
}

absl::StatusOr<Pattern> CompilePattern(std::string_view text) {
  Pattern p;
  std::string literal;
  bool captured = false;  // A capture waits for its literal.
  size_t i = 0;
  auto end_literal = [&] {
    if (!captured) {
      p.prefix = literal;
    } else {
      p.steps.back().literal = literal;
    }
    literal.clear();
  };
  while (i < text.size()) {
    const size_t n = CaptureLength(text.substr(i));
    if (n == 0) {
      literal.push_back(text[i++]);
      continue;
    }
    const std::string name(text.substr(i + 1, n - 2));
    if (captured && literal.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the pattern has two captures with no text between them, before <",
          name,
          ">: where the first ends is unknown; put the text that "
          "separates them between"));
    }
    end_literal();
    int index = -1;
    if (name != "_") {
      for (const std::string& seen : p.names) {
        if (seen == name) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the pattern names <", name, "> twice; use <_> to skip text"));
        }
      }
      index = static_cast<int>(p.names.size());
      p.names.push_back(name);
    }
    p.steps.push_back(Pattern::Step{index, ""});
    captured = true;
    i += n;
  }
  end_literal();
  if (p.names.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the pattern of log format 'pattern' captures nothing; name the "
        "parts to extract as <name>: ",
        kExample));
  }
  return p;
}

class PatternParser : public LogFormatParser {
 public:
  PatternParser(std::shared_ptr<const Pattern> pattern,
                std::span<const std::string> fields)
      : pattern_(std::move(pattern)),
        column_of_(pattern_->names.size(), -1),
        columns_(fields.size()),
        values_(pattern_->names.size()) {
    for (size_t f = 0; f < fields.size(); ++f) {
      for (size_t c = 0; c < pattern_->names.size(); ++c) {
        if (pattern_->names[c] == fields[f] && column_of_[c] < 0) {
          column_of_[c] = static_cast<int>(f);
        }
      }
    }
  }

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    const Pattern& p = *pattern_;
    for (size_t row = 0; row < lines.size(); ++row) {
      outcomes[row] =
          Match(p, lines[row]) ? LineOutcome::kParsed : LineOutcome::kUnmatched;
      if (outcomes[row] != LineOutcome::kParsed) continue;
      for (size_t c = 0; c < values_.size(); ++c) {
        if (column_of_[c] < 0) continue;
        columns_[static_cast<size_t>(column_of_[c])][row] =
            values_[c].empty() ? FieldBatch::kEmptyValue : values_[c];
      }
    }
  }

 private:
  // Fills values_ from `line`; false if a literal is missing.
  bool Match(const Pattern& p, std::string_view line) {
    if (!line.starts_with(p.prefix)) return false;
    size_t at = p.prefix.size();
    for (const Pattern::Step& step : p.steps) {
      size_t end = line.size();
      if (!step.literal.empty()) {
        // (find() memchr's the literal's first byte, then compares.)
        end = line.find(step.literal, at);
        if (end == std::string_view::npos) return false;
      }
      if (step.capture >= 0) {
        values_[static_cast<size_t>(step.capture)] = line.substr(at, end - at);
      }
      at = step.literal.empty() ? end : end + step.literal.size();
    }
    return true;
  }

  const std::shared_ptr<const Pattern> pattern_;
  std::vector<int> column_of_;  // Per capture: its field's column, or -1.
  std::vector<std::string_view*> columns_;
  std::vector<std::string_view> values_;
};

// `pattern` configured with its pattern.
// `logformat pattern` as registered (no pattern: NewParser fails), and as
// Configure makes it for a query's pattern.
class PatternLogFormat : public BuiltinLogFormat {
 public:
  explicit PatternLogFormat(std::shared_ptr<const Pattern> pattern = nullptr)
      : BuiltinLogFormat(
            "pattern",
            "logformat pattern '...': literal text and <name> captures (each "
            "up to the text after it; <_> skips), matched from the line's "
            "start without a regular expression; lines missing a literal "
            "count as unmatched",
            "GET /api 200 12ms   (with '<method> <path> <status> <ms>ms')",
            std::vector<std::string>{}),
        pattern_(std::move(pattern)) {}
  absl::StatusOr<std::shared_ptr<const LogFormat>> Configure(
      std::optional<std::string_view> argument,
      const FormatOptions&) const override {
    if (!argument) {
      return absl::InvalidArgumentError(
          absl::StrCat("log format 'pattern' needs a pattern: ", kExample));
    }
    absl::StatusOr<Pattern> p = CompilePattern(*argument);
    if (!p.ok()) return p.status();
    return std::make_shared<PatternLogFormat>(
        std::make_shared<const Pattern>(*std::move(p)));
  }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    if (pattern_ == nullptr) {
      return absl::FailedPreconditionError(
          "log format 'pattern' needs a pattern");
    }
    return std::make_unique<PatternParser>(pattern_, fields);
  }

 private:
  const std::shared_ptr<const Pattern> pattern_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewPatternLogFormat() {
  return std::make_shared<PatternLogFormat>();
}

}  // namespace mapr::runtime
