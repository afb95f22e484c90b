// bindings/cli/runner.h: the command's runs over files.
//
// The library reads the inputs (mapr/files.h: globs, decompression,
// threads, the merge in input order); this is the command's side of it: the
// flags' options, problems printed as they are found, and the progress line
// on stderr.
//
// Example:
//   absl::StatusOr<RunResult> r = RunQuery(query, {"*.log"}, options, report);
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
#include "mapr/files.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr::cli {

// Receives one problem with one input: its name and the reason
// ("No such file or directory"). Called from the calling thread only.
using InputErrorSink =
    std::function<void(std::string_view name, std::string_view reason)>;

// mapr::ExpandFileNames(), problems reported to `errors`.
std::vector<FileInput> ExpandInputs(const std::vector<std::string>& args,
                                    const InputErrorSink& errors);

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
  // AggregatorOptions::splits of every aggregator (`mapr map --split`).
  SplitRange splits;
  // AggregatorOptions::run_id and source.
  std::string run_id;
  std::string source;
  // `mapr map --range`: read only these bytes of the first input, which
  // must be a plain regular file (made by LineAlignedRange()).
  std::optional<LineRange> range;
};

// An unfinished aggregator holding every input (RunAggregation()).
struct AggregationRun {
  // The merged aggregator, input still open (too-long lines counted in).
  std::optional<Aggregator> aggregator;
  FilesReport report;
};

struct RunResult {
  ResultTable table;
  // The counters of the run (table.stats()), too-long lines counted in.
  LineCounters stats;
  // Inputs read, problems (each reported once to the error sink), lines
  // with a NUL byte.
  FilesReport report;
};

// Reads the inputs `names` into one aggregator (mapr::AggregateFiles) and
// returns it before FinishInput(), for `mapr map` to serialize.
absl::StatusOr<AggregationRun> RunAggregation(
    const Query& query, const std::vector<std::string>& names,
    const RunOptions& options, const InputErrorSink& errors);

// Runs `query` over the inputs `names` (mapr::QueryFiles). Problems with
// single inputs go to `errors` and the run goes on; an engine error (e.g.
// max_groups) is returned as the status.
absl::StatusOr<RunResult> RunQuery(const Query& query,
                                   const std::vector<std::string>& names,
                                   const RunOptions& options,
                                   const InputErrorSink& errors);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_RUNNER_H_
