// bindings/cli/follow.h: `mapr --follow`, a query over growing log files.
//
// Like `tail -f`, FollowQuery() keeps reading its inputs as they grow and
// hands the lines to a mapr::TurboAggregate, whose reporter thread reports
// every interval (cumulative by default, or per-interval deltas: DTail's
// tail mode) until SIGINT or SIGTERM; then the rest of the input is read,
// and the final report is made through TurboAggregate::FinishInput().
//
//   * Every input is one TurboAggregate producer, with its command-line
//     index as SourceId, so reports merge the inputs in command-line order.
//   * One reader thread serves every input: it reads what each file has,
//     then checks every `poll_ms` for growth, truncation (the file is
//     shorter than the offset read: read it again from its start) and
//     rotation (the path names another file now: read the old one to its
//     end, then the new one from its start).
//   * Files start at their end (as `tail -f` and DTail do) unless
//     `from_start`; a file that starts in the middle of a line skips that
//     fragment. Files that appear later, and new files after a rotation,
//     are read from their start.
//   * Standard input and other streams (pipes, terminals) are read until
//     they end. When every input is such a stream and all have ended, the
//     run ends as on a signal.
//   * Lines are cut with mapr::LineSplitter; a partial last line is held
//     until its '\n' arrives, and pushed as a line when its file ends
//     (truncation, rotation, the end of a stream or of the run).
//
// Example:
//   FollowCallbacks callbacks;
//   callbacks.report = [](const ResultTable& r, bool is_final) { ... };
//   absl::StatusOr<FollowResult> r =
//       FollowQuery(query, inputs, FollowOptions(), callbacks);
#ifndef MAPR_BINDINGS_CLI_FOLLOW_H_
#define MAPR_BINDINGS_CLI_FOLLOW_H_

#include <signal.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bindings/cli/runner.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "mapr/turbo_aggregate.h"

