#include "bindings/cli/follow.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bindings/cli/fd.h"
#include "mapr/input.h"
#include "mapr/line_splitter.h"
#include "mapr/log_format.h"
#include "util/errno_text.h"
#include "util/host_name.h"
#include "util/status_macros.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ErrnoText;

using ::mapr::util::ToStd;

// Bytes per read(2).
constexpr size_t kChunkBytes = size_t{256} << 10;
// Reads from one input before the next input's turn (4 MiB), so that one
// busy file cannot starve the others.
constexpr int kReadsPerTurn = 16;

absl::Status ErrnoStatus(int error_number) {
  return absl::Status(absl::ErrnoToStatusCode(error_number),
                      ErrnoText(error_number));
}

enum class InputState : uint8_t {
  kWaiting,  // A file that does not exist (now); looked for every round.
  kFile,     // A regular file, followed.
  kStream,   // Standard input, a pipe or a device: read until it ends.
  kEnded,    // A stream that has ended.
  kFailed,   // Given up after a reported error.
};

struct Input {
  size_t index = 0;  // On the command line: the SourceId.
  std::string name;  // The path, or "-".
  InputState state = InputState::kFailed;
  int fd = -1;
  bool owns_fd = false;
  // The followed file (kFile): its identity and the bytes read from it.
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t offset = 0;
  // Started at the end of a file in the middle of a line: drop the bytes up
  // to the next '\n'.
  bool skip_fragment = false;
  // Missing at the start, and not opened since.
  bool awaited = false;
  // Where reading began, for the start line: "from the end", "from the
  // start" or "from byte N" (--resume-from).
  std::string start;
  // The sink was told that the input begins (FollowSink::Begin), and not
  // yet that it is finished.
  bool begun = false;
  // kFile and kWaiting: the inotify watch of its folder (-1: none), its
  // name there, and the files created at its path since the followed one
  // was opened (more than one: some were replaced before they were read).
  int watch = -1;
  std::string base;
  uint64_t created = 0;
};

// The reader: follows every input from one thread.
class Follower {
 public:
  Follower(FollowSink& sink, const FollowInputsOptions& options,
           const FollowCallbacks& callbacks, int wake_fd)
      : sink_(sink),
        options_(options),
        callbacks_(callbacks),
        wake_fd_(wake_fd),
        buf_(std::make_unique<char[]>(kChunkBytes)) {}

  ~Follower() {
    for (auto& in : inputs_) CloseFd(*in);
    if (inotify_fd_ >= 0) close(inotify_fd_);
  }

  Follower(const Follower&) = delete;
  Follower& operator=(const Follower&) = delete;

