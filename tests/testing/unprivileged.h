// Permission tests that hold as root too. Root bypasses file permissions, and
// CI runs as root, so a test that skipped there would never run: instead the
// code under test runs as the user "nobody" in a forked child, which sends its
// status back for the parent to check.
//
//   EXPECT_THAT(mapr::testing::RunUnprivileged([&] {
//                 return WriteOutfile(request);  // as "nobody" if root
//               }),
//               StatusIs(absl::StatusCode::kPermissionDenied, ...));
#ifndef MAPR_TESTS_TESTING_UNPRIVILEGED_H_
#define MAPR_TESTS_TESTING_UNPRIVILEGED_H_

#include <grp.h>
#include <pwd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace mapr::testing {

// (uid, gid) of the user "nobody" (65534 where the passwd file lacks it).
inline std::pair<uid_t, gid_t> NobodyIds() {
  const passwd* p = ::getpwnam("nobody");
  if (p == nullptr) return {65534, 65534};
  return {p->pw_uid, p->pw_gid};
}

// Gives `path` (a file or a folder, not recursive) to "nobody" when this
// process is root, so that "nobody" owns what the test made; a no-op
// otherwise.
inline absl::Status GiveToNobody(const std::filesystem::path& path) {
  if (::geteuid() != 0) return absl::OkStatus();
  const auto [uid, gid] = NobodyIds();
  if (::chown(path.c_str(), uid, gid) != 0) {
    return absl::InternalError(
        absl::StrCat("chown ", path.string(), ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// Runs `fn` and returns its status: as this process's user when it is not
// root, else in a forked child that drops to "nobody" (groups, gid, then
// uid) and sends the status back through a pipe. The child leaves with
// _exit, so nothing of the test runner runs there; call it while the test
// is the process's only thread. A child that cannot drop root, or dies,
// gives an Internal error that says so.
inline absl::Status RunUnprivileged(const std::function<absl::Status()>& fn) {
  if (::geteuid() != 0) return fn();
  int fds[2];
  if (::pipe(fds) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    const auto [uid, gid] = NobodyIds();
    std::string reply;
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 ||
        ::setuid(uid) != 0 || ::geteuid() == 0) {
      reply = "X cannot drop root privileges";
    } else {
      const absl::Status s = fn();
      reply = absl::StrCat(static_cast<int>(s.code()), " ", s.message());
    }
    size_t done = 0;
    while (done < reply.size()) {
      const ssize_t n =
          ::write(fds[1], reply.data() + done, reply.size() - done);
      if (n <= 0) ::_exit(4);
      done += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string reply;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || reply.empty() ||
      reply[0] == 'X') {
    return absl::InternalError(absl::StrCat(
        "the unprivileged child failed (wait status ", wstatus, "): ", reply));
  }
  const size_t space = reply.find(' ');
  return absl::Status(
      static_cast<absl::StatusCode>(std::atoi(reply.substr(0, space).c_str())),
      space == std::string::npos ? "" : reply.substr(space + 1));
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_UNPRIVILEGED_H_
