// The built-in log formats (docs/query-language.md, "Log formats and
// variables"). Each is a mapr::LogFormat; the registry
// (runtime/log_format_registry.cc) installs them under their names.
#ifndef MAPR_RUNTIME_LOG_FORMATS_H_
#define MAPR_RUNTIME_LOG_FORMATS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "mapr/log_format.h"

namespace mapr::runtime {

// A parser that applies DTail's table filter during its own scan, so the
// engine makes no separate substring search per line (the default format
// meets the table as its token 9 on the pass it makes anyway). Internal:
// the built-in formats only.
class TableFilteringParser : public LogFormatParser {
 public:
  // ParseBatch for a query on one table, whose `marker` is
  // "|MAPREDUCE:<table>|". Sets mismatch[row] exactly when lines[row] does
  // not contain `marker`; such a row's outcome and fields are unspecified
  // (the engine drops it as a table mismatch).
  virtual void ParseBatchInTable(std::span<const std::string_view> lines,
                                 std::string_view marker, FieldBatch& fields,
                                 LineOutcome* outcomes, bool* mismatch) = 0;
};

// The descriptor part every built-in format shares: its name, description,
// example, variables and whether its lines parse independently (all but
// csv, whose header starts each input) as data. A format derives from it and
// implements NewParser (and Configure if it takes an argument);
// SimpleLogFormat<P> does that too for a parser built from the requested
// fields alone.
class BuiltinLogFormat : public LogFormat {
 public:
  // `variables`: nullopt for open-ended keys (never warn), else the fixed
  // names beside barewords (LogFormat::variables()).
  BuiltinLogFormat(std::string name, std::string description,
                   std::string example,
                   std::optional<std::vector<std::string>> variables,
                   bool line_independent = true)
      : name_(std::move(name)),
        description_(std::move(description)),
        example_(std::move(example)),
        variables_(std::move(variables)),
        line_independent_(line_independent) {}

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::string example() const override { return example_; }
  bool line_independent() const override { return line_independent_; }
  std::optional<std::vector<std::string>> variables() const override {
    return variables_;
  }

 private:
  const std::string name_;
  const std::string description_;
  const std::string example_;
  const std::optional<std::vector<std::string>> variables_;
  const bool line_independent_;
};

template <typename Parser>
class SimpleLogFormat : public BuiltinLogFormat {
 public:
  using BuiltinLogFormat::BuiltinLogFormat;
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    if constexpr (std::is_constructible_v<Parser,
                                          std::span<const std::string>>) {
      return std::make_unique<Parser>(fields);
    } else {
      return std::make_unique<Parser>();
    }
  }
};

// DTail's own lines: `INFO|time|pid|caller|cpus|goroutines|cgocalls|loadavg|
// uptime|MAPREDUCE:TABLE|k=v|...` (docs/query-language.md, "default").
// Parsers are built for the CPU: AVX2+BMI2 code where the CPU has it, else
// baseline x86-64 (SSE2) code; both give identical fields.
std::shared_ptr<const LogFormat> NewDefaultLogFormat();
// Tests: makes parsers created from now on use the baseline code even on an
// AVX2 CPU (false restores the default). Returns whether an AVX2 build
// exists and the CPU can run it.
bool UseBaselineDefaultParserForTesting(bool baseline);
// Only the common variables; every line is parsed.
std::shared_ptr<const LogFormat> NewGenericLogFormat();
// `k=v|k=v|...`; tokens without '=' are skipped.
std::shared_ptr<const LogFormat> NewGenericKvLogFormat();
// CSV with a header line per input source; RFC 4180 quotes honoured.
std::shared_ptr<const LogFormat> NewCsvLogFormat();
// `logformat regex 're'`: the pattern's named groups; unmatched lines are
// LineOutcome::kUnmatched. Unusable without its pattern (Configure).
std::shared_ptr<const LogFormat> NewRegexLogFormat();
// `logformat pattern '<ip> - <user> [<time>] ...'`: literal text and <name>
// captures, without a regular expression. Unusable without its pattern
// (Configure).
std::shared_ptr<const LogFormat> NewPatternLogFormat();
// Fields f1..fN split on runs of blanks, or on a delimiter (`fields ','`).
std::shared_ptr<const LogFormat> NewFieldsLogFormat();
// Apache/nginx access logs: the Common Log Format (`clf`) and `combined`
// (CLF plus "referer" "user-agent"), each field by position.
std::shared_ptr<const LogFormat> NewClfLogFormat();
std::shared_ptr<const LogFormat> NewCombinedLogFormat();
// logfmt: `k=v k="quoted value" k` pairs; each key is a field.
std::shared_ptr<const LogFormat> NewLogfmtLogFormat();
// RFC 5424 and RFC 3164 syslog lines, with or without a PRI (what rsyslog
// writes to /var/log/syslog), told apart per line.
std::shared_ptr<const LogFormat> NewSyslogLogFormat();
// One JSON object per line, parsed with simdjson On-Demand; fields are keys
// or dotted paths (`request.method`, `tags.0`, `zones."a.b".hits`). `json`,
// and the same format under the names `ndjson` and `jsonl`.
std::shared_ptr<const LogFormat> NewJsonLogFormat(std::string name = "json");
// journald's entries as `journalctl -o json` (and mapr::JournalReader) print
// them: the json format with `$time` as the entry's __REALTIME_TIMESTAMP.
std::shared_ptr<const LogFormat> NewJournalLogFormat();
// `logformat auto`: each line in the format its shape names
// (mapr/format_guess.h).
std::shared_ptr<const LogFormat> NewAutoLogFormat();
// Tests: as UseBaselineDefaultParserForTesting, for the json parser's fast
// path (its byte scans are 32 bytes wide on AVX2 CPUs, 16 otherwise).
bool UseBaselineJsonParserForTesting(bool baseline);
// Tests: how many padded lines the json fast path has given up on (and
// left to simdjson's walk) on the calling thread so far.
uint64_t JsonFastPathGiveUpsForTesting();

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_LOG_FORMATS_H_
