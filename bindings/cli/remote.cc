#include "bindings/cli/remote.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bindings/cli/follow.h"
#include "bindings/cli/steps.h"
#include "mapr/files.h"
#include "mapr/partial.h"
#include "mapr/partial_reducer.h"
#include "mapr/version.h"
#include "util/errno_text.h"
#include "util/strings.h"

extern char** environ;

namespace mapr::cli {
namespace {

using ::mapr::util::ErrnoText;
using ::mapr::util::ToStd;
using Clock = std::chrono::steady_clock;

// A session that has closed its outputs must end within this; else it is
// stopped and the host fails.
constexpr int kExitGraceMs = 5000;
// How often such a session is asked whether it ended.
constexpr int kReapPollMs = 20;
// Lines of a host's stderr kept for its failure message.
constexpr size_t kStderrTail = 3;
// The longest line of a host's stderr that is printed whole; the rest of a
// longer one is dropped (and said to be), so a host that writes without
// newlines costs this much memory, not what it wrote.
constexpr size_t kMaxStderrLine = 4096;

enum class HostState : uint8_t { kRunning, kDone, kFailed };

struct Host {
  std::string name;
  pid_t pid = -1;
  int in = -1;   // Our end of its standard input (--follow), or -1.
  int out = -1;  // Its standard output: partials.
  int err = -1;  // Its standard error: lines.
  // Its partials as they arrive: a frame over --max-frame-bytes fails the
  // host once its header is in.
  PartialFrameReader out_frames;
  std::string err_buf;
  bool err_cut = false;  // dropping the rest of a line over kMaxStderrLine
  std::vector<std::string> err_tail;
  HostState state = HostState::kRunning;
  std::string failure;  // Why it failed.
  uint64_t partials = 0;
  bool final_seen = false;
  Clock::time_point last_partial;
  // --follow: where a new session continues (the last partial's positions
  // and its next split), the sessions lost so far, and when the next one
  // starts.
  std::vector<InputPosition> resume_from;
  uint64_t next_split = 0;
  int reconnects = 0;
  std::optional<Clock::time_point> reconnect_at;
  // When its session closed both outputs while ssh still ran: it has
  // kExitGraceMs from then to end.
  std::optional<Clock::time_point> closed_at;
};

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Starts `argv` with stdin, stdout and stderr from the given fds.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int in,
                            int out, int err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
  // The child starts with default signal dispositions and mask: ours block
  // SIGINT and SIGTERM (read through a signalfd) and ignore SIGPIPE.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  const int e =
      posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (e != 0) {
    return absl::Status(
        absl::ErrnoToStatusCode(e),
        absl::StrCat("cannot run ", argv[0], ": ", ErrnoText(e)));
  }
  return pid;
}

// Starts the ssh session of `host` (continuing from its resume point).
absl::Status StartHost(const Flags& flags, Host& host) {
  int out[2], err[2], in[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0) return absl::InternalError(ErrnoText(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return absl::InternalError(ErrnoText(errno));
  }
  int child_in;
  if (flags.follow) {
    if (pipe2(in, O_CLOEXEC) != 0) {
      for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
      return absl::InternalError(ErrnoText(errno));
    }
    child_in = in[0];
  } else {
    child_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  absl::StatusOr<pid_t> pid =
      Spawn(RemoteCommand(flags, host.name, host.resume_from, host.next_split),
            child_in, out[1], err[1]);
  close(child_in);
  close(out[1]);
  close(err[1]);
  if (!pid.ok()) {
    close(out[0]);
    close(err[0]);
    if (in[1] >= 0) close(in[1]);
    return pid.status();
  }
  host.pid = *pid;
  host.out = out[0];
  host.err = err[0];
  host.in = in[1];
  fcntl(host.out, F_SETFL, fcntl(host.out, F_GETFL) | O_NONBLOCK);
  fcntl(host.err, F_SETFL, fcntl(host.err, F_GETFL) | O_NONBLOCK);
  host.last_partial = Clock::now();
  return absl::OkStatus();
}

// `bytes` for a message: printable ASCII, at most 40 bytes.
std::string Printable(std::string_view bytes) {
  std::string out;
  for (char c : bytes.substr(0, 40)) {
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  return out;
}

class Remote {
 public:
  Remote(const Flags& flags, const Query& query)
      : flags_(flags),
        query_(query),
        query_text_(query.ToString()),
        writer_(flags, query) {
    interval_ms_ = flags.interval_ms;
    if (interval_ms_ == 0) {
      interval_ms_ = query.interval_ms() > 0 ? query.interval_ms() : 1000;
    }
    AggregatorOptions options;
    options.max_groups = flags.max_groups;
    // A host's partial merges only if its query is the client's own
    // (AddFrame), whose lookup() tables the client read when it compiled.
    options.partial_lookup_dir = std::string("/");
    reducer_ = PartialReducer(options);
  }

  int Run() {
    sigset_t signals;
    if (absl::Status s = BlockStopSignals(&signals); !s.ok()) {
      PrintError(ToStd(s.message()));
      return kExitInputError;
    }
    signal(SIGPIPE, SIG_IGN);  // A host's stdin closed early is EPIPE.
    signal_fd_ = signalfd(-1, &signals, SFD_CLOEXEC);
    if (signal_fd_ < 0) {
      PrintError(ErrnoText(errno));
      return kExitInputError;
    }
    if (!flags_.follow && flags_.host_timeout_s > 0) {
      host_deadline_ =
          Clock::now() + std::chrono::seconds(flags_.host_timeout_s);
    }
    for (const std::string& name : flags_.hosts) {
      reducer_.DeclareSource(name);
      Host& host = hosts_.emplace_back();
      host.name = name;
      host.out_frames = PartialFrameReader(flags_.max_frame_bytes);
      if (absl::Status s = StartHost(flags_, host); !s.ok()) {
        Fail(host, ToStd(s.message()));
      }
    }
    if (flags_.follow && !flags_.quiet) {
      PrintError(absl::StrCat(
          "following ", hosts_.size(), hosts_.size() == 1 ? " host" : " hosts",
          "; cumulative report every ", IntervalText(interval_ms_),
          "; Ctrl-C or SIGTERM prints the final result"));
    }
    next_report_ = Clock::now() + std::chrono::milliseconds(interval_ms_);
    Loop();
    close(signal_fd_);
    return Finish();
  }

 private:
  void Loop() {
    while (Running() > 0) {
      std::vector<pollfd> fds;
      std::vector<std::pair<Host*, bool>> owners;  // (host, is stdout)
      fds.push_back({signal_fd_, POLLIN, 0});
      owners.emplace_back(nullptr, false);
      for (Host& h : hosts_) {
        if (h.out >= 0) {
          fds.push_back({h.out, POLLIN, 0});
          owners.emplace_back(&h, true);
        }
        if (h.err >= 0) {
          fds.push_back({h.err, POLLIN, 0});
          owners.emplace_back(&h, false);
        }
      }
      const int timeout = TimeoutMs();
      const int ready = poll(fds.data(), fds.size(), timeout);
      if (ready < 0 && errno != EINTR) {
        PrintError(absl::StrCat("poll: ", ErrnoText(errno)));
        KillAll("stopped: poll failed");
        continue;
      }
      for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        if (i == 0) {
          OnSignal();
        } else if (owners[i].second) {
          ReadOut(*owners[i].first);
        } else {
          ReadErr(*owners[i].first);
        }
      }
      for (Host& h : hosts_) {
        if (h.state == HostState::kRunning && h.pid > 0 && h.out < 0 &&
            h.err < 0) {
          TryReap(h);
        }
      }
      OnTime();
    }
  }

  size_t Running() const {
    return static_cast<size_t>(std::count_if(
        hosts_.begin(), hosts_.end(),
        [](const Host& h) { return h.state == HostState::kRunning; }));
  }

  int TimeoutMs() const {
    Clock::time_point next = Clock::time_point::max();
    if (flags_.follow && !stopping_) next = next_report_;
    if (stop_deadline_.has_value()) next = std::min(next, *stop_deadline_);
    for (const Host& h : hosts_) {
      if (h.reconnect_at.has_value()) next = std::min(next, *h.reconnect_at);
      if (h.closed_at.has_value() && h.state == HostState::kRunning) {
        next = std::min(next,
                        Clock::now() + std::chrono::milliseconds(kReapPollMs));
      }
    }
    if (host_deadline_.has_value()) next = std::min(next, *host_deadline_);
    if (next == Clock::time_point::max()) return -1;
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now());
    return static_cast<int>(std::max<int64_t>(left.count(), 0));
  }

  void OnSignal() {
    signalfd_siginfo info;
    if (read(signal_fd_, &info, sizeof(info)) != sizeof(info)) return;
    ++signals_;
    if (!flags_.follow || signals_ >= 2) {
      KillAll(flags_.follow
                  ? "stopped by a second signal before its last partial"
                  : "stopped by a signal");
      return;
    }
    // Each host reads what its files hold, sends its last partial, ends.
    stopping_ = true;
    stop_deadline_ = Clock::now() + std::chrono::milliseconds(kStopTimeoutMs);
    for (Host& h : hosts_) CloseFd(h.in);
  }

  void OnTime() {
    const Clock::time_point now = Clock::now();
    for (Host& h : hosts_) {
      if (h.reconnect_at.has_value() && now >= *h.reconnect_at) {
        if (stopping_) {
          h.reconnect_at.reset();
          Fail(h, "its session was lost before its last partial");
        } else {
          Reconnect(h);
        }
      }
    }
    if (host_deadline_.has_value() && now >= *host_deadline_) {
      host_deadline_.reset();
      KillAll(absl::StrCat("it did not end within ", flags_.host_timeout_s,
                           "s (--host-timeout)"));
    }
    if (stop_deadline_.has_value() && now >= *stop_deadline_) {
      KillAll(absl::StrCat("sent no last partial within ",
                           kStopTimeoutMs / 1000, "s of the stop"));
      stop_deadline_.reset();
    }
    if (flags_.follow && !stopping_ && now >= next_report_) {
      next_report_ = now + std::chrono::milliseconds(interval_ms_);
      Report();
    }
  }

  // One interval's status line, and its report when lines arrived since
  // the last one: as `mapr --follow`, an interval in which no line arrived
  // prints no report (the final report is always printed).
  void Report() {
    if (reducer_.query() != nullptr) {
      absl::StatusOr<ResultTable> r = reducer_.Result();
      if (!r.ok()) {
        PrintError(ToStd(r.status().message()));
      } else if (r->stats().lines_read != reported_lines_) {
        reported_lines_ = r->stats().lines_read;
        writer_.Write(*r, /*is_final=*/false);
      }
    }
    if (!flags_.quiet) PrintError(StatusLine());
  }

  std::string StatusLine() const {
    const Clock::time_point now = Clock::now();
    const auto lag_limit = std::chrono::milliseconds(2 * interval_ms_ + 2000);
    size_t reporting = 0;
    std::vector<std::string> lagging, failed, done;
    for (const Host& h : hosts_) {
      if (h.state == HostState::kFailed) {
        failed.push_back(h.name);
      } else if (h.state == HostState::kDone) {
        done.push_back(h.name);
      } else if (now - h.last_partial > lag_limit) {
        const auto s = std::chrono::duration_cast<std::chrono::seconds>(
            now - h.last_partial);
        lagging.push_back(absl::StrCat(
            h.name,
            h.partials == 0 ? " (no partial yet, " : " (no partial for ",
            s.count(), "s", h.partials == 0 ? ")" : ")"));
      } else {
        ++reporting;
      }
    }
    std::string line = absl::StrCat(
        hosts_.size(), hosts_.size() == 1 ? " host: " : " hosts: ", reporting,
        " reporting");
    if (!lagging.empty()) {
      absl::StrAppend(&line, ", ", lagging.size(), " lagging (",
                      absl::StrJoin(lagging, ", "), ")");
    }
    if (!done.empty()) {
      absl::StrAppend(&line, ", ", done.size(), " ended (",
                      absl::StrJoin(done, ", "), ")");
    }
    if (!failed.empty()) {
      absl::StrAppend(&line, ", ", failed.size(), " failed (",
                      absl::StrJoin(failed, ", "), ")");
    }
    return line;
  }

  void ReadOut(Host& h) {
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = read(h.out, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n <= 0) {
        CloseFd(h.out);
        const size_t held = h.out_frames.pending().size();
        if (held > 0 && h.state == HostState::kRunning) {
          Fail(h, absl::StrCat("its output ended inside a partial (", held,
                               " bytes of it)"));
        }
        return;
      }
      if (h.state != HostState::kRunning) continue;  // Drained, ignored.
      h.out_frames.Append(std::string_view(buf, static_cast<size_t>(n)));
      TakeFrames(h);
    }
  }

  // Adds every whole frame the host's output holds.
  void TakeFrames(Host& h) {
    std::string_view frame;
    while (h.state == HostState::kRunning && h.out_frames.Next(&frame)) {
      AddFrame(h, frame);
    }
    const absl::Status& s = h.out_frames.status();
    if (s.ok() || h.state != HostState::kRunning) return;
    if (h.out_frames.frames() == 0 &&
        s.code() == absl::StatusCode::kInvalidArgument) {
      Fail(h, absl::StrCat("its output is not mapr partials: '",
                           Printable(h.out_frames.pending()),
                           "' (does its shell print something at login?)"));
      return;
    }
    Fail(h, ToStd(s.message()));
  }

  void AddFrame(Host& h, std::string_view frame) {
    absl::StatusOr<PartialInfo> info = InspectPartial(frame);
    if (!info.ok()) {
      Fail(h, ToStd(info.status().message()));
      return;
    }
    if (info->source != h.name) {
      Fail(h, absl::StrCat("it sent a partial of source '", info->source,
                           "', not '", h.name, "'"));
      return;
    }
    // The client's query decides: a host's partial of another query fails
    // that host alone (it once became the model the others were refused
    // against, when it came first).
    if (info->query != query_text_) {
      Fail(h, absl::StrCat("it sent a partial of another query ('",
                           Printable(info->query), "'; this run's is '",
                           query_text_, "')"));
      return;
    }
    if (absl::Status s = reducer_.Add(frame); !s.ok()) {
      Fail(h, ToStd(s.message()));
      return;
    }
    ++h.partials;
    h.final_seen = h.final_seen || info->mark.final;
    h.last_partial = Clock::now();
    h.next_split = info->splits.end;
    h.resume_from = info->mark.positions;
  }

  void ReadErr(Host& h) {
    char buf[4096];
    for (;;) {
      const ssize_t n = read(h.err, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n <= 0) {
        if (!h.err_buf.empty()) ErrLine(h, h.err_buf);
        h.err_buf.clear();
        CloseFd(h.err);
        return;
      }
      std::string_view got(buf, static_cast<size_t>(n));
      while (!got.empty()) {
        const size_t nl = got.find('\n');
        const std::string_view piece = got.substr(0, nl);
        if (!h.err_cut) {
          const size_t room = kMaxStderrLine - h.err_buf.size();
          h.err_buf.append(piece.substr(0, room));
          if (piece.size() > room) {
            // Too long: what fits is printed now, the rest dropped.
            ErrLine(h, absl::StrCat(h.err_buf,
                                    " [cut: the line is longer "
                                    "than ",
                                    kMaxStderrLine, " bytes]"));
            h.err_buf.clear();
            h.err_cut = true;
          }
        }
        if (nl == std::string_view::npos) break;
        if (!h.err_cut) ErrLine(h, h.err_buf);
        h.err_buf.clear();
        h.err_cut = false;
        got.remove_prefix(nl + 1);
      }
    }
  }

  // Prints a line of the host's stderr with its name, control bytes (a
  // terminal's escape sequences) written as \xNN.
  void ErrLine(Host& h, std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) return;
    std::string shown;
    shown.reserve(line.size());
    for (const char c : line) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) {
        absl::StrAppend(&shown, "\\x", absl::Hex(u, absl::kZeroPad2));
      } else {
        shown.push_back(c);
      }
    }
    line = std::move(shown);
    std::fprintf(stderr, "mapr: %s: %s\n", h.name.c_str(), line.c_str());
    h.err_tail.push_back(std::move(line));
    if (h.err_tail.size() > kStderrTail) h.err_tail.erase(h.err_tail.begin());
  }

  // The host's session has closed both outputs: once ssh has ended, its
  // exit status decides. It is asked without waiting, so a session that
  // lingers holds up neither the other hosts nor a signal; one that
  // lingers past kExitGraceMs fails.
  void TryReap(Host& h) {
    int status = 0;
    pid_t r;
    do {
      r = waitpid(h.pid, &status, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == 0) {
      const Clock::time_point now = Clock::now();
      if (!h.closed_at.has_value()) {
        h.closed_at = now;
      } else if (now - *h.closed_at >=
                 std::chrono::milliseconds(kExitGraceMs)) {
        Fail(h, absl::StrCat("its session closed its output but did not end "
                             "within ",
                             kExitGraceMs / 1000, "s"));
      }
      return;
    }
    h.closed_at.reset();
    h.pid = -1;
    CloseFd(h.in);
    if (h.state != HostState::kRunning) return;
    std::string why;
    if (r < 0) {
      why = absl::StrCat("waitpid: ", ErrnoText(errno));
    } else if (WIFSIGNALED(status)) {
      why = absl::StrCat("ssh was killed by signal ", WTERMSIG(status));
    } else if (WEXITSTATUS(status) == 255) {
      why = "ssh failed (exit status 255)";
    } else if (WEXITSTATUS(status) == 127) {
      why = absl::StrCat("the host has no '", flags_.remote_mapr,
                         "' (exit status 127; see --remote-mapr)");
    } else if (WEXITSTATUS(status) == 2 && !h.err_tail.empty() &&
               h.err_tail.back().rfind("mapr: ", 0) == 0) {
      why = absl::StrCat(
          "its mapr refused the request (exit status 2): is it another "
          "version? this is mapr " MAPR_VERSION_STRING "; compare `ssh HOST ",
          flags_.remote_mapr, " --version`");
    } else if (WEXITSTATUS(status) != 0) {
      why = absl::StrCat("its mapr failed (exit status ", WEXITSTATUS(status),
                         ")");
    } else if (h.partials == 0) {
      why = "it ended without sending a partial";
    } else if (flags_.follow && !h.final_seen) {
      why = "it ended without its last partial";
    }
    if (!why.empty()) {
      if (!h.err_tail.empty()) absl::StrAppend(&why, ": ", h.err_tail.back());
      if (MayReconnect(
              h, r >= 0 && (WIFSIGNALED(status) || WEXITSTATUS(status) == 255 ||
                            WEXITSTATUS(status) == 0))) {
        ScheduleReconnect(h, why);
        return;
      }
      Fail(h, why);
      return;
    }
    h.state = HostState::kDone;
  }

  // --follow: a session that was lost (ssh died or was cut, the stream
  // ended without its last partial) after partials came starts again from
  // the last one's positions, at most kMaxReconnects times, unless the run
  // is stopping.
  bool MayReconnect(const Host& h, bool lost) const {
    return flags_.follow && lost && !stopping_ && h.partials > 0 &&
           !h.resume_from.empty() && !h.final_seen &&
           h.reconnects < kMaxReconnects;
  }

  void ScheduleReconnect(Host& h, std::string_view why) {
    ++h.reconnects;
    CloseFd(h.in);
    CloseFd(h.out);
    CloseFd(h.err);
    h.out_frames = PartialFrameReader(flags_.max_frame_bytes);
    h.err_buf.clear();
    h.closed_at.reset();
    h.reconnect_at = Clock::now() + std::chrono::seconds(h.reconnects);
    std::string from;
    for (const InputPosition& p : h.resume_from) {
      absl::StrAppend(&from, from.empty() ? "" : ", ", p.input, " byte ",
                      p.offset);
    }
    PrintError(absl::StrCat(h.name, ": session lost (", util::ToAbsl(why),
                            "); reconnecting in ", h.reconnects, "s (",
                            h.reconnects, " of ", kMaxReconnects, ") from ",
                            from, ", split ", h.next_split));
  }

  void Reconnect(Host& h) {
    h.reconnect_at.reset();
    h.err_tail.clear();
    if (absl::Status s = StartHost(flags_, h); !s.ok()) {
      Fail(h, ToStd(s.message()));
    }
  }

  void Fail(Host& h, std::string_view why) {
    if (h.state == HostState::kFailed) return;
    h.state = HostState::kFailed;
    h.failure = std::string(why);
    PrintError(absl::StrCat(h.name, ": failed: ", h.failure));
    Stop(h);
  }

  // Ends `h`'s session: its outputs are closed and ssh is stopped.
  void Stop(Host& h) {
    CloseFd(h.in);
    CloseFd(h.out);
    CloseFd(h.err);
    if (h.pid > 0) {
      // SIGTERM ends ssh (and so the session); SIGKILL if it lingers.
      kill(h.pid, SIGTERM);
      int status;
      const Clock::time_point deadline = Clock::now() + std::chrono::seconds(2);
      pid_t r;
      while ((r = waitpid(h.pid, &status, WNOHANG)) == 0 &&
             Clock::now() < deadline) {
        usleep(10000);
      }
      if (r == 0) {
        kill(h.pid, SIGKILL);
        while (waitpid(h.pid, &status, 0) < 0 && errno == EINTR) {
        }
      }
      h.pid = -1;
    }
  }

  void KillAll(const std::string& why) {
    for (Host& h : hosts_) {
      if (h.state == HostState::kRunning) Fail(h, why);
    }
  }

  int Finish() {
    // A failed host's partials that arrived are in the result: say so.
    std::vector<std::string> failed;
    for (const Host& h : hosts_) {
      if (h.state != HostState::kFailed) continue;
      failed.push_back(absl::StrCat(
          "host ", h.name, " failed (",
          h.partials == 0 ? "none of its lines are counted"
                          : "its lines up to its last partial are counted",
          ")"));
    }
    int code = kExitOk;
    if (reducer_.query() == nullptr) {
      PrintError("no host sent a partial: no result");
      return kExitInputError;
    }
    absl::StatusOr<ResultTable> table = reducer_.TakeResult();
    if (!table.ok()) {
      PrintError(ToStd(table.status().message()));
      return kExitInputError;
    }
    if (flags_.follow) {
      writer_.Write(*table, /*is_final=*/true);
      if (writer_.failed()) code = kExitInputError;
      if (!flags_.quiet) {
        PrintNotes(table->notes());
      }
    } else {
      code = EmitResult(flags_, query_, *table, table->stats(), FilesReport(),
                        kExitOk);
    }
    if (!failed.empty()) {
      PrintError(
          absl::StrCat("the result is partial: ", absl::StrJoin(failed, "; ")));
      if (!flags_.allow_partial) code = kExitInputError;
    }
    return code;
  }

  const Flags& flags_;
  const Query& query_;
  const std::string query_text_;  // as a partial of the query holds it
  ReportWriter writer_;
  int64_t interval_ms_ = 1000;
  PartialReducer reducer_;
  std::vector<Host> hosts_;
  int signal_fd_ = -1;
  int signals_ = 0;
  bool stopping_ = false;
  std::optional<Clock::time_point> stop_deadline_;
  // Without --follow: when every host must have ended (--host-timeout).
  std::optional<Clock::time_point> host_deadline_;
  Clock::time_point next_report_;
  // The lines read that the last interval report held.
  uint64_t reported_lines_ = 0;
};

