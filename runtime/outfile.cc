#include "runtime/outfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "util/errno_text.h"
#include "util/out_of_memory.h"
#include "util/status_macros.h"

namespace mapr::runtime {
namespace {

using ::mapr::util::ErrnoText;

// ---------------------------------------------------------------------------
// Fault injection (see outfile.h). Constant-initialized, so usable from any
// static initializer; all fields are independent relaxed atomics.

struct FaultInjection {
  std::atomic<int> fail_nth{0};
  std::atomic<int> error_number{0};
  std::atomic<int64_t> operations{0};
  std::atomic<size_t> max_write{0};
};
constinit FaultInjection fault_injection;

// Counts one operation. Returns true, with errno set, if it is to fail.
bool InjectFault() {
  const int64_t n =
      fault_injection.operations.fetch_add(1, std::memory_order_relaxed) + 1;
  const int nth = fault_injection.fail_nth.load(std::memory_order_relaxed);
  if (nth <= 0 || n != nth) return false;
  errno = fault_injection.error_number.load(std::memory_order_relaxed);
  return true;
}

// Runs a counted system call `fn` (returning -1 and setting errno on failure),
// retrying on EINTR. Each attempt is one operation.
template <typename Fn>
auto CountedCall(Fn fn) -> decltype(fn()) {
  for (;;) {
    const decltype(fn()) rc = InjectFault() ? -1 : fn();
    if (rc != -1 || errno != EINTR) return rc;
  }
}

// ---------------------------------------------------------------------------
// Errors.

absl::StatusCode CodeForErrno(int error_number) {
  switch (error_number) {
    case ENOENT:
    case ENOTDIR:
      return absl::StatusCode::kNotFound;
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::StatusCode::kPermissionDenied;
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
    case EFBIG:
      return absl::StatusCode::kResourceExhausted;
    case EISDIR:
      return absl::StatusCode::kFailedPrecondition;
    default:
      return absl::ErrnoToStatusCode(error_number);
  }
}

// "cannot <op> outfile '<file>'[ to '<target>']: <reason>".
absl::Status OsError(std::string_view op, const std::string& file,
                     int error_number, const std::string* target = nullptr) {
  std::string message =
      absl::StrCat("cannot ", std::string(op), " outfile '", file, "'");
  if (target != nullptr) absl::StrAppend(&message, " to '", *target, "'");
  absl::StrAppend(&message, ": ", ErrnoText(error_number));
  return absl::Status(CodeForErrno(error_number), message);
}

// Appends a failed cleanup step to the (already failed) `status`, keeping the
// original code: the first failure is the one the caller acts on.
void AppendCleanupError(const absl::Status& cleanup, absl::Status* status) {
  if (cleanup.ok()) return;
  *status = absl::Status(
      status->code(), absl::StrCat(status->message(),
                                   "; rollback failed: ", cleanup.message()));
}

// ---------------------------------------------------------------------------
// File helpers.

// Owns a file descriptor.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { Close(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Closes the descriptor; returns 0 or close()'s errno. Not retried on
  // EINTR: on Linux the descriptor is released even then.
  int Close() {
    if (fd_ < 0) return 0;
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

absl::Status WriteAll(int fd, std::string_view data, const std::string& file) {
  const size_t max_write =
      fault_injection.max_write.load(std::memory_order_relaxed);
  while (!data.empty()) {
    size_t chunk = data.size();
    if (max_write > 0 && chunk > max_write) chunk = max_write;
    const ssize_t n =
        CountedCall([&] { return ::write(fd, data.data(), chunk); });
    if (n < 0) return OsError("write", file, errno);
    // write() never returns 0 for a non-empty regular-file write; guard the
    // loop anyway.
    if (n == 0) return OsError("write", file, EIO);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status Sync(int fd, const std::string& file) {
  if (CountedCall([&] { return ::fsync(fd); }) != 0) {
    return OsError("sync", file, errno);
  }
  return absl::OkStatus();
}

absl::Status Rename(const std::string& from, const std::string& to) {
  if (CountedCall([&] { return ::rename(from.c_str(), to.c_str()); }) != 0) {
    return OsError("rename", from, errno, &to);
  }
  return absl::OkStatus();
}

// Removes `file`; a file that is already gone is fine.
absl::Status RemoveFile(const std::string& file) {
  if (::unlink(file.c_str()) != 0 && errno != ENOENT) {
    return OsError("remove", file, errno);
  }
  return absl::OkStatus();
}

// Creates or truncates `file` and writes `a` then `b` into it, fsyncs and
// closes it. On failure the file is removed. A symlink at `file` is refused
// (ELOOP) rather than followed: it is our temporary name.
absl::Status WriteNewFile(const std::string& file, std::string_view a,
                          std::string_view b) {
  ScopedFd fd(CountedCall([&] {
    return ::open(file.c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  }));
  if (!fd.valid()) return OsError("create", file, errno);
  absl::Status status = WriteAll(fd.get(), a, file);
  if (status.ok()) status = WriteAll(fd.get(), b, file);
  if (status.ok()) status = Sync(fd.get(), file);
  if (status.ok()) {
    const int close_errno = fd.Close();
    if (close_errno != 0) status = OsError("close", file, close_errno);
  }
  if (!status.ok()) {
    fd.Close();
    AppendCleanupError(RemoveFile(file), &status);
  }
  return status;
}

// Reads `file` whole; nullopt if it does not exist.
absl::StatusOr<std::optional<std::string>> ReadIfExists(
    const std::string& file) {
  ScopedFd fd(
      CountedCall([&] { return ::open(file.c_str(), O_RDONLY | O_CLOEXEC); }));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<std::string>();
    return OsError("read", file, errno);
  }
  std::string content;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return OsError("read", file, errno);
    }
    if (n == 0) break;
    content.append(buf, static_cast<size_t>(n));
  }
  return std::optional<std::string>(std::move(content));
}

// Puts `previous` back at `file` (through `tmp`), or removes `file` if there
// was none.
absl::Status RestoreFile(const std::string& file, const std::string& tmp,
                         const std::optional<std::string>& previous) {
  if (!previous.has_value()) return RemoveFile(file);
  MAPR_RETURN_IF_ERROR(WriteNewFile(tmp, *previous, {}));
  absl::Status status = Rename(tmp, file);
  if (!status.ok()) AppendCleanupError(RemoveFile(tmp), &status);
  return status;
}

// ---------------------------------------------------------------------------
// The two modes.

// Removes `file` if it exists; for the exception path, so it never throws
// and reports nothing.
void UnlinkQuietly(const std::string& file) noexcept { ::unlink(file.c_str()); }

// Removes the temporary `file` if it is a regular file: the exception path
// does not know whether this call created it, and a symlink or directory of
// that name was never ours (creating the temporary refuses to follow one).
void UnlinkTemporaryQuietly(const std::string& file) noexcept {
  struct stat st;
  if (::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    ::unlink(file.c_str());
  }
}

// The steps of replace mode. Sets *old_query to the previous sidecar once it
// is read, and *query_replaced while the new sidecar is in place but the
// outfile is not yet committed.
absl::Status ReplaceOutfileSteps(const OutfileRequest& request,
                                 const std::string& tmp,
                                 const std::string& query_path,
                                 const std::string& query_tmp, bool with_query,
                                 std::optional<std::string>* old_query_out,
                                 bool* query_replaced) {
  const std::string& path = request.path;
  MAPR_RETURN_IF_ERROR(WriteNewFile(tmp, request.header, request.body));

  std::optional<std::string>& old_query = *old_query_out;
  if (with_query) {
    absl::Status status;
    absl::StatusOr<std::optional<std::string>> previous =
        ReadIfExists(query_path);
    if (previous.ok()) {
      old_query = *std::move(previous);
      status = WriteNewFile(query_tmp, request.query, {});
      if (status.ok()) {
        status = Rename(query_tmp, query_path);
        if (status.ok()) {
          *query_replaced = true;
        } else {
          AppendCleanupError(RemoveFile(query_tmp), &status);
        }
      }
    } else {
      status = previous.status();
    }
    if (!status.ok()) {
      AppendCleanupError(RemoveFile(tmp), &status);
      return status;
    }
  }

  absl::Status status = Rename(tmp, path);
  if (!status.ok()) {
    AppendCleanupError(RemoveFile(tmp), &status);
    if (with_query) {
      AppendCleanupError(RestoreFile(query_path, query_tmp, old_query),
                         &status);
    }
  }
  *query_replaced = false;  // Committed, or restored.
  return status;
}

// Replace mode. Order: write and fsync `<path>.tmp`; save the old sidecar;
// write `<path>.query.tmp` and rename it into place; finally rename
// `<path>.tmp` over `<path>` (the commit point). A failure before the commit
// removes the temporaries and puts the old sidecar back; so does an
// exception (std::bad_alloc), which is then rethrown.
absl::Status ReplaceOutfile(const OutfileRequest& request) {
  const std::string& path = request.path;
  // Every name is built before the first file is touched.
  const std::string tmp = path + ".tmp";
  const std::string query_path = path + ".query";
  const std::string query_tmp = query_path + ".tmp";
  const bool with_query = !request.query.empty();
  std::optional<std::string> old_query;
  bool query_replaced = false;
  try {
    return ReplaceOutfileSteps(request, tmp, query_path, query_tmp, with_query,
                               &old_query, &query_replaced);
  } catch (...) {
    UnlinkTemporaryQuietly(tmp);
    if (with_query) UnlinkTemporaryQuietly(query_tmp);
    if (query_replaced) {
      try {
        RestoreFile(query_path, query_tmp, old_query).IgnoreError();
      } catch (...) {
        // Keep the new sidecar rather than leave a temporary.
        UnlinkTemporaryQuietly(query_tmp);
      }
    }
    throw;
  }
}

// How far append mode got, for the exception path's rollback.
struct AppendProgress {
  bool opened = false;    // `<path>` is open (and maybe written).
  bool created = false;   // ... and this call created it.
  bool regular = false;   // ... and it is a regular file of
  off_t size_before = 0;  // this size before the append.
};

// The steps of append mode; records its progress in `*progress`.
absl::Status AppendOutfileSteps(const OutfileRequest& request,
                                const std::string& query_path,
                                const std::string& query_tmp, bool with_query,
                                AppendProgress* progress) {
  const std::string& path = request.path;
  if (with_query) {
    MAPR_RETURN_IF_ERROR(WriteNewFile(query_tmp, request.query, {}));
  }

  // Open without O_CREAT first so that we know whether this call created the
  // file (and a rollback must remove it) without a stat/open race.
  bool& created = progress->created;
  int raw_fd = -1;
  int open_errno = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    raw_fd = CountedCall(
        [&] { return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC); });
    if (raw_fd >= 0) break;
    open_errno = errno;
    if (open_errno != ENOENT) break;
    raw_fd = CountedCall([&] {
      return ::open(path.c_str(),
                    O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    });
    if (raw_fd >= 0) {
      created = true;
      break;
    }
    open_errno = errno;
    if (open_errno != EEXIST) break;  // EEXIST: created meanwhile; reopen.
  }
  ScopedFd fd(raw_fd);
  if (!fd.valid()) {
    absl::Status status = OsError("open", path, open_errno);
    if (with_query) AppendCleanupError(RemoveFile(query_tmp), &status);
    return status;
  }
  progress->opened = true;

  bool& regular = progress->regular;
  off_t& size_before = progress->size_before;
  // Undoes the append; uses the descriptor while it is open.
  auto rollback = [&]() -> absl::Status {
    if (created) return RemoveFile(path);
    if (!regular) return absl::OkStatus();
    int rc;
    do {
      rc = fd.valid() ? ::ftruncate(fd.get(), size_before)
                      : ::truncate(path.c_str(), size_before);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) return OsError("truncate", path, errno);
    return absl::OkStatus();
  };
  auto fail = [&](absl::Status status) {
    AppendCleanupError(rollback(), &status);
    fd.Close();
    if (with_query) AppendCleanupError(RemoveFile(query_tmp), &status);
    return status;
  };

  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return fail(OsError("stat", path, errno));
  regular = S_ISREG(st.st_mode);
  size_before = st.st_size;

  absl::Status status;
  if (size_before == 0) status = WriteAll(fd.get(), request.header, path);
  if (status.ok()) status = WriteAll(fd.get(), request.body, path);
  // fsync is meaningless (EINVAL) for pipes and devices such as /dev/stdout.
  if (status.ok() && regular) status = Sync(fd.get(), path);
  if (status.ok()) {
    const int close_errno = fd.Close();
    if (close_errno != 0) status = OsError("close", path, close_errno);
  }
  if (status.ok() && with_query) status = Rename(query_tmp, query_path);
  if (!status.ok()) return fail(std::move(status));
  return absl::OkStatus();
}

// Append mode. Order: write `<path>.query.tmp`; open `<path>` for appending
// (creating it if missing); write the header if the file is empty, then the
// body; fsync and close; rename the sidecar into place (the commit point). A
// failure truncates `<path>` back to its old size (or removes it if this call
// created it) and removes the sidecar temporary; so does an exception
// (std::bad_alloc), which is then rethrown.
absl::Status AppendOutfile(const OutfileRequest& request) {
  const std::string& path = request.path;
  // Every name is built before the first file is touched.
  const std::string query_path = path + ".query";
  const std::string query_tmp = query_path + ".tmp";
  const bool with_query = !request.query.empty();
  AppendProgress progress;
  try {
    return AppendOutfileSteps(request, query_path, query_tmp, with_query,
                              &progress);
  } catch (...) {
    if (progress.created) {
      UnlinkQuietly(path);
    } else if (progress.opened && progress.regular) {
      int rc;
      do {
        rc = ::truncate(path.c_str(), progress.size_before);
      } while (rc != 0 && errno == EINTR);
    }
    if (with_query) UnlinkTemporaryQuietly(query_tmp);
    throw;
  }
}

}  // namespace

absl::Status WriteOutfile(const OutfileRequest& request) {
  try {
    if (request.path.empty()) {
      return absl::InvalidArgumentError("outfile path is empty");
    }
    if (request.path.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError("outfile path contains a NUL byte");
    }
    return request.append ? AppendOutfile(request) : ReplaceOutfile(request);
  } catch (const std::bad_alloc&) {
    // The files were rolled back on the way out.
    return util::OutOfMemoryError("writing outfile", request.path);
  }
}

namespace testing {

void SetOutfileFaultForTesting(int fail_nth_operation, int error_number) {
  fault_injection.error_number.store(error_number, std::memory_order_relaxed);
  fault_injection.fail_nth.store(fail_nth_operation, std::memory_order_relaxed);
  fault_injection.operations.store(0, std::memory_order_relaxed);
}

void ClearOutfileFaultForTesting() {
  fault_injection.fail_nth.store(0, std::memory_order_relaxed);
  fault_injection.error_number.store(0, std::memory_order_relaxed);
  fault_injection.max_write.store(0, std::memory_order_relaxed);
  fault_injection.operations.store(0, std::memory_order_relaxed);
}

int OutfileOperationCountForTesting() {
  return static_cast<int>(
      fault_injection.operations.load(std::memory_order_relaxed));
}

void SetOutfileMaxWriteSizeForTesting(size_t max_bytes) {
  fault_injection.max_write.store(max_bytes, std::memory_order_relaxed);
}

}  // namespace testing
}  // namespace mapr::runtime
