// mapr/log_format.h: log formats turn lines into fields. mapr ships
// `default` (DTail's own lines), `generic`, `generickv`, `csv`, `clf` and
// `combined` (access logs), `logfmt`, `syslog`, `json` (aliases `ndjson`,
// `jsonl`), `journal` (journald's JSON entries), `fields`, `pattern`,
// `regex` and `auto`; a host can register its own under a new name and use
// it with `logformat NAME`.
//
// A format fills the same batch columns the built-in ones fill, one call per
// batch (no per-line virtual call), so a host format can be as fast as a
// built-in one.
//
// Example (examples/query_plugin/ has a complete format):
//   class NginxFormat : public mapr::LogFormat {
//    public:
//     std::string name() const override { return "nginx"; }
//     absl::StatusOr<std::unique_ptr<mapr::LogFormatParser>> NewParser(
//         std::span<const std::string> fields) const override;
//   };
//   absl::Status s = mapr::RegisterLogFormat(std::make_shared<NginxFormat>());
//   auto q = mapr::Query::Compile("select count($line) logformat nginx");
//
// Lifetimes: the lines and the views a parser writes need to live only until
// ParseBatch returns to the engine's batch loop; views must point into the
// lines or into memory from FieldBatch::Allocate/Copy.
//
// Thread safety: a registered LogFormat is one object shared by every
// aggregator in the process. Each aggregator calls NewParser() (and the
// other const methods) from the thread it runs on, so these calls happen
// concurrently -- TurboAggregate's worker threads, or one Aggregator per
// host thread -- and must be thread-safe. A LogFormatParser belongs to one
// aggregator and one input source and is used by one thread at a time.
//
// Errors: no method may throw. A problem with a line is a LineOutcome; a
// query the format cannot serve is a Status from NewParser(). An exception
// escaping a format leaves the calling aggregator with a half-applied
// batch: the C API then reports MAPR_INTERNAL and poisons the aggregator,
// and on a TurboAggregate worker thread it terminates the process.
#ifndef MAPR_MAPR_LOG_FORMAT_H_
#define MAPR_MAPR_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/export.h"

namespace mapr {

// The most lines the engine hands a format in one call.
inline constexpr size_t kMaxBatchRows = 2048;
static_assert((kMaxBatchRows & (kMaxBatchRows - 1)) == 0);

// Spare bytes after the lines of a padded batch (FieldBatch::line_padding):
// enough for parsers that read a line with wide loads past its end, such
// as simdjson (its SIMDJSON_PADDING is 64).
inline constexpr size_t kLinePadding = 64;

// What a format made of one line.
enum class LineOutcome : uint8_t {
  kParsed,     // Fields were written; the line goes on to `where`.
  kIgnored,    // The format does not apply to the line (DTail's silent skip).
  kMalformed,  // The format applies but cannot parse it; counted, dropped.
  kHeader,     // A header line (CSV); consumed, not data.
  kUnmatched,  // The format's pattern does not match the line (`logformat
               // regex`); counted as lines_unmatched, dropped.
};

// What LogFormat::Configure may use.
struct FormatOptions {
  // Most memory RE2 may use for one compiled pattern
  // (CompileOptions::max_regex_memory).
  int64_t max_regex_memory = 8 << 20;
};

// The columns a format writes for one batch. Column i holds the values of
// the i-th requested field (see LogFormat::NewParser) for every row. A
// default-constructed view (data() == nullptr) means "missing"; an empty
// value must have a non-null data pointer (use the line's own bytes or
// kEmptyValue).
class MAPR_EXPORT FieldBatch {
 public:
  // A non-null empty value.
  // NOLINTNEXTLINE(bugprone-string-constructor): empty but non-null.
  static constexpr std::string_view kEmptyValue{"", 0};

