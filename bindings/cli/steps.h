// bindings/cli/steps.h: the steps of a distributed run, `mapr map`,
// `combine`, `reduce` and `inspect` (docs/distributed.md), and the output
// helpers of main.cc they share with the one-shot query.
//
// Example (what `mapr reduce a.part b.part` runs):
//   absl::StatusOr<Flags> flags = ParseFlags(argc, argv);
//   return RunReduce(*flags);  // prints the result; returns the exit status
#ifndef MAPR_BINDINGS_CLI_STEPS_H_
#define MAPR_BINDINGS_CLI_STEPS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "bindings/cli/flags.h"
#include "mapr/files.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr::cli {

// Exit codes of the command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 1;  // Inputs, outputs, partials.
inline constexpr int kExitUsage = 2;       // Usage, invalid query.

// main.cc: "mapr: <message>" on stderr.
void PrintError(std::string_view message);
// main.cc: "mapr: <name>: <reason>" on stderr.
void PrintInputProblem(std::string_view name, std::string_view reason);
// main.cc: the message, the --help hint; returns kExitUsage.
int UsageError(std::string_view message);
void WriteStdout(std::string_view s);
// main.cc: the counters and `groups` on stderr (--stats).
void PrintStats(const LineCounters& c, uint64_t groups);
// main.cc: writes the outfile and/or prints `table` per --output, then
// --stats and the notes; returns `exit_code`, or kExitInputError if an
// output failed.
// `report` holds what the input layer saw (NUL bytes, inputs without a
// parsed line); empty for partials.
int EmitResult(const Flags& flags, const Query& query, const ResultTable& table,
               const LineCounters& stats, const FilesReport& report,
               int exit_code);

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