  // Opens the inputs and registers their producers, in input order.
  // Returns the number of inputs being read (0: nothing to follow, every
  // input failed), or an engine error.
  absl::StatusOr<size_t> Open(const std::vector<FileInput>& inputs) {
    // A resumed run reads each file from its position, and the files
    // without one from their start (it had not read them); otherwise files
    // are read from their end unless from_start.
    const bool resumed = std::any_of(
        options_.resume_from.begin(), options_.resume_from.end(),
        [](const std::optional<uint64_t>& o) { return o.has_value(); });
    bool stdin_taken = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto in = std::make_unique<Input>();
      in->index = i;
      in->name = inputs[i].path;
      if (inputs[i].is_stdin) {
        if (stdin_taken) {
          // The first "-" reads standard input to its end.
          in->state = InputState::kEnded;
        } else {
          stdin_taken = true;
          in->fd = STDIN_FILENO;
          in->state = InputState::kStream;
        }
      } else if (absl::Status s = OpenFile(
                     *in, !options_.from_start && !resumed,
                     i < options_.resume_from.size() ? options_.resume_from[i]
                                                     : std::nullopt);
                 !s.ok()) {
        if (absl::IsNotFound(s)) {
          in->state = InputState::kWaiting;
          in->awaited = true;
          in->start = "from the start";  // Once it appears: all of it is new.
        } else {
          Error(*in, ToStd(s.message()));
          in->state = InputState::kFailed;
          ++failed_;
        }
      }
      inputs_.push_back(std::move(in));
    }
    size_t live = 0;
    for (const auto& in : inputs_) {
      if (in->state == InputState::kFile || in->state == InputState::kStream) {
        ++live;
      }
    }
    for (auto& in : inputs_) {
      if (in->state != InputState::kWaiting) continue;
      if (live == 0) {
        Error(*in, ErrnoText(ENOENT));
        in->state = InputState::kFailed;
        ++failed_;
      } else {
        Error(*in,
              absl::StrCat(ErrnoText(ENOENT), " (waiting for it to appear)"));
      }
    }
    if (live == 0) return 0;
    for (auto& in : inputs_) {
      if (in->state == InputState::kFile || in->state == InputState::kWaiting) {
        WatchFolder(*in);
      }
    }
    for (auto& in : inputs_) {
      if (in->state == InputState::kFailed || in->state == InputState::kEnded) {
        continue;
      }
      MAPR_RETURN_IF_ERROR(sink_.Begin(in->index, in->name, in->offset));
      in->begun = true;
    }
    return live;
  }

  // A one-line description of the run, for FollowCallbacks::started.
  std::string Summary(const std::string& every) const {
    size_t live = 0;
    const Input* only = nullptr;
    bool any_file = false;
    for (const auto& in : inputs_) {
      if (in->state == InputState::kFailed || in->state == InputState::kEnded) {
        continue;
      }
      ++live;
      only = in.get();
      any_file = any_file || in->state != InputState::kStream;
    }
    // Where the files are read from: one phrase when they agree, else each
    // file's own.
    auto is_file = [](const Input& in) {
      return in.state != InputState::kFailed &&
             in.state != InputState::kEnded && in.state != InputState::kStream;
    };
    std::string start;
    bool one_start = true;
    for (const auto& in : inputs_) {
      if (!is_file(*in)) continue;
      if (start.empty()) {
        start = in->start;
      } else if (in->start != start) {
        one_start = false;
      }
    }
    std::string text = "following ";
    if (live == 1) {
      absl::StrAppend(&text, only->name == "-" && only->fd == STDIN_FILENO
                                 ? "standard input"
                                 : only->name);
    } else {
      absl::StrAppend(&text, live, " inputs");
    }
    if (!any_file) {
      absl::StrAppend(&text, " until it ends");
    } else if (one_start) {
      absl::StrAppend(&text, " ", start);
    } else {
      std::vector<std::string> each;
      for (const auto& in : inputs_) {
        if (is_file(*in))
          each.push_back(absl::StrCat(in->name, " ", in->start));
      }
      absl::StrAppend(&text, " (", absl::StrJoin(each, ", "), ")");
    }
    absl::StrAppend(&text, "; ", every);
    return text;
  }

  // The reader thread: follows until RequestStop() (or until every input
  // has ended or failed), reads the rest on a first stop request, then
  // finishes every producer.
  void Run() {
    next_tick_ = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(options_.tick_ms);
    try {
      Loop();
      if (error_.ok() && stop_.load() == 1) Drain();
    } catch (const std::bad_alloc&) {
      error_ = absl::ResourceExhaustedError("out of memory");
    } catch (const std::exception& e) {
      error_ = absl::InternalError(e.what());
    }
    FinishAll();
  }

  // Level 1: read what the files hold now, then stop; 2: stop at once.
  // Thread-safe.
  void RequestStop(int level) {
    int old = stop_.load();
    while (old < level && !stop_.compare_exchange_weak(old, level)) {
    }
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t r = write(wake_fd_, &one, sizeof(one));
  }

  // After Run().
  const absl::Status& error() const { return error_; }
  size_t failed() const { return failed_; }
  bool hung_up() const { return hung_up_.load(); }

 private:
  void Loop() {
    while (stop_.load() == 0 && error_.ok()) {
      bool progress = false;
      bool active = false;
      for (auto& in : inputs_) {
        if (stop_.load() != 0 || !error_.ok()) return;
        switch (in->state) {
          case InputState::kWaiting:
            progress |= TryAppear(*in);
            break;
          case InputState::kFile: {
            const ReadOutcome r = ReadFile(*in, kReadsPerTurn, std::nullopt);
            progress |= r.progress;
            if (r.at_end) progress |= CheckFile(*in);
            if (r.at_end && options_.until_eof &&
                in->state == InputState::kFile && !r.progress) {
              EndInput(*in);  // --until-eof: read to its end once.
              progress = true;
            }
            break;
          }
          case InputState::kStream:
            progress |= ReadStream(*in, kReadsPerTurn);
            break;
          case InputState::kEnded:
          case InputState::kFailed:
            break;
        }
        active = active || in->state == InputState::kWaiting ||
                 in->state == InputState::kFile ||
                 in->state == InputState::kStream;
      }
      if (!active) return;  // Every input has ended or failed.
      MaybeTick();
      if (!progress) Wait();
    }
  }

  // Calls FollowSink::Tick() when tick_ms have passed since the last one.
  void MaybeTick() {
    if (options_.tick_ms <= 0 || !error_.ok()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_tick_) return;
    next_tick_ = now + std::chrono::milliseconds(options_.tick_ms);
    if (absl::Status s = sink_.Tick(); !s.ok()) error_ = s;
  }

  // Sleeps for poll_ms (at most until the next tick), or until a stream has
  // data, a stop request, or the hangup fd's reader is gone.
  void Wait() {
    std::vector<pollfd> fds;
    fds.push_back({wake_fd_, POLLIN, 0});
    const size_t hangup_at = fds.size();
    if (options_.hangup_fd >= 0) fds.push_back({options_.hangup_fd, 0, 0});
    const size_t stop_at = fds.size();
    if (options_.stop_fd >= 0 && !stop_fd_ended_) {
      fds.push_back({options_.stop_fd, POLLIN, 0});
    }
    const size_t inotify_at = fds.size();
    if (inotify_fd_ >= 0) fds.push_back({inotify_fd_, POLLIN, 0});
    const size_t first_input = fds.size();
    for (const auto& in : inputs_) {
      if (in->state == InputState::kStream) fds.push_back({in->fd, POLLIN, 0});
    }
    int timeout = options_.poll_ms;
    if (options_.tick_ms > 0) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(
          next_tick_ - std::chrono::steady_clock::now());
      timeout = static_cast<int>(
          std::clamp<int64_t>(left.count(), 0, options_.poll_ms));
    }
    if (poll(fds.data(), fds.size(), timeout) <= 0) return;
    // A file created at a followed path: the loop looks at once.
    if (first_input > inotify_at && (fds[inotify_at].revents & POLLIN) != 0) {
      DrainFolderEvents();
    }
    if ((fds[0].revents & POLLIN) != 0) {
      uint64_t count;
      [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof(count));
    }
    if (stop_at > hangup_at &&
        (fds[hangup_at].revents & (POLLERR | POLLHUP)) != 0) {
      hung_up_ = true;
      RequestStop(2);
    }
    if (inotify_at > stop_at &&
        (fds[stop_at].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      char byte[512];
      const ssize_t n = read(options_.stop_fd, byte, sizeof(byte));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        stop_fd_ended_ = true;
        RequestStop(1);
      }
    }
  }

  // After the first stop request: every file up to its present size, and
  // what the streams have ready.
  void Drain() {
    for (auto& in : inputs_) {
      if (stop_.load() >= 2 || !error_.ok()) return;
      if (in->state == InputState::kFile) {
        struct stat st;
        if (fstat(in->fd, &st) != 0) continue;
        ReadFile(*in, -1, static_cast<uint64_t>(st.st_size));
      } else if (in->state == InputState::kStream) {
        ReadStream(*in, kReadsPerTurn);
      }
    }
  }

  // Ends every input's data and finishes it in the sink.
  void FinishAll() {
    for (auto& in : inputs_) {
      if (in->begun) {
        if (in->state != InputState::kFailed) EndOfData(*in);
        sink_.Finish(in->index);
        in->begun = false;
      }
      if (in->state == InputState::kWaiting && in->awaited) ++failed_;
      CloseFd(*in);
    }
  }

  // A stream or --until-eof file at its end: its data ends, it is finished.
  void EndInput(Input& in) {
    EndOfData(in);
    if (in.begun) sink_.Finish(in.index);
    in.begun = false;
    CloseFd(in);
    in.state = InputState::kEnded;
  }

  // Opens the file of `in` (kFile), or a pipe or device (kStream), at the
  // end of the file, at `resume_from` (a line start) or at its start.
  absl::Status OpenFile(Input& in, bool at_end,
                        std::optional<uint64_t> resume_from = std::nullopt) {
    int fd;
    do {
      // O_NONBLOCK: opening a FIFO does not wait for a writer.
      fd = open(in.name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return ErrnoStatus(errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
      const int e = errno;
      close(fd);
      return ErrnoStatus(e);
    }
    if (S_ISDIR(st.st_mode)) {
      close(fd);
      return ErrnoStatus(EISDIR);
    }
    if (!S_ISREG(st.st_mode)) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      in.fd = fd;
      in.owns_fd = true;
      in.state = InputState::kStream;
      in.awaited = false;
      return absl::OkStatus();
    }
    char head[kCompressionMagicBytes];
    ssize_t r;
    do {
      r = pread(fd, head, sizeof(head), 0);
    } while (r < 0 && errno == EINTR);
    if (r > 0 && DetectCompression(std::string_view(
                     head, static_cast<size_t>(r))) != Compression::kNone) {
      close(fd);
      return absl::FailedPreconditionError(
          "compressed input cannot be followed (read it without --follow)");
    }
    in.fd = fd;
    in.owns_fd = true;
    in.dev = st.st_dev;
    in.ino = st.st_ino;
    in.offset = 0;
    in.skip_fragment = false;
    in.state = InputState::kFile;
    in.awaited = false;
    if (resume_from.has_value()) {
      if (*resume_from > static_cast<uint64_t>(st.st_size)) {
        close(fd);
        in.fd = -1;
        return absl::OutOfRangeError(absl::StrCat(
            "--resume-from ", *resume_from, " is past the file's end (",
            st.st_size, " bytes): truncated or replaced since"));
      }
      // A partial's position is the end of a whole line: in another file
      // (one rotated in while the session was lost) the byte before it is
      // almost never a line end. Such a file would be read from the middle
      // of a line, its start lost, without a word.
      char before = '\n';
      if (*resume_from > 0 &&
          (pread(fd, &before, 1, static_cast<off_t>(*resume_from - 1)) != 1 ||
           before != '\n')) {
        close(fd);
        in.fd = -1;
        return absl::FailedPreconditionError(absl::StrCat(
            "--resume-from ", *resume_from,
            " is not the end of a line in the file: replaced or rewritten "
            "since, so its lines cannot be resumed there"));
      }
      in.offset = *resume_from;
      lseek(fd, static_cast<off_t>(*resume_from), SEEK_SET);
      in.start = absl::StrCat("from byte ", *resume_from);
    } else if (at_end) {
      in.start = "from the end";
      if (st.st_size > 0) {
        in.offset = static_cast<uint64_t>(st.st_size);
        lseek(fd, st.st_size, SEEK_SET);
        char last = '\n';
        in.skip_fragment =
            pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n';
      }
    } else {
      in.start = "from the start";
    }
    return absl::OkStatus();
  }

  void CloseFd(Input& in) {
    if (in.owns_fd && in.fd >= 0) close(in.fd);
    in.fd = -1;
    in.owns_fd = false;
  }

  struct ReadOutcome {
    bool progress = false;  // Bytes were read.
    bool at_end = false;    // read(2) returned 0.
  };

  // Reads `in` (kFile) at most `max_reads` times (-1: no limit) or up to
  // the offset `until`.
  ReadOutcome ReadFile(Input& in, int max_reads,
                       std::optional<uint64_t> until) {
    ReadOutcome out;
    for (int k = 0; max_reads < 0 || k < max_reads; ++k) {
      if (stop_.load() >= 2 || !error_.ok()) return out;
      size_t want = kChunkBytes;
      if (until.has_value()) {
        if (in.offset >= *until) return out;
        want =
            static_cast<size_t>(std::min<uint64_t>(want, *until - in.offset));
      }
      const ssize_t n = read(in.fd, buf_.get(), want);
      if (n < 0) {
        if (errno == EINTR) continue;
        Fail(in, ErrnoText(errno));
        return out;
      }
      if (n == 0) {
        out.at_end = true;
        return out;
      }
      out.progress = true;
      in.offset += static_cast<uint64_t>(n);
      Push(in, std::string_view(buf_.get(), static_cast<size_t>(n)));
    }
    return out;
  }

  // At the end of a file: handles truncation and rotation. Returns true if
  // it did something.
  bool CheckFile(Input& in) {
    struct stat st;
    if (fstat(in.fd, &st) == 0 &&
        static_cast<uint64_t>(st.st_size) < in.offset) {
      Notice(in, "file truncated; reading it from its start");
      EndOfData(in);
      lseek(in.fd, 0, SEEK_SET);
      in.offset = 0;
      Renew(in);
      return true;
    }
    struct stat now;
    // Gone (renamed or removed, no new file yet): keep reading the old one,
    // its writer may still add to it.
    if (stat(in.name.c_str(), &now) != 0) return false;
    if (now.st_dev == in.dev && now.st_ino == in.ino) return false;
    // Rotated: the rest of the old file, then the new file from its start.
    ReadFile(in, -1, std::nullopt);
    if (in.state != InputState::kFile || !error_.ok()) return true;
    EndOfData(in);
    CloseFd(in);
    Notice(in,
           "file replaced (rotated); following the new file from its start");
    if (absl::Status s = OpenFile(in, /*at_end=*/false); !s.ok()) {
      if (absl::IsNotFound(s)) {
        in.state = InputState::kWaiting;  // Gone again; TryAppear() looks.
      } else {
        Fail(in, ToStd(s.message()));
      }
      return true;
    }
    NoteMissedFiles(in);
    Renew(in);
    return true;
  }

  // Watches the folder of `in`'s path for files created there (inotify;
  // without it, rotations are found by the poll alone).
  void WatchFolder(Input& in) {
    if (inotify_fd_ < 0) {
      inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
      if (inotify_fd_ < 0) return;
    }
    const size_t slash = in.name.rfind('/');
    const std::string folder = slash == std::string::npos ? std::string(".")
                               : slash == 0               ? std::string("/")
                                            : in.name.substr(0, slash);
    in.base = slash == std::string::npos ? in.name : in.name.substr(slash + 1);
    in.watch =
        inotify_add_watch(inotify_fd_, folder.c_str(), IN_CREATE | IN_MOVED_TO);
    in.created = 0;
  }

  // Counts the files created (or moved) at each watched path so far.
  void DrainFolderEvents() {
    if (inotify_fd_ < 0) return;
    alignas(inotify_event) char buf[sizeof(inotify_event) + NAME_MAX + 1];
    while (true) {
      const ssize_t n = read(inotify_fd_, buf, sizeof(buf));
      if (n <= 0) return;  // EAGAIN: none left.
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
        if (e->len == 0) continue;
        const std::string_view name(e->name);
        for (auto& in : inputs_) {
          if (in->watch == e->wd && in->base == name) ++in->created;
        }
      }
    }
  }

  // After `in` opened the file now at its path: the files created there
  // before it since the last one was opened were replaced unread. Their
  // lines are not counted; say how many files.
  void NoteMissedFiles(Input& in) {
    if (in.watch < 0) return;
    DrainFolderEvents();
    const uint64_t missed = in.created > 1 ? in.created - 1 : 0;
    in.created = 0;
    if (missed == 0 || !callbacks_.lost) return;
    callbacks_.lost(
        in.name,
        absl::StrCat(missed, missed == 1 ? " file" : " files",
                     " created at this path ", missed == 1 ? "was" : "were",
                     " replaced before mapr could open ",
                     missed == 1 ? "it" : "them", ": ",
                     missed == 1 ? "its" : "their", " lines are not counted"));
  }

  // A kWaiting input: opens its file from the start if it exists now.
  bool TryAppear(Input& in) {
    struct stat st;
    if (stat(in.name.c_str(), &st) != 0) return false;
    if (absl::Status s = OpenFile(in, /*at_end=*/false); !s.ok()) {
      if (absl::IsNotFound(s)) return false;
      Fail(in, ToStd(s.message()));
      return true;
    }
    Notice(in, "appeared; following it from its start");
    NoteMissedFiles(in);
    Renew(in);
    return true;
  }

  // Reads a stream while it has data, at most `max_reads` times.
  bool ReadStream(Input& in, int max_reads) {
    bool progress = false;
    for (int k = 0; k < max_reads; ++k) {
      if (stop_.load() >= 2 || !error_.ok()) return progress;
      pollfd p = {in.fd, POLLIN, 0};
      const int ready = poll(&p, 1, 0);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return progress;
      const ssize_t n = read(in.fd, buf_.get(), kChunkBytes);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return progress;
        Fail(in, ErrnoText(errno));
        return true;
      }
      if (n == 0) {
        EndInput(in);
        return true;
      }
      progress = true;
      in.offset += static_cast<uint64_t>(n);
      Push(in, std::string_view(buf_.get(), static_cast<size_t>(n)));
    }
    return progress;
  }

  // Hands the bytes just read (in.offset is the offset after them) to the
  // sink, without the fragment of a line the run started inside of.
  void Push(Input& in, std::string_view chunk) {
    if (in.skip_fragment) {
      const size_t nl = chunk.find('\n');
      if (nl == std::string_view::npos) return;
      chunk.remove_prefix(nl + 1);
      in.skip_fragment = false;
    }
    if (chunk.empty() || !error_.ok()) return;
    if (absl::Status s = sink_.Bytes(in.index, chunk, in.offset); !s.ok()) {
      error_ = s;
    }
  }

  // The data of `in` ends here (truncation, rotation, end of the stream or
  // of the run): its unfinished last line is a line.
  void EndOfData(Input& in) {
    in.skip_fragment = false;
    if (!in.begun || !error_.ok()) return;
    if (absl::Status s = sink_.EndData(in.index); !s.ok()) error_ = s;
  }

  // A new file (or the file again from its start) continues the input.
  void Renew(Input& in) {
    if (!error_.ok()) return;
    if (absl::Status s = sink_.Begin(in.index, in.name, in.offset); !s.ok()) {
      error_ = s;
      return;
    }
    in.begun = true;
  }

  // Gives up `in` after an error; its unfinished line is dropped.
  void Fail(Input& in, std::string_view reason) {
    Error(in, reason);
    CloseFd(in);
    in.state = InputState::kFailed;
    ++failed_;
    if (in.begun) sink_.Finish(in.index);
    in.begun = false;
  }

  void Error(const Input& in, std::string_view reason) {
    if (callbacks_.error) callbacks_.error(in.name, reason);
  }
  void Notice(const Input& in, std::string_view text) {
    if (callbacks_.notice) callbacks_.notice(in.name, text);
  }

  FollowSink& sink_;
  const FollowInputsOptions& options_;
  const FollowCallbacks& callbacks_;
  const int wake_fd_;
  std::unique_ptr<char[]> buf_;
  std::vector<std::unique_ptr<Input>> inputs_;
  // Watches the followed files' folders (WatchFolder); -1: none.
  int inotify_fd_ = -1;
  std::atomic<int> stop_{0};
  std::atomic<bool> hung_up_{false};
  bool stop_fd_ended_ = false;
  absl::Status error_;
  size_t failed_ = 0;
  std::chrono::steady_clock::time_point next_tick_ =
      std::chrono::steady_clock::now();
};

