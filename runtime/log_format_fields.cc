// The `fields` log format (docs/query-language.md, "fields"): plain logs
// read the way awk reads them. Fields are named f1, f2, ...:
//   logformat fields       split on runs of spaces and tabs (a trimmed line
//                          has none at either end);
//   logformat fields ','   split on every ',' (or any text given; '\t' is a
//                          tab): empty fields count, like awk -F','.
// Every line is parsed; fields beyond a line's last are missing.
#include <algorithm>
#include <charconv>
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

// Position k (1-based) of a name "fK", or 0.
uint32_t FieldPosition(std::string_view name) {
  if (name.size() < 2 || name[0] != 'f' || name[1] == '0') return 0;
  uint32_t k = 0;
  auto [end, ec] =
      std::from_chars(name.data() + 1, name.data() + name.size(), k);
  if (ec != std::errc() || end != name.data() + name.size()) return 0;
  return k;
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// The first blank (space or tab) in [p, end), or end. Eight bytes at a
// time: a byte b is blank when b ^ ' ' or b ^ '\t' is zero, and the lowest
// byte the zero-byte test flags is exact (a borrow only flags bytes above a
// zero byte).
const char* FindBlank(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighs = 0x8080808080808080ULL;
  while (end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    const uint64_t sp = x ^ (kOnes * ' ');
    const uint64_t tab = x ^ (kOnes * '\t');
    const uint64_t found =
        ((sp - kOnes) & ~sp & kHighs) | ((tab - kOnes) & ~tab & kHighs);
    if (found != 0) return p + (__builtin_ctzll(found) >> 3);
    p += 8;
  }
  while (p < end && !IsBlank(*p)) ++p;
  return p;
}

class FieldsParser : public LogFormatParser {
 public:
  FieldsParser(std::string delimiter, std::span<const std::string> fields)
      : delimiter_(std::move(delimiter)), columns_(fields.size()) {
    for (uint32_t i = 0; i < fields.size(); ++i) {
      const uint32_t k = FieldPosition(fields[i]);
      if (k == 0) continue;
      wanted_.push_back(Wanted{k, i});
      last_ = std::max(last_, k);
    }
    // By position, so one left-to-right scan fills them all.
    std::sort(wanted_.begin(), wanted_.end(),
              [](const Wanted& a, const Wanted& b) {
                return a.position < b.position;
              });
  }

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    for (size_t row = 0; row < lines.size(); ++row) {
      outcomes[row] = LineOutcome::kParsed;
      if (wanted_.empty()) continue;
      if (delimiter_.empty()) {
        SplitBlanks(lines[row], row);
      } else {
        SplitDelimiter(lines[row], row);
      }
    }
  }

 private:
  struct Wanted {
    uint32_t position;  // 1-based
    uint32_t column;
  };

  // Stores field `position` (when requested) and says whether any requested
  // field lies beyond it. `next` walks wanted_ in step.
  bool Store(uint32_t position, std::string_view value, size_t row,
             size_t* next) {
    while (*next < wanted_.size() && wanted_[*next].position == position) {
      columns_[wanted_[*next].column][row] =
          value.empty() ? FieldBatch::kEmptyValue : value;
      ++*next;
    }
    return *next < wanted_.size();
  }

  void SplitBlanks(std::string_view line, size_t row) {
    const char* p = line.data();
    const char* const end = p + line.size();
    size_t next = 0;
    uint32_t position = 0;
    while (true) {
      while (p < end && IsBlank(*p)) ++p;
      if (p == end) return;
      const char* start = p;
      p = FindBlank(p, end);
      if (!Store(++position,
                 std::string_view(start, static_cast<size_t>(p - start)), row,
                 &next)) {
        return;
      }
    }
  }

  void SplitDelimiter(std::string_view line, size_t row) {
    size_t next = 0;
    uint32_t position = 0;
    size_t start = 0;
    // A blank line has no fields (awk: NF == 0).
    if (line.empty()) return;
    while (true) {
      size_t cut = delimiter_.size() == 1 ? line.find(delimiter_[0], start)
                                          : line.find(delimiter_, start);
      const size_t stop = cut == std::string_view::npos ? line.size() : cut;
      // line.data() is non-null here, so an empty field is present.
      if (!Store(++position, line.substr(start, stop - start), row, &next) ||
          cut == std::string_view::npos) {
        return;
      }
      start = cut + delimiter_.size();
    }
  }

  const std::string delimiter_;  // Empty: runs of blanks.
  std::vector<Wanted> wanted_;
  uint32_t last_ = 0;
  std::vector<std::string_view*> columns_;
};

class FieldsLogFormat : public BuiltinLogFormat {
 public:
  explicit FieldsLogFormat(std::string delimiter = "")
      : BuiltinLogFormat(
            "fields",
            "plain text split like awk: fields f1 f2 ... on runs of spaces "
            "and tabs, or on the text given: logformat fields ','",
            "2026-11-30 06:25:03 status installed libre2-9:amd64 20220601",
            std::vector<std::string>{}),
        delimiter_(std::move(delimiter)) {}
  absl::StatusOr<std::shared_ptr<const LogFormat>> Configure(
      std::optional<std::string_view> argument,
      const FormatOptions& /*options*/) const override {
    if (!argument) return std::shared_ptr<const LogFormat>();
    if (argument->empty()) {
      return absl::InvalidArgumentError(
          "the delimiter of log format 'fields' is empty; drop it to split "
          "on spaces and tabs");
    }
    // Strings have no escapes: the two characters \t stand for a tab.
    std::string delimiter(*argument);
    if (delimiter == "\\t") delimiter = "\t";
    return std::make_shared<FieldsLogFormat>(std::move(delimiter));
  }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return std::make_unique<FieldsParser>(delimiter_, fields);
  }

 private:
  const std::string delimiter_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewFieldsLogFormat() {
  return std::make_shared<FieldsLogFormat>();
}

}  // namespace mapr::runtime
