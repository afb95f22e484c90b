// The `generic` and `generickv` log formats (docs/query-language.md,
// "generic", "generickv").
//
// generic: every line is parsed and yields no fields of its own (the engine
// adds the common variables).
// generickv: `k=v|k=v|...`; each token with '=' gives key (before the first
// '=') -> value, later duplicates win; tokens without '=' are skipped (DTail's
// fork hangs on them). Every line is parsed.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "mapr/log_format.h"
#include "runtime/key_table.h"
#include "runtime/log_formats.h"

namespace mapr::runtime {
namespace {

// Up to this many keys are matched by a linear scan, beyond it by hash.

class GenericParser : public LogFormatParser {
 public:
  void ParseBatch(std::span<const std::string_view> lines,
                  FieldBatch& /*fields*/, LineOutcome* outcomes) override {
    for (size_t row = 0; row < lines.size(); ++row) {
      outcomes[row] = LineOutcome::kParsed;
    }
  }
};

class GenericKvParser : public LogFormatParser {
 public:
  explicit GenericKvParser(std::span<const std::string> fields)
      : keys_(fields), columns_(fields.size()) {}
  GenericKvParser(const GenericKvParser&) = delete;
  GenericKvParser& operator=(const GenericKvParser&) = delete;

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    for (size_t row = 0; row < lines.size(); ++row) {
      outcomes[row] = LineOutcome::kParsed;
      // Nothing requested: no line can fail, so nothing to scan.
      if (keys_.empty()) continue;
      ParseLine(lines[row], row);
      keys_.CopyAliases(columns_.data(), row);
    }
  }

 private:
  void ParseLine(std::string_view line, size_t row) {
    if (line.empty()) return;  // data() may be null.
    const char* pos = line.data();
    const char* const end = line.data() + line.size();
    while (true) {
      const size_t left = static_cast<size_t>(end - pos);
      const char* bar = static_cast<const char*>(std::memchr(pos, '|', left));
      const char* token_end = bar == nullptr ? end : bar;
      const char* eq = static_cast<const char*>(
          std::memchr(pos, '=', static_cast<size_t>(token_end - pos)));
      // A token without '=' is skipped; the scan always moves forward.
      if (eq != nullptr) {
        const uint32_t column =
            keys_.Find(std::string_view(pos, static_cast<size_t>(eq - pos)));
        if (column != KeyTable::kNotFound) {
          columns_[column][row] =
              std::string_view(eq + 1, static_cast<size_t>(token_end - eq - 1));
        }
      }
      if (bar == nullptr) return;
      pos = bar + 1;
    }
  }

  RequestedKeys keys_;
  // fields.column(i) for the current batch.
  std::vector<std::string_view*> columns_;
};

}  // namespace

std::shared_ptr<const LogFormat> NewGenericLogFormat() {
  return std::make_shared<SimpleLogFormat<GenericParser>>(
      "generic",
      "any lines: only the common variables ($line, $hostname, $file, "
      "...)",
      "any text at all", std::vector<std::string>{});
}

std::shared_ptr<const LogFormat> NewGenericKvLogFormat() {
  return std::make_shared<SimpleLogFormat<GenericKvParser>>(
      "generickv", "k=v|k=v|... tokens: each key is a field",
      "path=/api/users|status=200|ms=12", std::vector<std::string>{});
}

}  // namespace mapr::runtime
