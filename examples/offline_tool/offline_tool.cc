// The smallest complete offline mapr host: compile a query, run it over
// files (plain or compressed, names or globs) on every core, print the DTail
// terminal table. Problems with single files are printed and the run goes
// on; a progress line is shown on stderr while a long run reads.
//
//   offline_tool 'from STATS select count($line) group by $hostname' 'app.log*'
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "mapr/mapr.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: offline_tool QUERY FILE...\n";
    return 2;
  }
  absl::StatusOr<mapr::Query> query = mapr::Query::Compile(argv[1]);
  if (!query.ok()) {
    std::cerr << query.status().message() << "\n";
    return 2;
  }
  mapr::FilesOptions options;
  options.threads =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // On a terminal, a progress line is shown, and erased before a problem is
  // printed.
  const bool tty = isatty(STDERR_FILENO) == 1;
  options.on_problem = [tty](const mapr::InputProblem& p) {
    std::cerr << (tty ? "\r\033[K" : "") << p.name << ": " << p.status.message()
              << "\n";
  };
  if (tty) {
    options.on_progress = [](const mapr::FilesProgress& p) {
      if (p.done) {
        std::cerr << "\r\033[K";
      } else if (p.elapsed > std::chrono::seconds(1)) {
        std::cerr << "\r" << (p.bytes_read >> 20) << " MiB, " << p.lines
                  << " lines\033[K" << std::flush;
      }
    };
  }
  mapr::FilesReport report;
  absl::StatusOr<mapr::ResultTable> result =
      mapr::QueryFiles(*query, std::vector<std::string>(argv + 2, argv + argc),
                       options, &report);
  if (!result.ok()) {
    std::cerr << result.status().message() << "\n";
    return 1;
  }
  std::cout << result->ToTable();
  return report.inputs_failed == 0 ? 0 : 1;
}
