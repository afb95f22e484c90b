// bindings/cli/flags.h: the command line of `mapr`.
//
// GNU style: options may come before or after the positional arguments,
// long options take their value as `--name=value` or `--name value`, short
// ones as `-o csv` or `-ocsv`, and `--` ends the options.
//
// Example:
//   absl::StatusOr<Flags> flags = ParseFlags(argc, argv);
//   if (!flags.ok()) { /* usage error: print, exit 2 */ }
#ifndef MAPR_BINDINGS_CLI_FLAGS_H_
#define MAPR_BINDINGS_CLI_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bindings/cli/metrics_server.h"
#include "mapr/partial.h"

namespace mapr::cli {

enum class OutputFormat { kTable, kCsv, kJson, kJsonl, kChart, kPrometheus };

// What the command does: run a query (the default), or one step of a
// distributed run (docs/distributed.md). A subcommand is recognized only as
// the very first argument, spelled exactly "map", "combine", "reduce",
// "inspect" or "remote"; anywhere else these words are files (or the
// query).
enum class Command { kQuery, kMap, kCombine, kReduce, kInspect, kRemote };

// --split: a number, or "auto" (SplitFromEnvironment(),
// bindings/cli/partials.h).
struct SplitFlag {
  bool automatic = false;
  uint64_t index = 0;
};

struct Flags {
  Command command = Command::kQuery;
  bool help = false;
  bool version = false;
  // Set only when --output was given.
  std::optional<OutputFormat> output;
  bool stats = false;
  bool explain = false;
  bool quiet = false;
  // Empty: the machine's name.
  std::string hostname;
  // 0: the number of CPUs.
  int threads = 0;
  size_t max_line_bytes = size_t{1} << 20;
  // AggregatorOptions::max_groups; 0: unlimited.
  uint64_t max_groups = 0;
  // PartialFrameReader's limit: a larger frame of a PART or a host is
  // refused once its header is read.
  uint64_t max_frame_bytes = kDefaultMaxFrameBytes;
  // AggregatorOptions::partial_lookup_dir: the folder a partial's lookup()
  // tables may be read from; empty: none.
  std::string lookup_dir;
  // Tail mode (see follow.h): follow the inputs, report every interval,
  // cumulative or (delta) per interval, read the files from their start.
  bool follow = false;
  bool delta = false;
  bool from_start = false;
  // Milliseconds between reports; 0: the query's `interval`.
  int64_t interval_ms = 0;
  // remote without --follow: seconds a host may take; 0: no limit.
  int64_t host_timeout_s = 3600;
  // --listen ADDR:PORT: serve --follow's reports as Prometheus metrics.
  std::optional<ListenAddress> listen;
  // --alert CONDITION: name the groups for which it starts and stops holding.
  std::optional<std::string> alert;
  // --alert-format json: each alert line is a JSON object.
  bool alert_json = false;
  // `mapr map`: the split this run covers, and the byte range it reads.
  std::optional<SplitFlag> split;
  std::optional<std::pair<uint64_t, uint64_t>> range;
  // `mapr map`: the run its partial belongs to (AggregatorOptions::run_id).
  std::string run_id;
  // `mapr map`: the source of its partials (AggregatorOptions::source).
  std::string source;
  // `mapr map --follow`: end at the files' end; start the one FILE at this
  // byte offset.
  bool until_eof = false;
  // --resume-from: (FILE, OFFSET) pairs; an empty FILE is "the one FILE"
  // (--resume-from OFFSET).
  std::vector<std::pair<std::string, uint64_t>> resume_from;
  // `mapr map --follow`: the end of standard input stops following (as
  // SIGTERM does); `mapr remote` closes it to stop a host.
  bool stop_on_stdin_eof = false;
  // `mapr map`: write the partial cut into this many hash partitions of the
  // group keys (0: not partitioned).
  uint32_t partitions = 0;
  // `mapr combine` and `reduce`: take only this partition's partials.
  std::optional<uint32_t> partition;
  // `mapr map` and `combine`: write `<split>\t<base64>` lines.
  bool b64 = false;
  // `mapr remote`: the hosts (--hosts, then --hosts-file lines), the ssh
  // command (split at spaces), the mapr command on the hosts, and whether
  // a result without every host is exit 0.
  std::vector<std::string> hosts;
  std::string ssh = "ssh -o BatchMode=yes";
  std::string remote_mapr = "mapr";
  bool allow_partial = false;
  // `mapr reduce`: the partials must cover [0, N); 0: not checked.
  uint64_t expect_splits = 0;
  // --journal (also implied by the other journal options): read systemd's
  // journal, the system's or these files or this folder, resuming after the
  // cursor and state in journal_cursor_file (empty: none) and saving them
  // there after every report.
  bool journal = false;
  // map --omprog DIR: rsyslog omprog's confirmMessages protocol on standard
  // input and output, delta partials in DIR (empty: not given).
  std::string omprog_dir;
  // --message-id: each --omprog line starts with a message id and a space.
  bool message_id = false;
  // --event-start: a regex whose lines start an event (the query's
  // `multiline` clause); unset without it.
  std::optional<std::string> event_start;
  std::vector<std::string> journal_files;
  std::string journal_dir;
  std::string journal_cursor_file;
  // The query (--query, else the first positional argument).
  std::optional<std::string> query;
  // Inputs: --files entries, then the remaining positional arguments (for
  // combine, reduce and inspect: the partials).
  std::vector<std::string> files;
};

// Where an option is listed in --help.
enum class FlagSection : uint8_t {
  kOutput,
  kInput,
  kFollow,
  kDistributed,
  kRemote,
  kOther
};

// One command-line option. The table of them (FlagSpecs()) is the one list
// that both ParseFlags() and HelpText() read.
struct FlagSpec {
  // "--output".
  std::string_view name;
  // 'o' for -o; 0: none.
  char short_name;
  // The value's placeholder in --help ("FORMAT"); empty for a switch, which
  // takes no value.
  std::string_view argument;
  FlagSection section;
  // The --help text, pre-wrapped ('\n' between lines).
  std::string_view help;
  // Stores `value` (empty for a switch) in `flags`; a bad value is an
  // InvalidArgument usage error.
  absl::Status (*apply)(Flags& flags, std::string_view value);
};

// Every option, in --help order.
std::span<const FlagSpec> FlagSpecs();

// Parses argv. Usage errors are InvalidArgument with a message such as
// "unknown option '--foo'" (without the "mapr: " prefix).
absl::StatusOr<Flags> ParseFlags(int argc, const char* const* argv);

// The text of `mapr --help`; `cpus` is the default thread count shown.
std::string HelpText(int cpus);

// Largest accepted --max-line-bytes.
inline constexpr size_t kMaxLineBytesLimit = size_t{1} << 30;
// The largest --host-timeout: a week.
inline constexpr int64_t kMaxHostTimeoutSeconds = 7 * 24 * 3600;
// The largest --max-frame-bytes: 1024G.
inline constexpr uint64_t kMaxFrameBytesLimit = uint64_t{1} << 40;
// Largest accepted --max-groups (the engine's group ids are 32-bit).
inline constexpr uint64_t kMaxGroupsLimit = uint64_t{1} << 31;
// Largest accepted --interval-ms: one day.
inline constexpr int64_t kMaxIntervalMs = int64_t{86400} * 1000;
// Largest accepted --threads.
inline constexpr int kMaxThreads = 1024;

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_FLAGS_H_
