// mapr/outfile.h: writing a result to a query's `outfile`, as DTail does.
//
// Non-append mode writes `<path>.tmp` and renames it over `<path>`; append
// mode appends the rows (the header only into a missing or empty file). Both
// write the raw query, without a trailing newline, to `<path>.query` through
// a temporary file and a rename. A failed write leaves the previous complete
// files intact and returns an error naming the path and the OS reason.
//
// Example:
//   if (query.outfile()) {
//     absl::Status s = mapr::WriteOutfile(query, result);
//     if (!s.ok()) std::cerr << s.message() << "\n";
//   }
#ifndef MAPR_MAPR_OUTFILE_H_
#define MAPR_MAPR_OUTFILE_H_

#include <string_view>

#include "absl/status/status.h"
#include "mapr/export.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr {

// Writes `result` as CSV to `query`'s outfile (path and append mode from the
// query; the sidecar holds query.text()). Returns FailedPrecondition if the
// query has no outfile; NotFound, PermissionDenied, ResourceExhausted (disk
// full) and similar codes for I/O failures; ResourceExhausted "out of memory
// (std::bad_alloc) writing outfile '<path>'" if an allocation fails. Never
// throws; whatever fails, the previous files are left as they were and no
// temporary file remains.
MAPR_EXPORT absl::Status WriteOutfile(const Query& query,
                                      const ResultTable& result);

// The same with an explicit path, mode and sidecar text (empty: no sidecar).
MAPR_EXPORT absl::Status WriteOutfile(std::string_view path, bool append,
                                      const ResultTable& result,
                                      std::string_view query_text);

}  // namespace mapr

#endif  // MAPR_MAPR_OUTFILE_H_
