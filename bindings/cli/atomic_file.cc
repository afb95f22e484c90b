#include "bindings/cli/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "bindings/cli/fd.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ToAbsl;

absl::Status FileError(std::string_view op, std::string_view what,
                       const std::string& file) {
  return absl::ErrnoToStatus(
      errno,
      absl::StrCat("cannot ", ToAbsl(op), " ", ToAbsl(what), " '", file, "'"));
}

}  // namespace

bool WriteFully(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;  // No progress (not on a regular file or a pipe).
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

absl::Status SyncParentFolder(const std::string& path, std::string_view what) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  Fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0 || ::fsync(dir_fd.get()) != 0) {
    return FileError("sync the folder of", what, path);
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes,
                                 std::string_view what) {
  std::string tmp = absl::StrCat(path, ".tmp.XXXXXX");
  {
    // O_CREAT | O_EXCL under a name nobody could plant in advance.
    Fd fd(::mkostemp(tmp.data(), O_CLOEXEC));
    if (fd.get() < 0) {
      // Named as the pattern: mkostemp leaves a name it did not create.
      return FileError("create", what, absl::StrCat(path, ".tmp.XXXXXX"));
    }
    if (!WriteFully(fd.get(), bytes)) {
      absl::Status s = FileError("write", what, tmp);
      ::unlink(tmp.c_str());
      return s;
    }
    if (::fsync(fd.get()) != 0) {
      absl::Status s = FileError("sync", what, tmp);
      ::unlink(tmp.c_str());
      return s;
    }
    if (::close(fd.release()) != 0) {
      absl::Status s = FileError("close", what, tmp);
      ::unlink(tmp.c_str());
      return s;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    absl::Status s = FileError("rename", what, tmp);
    ::unlink(tmp.c_str());
    return s;
  }
  return SyncParentFolder(path, what);
}

}  // namespace mapr::cli