// Why `host` cannot be a host's name, or nullopt. A host is what ssh takes
// as its destination ([user@]name, an IPv6 address, an alias of
// ~/.ssh/config); a leading '-' would be read as an option of ssh (the
// command line also ends ssh's options with "--"), and spaces, quotes or
// shell characters belong to no host.
std::optional<std::string> BadHostName(std::string_view host) {
  if (host.empty()) return std::string("a host name is empty");
  if (host[0] == '-') {
    return absl::StrCat("host '", absl::CHexEscape(util::ToAbsl(host)),
                        "' starts with '-', which ssh would read as an option");
  }
  constexpr std::string_view kPunctuation = "._-@:%[]";
  for (char c : host) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        kPunctuation.find(c) == std::string_view::npos) {
      return absl::StrCat("host '", absl::CHexEscape(util::ToAbsl(host)),
                          "' holds '",
                          absl::CHexEscape(absl::string_view(&c, 1)),
                          "', which no host name has (letters, digits and "
                          ". _ - @ : % [ ])");
    }
  }
  return std::nullopt;
}

}  // namespace

std::string ShellQuote(std::string_view arg) {
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  out += "'";
  return out;
}

std::vector<std::string> RemoteCommand(
    const Flags& flags, const std::string& ssh_host,
    const std::vector<InputPosition>& resume_from, uint64_t first_split) {
  std::vector<std::string> argv =
      absl::StrSplit(flags.ssh, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  argv.push_back("--");  // the host is no option of ssh, whatever its name
  argv.push_back(ssh_host);
  std::vector<std::string> remote = {flags.remote_mapr, "map", "--quiet",
                                     "--source", ssh_host};
  if (flags.follow) {
    remote.insert(remote.end(),
                  {"--follow", "--stop-on-stdin-eof", "--interval-ms",
                   absl::StrCat(flags.interval_ms)});
    if (!resume_from.empty()) {
      for (const InputPosition& p : resume_from) {
        remote.insert(remote.end(),
                      {"--resume-from", absl::StrCat(p.input, "=", p.offset)});
      }
      remote.insert(remote.end(), {"--split", absl::StrCat(first_split)});
    } else if (flags.from_start) {
      remote.push_back("--from-start");
    }
  }
  // The query's multi-line rule when the caller gave it as an option.
  if (flags.event_start.has_value()) {
    remote.insert(remote.end(), {"--event-start", *flags.event_start});
  }
  remote.insert(remote.end(),
                {"--max-line-bytes", absl::StrCat(flags.max_line_bytes)});
  if (flags.max_groups > 0) {
    remote.insert(remote.end(),
                  {"--max-groups", absl::StrCat(flags.max_groups)});
  }
  remote.insert(remote.end(), {"--query", flags.query.value_or(""), "--"});
  remote.insert(remote.end(), flags.files.begin(), flags.files.end());
  std::vector<std::string> quoted;
  quoted.reserve(remote.size());
  for (const std::string& a : remote) quoted.push_back(ShellQuote(a));
  argv.push_back(absl::StrJoin(quoted, " "));
  return argv;
}

int RunRemote(const Flags& flags, const Query& query) {
  if (flags.hosts.empty()) {
    return UsageError("remote needs hosts: --hosts H1,H2 or --hosts-file FILE");
  }
  absl::flat_hash_set<std::string> seen;
  for (const std::string& h : flags.hosts) {
    if (std::optional<std::string> why = BadHostName(h)) {
      return UsageError(*why);
    }
    if (!seen.insert(h).second) {
      return UsageError(absl::StrCat("host '", h, "' is named twice"));
    }
  }
  if (flags.files.empty() || std::find(flags.files.begin(), flags.files.end(),
                                       "-") != flags.files.end()) {
    return UsageError(
        "remote reads FILEs on the hosts: name them (standard input is not "
        "one)");
  }
  if (flags.ssh.find_first_not_of(" \t") == std::string::npos) {
    return UsageError("--ssh needs a command");
  }
  Flags with = flags;
  if (with.follow && with.interval_ms == 0) {
    with.interval_ms = query.interval_ms() > 0 ? query.interval_ms() : 1000;
  }
  Remote remote(with, query);
  return remote.Run();
}

}  // namespace mapr::cli
