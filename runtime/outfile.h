// Writes a query result to an `outfile` (docs/query-language.md, "outfile"):
// the CSV file itself plus the `<path>.query` sidecar holding the raw query.
//
// Replace mode writes `<path>.tmp` (fsync, close), then renames it over
// `<path>`; append mode appends to `<path>` and writes the header only into a
// missing or empty file. The sidecar always goes through `<path>.query.tmp`
// and a rename. Whatever fails, the previous `<path>` and `<path>.query` stay
// byte-identical and no temporary file is left behind; the returned error
// names the file and the OS reason, e.g.
//   cannot write outfile 'out/r.csv.tmp': No space left on device
// A failed allocation is rolled back the same way (every file name is built
// before the first file is touched; an exception undoes what was done).
//
// Not synchronized: two concurrent writers of the same path race (as in
// DTail). Distinct paths may be written from different threads.
#ifndef MAPR_RUNTIME_OUTFILE_H_
#define MAPR_RUNTIME_OUTFILE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace mapr::runtime {

struct OutfileRequest {
  // The outfile path, relative to the process's working directory or
  // absolute. Must be non-empty and contain no NUL byte.
  std::string path;
  // Append to `path` instead of replacing it. Default: false.
  bool append = false;
  // The CSV header line including its '\n'. In append mode it is written only
  // when `path` is missing or empty. May be empty.
  std::string_view header;
  // The CSV rows, each including its '\n'. May be empty.
  std::string_view body;
  // The raw query text, written verbatim (no newline added) to
  // `<path>.query`. Empty means "write no sidecar" (an existing one is left
  // alone).
  std::string_view query;
};

// Writes `request` as described above. On error the status code follows
// errno: ENOENT/ENOTDIR -> NotFound; EACCES/EPERM/EROFS -> PermissionDenied;
// ENOSPC/EDQUOT/EFBIG -> ResourceExhausted; EISDIR -> FailedPrecondition;
// any other errno -> absl::ErrnoToStatusCode() (EIO and unlisted values ->
// Unknown, EMFILE -> ResourceExhausted, ENAMETOOLONG -> InvalidArgument, ...).
// An empty path or one containing a NUL byte is InvalidArgument. The message
// has the form
//   cannot <op> outfile '<file>'[ to '<target>']: <strerror text>
// where <op> is one of create (a temporary), open (append mode), write, sync,
// close, stat, read (the old sidecar, kept for rollback), rename, remove or
// truncate, and <file> is the file the failing call was made on, followed by
// "; rollback failed: ..." in the rare case that restoring the previous state
// failed too. A failed allocation (std::bad_alloc) is ResourceExhausted
// "out of memory (std::bad_alloc) writing outfile '<path>'", with the same
// rollback: this function never throws.
absl::Status WriteOutfile(const OutfileRequest& request);

namespace testing {

// SQLite-style fault injection. Every open(), write(), fsync() and rename()
// call the writer makes (including retries after EINTR and the calls of a
// rollback) is one "operation", counted process-wide from 1 since the last
// Set/Clear call. When the count reaches `fail_nth_operation` that call is not
// made and fails with errno = `error_number` instead; the fault fires once.
// `fail_nth_operation` <= 0 disables injection. Resets the counter.
void SetOutfileFaultForTesting(int fail_nth_operation, int error_number);

// Disables fault injection and short writes; resets the counter.
void ClearOutfileFaultForTesting();

// The number of operations counted since the last Set/Clear call. After
// Clear + one successful WriteOutfile() this is K, the number of operations
// that write needs; a test then loops N = 1..K.
int OutfileOperationCountForTesting();

// Limits every write() to at most `max_bytes` bytes (0 = no limit), to
// exercise the partial-write loop. Cleared by ClearOutfileFaultForTesting().
void SetOutfileMaxWriteSizeForTesting(size_t max_bytes);

}  // namespace testing
}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_OUTFILE_H_