namespace mapr::cli {

struct FollowOptions {
  // Worker threads of the aggregate; at least 1.
  int threads = 1;
  // AggregatorOptions::max_line_bytes and the LineSplitter's limit.
  size_t max_line_bytes = size_t{1} << 20;
  // AggregatorOptions::hostname (empty: the machine's name).
  std::string hostname;
  // AggregatorOptions::max_groups; 0: unlimited.
  uint64_t max_groups = 0;
  // Cumulative snapshots or per-interval deltas. Default: kCumulative.
  ReportMode mode = ReportMode::kCumulative;
  // Milliseconds between reports; 0 takes the query's `interval`
  // (TurboOptions::interval_ms). Default: 0.
  int64_t interval_ms = 0;
  // Read the files' existing content first. Default: start at their end.
  bool from_start = false;
  // How often files at their end are checked for new data, truncation and
  // rotation, and missing files for their appearance. Default: 200.
  int poll_ms = 200;
  // FollowInputsOptions::hangup_fd: stop at once when the reader of this
  // fd (our standard output) has gone, so a `mapr --follow` whose ssh
  // session or pipe reader ended does not follow a quiet log forever.
  int hangup_fd = -1;
};

// The callbacks of one run. `report` is required; the others may be empty.
struct FollowCallbacks {
  // Each report (TurboAggregate's ResultCallback): on the aggregate's
  // reporter thread, never concurrently with itself.
  ResultCallback report;
  // A problem with one input: its name and the reason. The input is
  // counted in FollowResult::inputs_failed unless the reason says it is
  // awaited ("No such file or directory (waiting for it to appear)") and
  // it appears before the end.
  InputErrorSink error;
  // An event on one input that is not an error ("file truncated; reading
  // it from its start").
  InputErrorSink notice;
  // Lines that could not be read ("2 files created at this path were
  // replaced before mapr could open them: ..."): files rotated faster than
  // they could be opened. Not an input error; a warning even where notices
  // are not wanted.
  InputErrorSink lost;
  // Once every input is open and the signals are caught: a summary such as
  // "following 2 inputs (files from their end); cumulative report every
  // 5s; Ctrl-C or SIGTERM prints the final result".
  std::function<void(std::string_view summary)> started;
};

// What FollowInputs() feeds, from its reader thread (never concurrently).
// `index` is the input's place on the command line.
class FollowSink {
 public:
  virtual ~FollowSink() = default;
  // Input `index` begins a stream of bytes at byte `offset` of its file: at
  // the start (0, the file's end, or --resume-from), after truncation (0),
  // after a rotation or when a missing file appears (0, the new file). The
  // data before, if any, was ended with EndData().
  virtual absl::Status Begin(size_t index, const std::string& name,
                             uint64_t offset) = 0;
  // The next bytes of input `index`; `end_offset` is the offset after them
  // (for a stream: the bytes read so far).
  virtual absl::Status Bytes(size_t index, std::string_view chunk,
                             uint64_t end_offset) = 0;
  // The input's data ends here: its unfinished last line is a line.
  virtual absl::Status EndData(size_t index) = 0;
  // The input is finished (ended, failed, or the run ends); after a failure
  // without EndData(), its unfinished line is dropped.
  virtual void Finish(size_t index) = 0;
  // Every FollowInputsOptions::tick_ms while following.
  virtual absl::Status Tick() { return absl::OkStatus(); }
};

struct FollowInputsOptions {
  // As FollowOptions.
  bool from_start = false;
  int poll_ms = 200;
  // Files end at their end as found (after any growth seen while reading)
  // instead of being followed: `mapr map --follow --until-eof`.
  bool until_eof = false;
  // Per input (by index; missing: none): start reading at this offset,
  // which must be a line start (`--resume-from`). An offset past the
  // file's end fails that input (truncated or replaced since). When any
  // is given, the files without one are read from their start (a resumed
  // run had not read them).
  std::vector<std::optional<uint64_t>> resume_from;
  // Calls FollowSink::Tick() this often (0: never).
  int64_t tick_ms = 0;
  // Stop at once (as on a second signal) when this fd reports an error or a
  // hangup: the reader of our standard output has gone (-1: none).
  int hangup_fd = -1;
  // Stop as on a first signal (read what the files hold, then end) when
  // this fd reaches its end: `mapr map --follow --stop-on-stdin-eof`, which
  // `mapr remote` stops by closing the ssh session's standard input (-1:
  // none).
  int stop_fd = -1;
  // The end of the summary line for FollowCallbacks::started, after
  // "following INPUTS from the end; ".
  std::string summary;
};

struct FollowInputsResult {
  // As FollowResult.
  bool followed = false;
  size_t inputs_failed = 0;
  // The run stopped because hangup_fd hung up.
  bool hung_up = false;
  // A signal stopped the run.
  bool signalled = false;
};

// Follows `inputs` into `sink`: the reader and the signal handling of
// FollowQuery() below, for any consumer of the bytes. Every begun input is
// finished in the sink before it returns. FollowCallbacks::report is not
// used. Errors: a sink error (the run stops) or a failed system call.
absl::StatusOr<FollowInputsResult> FollowInputs(
    const std::vector<FileInput>& inputs, const FollowInputsOptions& options,
    FollowSink& sink, const FollowCallbacks& callbacks);

// Blocks SIGINT and SIGTERM in the calling thread (threads started later
// inherit the mask), so they are read from a signalfd and never kill a
// thread; `set` (if not null) receives the two. Call it before starting
// threads.
absl::Status BlockStopSignals(sigset_t* set = nullptr);

// "5s" for 5000, "500ms" for 500.
std::string IntervalText(int64_t interval_ms);

struct FollowResult {
  // False if no input could be opened: nothing was followed and no report
  // was made (each input's problem went to the error callback).
  bool followed = false;
  // Counters over the whole run (delta reports do not reset them),
  // including the lines the splitter dropped as too long.
  LineCounters stats;
  // Inputs with a problem (see FollowCallbacks::error).
  size_t inputs_failed = 0;
};

// Follows `inputs` as described above. Call it from the main thread before
// any other thread is started: it blocks SIGINT and SIGTERM (they stay
// blocked) and receives them through a signalfd. The first signal stops
// following: every file is read up to the size it had at that moment and
// the final report is made; a second signal skips that rest. Callbacks from
// the reader thread (error, notice) and from the reporter thread (report)
// may run concurrently with each other. Returns an error only for an engine
// failure (e.g. an invalid log format, or a failed thread start); then no
// final report was made.
absl::StatusOr<FollowResult> FollowQuery(const Query& query,
                                         const std::vector<FileInput>& inputs,
                                         const FollowOptions& options,
                                         const FollowCallbacks& callbacks);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_FOLLOW_H_
