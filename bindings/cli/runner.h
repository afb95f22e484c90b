// bindings/cli/runner.h: running one query over the command's inputs.
//
// Each input (a file, or standard input) is its own mapr::SourceId, numbered
// in command-line order; a file named twice is read twice. The inputs, in
// order, are dealt into at most `threads` contiguous groups of about equal
// work (a plain file's bytes; a compressed file's decoded bytes, estimated,
// times the cost of decoding and parsing them); where the log format keeps
// no per-source state (default, generic, generickv), a large plain file is
// cut between groups at a line boundary. Threads left over when there are
// fewer groups decompress, each for one group (InputSpec::
// decompress_on_thread), so no more than `threads` threads are busy.
// Each group is read by one thread into one mapr::Aggregator, and the
// partials are merged strictly in group order. Merging A then B means B's
// lines come later, so results, last() included, are the same for any
// thread count, and the merge work is at most threads - 1 merges.
//
// Example:
//   std::vector<InputName> inputs = ExpandInputs({"*.log"}, report);
//   absl::StatusOr<RunResult> r = RunQuery(query, inputs, options, report);
#ifndef MAPR_BINDINGS_CLI_RUNNER_H_
#define MAPR_BINDINGS_CLI_RUNNER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr::cli {

// Receives one problem with one input: its name and the reason
// ("No such file or directory"). Called from the calling thread only, in
// input order for problems found while planning.
using InputErrorSink =
    std::function<void(std::string_view name, std::string_view reason)>;

// An input named on the command line, after glob expansion.
struct InputName {
  std::string path;  // As given (or as glob(3) expanded it); "-" for stdin.
  bool is_stdin = false;
};

// Expands `args` in order: "-" is standard input; a name that contains a
// glob character ('*', '?', '[') and does not exist as given is expanded
// with glob(3) (sorted); a pattern that matches nothing is reported to
// `errors`. Everything else is kept as given (and checked when read). An
// empty `args` means standard input.
std::vector<InputName> ExpandInputs(const std::vector<std::string>& args,
                                    const InputErrorSink& errors);

// A byte range [begin, end) of a file; both ends are line starts (or the
// file's end) once LineAlignedRange() made it.
struct LineRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct RunOptions {
  // Worker threads; at least 1.
  int threads = 1;
  // AggregatorOptions::max_line_bytes.
  size_t max_line_bytes = size_t{1} << 20;
  // AggregatorOptions::hostname (empty: the machine's name).
  std::string hostname;
  // AggregatorOptions::max_groups (each partial and the merged result);
  // 0: unlimited.
  uint64_t max_groups = 0;
  // Print a progress line on stderr once the run takes longer than a second.
  bool progress = false;
  // Smallest byte range a plain file is cut into. Default: 8 MiB.
  uint64_t min_chunk_bytes = uint64_t{8} << 20;
  // AggregatorOptions::splits of every aggregator (`mapr map --split`).
  SplitRange splits;
  // `mapr map --range`: read only these bytes of the first input, which
  // must be a plain regular file (made by LineAlignedRange()).
  std::optional<LineRange> range;
};

// An unfinished aggregator holding every input (RunAggregation()).
struct AggregationRun {
  // The merged aggregator, input still open (too-long lines counted in).
  std::optional<Aggregator> aggregator;
  size_t inputs_ok = 0;
  size_t inputs_failed = 0;
  uint64_t lines_with_nul = 0;
};

struct RunResult {
  ResultTable table;
  // The counters of the run (table.stats()): the lines the readers'
  // LineSplitters dropped as too long are counted in, as
  // Aggregator::PushBytes counts them.
  LineCounters stats;
  // Inputs read to their end, and inputs with a problem (each reported once
  // to the error sink).
  size_t inputs_ok = 0;
  size_t inputs_failed = 0;
  // Lines read that contain a NUL byte (too-long ones aside).
  uint64_t lines_with_nul = 0;
};

// The machine's host name (gethostname(2)); "localhost" if it is unknown.
std::string MachineName();

// True for the log formats whose parsers keep no state between lines
// (LogFormat::line_independent: every built-in format but csv): their input
// may be cut into byte ranges read by different aggregators, or continue in
// a new file in one source.
bool LogFormatIsStateless(const std::string& name);

// The lines of `path` that a byte range [lo, hi) owns, by Hadoop's
// TextInputFormat rule: a range starting after offset 0 skips the line it
// starts inside of (the previous range finishes it), and a range finishes
// the line that crosses its end. So a line belongs to the range in which
// its first byte lies, and ranges that tile a file read every line once.
// Offsets past the end are clamped. Errors: the OS's; FailedPrecondition
// for a compressed file (its bytes cannot be cut) or one that is not a
// regular file.
absl::StatusOr<LineRange> LineAlignedRange(const std::string& path,
                                           uint64_t lo, uint64_t hi);

// Reads `inputs` into one aggregator (as RunQuery() does) and returns it
// before FinishInput(), for `mapr map` to serialize.
absl::StatusOr<AggregationRun> RunAggregation(
    const Query& query, const std::vector<InputName>& inputs,
    const RunOptions& options, const InputErrorSink& errors);

// Runs `query` over `inputs`. Problems with single inputs go to `errors`
// and the run goes on; an engine error (e.g. max_groups) is returned as the
// status.
absl::StatusOr<RunResult> RunQuery(const Query& query,
                                   const std::vector<InputName>& inputs,
                                   const RunOptions& options,
                                   const InputErrorSink& errors);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_RUNNER_H_
