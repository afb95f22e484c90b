// bindings/cli/steps.h: the steps of a distributed run, `mapr map`,
// `combine`, `reduce` and `inspect` (docs/distributed.md), and the output
// helpers of main.cc they share with the one-shot query.
//
// Example (what `mapr reduce a.part b.part` runs):
//   absl::StatusOr<Flags> flags = ParseFlags(argc, argv);
//   return RunReduce(*flags);  // prints the result; returns the exit status
#ifndef MAPR_BINDINGS_CLI_STEPS_H_
#define MAPR_BINDINGS_CLI_STEPS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bindings/cli/flags.h"
#include "bindings/cli/metrics_server.h"
#include "mapr/alert.h"
#include "mapr/files.h"
#include "mapr/input.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr::cli {

// Exit codes of the command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 1;  // Inputs, outputs, partials.
inline constexpr int kExitUsage = 2;       // Usage, invalid query.
inline constexpr int kExitAlert = 3;       // --alert held for some group.

// main.cc: "mapr: <message>" on stderr.
void PrintError(std::string_view message);
// main.cc: "mapr: <name>: <reason>" on stderr.
void PrintInputProblem(std::string_view name, std::string_view reason);
// main.cc: the message, the --help hint; returns kExitUsage.
int UsageError(std::string_view message);
void WriteStdout(std::string_view s);
// main.cc: the line that ends report `number` (from 1) of --follow, so a
// reader knows the report is whole without waiting for the next:
// "# end of report 3" ("# end of report 4 (final)") after a table, csv or
// chart; {"mapr_report_end":3,"final":false} after json and jsonl.
std::string ReportEnd(OutputFormat format, size_t number, bool is_final);
// main.cc: "warning: <text>" on stderr per note on a probably wrong result.
void PrintNotes(const std::vector<ResultNote>& notes);
// main.cc: the counters and `groups` on stderr (--stats).
void PrintStats(const LineCounters& c, uint64_t groups);
// main.cc: writes the outfile and/or prints `table` per --output, then
// --stats and the notes; returns `exit_code`, or kExitInputError if an
// output failed.
// `report` holds what the input layer saw (NUL bytes, inputs without a
// parsed line); empty for partials. `write_outfile` false leaves the
// query's outfile alone (a query that came in a partial from elsewhere):
// the result then goes to standard output.
int EmitResult(const Flags& flags, const Query& query, const ResultTable& table,
               const LineCounters& stats, const FilesReport& report,
               int exit_code, bool write_outfile = true);

// main.cc: writes the reports of --follow (local or remote): each to the
// outfile and/or printed per --output (default: table, unless there is an
// outfile), a printed one ended by its ReportEnd() line and separated from
// the previous one by an empty line. Not thread-safe: one thread at a time
// (FollowQuery's reporter thread calls it, never concurrently).
class ReportWriter {
 public:
  ReportWriter(const Flags& flags, const Query& query);
  void Write(const ResultTable& r, bool is_final);
  // Also publishes every report as Prometheus metrics there (--listen).
  void set_metrics(MetricsServer* server) { metrics_ = server; }
  // Also names on stderr the groups for which `alert` starts or stops
  // holding, report by report (--alert).
  void set_alert(const RowCondition* alert) { alert_ = alert; }
  // Whether the alert held for some group in some report.
  bool alert_fired() const { return alert_fired_; }
  // An output failed (an outfile error is printed once per message).
  bool failed() const { return failed_; }

 private:
  const Flags& flags_;
  const Query& query_;
  std::optional<OutputFormat> format_;
  std::string last_outfile_error_;
  MetricsServer* metrics_ = nullptr;
  const RowCondition* alert_ = nullptr;
  std::set<std::string> firing_;  // Groups the alert holds for now.
  bool alert_fired_ = false;

  void CheckAlert(const ResultTable& r);
  std::string last_metrics_error_;
  size_t reports_ = 0;
  bool failed_ = false;
};

// The whole content of input `spec` (decompressed, as mapr/input.h reads
// it); OpenInput's errors give the reason only, the caller names the input.
absl::StatusOr<std::string> ReadWhole(const InputSpec& spec);

// What --alert and --listen add to the reports of a following run: the
// compiled condition and the metrics server, which must outlive the writer's
// last Write().
struct ReportExtras {
  std::optional<RowCondition> alert;
  std::unique_ptr<MetricsServer> metrics;
};
// main.cc: compiles --alert and starts the --listen server into `extras`
// and attaches both to `writer`. Returns kExitOk, kExitUsage for a bad
// condition (printed), or kExitInputError if the server cannot start.
int SetUpReportExtras(const Flags& flags, const Query& query,
                      ReportWriter& writer, ReportExtras& extras);

// A usage problem with an option given to the wrong subcommand ("--range
// works only with map"); empty if there is none.
std::string MisplacedOption(const Flags& flags);

// The subcommands; each returns the exit status.
int RunMap(const Flags& flags, const Query& query, int default_threads);
int RunCombine(const Flags& flags);
int RunReduce(const Flags& flags);
int RunInspect(const Flags& flags);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_STEPS_H_
