// mapr/files.h: running a query over files, on several threads.
//
// What the `mapr` command does with its FILE arguments, for any host: an
// offline tool that embeds mapr names paths and globs, plain or compressed,
// and gets the result, with progress and per-file errors, without writing
// readers, line splitting or threads itself.
//
// Example:
//   mapr::FilesOptions options;
//   options.threads = 4;
//   options.on_problem = [](const mapr::InputProblem& p) {
//     std::cerr << p.name << ": " << p.status.message() << "\n";
//   };
//   absl::StatusOr<mapr::ResultTable> result = mapr::QueryFiles(
//       query, {"app.log", "app.log.*.gz"}, options);
//
// How a run reads its inputs:
//   * Names are expanded in order (ExpandFileNames): "-" is standard input,
//     a name with a glob character that does not exist as given is a glob
//     pattern (sorted matches). Each input is its own source (SourceId = its
//     index among the expanded inputs; $file is its name), so a file named
//     twice is read twice.
//   * Files are read through mapr/input.h: gzip, zstd, xz and bzip2 are
//     decompressed, recognized by their first bytes.
//   * The inputs, in order, are dealt into at most `threads` contiguous
//     groups of about equal work: a plain file's bytes, a compressed file's
//     decoded bytes (estimated) times the cost of decoding and parsing them.
//     Where the log format keeps no state between lines (every built-in
//     format but csv), a large plain file is cut between groups at a line
//     boundary. Threads that no group needs decompress, each for one group
//     (InputSpec::decompress_on_thread): no more than `threads` threads are
//     busy at once.
//   * Each group is read by one thread into one Aggregator, and the
//     partials are merged strictly in group order. Merging A then B means
//     B's lines come later, so the result, last() included, is the same for
//     any thread count and any mix of plain and compressed inputs.
//
// Problems with one input (a missing file, a glob that matches nothing, a
// truncated .gz) do not stop the run: each is reported once, to
// FilesOptions::on_problem and in FilesReport::problems, and the lines read
// before it count (a partly read input's unfinished last line is dropped).
// The status of QueryFiles() and AggregateFiles() is an engine error that
// ends the run: ResourceExhausted for max_groups or memory, or an error of
// the query.
//
// Thread safety: the functions are thread-safe. The callbacks are called on
// the calling thread only, never concurrently. An exception that a callback
// throws ends the run (its threads are stopped and joined) and propagates;
// the library itself throws none.
#ifndef MAPR_MAPR_FILES_H_
#define MAPR_MAPR_FILES_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/aggregator.h"
#include "mapr/export.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr {

// One input of a run: a file, or standard input.
struct FileInput {
  // The path as given, or as glob(3) expanded it; "-" for standard input.
  std::string path;
  bool is_stdin = false;
};

// A problem with one input.
struct InputProblem {
  // The input's name as given ("-" for standard input), or the glob pattern
  // that matched nothing.
  std::string name;
  // The reason only ("No such file or directory", "unexpected end of gzip
  // data"), with the codes of mapr/input.h: NotFound, PermissionDenied,
  // FailedPrecondition (a directory), DataLoss (corrupt or truncated
  // compressed data), Unimplemented (a compressed format mapr cannot read),
  // and NotFound "no file matches this pattern" for a glob.
  absl::Status status;
};

// Expands `names` in order: "-" is standard input; a name that contains a
// glob character ('*', '?', '[') and does not exist as given is expanded
// with glob(3), sorted; a pattern that matches nothing (or cannot be
// expanded) is added to `problems` (if not null). Every other name is kept
// as given and checked when it is read. No names means standard input.
MAPR_EXPORT std::vector<FileInput> ExpandFileNames(
    const std::vector<std::string>& names,
    std::vector<InputProblem>* problems = nullptr);

// A byte range [begin, end) of a plain file.
struct LineRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// The lines of `path` that a byte range [lo, hi) owns, by Hadoop's
// TextInputFormat rule: a range starting after offset 0 skips the line it
// starts inside of (the previous range finishes it), and a range finishes
// the line that crosses its end. So a line belongs to the range in which
// its first byte lies, and ranges that tile a file read every line once.
// Offsets past the end are clamped. Errors: the OS's; FailedPrecondition
// for a compressed file (its bytes cannot be cut) or one that is not a
// regular file.
MAPR_EXPORT absl::StatusOr<LineRange> LineAlignedRange(const std::string& path,
                                                       uint64_t lo,
                                                       uint64_t hi);
