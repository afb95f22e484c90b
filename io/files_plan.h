// How QueryFiles deals its inputs to workers: the plan of pieces (whole
// inputs, or line-aligned byte ranges of plain files) in contiguous groups
// of about equal work, and the problems found on the way. Private to io/.
#ifndef MAPR_IO_FILES_PLAN_H_
#define MAPR_IO_FILES_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "io/input_internal.h"
#include "mapr/files.h"
#include "mapr/input.h"
#include "mapr/query.h"

namespace mapr::parser {
class EventStart;
}  // namespace mapr::parser

namespace mapr::files_internal {

// Reports problems with inputs: to the callback, and into the report.
class Problems {
 public:
  Problems(const FilesOptions& options, FilesReport* report)
      : options_(options), report_(report) {}

  void Add(InputProblem problem) {
    if (options_.on_problem) options_.on_problem(problem);
    if (report_ != nullptr) report_->problems.push_back(std::move(problem));
  }

 private:
  const FilesOptions& options_;
  FilesReport* const report_;
};
// A whole input, or a line-aligned byte range of a plain file.
struct Piece {
  size_t input = 0;  // Index into the inputs: the SourceId.
  InputSpec spec;
};

struct Plan {
  // Contiguous runs of pieces in input order, one per worker.
  std::vector<std::vector<Piece>> groups;
  // Sum of the sizes of the regular files if every input is one, else 0.
  uint64_t total_bytes = 0;
};

// The first line start at or after `pos` (> 0) of the plain file `fd` of
// `size` bytes: pos itself if the byte before it is '\n', else the byte
// after the next '\n'; `size` if there is none.
uint64_t NextLineStart(int fd, uint64_t pos, uint64_t size);

// The same for a query: NextLineStart(), or for a `multiline` query the
// first line start at or after `pos` whose line starts an event (by
// `rule`), so that pieces cut there hold whole events. A line longer than
// `max_line_bytes` is never a cut (the reader drops it, so the event
// before it goes on after it). `size` if there is none.
uint64_t NextEventStart(int fd, uint64_t pos, uint64_t size,
                        const parser::EventStart* rule, size_t max_line_bytes);
// The event rule of `query`, or null.
const parser::EventStart* EventRule(const Query& query);

// Deals `inputs` to at most options.threads groups; marks in `failed` the
// inputs that could not be opened (each reported to `problems`).
Plan MakePlan(const Query& query, const std::vector<FileInput>& inputs,
              const FilesOptions& options, std::vector<bool>& failed,
              Problems& problems);

}  // namespace mapr::files_internal

#endif  // MAPR_IO_FILES_PLAN_H_