// The --follow report path: every input is a TurboAggregate producer whose
// lines a LineSplitter cuts.
class TurboSink : public FollowSink {
 public:
  TurboSink(TurboAggregate& turbo, size_t max_line_bytes, bool stateless)
      : turbo_(turbo), max_line_bytes_(max_line_bytes), stateless_(stateless) {}

  absl::Status Begin(size_t index, const std::string& name,
                     uint64_t offset) override {
    Source& src = Get(index);
    // A log format with per-source state (csv: the header) gets a new
    // producer for a new file, so its first line is its header; the new
    // producer merges after all the others.
    if (src.producer == nullptr || (!stateless_ && src.pushed)) {
      if (src.producer != nullptr) src.producer->Finish().IgnoreError();
      MAPR_ASSIGN_OR_RETURN(
          src.producer, turbo_.AddProducer(static_cast<SourceId>(index), name));
      src.pushed = false;
    }
    if (offset > 0) src.splitter.ContinueStream();  // Not the file's start.
    return absl::OkStatus();
  }

  absl::Status Bytes(size_t index, std::string_view chunk,
                     uint64_t /*end_offset*/) override {
    Source& src = Get(index);
    std::span<const std::string_view> lines = src.splitter.Split(chunk);
    if (lines.empty()) return absl::OkStatus();
    src.pushed = true;
    return src.producer->PushLines(lines);
  }

