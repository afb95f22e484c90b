#include "bindings/cli/runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "mapr/log_format.h"
#include "util/host_name.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ToStd;

std::string HumanBytes(double b) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  while (b >= 1024 && u + 1 < std::size(kUnits)) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? absl::StrFormat("%.0f %s", b, kUnits[u])
                : absl::StrFormat("%.1f %s", b, kUnits[u]);
}

std::string HumanCount(double n) {
  if (n >= 1e9) return absl::StrFormat("%.1fG", n / 1e9);
  if (n >= 1e6) return absl::StrFormat("%.1fM", n / 1e6);
  if (n >= 1e4) return absl::StrFormat("%.1fk", n / 1e3);
  return absl::StrFormat("%.0f", n);
}

// The progress line on stderr: shown once the run is older than a second,
// refreshed with every report (4 a second), erased before a problem is
// printed and at the end.
class ProgressLine {
 public:
  void Show(const FilesProgress& p) {
    if (p.done) {
      Erase();
      return;
    }
    const double secs = std::chrono::duration<double>(p.elapsed).count();
    if (secs < 1.0) return;
    const double b = static_cast<double>(p.bytes_read);
    const double l = static_cast<double>(p.lines);
    std::string text = absl::StrCat(
        "mapr: ", HumanBytes(b), " (", HumanBytes(b / secs), "/s), ",
        HumanCount(l), " lines (", HumanCount(l / secs), "/s)");
    if (p.total_bytes > 0) {
      const double pct =
          std::min(100.0, 100.0 * b / static_cast<double>(p.total_bytes));
      absl::StrAppend(&text, absl::StrFormat(", %.0f%%", pct));
    }
    std::fprintf(stderr, "\r%s\033[K", text.c_str());
    std::fflush(stderr);
    shown_ = true;
  }

  void Erase() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool shown_ = false;
};

// The library's options for the command's; `line` and `errors` must outlive
// the run.
FilesOptions ToFilesOptions(const RunOptions& options, ProgressLine& line,
                            const InputErrorSink& errors) {
  FilesOptions out;
  out.threads = std::max(1, options.threads);
  out.aggregator.hostname =
      options.hostname.empty() ? util::HostName() : options.hostname;
  out.aggregator.max_line_bytes = options.max_line_bytes;
  out.aggregator.max_groups = options.max_groups;
  out.aggregator.splits = options.splits;
  out.aggregator.run_id = options.run_id;
  out.aggregator.source = options.source;
  out.range = options.range;
  out.on_problem = [&line, &errors](const InputProblem& p) {
    line.Erase();
    errors(p.name, ToStd(p.status.message()));
  };
  if (options.progress) {
    out.on_progress = [&line](const FilesProgress& p) { line.Show(p); };
  }
  return out;
}

}  // namespace

std::vector<FileInput> ExpandInputs(const std::vector<std::string>& args,
                                    const InputErrorSink& errors) {
  std::vector<InputProblem> problems;
  std::vector<FileInput> inputs = ExpandFileNames(args, &problems);
  for (const InputProblem& p : problems) {
    errors(p.name, ToStd(p.status.message()));
  }
  return inputs;
}

absl::StatusOr<AggregationRun> RunAggregation(
    const Query& query, const std::vector<std::string>& names,
    const RunOptions& options, const InputErrorSink& errors) {
  ProgressLine line;
  const FilesOptions files_options = ToFilesOptions(options, line, errors);
  const std::vector<FileInput> inputs = ExpandInputs(names, errors);
  AggregationRun run;
  absl::StatusOr<Aggregator> agg =
      AggregateFiles(query, inputs, files_options, &run.report);
  line.Erase();
  if (!agg.ok()) return agg.status();
  run.aggregator = std::move(*agg);
  return run;
}

absl::StatusOr<RunResult> RunQuery(const Query& query,
                                   const std::vector<std::string>& names,
                                   const RunOptions& options,
                                   const InputErrorSink& errors) {
  ProgressLine line;
  const FilesOptions files_options = ToFilesOptions(options, line, errors);
  RunResult result;
  absl::StatusOr<ResultTable> table =
      QueryFiles(query, names, files_options, &result.report);
  line.Erase();
  if (!table.ok()) return table.status();
  result.table = std::move(*table);
  // Too-long lines were counted inside the aggregators.
  result.stats = result.table.stats();
  return result;
}

}  // namespace mapr::cli