  virtual ~FieldBatch() = default;
  // Number of requested fields.
  virtual size_t num_fields() const = 0;
  // Column `field`: kMaxBatchRows entries, all missing when ParseBatch is
  // called. REQUIRES: field < num_fields().
  virtual std::string_view* column(size_t field) = 0;
  // Scratch bytes that stay valid until the batch is aggregated (for
  // unescaped or computed values).
  virtual char* Allocate(size_t n) = 0;
  std::string_view Copy(std::string_view s);
  // Bytes readable past the end of every line of this batch: 0 (the
  // default: nothing may be read after a line) or kLinePadding, when the
  // engine read the lines into a buffer of its own with that much spare
  // room after its last byte (mapr::PushFile, mapr::ReadLines, the
  // `mapr` command, TurboAggregate batches); lines pushed with
  // Aggregator::PushLines or PushBytes get 0. The bytes are readable, not
  // meaningful (the next line, or filler): a parser may load them, e.g. in
  // wide loads over a line's end, but must not let them change a value.
  virtual size_t line_padding() const { return 0; }
};

// Parses the lines of one input source (CSV keeps the header of its
// source). Thread-compatible: one parser is used by one thread at a time.
// Must not throw.
class MAPR_EXPORT LogFormatParser {
 public:
  virtual ~LogFormatParser() = default;
  // Parses `lines` (already trimmed of the line ending and surrounding
  // whitespace; at most kMaxBatchRows) into `fields`, and writes one outcome
  // per line into `outcomes`. Must not fail as a whole: problems are
  // per-line outcomes.
  virtual void ParseBatch(std::span<const std::string_view> lines,
                          FieldBatch& fields, LineOutcome* outcomes) = 0;
};

// A log format. Thread-safe: shared by every aggregator (see above). Must
// not throw.
class MAPR_EXPORT LogFormat {
 public:
  virtual ~LogFormat() = default;
  // The name used in `logformat NAME`; lower-case.
  virtual std::string name() const = 0;
  // One sentence on the lines it reads and the fields it gives, for
  // `mapr --help` (e.g. "k=v|k=v|... tokens; each key is a field"). Empty:
  // listed by name only.
  virtual std::string description() const { return {}; }
  // One typical line the format reads, for `mapr --help`. Empty: none.
  virtual std::string example() const { return {}; }
  // The $-variables this format provides beyond the common ones ($line,
  // $empty, $hostname, $server, $timezone, $timeoffset, $file, *), used to warn
  // about unknown variables at compile time. nullopt: never warn.
  virtual std::optional<std::vector<std::string>> variables() const {
    return std::nullopt;
  }
  // `logformat NAME 'ARGUMENT'` (regex: the pattern; fields: the
  // delimiter). Called when a query is compiled, with the argument as
  // written, or nullopt when the query gives none. Returns the format to use
  // (one that holds the compiled argument), or nullptr to use this one as
  // is. An InvalidArgument message becomes the query's positioned error
  // (under the argument, or the format name when there is none). The
  // default takes no argument.
  virtual absl::StatusOr<std::shared_ptr<const LogFormat>> Configure(
      std::optional<std::string_view> argument,
      const FormatOptions& /*options*/) const {
    if (argument) {
      return absl::InvalidArgumentError("log format '" + name() +
                                        "' takes no argument");
    }
    return std::shared_ptr<const LogFormat>();
  }
  // True if a parser reads each line without regard to the earlier lines of
  // its source (every built-in format but csv, whose header is state). The
  // `mapr` command may then cut one file into byte ranges read by different
  // threads or map steps. The default is false, which is always safe.
  virtual bool line_independent() const { return false; }
  // Creates a parser for one input source that fills `fields` in this
  // order. Called concurrently from many threads, when the first line of a
  // source reaches an aggregator. The common variables are never requested
  // (the engine fills them). May return InvalidArgument for fields it can
  // never produce, but should rather leave them missing; the push that
  // brought the line then returns that status and the aggregator fails.
  virtual absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const = 0;
};

// Registers `format` process-wide. Thread-safe. Returns AlreadyExists if a
// format of that name is registered (built-in names included), and
// InvalidArgument for an empty or non-lower-case name.
MAPR_EXPORT absl::Status RegisterLogFormat(
    std::shared_ptr<const LogFormat> format);

// Returns the format registered as `name` (case-insensitive), or nullptr.
MAPR_EXPORT std::shared_ptr<const LogFormat> FindLogFormat(
    std::string_view name);

// True if the format registered as `name` parses each line on its own
// (LogFormat::line_independent: every built-in format but csv, which keeps
// its source's header), so its input may be cut into byte ranges read by
// different aggregators or continue in a new file in one source. False for
// an unknown name.
MAPR_EXPORT bool LogFormatIsLineIndependent(std::string_view name);

// Names of all registered formats, sorted.
MAPR_EXPORT std::vector<std::string> LogFormatNames();

}  // namespace mapr

#endif  // MAPR_MAPR_LOG_FORMAT_H_