  absl::Status EndData(size_t index) override {
    Source& src = Get(index);
    std::optional<std::string_view> last = src.splitter.Finish();
    if (!last.has_value()) return absl::OkStatus();
    src.pushed = true;
    return src.producer->PushLine(*last);
  }

  void Finish(size_t index) override {
    Source& src = Get(index);
    src.splitter.DiscardPartialLine();
    if (src.producer != nullptr) {
      src.producer->Finish().IgnoreError();  // FinishInput() reports it.
      src.producer.reset();
    }
  }

  uint64_t too_long_lines() const {
    uint64_t n = 0;
    for (const auto& [index, src] : sources_)
      n += src.splitter.too_long_lines();
    return n;
  }

 private:
  struct Source {
    explicit Source(size_t max_line_bytes) : splitter(max_line_bytes) {}
    LineSplitter splitter;
    std::unique_ptr<TurboAggregate::Producer> producer;
    bool pushed = false;  // Lines went into `producer`.
  };

  Source& Get(size_t index) {
    return sources_.try_emplace(index, max_line_bytes_).first->second;
  }

  TurboAggregate& turbo_;
  const size_t max_line_bytes_;
  const bool stateless_;
  absl::flat_hash_map<size_t, Source> sources_;
};

}  // namespace

absl::Status BlockStopSignals(sigset_t* set) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  if (int e = pthread_sigmask(SIG_BLOCK, &signals, nullptr); e != 0) {
    return ErrnoStatus(e);
  }
  if (set != nullptr) *set = signals;
  return absl::OkStatus();
}