// The same for `query`: a query that reads multi-line events (`multiline`,
// docs/query-language.md) owns events instead of lines, each belonging to
// the range its first line belongs to; both ends move on to the next line
// that starts an event. A line longer than `max_line_bytes` (the
// aggregators' AggregatorOptions::max_line_bytes) is never an end.
MAPR_EXPORT absl::StatusOr<LineRange> LineAlignedRange(
    const std::string& path, uint64_t lo, uint64_t hi, const Query& query,
    size_t max_line_bytes = 1024 * 1024);

// How far a run is.
struct FilesProgress {
  // Bytes read from the inputs (compressed bytes for compressed input).
  uint64_t bytes_read = 0;
  // The inputs' total size when every input is a regular file, else 0
  // (unknown: standard input or a pipe is read).
  uint64_t total_bytes = 0;
  // Lines read so far.
  uint64_t lines = 0;
  // Since the run started.
  std::chrono::steady_clock::duration elapsed{};
  // True once, for the last call: every input has been read.
  bool done = false;
};

struct FilesOptions {
  // Threads that read, decompress and aggregate; at least 1. The result is
  // the same for any value. Default: 1.
  int threads = 1;
  // The options of every aggregator of the run (hostname, max_line_bytes,
  // max_groups, ...). Its result_threads is raised to `threads`.
  AggregatorOptions aggregator;
  // The smallest byte range a plain file is cut into. Default: 8 MiB.
  uint64_t min_chunk_bytes = uint64_t{8} << 20;
  // Read only these bytes of the first input, which must be a plain regular
  // file (LineAlignedRange() makes such a range): for cutting one file
  // between machines. Needs a log format that keeps no state between lines.
  std::optional<LineRange> range;
  // Called for every problem with an input, as it is found.
  std::function<void(const InputProblem&)> on_problem;
  // Called about every `progress_interval` while the run reads, and once at
  // the end with `done` set.
  std::function<void(const FilesProgress&)> on_progress;
  std::chrono::milliseconds progress_interval{250};
};

// What a run found besides its result.
struct FilesReport {
  // Inputs read to their end, and inputs with a problem.
  size_t inputs_ok = 0;
  size_t inputs_failed = 0;
  // Every problem, in the order reported (patterns first, then in input
  // order as far as the threads allow).
  std::vector<InputProblem> problems;
  // Lines that contain a NUL byte (too-long ones aside): a sign of binary
  // input (InputCounters::lines_with_nul).
  uint64_t lines_with_nul = 0;
  // The inputs that had lines but none the log format could parse (every
  // line ignored, malformed, unmatched or a header): usually the wrong
  // `logformat` for that file. In input order, as named (a glob's matches
  // as found, "-" for standard input).
  std::vector<std::string> inputs_without_parsed_lines;
  // The first line that the log format could not parse (malformed or
  // unmatched), in input order: its input (as named above) and its line
  // number in that input (from 1); 0 if every line parsed.
  std::string first_unparsable_input;
  uint64_t first_unparsable_line = 0;
};

// Reads `inputs` into one Aggregator and returns it with its input still
// open: the caller may push more, take a partial (SerializePartial) or
// finish it. Lines dropped as too long are counted in its stats().
MAPR_EXPORT absl::StatusOr<Aggregator> AggregateFiles(
    const Query& query, const std::vector<FileInput>& inputs,
    const FilesOptions& options, FilesReport* report = nullptr);

// Runs `query` over the files `names` (expanded by ExpandFileNames()) and
// returns the final result. When no input could be read at all, the result
// is empty and `report` says why.
MAPR_EXPORT absl::StatusOr<ResultTable> QueryFiles(
    const Query& query, const std::vector<std::string>& names,
    const FilesOptions& options, FilesReport* report = nullptr);

}  // namespace mapr

#endif  // MAPR_MAPR_FILES_H_
