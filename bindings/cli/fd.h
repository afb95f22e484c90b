// bindings/cli/fd.h: a file descriptor closed when it goes out of scope.
#ifndef MAPR_BINDINGS_CLI_FD_H_
#define MAPR_BINDINGS_CLI_FD_H_

#include <unistd.h>

#include <utility>

namespace mapr::cli {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Gives the descriptor up without closing it (to close it by hand and
  // see the error).
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_FD_H_
