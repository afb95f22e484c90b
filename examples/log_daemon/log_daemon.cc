// A small log daemon: follows a log file (or reads stdin), runs a query
// continuously with mapr::TurboAggregate, writes the result every interval
// (to stdout, or to the query's outfile), and on SIGTERM/SIGINT calls
// FinishInput() and exits 0 after writing the final result.
//
//   log_daemon [--delta] [--interval-ms N] QUERY [FILE|-]
//
// FILE is followed like `tail -f` from its beginning (a truncated file is
// read again from the start). Without FILE, or with `-`, stdin is read until
// EOF or a signal.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>

#include "mapr/mapr.h"
#include "mapr/turbo_aggregate.h"

namespace {

std::mutex output_mu;

void Report(const mapr::Query& query, const mapr::ResultTable& result,
            bool is_final) {
  std::lock_guard<std::mutex> lock(output_mu);
  if (query.outfile().has_value()) {
    absl::Status s = mapr::WriteOutfile(query, result);
    if (!s.ok()) std::cerr << "log_daemon: " << s.message() << "\n";
    return;
  }
  std::cout << (is_final ? "--- final ---\n" : "--- interval ---\n")
            << result.ToTable() << std::flush;
}

int Usage() {
  std::cerr << "usage: log_daemon [--delta] [--interval-ms N] QUERY [FILE|-]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  mapr::TurboOptions options;
  int arg = 1;
  for (; arg < argc && argv[arg][0] == '-' && argv[arg][1] == '-'; ++arg) {
    std::string flag = argv[arg];
    if (flag == "--delta") {
      options.mode = mapr::ReportMode::kDelta;
    } else if (flag == "--interval-ms" && arg + 1 < argc) {
      options.interval_ms = std::atoll(argv[++arg]);
    } else {
      return Usage();
    }
  }
  if (arg >= argc || argc - arg > 2) return Usage();
  absl::StatusOr<mapr::Query> query = mapr::Query::Compile(argv[arg]);
  if (!query.ok()) {
    std::cerr << "log_daemon: " << query.status().message() << "\n";
    return 2;
  }
  std::string path = arg + 1 < argc ? argv[arg + 1] : "-";
  bool follow = path != "-";
  int fd = follow ? open(path.c_str(), O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
  if (fd < 0) {
    std::cerr << "log_daemon: " << path << ": " << std::strerror(errno) << "\n";
    return 1;
  }

  // Signals arrive through a signalfd, so no handler runs on a mapr thread;
  // block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  int sig_fd = signalfd(-1, &signals, SFD_CLOEXEC);

  const mapr::Query& q = *query;
  absl::StatusOr<std::unique_ptr<mapr::TurboAggregate>> turbo =
      mapr::TurboAggregate::Create(
          q, options, [&q](const mapr::ResultTable& r, bool is_final) {
            Report(q, r, is_final);
          });
  if (!turbo.ok()) {
    std::cerr << "log_daemon: " << turbo.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<mapr::TurboAggregate::Producer>> producer =
      (*turbo)->AddProducer(/*source=*/0);
  if (!producer.ok()) return 1;

  mapr::LineSplitter splitter;
  char buf[64 * 1024];
  off_t offset = 0;
  bool done = false;
  absl::Status status;
  while (!done && status.ok()) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      offset += n;
      status = (*producer)->PushLines(splitter.Split({buf, size_t(n)}));
    } else if (n < 0 && errno != EINTR) {
      std::cerr << "log_daemon: " << path << ": " << std::strerror(errno)
                << "\n";
      break;
    }
    // At the end of the input, wait for a signal (or, when following a
    // file, for it to grow).
    pollfd fds[1] = {{sig_fd, POLLIN, 0}};
    int timeout = n > 0 ? 0 : 100;
    if (n == 0 && !follow) timeout = 0;
    if (poll(fds, 1, timeout) > 0) {
      signalfd_siginfo info;
      if (read(sig_fd, &info, sizeof(info)) > 0) done = true;
    }
    if (n == 0 && !follow) done = true;  // stdin reached EOF
    struct stat st;
    if (follow && n == 0 && fstat(fd, &st) == 0 && st.st_size < offset) {
      lseek(fd, 0, SEEK_SET);  // Truncated: start over.
      offset = 0;
    }
  }
  if (std::optional<std::string_view> last = splitter.Finish()) {
    status.Update((*producer)->PushLines({&*last, 1}));
  }
  status.Update((*producer)->Finish());
  status.Update((*turbo)->FinishInput());
  if (!status.ok()) {
    std::cerr << "log_daemon: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
