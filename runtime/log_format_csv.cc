// The `csv` log format (docs/query-language.md, "csv"): DTail's, except that
// RFC 4180 quotes are honoured.
//
// The first line a parser sees is its source's header. Header names are used
// verbatim (no `$` added); a requested name maps to the LAST header column of
// that name, like a map insert. Data rows with more values than header names
// are malformed; rows with fewer set only the leading columns; an empty line
// is a row whose first column is "".
//
// Memory: SplitCsvRecord needs an Arena for unescaped quoted values. The
// parser keeps one scratch Arena and Reset()s it before every row; a
// requested value that landed in it is copied into FieldBatch::Copy memory.
// So every view written points into the line or into FieldBatch memory, as
// mapr/log_format.h requires, without relying on the engine consuming a
// batch before the next ParseBatch call. The extra copy happens only for
// quoted values that needed unescaping, and the arena stays one block.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapr/log_format.h"
#include "runtime/csv.h"
#include "runtime/log_formats.h"
#include "util/arena.h"

namespace mapr::runtime {
namespace {

// First guess of the header width; doubled until the header fits.
constexpr size_t kInitialHeaderFields = 64;

inline bool PointsInto(std::string_view value, std::string_view line) {
  const auto v = reinterpret_cast<uintptr_t>(value.data());
  const auto l = reinterpret_cast<uintptr_t>(line.data());
  return v >= l && v + value.size() <= l + line.size();
}

class CsvParser : public LogFormatParser {
 public:
  explicit CsvParser(std::span<const std::string> fields)
      : requested_(fields.begin(), fields.end()), columns_(fields.size()) {}

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    size_t row = 0;
    if (!have_header_ && !lines.empty()) {
      LearnHeader(lines[0]);
      outcomes[0] = LineOutcome::kHeader;
      row = 1;
    }
    for (; row < lines.size(); ++row) {
      outcomes[row] = ParseRow(lines[row], row, fields);
    }
  }

 private:
  // A requested field found in the header.
  struct Mapped {
    uint32_t column;    // Index into the requested fields.
    uint32_t position;  // Index into the header.
  };

  void LearnHeader(std::string_view line) {
    Arena arena;
    std::vector<std::string_view> names(kInitialHeaderFields);
    CsvSplitResult r;
    while (true) {
      r = SplitCsvRecord(line, names.data(), names.size(), &arena);
      if (!r.too_many) break;
      names.resize(names.size() * 2);
      arena.Reset();
    }
    // Only positions are kept, so no header name outlives this call.
    for (uint32_t f = 0; f < requested_.size(); ++f) {
      std::optional<uint32_t> position;
      for (uint32_t p = 0; p < r.num_fields; ++p) {
        if (names[p] == requested_[f]) position = p;  // The last one wins.
      }
      if (position.has_value()) mapped_.push_back(Mapped{f, *position});
    }
    num_header_fields_ = r.num_fields;
    values_.resize(num_header_fields_);
    have_header_ = true;
  }

  LineOutcome ParseRow(std::string_view line, size_t row, FieldBatch& fields) {
    arena_.Reset();
    const CsvSplitResult r =
        SplitCsvRecord(line, values_.data(), num_header_fields_, &arena_);
    if (r.too_many) return LineOutcome::kMalformed;
    // Fast path: nothing was unescaped, so every value is a view into line.
    const bool unescaped = arena_.bytes_used() > 0;
    for (const Mapped& m : mapped_) {
      if (m.position >= r.num_fields) continue;  // A short row.
      std::string_view value = values_[m.position];
      if (unescaped && !PointsInto(value, line)) value = fields.Copy(value);
      columns_[m.column][row] = value;
    }
    return LineOutcome::kParsed;
  }

  const std::vector<std::string> requested_;
  bool have_header_ = false;
  size_t num_header_fields_ = 0;
  std::vector<Mapped> mapped_;
  // Split scratch: one view per header field.
  std::vector<std::string_view> values_;
  Arena arena_;
  // fields.column(i) for the current batch.
  std::vector<std::string_view*> columns_;
};

class CsvLogFormat : public BuiltinLogFormat {
 public:
  // Not line-independent: each input's first line is its header.
  CsvLogFormat()
      : BuiltinLogFormat("csv",
                         "CSV with a header line per input (RFC 4180 quotes); "
                         "each column is a field named by its header",
                         "status,ms (the header), then 200,12",
                         std::vector<std::string>{},
                         /*line_independent=*/false) {}
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return std::make_unique<CsvParser>(fields);
  }
};

}  // namespace

std::shared_ptr<const LogFormat> NewCsvLogFormat() {
  return std::make_shared<CsvLogFormat>();
}

}  // namespace mapr::runtime
