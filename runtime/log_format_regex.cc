// The `regex` log format (docs/query-language.md, "regex"): `logformat regex
// '(?P<ip>\S+) \S+ (?P<user>\S+) ...'`. The pattern's named groups are the
// fields. A line the pattern does not match (an unanchored search, like
// `=~`) is LineOutcome::kUnmatched; a group that takes no part in the match
// leaves its field missing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "mapr/log_format.h"
#include "parser/regex.h"
#include "re2/re2.h"
#include "runtime/log_formats.h"

namespace mapr::runtime {
namespace {

constexpr char kExample[] = "logformat regex '(?P<ip>\\S+) (?P<rest>.*)'";

class RegexParser : public LogFormatParser {
 public:
  RegexParser(std::shared_ptr<const re2::RE2> re,
              std::span<const std::string> fields)
      : re_(std::move(re)), columns_(fields.size()) {
    const std::map<std::string, int>& groups = re_->NamedCapturingGroups();
    for (uint32_t i = 0; i < fields.size(); ++i) {
      auto it = groups.find(fields[i]);
      if (it == groups.end()) continue;
      wanted_.push_back(Wanted{i, it->second});
      submatches_ = std::max(submatches_, it->second + 1);
    }
    match_.resize(static_cast<size_t>(submatches_));
  }

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    for (size_t row = 0; row < lines.size(); ++row) {
      const std::string_view line = lines[row];
      // Without groups to extract, RE2 answers match or not with its DFA.
      if (!re_->Match(re2::StringPiece(line.data(), line.size()), 0,
                      line.size(), RE2::UNANCHORED, match_.data(),
                      submatches_)) {
        outcomes[row] = LineOutcome::kUnmatched;
        continue;
      }
      outcomes[row] = LineOutcome::kParsed;
      for (const Wanted& w : wanted_) {
        const re2::StringPiece& m = match_[static_cast<size_t>(w.group)];
        if (m.data() == nullptr) continue;  // The group took no part.
        columns_[w.column][row] = m.empty()
                                      ? FieldBatch::kEmptyValue
                                      : std::string_view(m.data(), m.size());
      }
    }
  }

 private:
  struct Wanted {
    uint32_t column;
    int group;
  };

  const std::shared_ptr<const re2::RE2> re_;
  std::vector<Wanted> wanted_;
  int submatches_ = 0;
  std::vector<re2::StringPiece> match_;
  std::vector<std::string_view*> columns_;
};

// `regex` configured with its pattern.
// `logformat regex` as registered (no pattern: NewParser fails), and as
// Configure makes it for a query's pattern.
class RegexLogFormat : public BuiltinLogFormat {
 public:
  explicit RegexLogFormat(std::shared_ptr<const re2::RE2> re = nullptr)
      : BuiltinLogFormat(
            "regex",
            "logformat regex 're': an RE2 pattern whose named groups "
            "(?P<name>...) or (?<name>...) are the fields; lines it does not "
            "match count as unmatched",
            "10.0.0.1 GET /index.html   (with '^(?P<ip>\\S+) (?P<rest>.*)')",
            std::vector<std::string>{}),
        re_(std::move(re)) {}
  absl::StatusOr<std::shared_ptr<const LogFormat>> Configure(
      std::optional<std::string_view> argument,
      const FormatOptions& options) const override {
    if (!argument) {
      return absl::InvalidArgumentError(
          absl::StrCat("log format 'regex' needs a pattern: ", kExample));
    }
    absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
        parser::CompilePattern(*argument, options.max_regex_memory);
    if (!re.ok()) return re.status();
    if ((*re)->NamedCapturingGroups().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the pattern of log format 'regex' has no named group; name the "
          "parts to extract: ",
          kExample));
    }
    return std::make_shared<RegexLogFormat>(*std::move(re));
  }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    if (re_ == nullptr) {
      return absl::FailedPreconditionError(
          "log format 'regex' needs a pattern");
    }
    return std::make_unique<RegexParser>(re_, fields);
  }

 private:
  const std::shared_ptr<const re2::RE2> re_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewRegexLogFormat() {
  return std::make_shared<RegexLogFormat>();
}

}  // namespace mapr::runtime