absl::StatusOr<FollowInputsResult> FollowInputs(
    const std::vector<FileInput>& inputs, const FollowInputsOptions& options,
    FollowSink& sink, const FollowCallbacks& callbacks) {
  // Signals arrive through a signalfd, so no handler ever runs on a mapr
  // thread; they are blocked before any thread starts, and stay blocked (a
  // second signal during the final report must not kill the process).
  sigset_t signals;
  if (absl::Status s = BlockStopSignals(&signals); !s.ok()) return s;
  Fd signal_fd(signalfd(-1, &signals, SFD_CLOEXEC));
  if (signal_fd.get() < 0) return ErrnoStatus(errno);
  // Wakes the reader for a stop request; tells the caller it has finished.
  Fd wake_fd(eventfd(0, EFD_CLOEXEC));
  Fd done_fd(eventfd(0, EFD_CLOEXEC));
  if (wake_fd.get() < 0 || done_fd.get() < 0) return ErrnoStatus(errno);

  FollowInputsResult result;
  Follower follower(sink, options, callbacks, wake_fd.get());
  absl::StatusOr<size_t> live = follower.Open(inputs);
  if (!live.ok()) return live.status();
  if (*live == 0) {
    result.inputs_failed = follower.failed();
    return result;
  }
  if (callbacks.started) callbacks.started(follower.Summary(options.summary));

  std::thread reader([&follower, &done_fd] {
    follower.Run();
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t r = write(done_fd.get(), &one, sizeof(one));
  });
  int signals_seen = 0;
  for (;;) {
    pollfd fds[2] = {{signal_fd.get(), POLLIN, 0}, {done_fd.get(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      follower.RequestStop(2);
      break;
    }
    if ((fds[1].revents & POLLIN) != 0) break;
    if ((fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo info;
      if (read(signal_fd.get(), &info, sizeof(info)) == sizeof(info)) {
        ++signals_seen;
        follower.RequestStop(signals_seen >= 2 ? 2 : 1);
      }
    }
  }
  reader.join();
  if (!follower.error().ok()) return follower.error();
  result.followed = true;
  result.inputs_failed = follower.failed();
  result.hung_up = follower.hung_up();
  result.signalled = signals_seen > 0;
  return result;
}

absl::StatusOr<FollowResult> FollowQuery(const Query& query,
                                         const std::vector<FileInput>& inputs,
                                         const FollowOptions& options,
                                         const FollowCallbacks& callbacks) {
  // Before the aggregate starts its threads, which inherit the mask: a
  // SIGTERM must never reach a thread that would die of it.
  if (absl::Status s = BlockStopSignals(); !s.ok()) return s;
  TurboOptions turbo_options;
  turbo_options.aggregator.hostname =
      options.hostname.empty() ? util::HostName() : options.hostname;
  turbo_options.aggregator.max_line_bytes = options.max_line_bytes;
  turbo_options.aggregator.max_groups = options.max_groups;
  turbo_options.mode = options.mode;
  turbo_options.interval_ms = options.interval_ms;
  turbo_options.worker_threads = std::max(1, options.threads);
  absl::StatusOr<std::unique_ptr<TurboAggregate>> turbo =
      TurboAggregate::Create(query, turbo_options, callbacks.report);
  if (!turbo.ok()) return turbo.status();

  int64_t interval_ms = options.interval_ms;
  if (interval_ms == 0) {
    interval_ms = query.interval_ms() > 0 ? query.interval_ms() : 1000;
  }
  FollowInputsOptions follow;
  follow.summary =
      absl::StrCat(options.mode == ReportMode::kDelta ? "delta" : "cumulative",
                   " report every ", IntervalText(interval_ms),
                   "; Ctrl-C or SIGTERM prints the final result");
  follow.from_start = options.from_start;
  follow.poll_ms = options.poll_ms;
  follow.hangup_fd = options.hangup_fd;
  FollowResult result;
  // Destroyed before the aggregate: its producers end first.
  TurboSink sink(**turbo, options.max_line_bytes,
                 LogFormatIsLineIndependent(query.log_format()));
  absl::StatusOr<FollowInputsResult> run =
      FollowInputs(inputs, follow, sink, callbacks);
  if (!run.ok()) return run.status();
  result.inputs_failed = run->inputs_failed;
  if (!run->followed) return result;
  // Every producer has finished: the final report.
  if (absl::Status s = (*turbo)->FinishInput(); !s.ok()) return s;
  result.followed = true;
  result.stats = (*turbo)->stats();
  CountTooLongLines(sink.too_long_lines(), result.stats);
  return result;
}

std::string IntervalText(int64_t interval_ms) {
  return interval_ms % 1000 == 0 ? absl::StrCat(interval_ms / 1000, "s")
                                 : absl::StrCat(interval_ms, "ms");
}

}  // namespace mapr::cli
