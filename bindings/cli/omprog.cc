#include "bindings/cli/omprog.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bindings/cli/atomic_file.h"
#include "bindings/cli/fd.h"
#include "bindings/cli/steps.h"
#include "mapr/aggregator.h"
#include "mapr/input.h"
#include "mapr/partial.h"
#include "util/errno_text.h"
#include "util/status_macros.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ToAbsl;
using ::mapr::util::ToStd;

constexpr std::string_view kWalMagic = "mapr-omprog-wal 1";
constexpr std::string_view kBeginMark = "BEGIN TRANSACTION";
constexpr std::string_view kCommitMark = "COMMIT TRANSACTION";

absl::Status ErrnoError(std::string_view what, const std::string& path) {
  return absl::ErrnoToStatus(
      errno, absl::StrCat("cannot ", ToAbsl(what), " '", path, "'"));
}

// Writes all of `bytes` to `fd`.
absl::Status WriteAllTo(int fd, std::string_view bytes,
                        const std::string& name) {
  return WriteFully(fd, bytes) ? absl::OkStatus()
                               : ErrnoError("write to", name);
}

// The whole file `path` (ReadWhole's errors).
absl::StatusOr<std::string> ReadFile(const std::string& path) {
  InputSpec spec;
  spec.path = path;
  return ReadWhole(spec);
}

// True while process `pid` runs (a zombie has ended). Our own pid is a
// copy that ended before us with the same number.
bool ProcessRuns(int64_t pid) {
  if (pid <= 0 || pid == static_cast<int64_t>(getpid())) return false;
  absl::StatusOr<std::string> stat =
      ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  if (stat.ok()) {
    // "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
    const size_t close = stat->rfind(')');
    return close == std::string::npos || close + 2 >= stat->size() ||
           (*stat)[close + 2] != 'Z';
  }
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// DIR/SOURCE.wal: "mapr-omprog-wal 1 pid P split K\n", then every message
// confirmed since the last partial, one line each as it came (its id
// first): they go into split K. A last line without '\n' was never
// confirmed.
//
// Once another copy has adopted it (and folded its parts into one final
// frame), the header ends in " adopted" and the log keeps only the message
// whose id a later copy must still skip, if any: the copies after it read
// this, not the parts file.
struct Wal {
  int64_t pid = 0;
  uint64_t split = 0;
  bool adopted = false;
  std::vector<std::string_view> messages;
};

std::string WalHeader(int64_t pid, uint64_t split, bool adopted = false) {
  return absl::StrCat(ToAbsl(kWalMagic), " pid ", pid, " split ", split,
                      adopted ? " adopted" : "", "\n");
}

std::optional<Wal> ParseWal(std::string_view in) {
  const size_t nl = in.find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  std::vector<absl::string_view> words =
      absl::StrSplit(ToAbsl(in.substr(0, nl)), ' ');
  Wal w;
  if (words.size() == 7 && words[6] == "adopted") {
    w.adopted = true;
    words.pop_back();
  }
  if (words.size() != 6 ||
      absl::StrCat(words[0], " ", words[1]) != ToAbsl(kWalMagic) ||
      words[2] != "pid" || words[4] != "split" ||
      !absl::SimpleAtoi(words[3], &w.pid) ||
      !absl::SimpleAtoi(words[5], &w.split)) {
    return std::nullopt;
  }
  in.remove_prefix(nl + 1);
  while (true) {
    const size_t end = in.find('\n');
    if (end == std::string_view::npos) break;  // Torn or none: unconfirmed.
    w.messages.push_back(in.substr(0, end));
    in.remove_prefix(end + 1);
  }
  return w;
}

class OmprogCopy {
 public:
  OmprogCopy(const Flags& flags, const Query& query)
      : flags_(flags), query_(query) {}

  int Run() {
    const std::string& dir = flags_.omprog_dir;
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      PrintError(absl::StrCat("--omprog: '", dir, "' is not a folder"));
      return kExitInputError;
    }
    source_ = flags_.source.empty()
                  ? absl::StrCat("omprog-", getpid(), "-",
                                 absl::ToUnixNanos(absl::Now()))
                  : flags_.source;
    if (source_.find('/') != std::string::npos) {
      return UsageError(
          "--source: a source written to --omprog's folder "
          "may not contain '/'");
    }
    parts_path_ = absl::StrCat(dir, "/", source_, ".parts");
    wal_path_ = absl::StrCat(dir, "/", source_, ".wal");
    if (::access(parts_path_.c_str(), F_OK) == 0) {
      PrintError(absl::StrCat("--omprog: '", parts_path_,
                              "' exists: another copy has source '", source_,
                              "' (give each copy its own --source)"));
      return kExitInputError;
    }
    interval_ =
        absl::Milliseconds(flags_.interval_ms > 0     ? flags_.interval_ms
                           : query_.interval_ms() > 0 ? query_.interval_ms()
                                                      : 1000);
    absl::Status s = Start();
    if (s.ok()) s = Serve();
    if (!s.ok()) {
      PrintError(ToStd(s.message()));
      return kExitInputError;
    }
    if (flags_.stats) {
      PrintStats(total_, 0);
      std::fprintf(stderr, "messages_skipped_as_counted: %llu\n",
                   static_cast<unsigned long long>(skipped_));
    }
    return kExitOk;
  }

 private:
  absl::Status Start() {
    // Our log first: a copy that finds it while we run leaves us be.
    MAPR_RETURN_IF_ERROR(NewWal());
    MAPR_RETURN_IF_ERROR(AdoptEndedCopies());
    parts_fd_.emplace(::open(parts_path_.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
                             0644));
    if (parts_fd_->get() < 0) return ErrnoError("create", parts_path_);
    MAPR_RETURN_IF_ERROR(SyncParentFolder(parts_path_, "partials file"));
    absl::StatusOr<Aggregator> agg = Aggregator::Create(query_, Options());
    if (!agg.ok()) return agg.status();
    agg_.emplace(*std::move(agg));
    return absl::OkStatus();
  }

  AggregatorOptions Options() const {
    AggregatorOptions options;
    options.hostname = flags_.hostname;
    options.max_line_bytes = flags_.max_line_bytes;
    options.max_groups = flags_.max_groups;
    options.source = source_;
    return options;
  }

  // Replaces our log with an empty one for split next_split_, and opens it
  // for appending.
  absl::Status NewWal() {
    MAPR_RETURN_IF_ERROR(WriteFileAtomically(
        wal_path_, WalHeader(getpid(), next_split_), "message log"));
    wal_fd_.emplace(::open(wal_path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (wal_fd_->get() < 0) return ErrnoError("open", wal_path_);
    return absl::OkStatus();
  }

  // The message of a line, without its id (--message-id).
  std::string_view MessageOf(std::string_view line,
                             std::string_view* id) const {
    if (!flags_.message_id) return line;
    const size_t space = line.find(' ');
    *id = line.substr(0, space);
    return space == std::string_view::npos ? std::string_view()
                                           : line.substr(space + 1);
  }

  // Every copy whose process has ended and whose partials have no final
  // one: its parts file cut back to its last whole frame, then ended with a
  // final frame that holds the messages of its log (confirmed, or the last
  // one maybe not: its id is skipped if rsyslog sends it again).
  absl::Status AdoptEndedCopies() {
    DIR* d = ::opendir(flags_.omprog_dir.c_str());
    if (d == nullptr) return ErrnoError("read the folder", flags_.omprog_dir);
    std::vector<std::string> sources;
    while (const dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (!name.ends_with(".wal")) continue;
      name.remove_suffix(4);
      if (name != source_) sources.emplace_back(name);
    }
    ::closedir(d);
    std::sort(sources.begin(), sources.end());
    for (const std::string& source : sources) {
      MAPR_RETURN_IF_ERROR(Adopt(source));
    }
    return absl::OkStatus();
  }

  // Folds an adopted copy's parts file (its frames, the last one final)
  // into one final frame, as `mapr combine` would, and replaces its log by
  // the adopted mark (with its last message if the final frame counted
  // it): a folder of many dead copies costs the copies after them a small
  // file each, and reduce one frame each. Crash-safe: each file is
  // replaced whole (WriteFileAtomically), and a crash between the two
  // leaves a log that the next copy adopts as before (the final frame is
  // found and nothing is counted twice). `fd` holds the parts file's lock.
  absl::Status Compact(int fd, const std::string& parts, const std::string& log,
                       const Wal& wal, bool replayed) {
    struct stat st;
    if (::fstat(fd, &st) != 0) return ErrnoError("read", parts);
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    std::optional<Aggregator> all;
    uint64_t frames = 0;
    std::string frame;
    for (uint64_t at = 0; at < size; at += frame.size()) {
      char head[kPartialFrameHeaderBytes];
      const ssize_t r = ::pread(fd, head, sizeof(head), static_cast<off_t>(at));
      if (r < 0) return ErrnoError("read", parts);
      absl::StatusOr<uint64_t> n =
          PartialFrameSize(std::string_view(head, static_cast<size_t>(r)));
      if (!n.ok()) return n.status();
      frame.resize(*n);
      if (::pread(fd, frame.data(), frame.size(), static_cast<off_t>(at)) !=
          static_cast<ssize_t>(frame.size())) {
        return ErrnoError("read", parts);
      }
      ++frames;
      if (!all.has_value()) {
        AggregatorOptions options = Options();
        options.partial_lookup_dir = std::string("/");  // Our own query.
        absl::StatusOr<Aggregator> first =
            Aggregator::FromPartial(frame, options);
        if (!first.ok()) return first.status();
        all.emplace(*std::move(first));
      } else {
        MAPR_RETURN_IF_ERROR(all->MergeSerialized(frame));
      }
    }
    if (frames > 1) {
      MAPR_RETURN_IF_ERROR(all->FinishInput());
      absl::StatusOr<std::string> one = all->SerializePartial();
      if (!one.ok()) return one.status();
      MAPR_RETURN_IF_ERROR(
          WriteFileAtomically(parts, *one, "omprog parts file"));
    }
    std::string mark = WalHeader(wal.pid, wal.split, /*adopted=*/true);
    if (replayed && !wal.messages.empty()) {
      absl::StrAppend(&mark, ToAbsl(wal.messages.back()), "\n");
    }
    return WriteFileAtomically(log, mark, "omprog message log");
  }

  // The last message of a dead copy's log may have died unconfirmed:
  // rsyslog sends it again, to a copy started after that one ended.
  void SkipLastOf(const Wal& wal) {
    if (!flags_.message_id || wal.messages.empty()) return;
    std::string_view id;
    MessageOf(wal.messages.back(), &id);
    skip_.insert(std::string(id));
  }

  absl::Status Adopt(const std::string& source) {
    const std::string base = absl::StrCat(flags_.omprog_dir, "/", source);
    absl::StatusOr<std::string> text = ReadFile(base + ".wal");
    if (!text.ok()) return absl::OkStatus();  // Gone meanwhile.
    std::optional<Wal> wal = ParseWal(*text);
    if (!wal.has_value()) {
      PrintError(absl::StrCat("--omprog: skipping '", base,
                              ".wal': not a message log"));
      return absl::OkStatus();
    }
    if (ProcessRuns(wal->pid)) return absl::OkStatus();
    if (wal->adopted) {
      // Folded already: only its last message may still come again.
      SkipLastOf(*wal);
      return absl::OkStatus();
    }
    const std::string parts = base + ".parts";
    Fd fd(::open(parts.c_str(), O_RDWR | O_CLOEXEC));
    if (fd.get() < 0) return absl::OkStatus();  // Ended before creating it.
    // One adopter at a time; the next finds the final frame.
    if (::flock(fd.get(), LOCK_EX) != 0) return ErrnoError("lock", parts);
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return ErrnoError("read", parts);
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    // The frames, one at a time: the end of the last whole one. A copy
    // only appends, so dying mid-write leaves the first bytes of a frame at
    // the end (a torn frame: cut). Anything else, a whole frame that does
    // not read or bytes that are no frame's start, is damage: the file is
    // kept as it is, for reduce to name, and not adopted.
    uint64_t end = 0;
    std::optional<PartialInfo> last;
    std::string frame;
    uint64_t frames = 0;
    while (end < size) {
      char head[kPartialFrameHeaderBytes];
      const ssize_t r =
          ::pread(fd.get(), head, sizeof(head), static_cast<off_t>(end));
      if (r < 0) return ErrnoError("read", parts);
      absl::StatusOr<uint64_t> n =
          PartialFrameSize(std::string_view(head, static_cast<size_t>(r)));
      absl::Status damage = n.status();
      if (n.ok() && *n > size - end) break;  // Torn: its rest never came.
      if (!n.ok() && absl::IsDataLoss(n.status()) &&
          static_cast<size_t>(r) < sizeof(head)) {
        break;  // Torn inside its header.
      }
      if (n.ok()) {
        frame.resize(*n);
        if (::pread(fd.get(), frame.data(), frame.size(),
                    static_cast<off_t>(end)) != static_cast<ssize_t>(*n)) {
          return ErrnoError("read", parts);
        }
        absl::StatusOr<PartialInfo> info = InspectPartial(frame);
        damage = info.status();
        if (info.ok()) {
          last = *std::move(info);
          end += *n;
          ++frames;
          continue;
        }
      }
      PrintError(absl::StrCat("--omprog: not adopting '", parts, "': frame ",
                              frames + 1, " (at byte ", end, ") is damaged (",
                              damage.message(),
                              "); the file is kept as it is"));
      return absl::OkStatus();
    }
    if (last.has_value() && last->mark.final) {
      // Adopted already, by a copy that put the log's messages into this
      // frame (and died before folding it, or is folding it now): its last
      // message may still come again, to us.
      const bool counted =
          last->splits.begin == wal->split && !wal->messages.empty();
      if (counted) SkipLastOf(*wal);
      if (end < size) return absl::OkStatus();  // Not ours to touch.
      return Compact(fd.get(), parts, base + ".wal", *wal, counted);
    }
    if (last.has_value() && last->query != query_.ToString()) {
      PrintError(absl::StrCat("--omprog: not adopting '", parts,
                              "': its partials are of another query"));
      return absl::OkStatus();
    }
    if (end < size) {
      // Being written when the copy ended: its log still has the messages.
      if (::ftruncate(fd.get(), static_cast<off_t>(end)) != 0 ||
          ::fsync(fd.get()) != 0) {
        return ErrnoError("cut back", parts);
      }
    }
    const uint64_t next = last.has_value() ? last->splits.end : 0;
    AggregatorOptions options = Options();
    options.source = source;
    options.splits = {next, next + 1};
    absl::StatusOr<Aggregator> agg = Aggregator::Create(query_, options);
    if (!agg.ok()) return agg.status();
    // The log's messages belong to split wal->split; when that split is on
    // disk already, they are in it.
    const bool replay = wal->split == next && !wal->messages.empty();
    if (replay) {
      std::vector<std::string_view> lines;
      std::string_view id;
      for (std::string_view m : wal->messages) {
        lines.push_back(MessageOf(m, &id));
      }
      MAPR_RETURN_IF_ERROR(agg->PushLines(lines));
      SkipLastOf(*wal);
    }
    StreamMark mark;
    mark.final = true;
    absl::StatusOr<std::string> final_frame = agg->TakeDeltaPartial(mark);
    if (!final_frame.ok()) return final_frame.status();
    if (::lseek(fd.get(), 0, SEEK_END) < 0) return ErrnoError("seek", parts);
    MAPR_RETURN_IF_ERROR(WriteAllTo(fd.get(), *final_frame, parts));
    if (::fsync(fd.get()) != 0) return ErrnoError("sync", parts);
    if (!flags_.quiet) {
      PrintError(absl::StrCat(
          "--omprog: copy '", source, "' (process ", wal->pid,
          ") ended without its last partial; wrote it (split ", next, ", ",
          replay ? wal->messages.size() : 0, " messages from its log)"));
    }
    return Compact(fd.get(), parts, base + ".wal", *wal, replay);
  }

  // A line for rsyslog.
  absl::Status Reply(std::string_view word) {
    std::string line = absl::StrCat(ToAbsl(word), "\n");
    return WriteAllTo(STDOUT_FILENO, line, "standard output");
  }

  // Reads standard input to its end, answering each line; writes a delta
  // partial every interval that has messages.
  absl::Status Serve() {
    MAPR_RETURN_IF_ERROR(Reply("OK"));  // Ready.
    std::string pending;
    bool skipping = false;  // Inside a line past the limit.
    char buf[64 << 10];
    // The longest line kept: longer ones are still answered, and counted
    // too long by the engine (which sees more than max_line_bytes).
    const size_t keep =
        flags_.max_line_bytes + 1 + (flags_.message_id ? 256 : 0);
    absl::Time next_commit = absl::Now() + interval_;
    while (true) {
      const absl::Duration wait = next_commit - absl::Now();
      pollfd p{STDIN_FILENO, POLLIN, 0};
      const int ready = ::poll(&p, 1,
                               static_cast<int>(std::max<int64_t>(
                                   0, absl::ToInt64Milliseconds(wait) + 1)));
      if (ready < 0 && errno != EINTR) {
        return absl::ErrnoToStatus(errno, "cannot wait for standard input");
      }
      if (absl::Now() >= next_commit) {
        if (messages_since_commit_ > 0) MAPR_RETURN_IF_ERROR(Commit());
        next_commit = absl::Now() + interval_;
      }
      if (ready <= 0) continue;
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof(buf));
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) {
        return absl::ErrnoToStatus(errno,
                                   absl::StrCat("cannot read standard input: ",
                                                util::ErrnoText(errno)));
      }
      if (n == 0) break;
      std::string_view chunk(buf, static_cast<size_t>(n));
      while (!chunk.empty()) {
        const size_t nl = chunk.find('\n');
        const std::string_view piece = chunk.substr(0, nl);
        line_bytes_ += piece.size();
        if (!skipping) {
          pending.append(
              piece.substr(0, keep - std::min(keep, pending.size())));
          if (pending.size() >= keep) skipping = true;
        }
        if (nl == std::string_view::npos) break;
        chunk.remove_prefix(nl + 1);
        line_end_ += line_bytes_ + 1;
        line_bytes_ = 0;
        MAPR_RETURN_IF_ERROR(Line(pending));
        pending.clear();
        skipping = false;
      }
    }
    // A last line without '\n' is no message: it was never confirmed.
    MAPR_RETURN_IF_ERROR(Commit(/*final=*/true));
    // Every message is in a partial, the last one final: no log to adopt.
    ::unlink(wal_path_.c_str());
    return absl::OkStatus();
  }

  absl::Status Line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Transaction marks: each message is confirmed on its own anyway.
    if (line == kBeginMark || line == kCommitMark) return Reply("OK");
    std::string_view id;
    const std::string_view message = MessageOf(line, &id);
    if (flags_.message_id && skip_.contains(std::string(id))) {
      ++skipped_;  // Counted already, by a copy that died unconfirmed.
      return Reply("OK");
    }
    // On disk before it is confirmed.
    std::string record = absl::StrCat(ToAbsl(line), "\n");
    MAPR_RETURN_IF_ERROR(WriteAllTo(wal_fd_->get(), record, wal_path_));
    if (::fdatasync(wal_fd_->get()) != 0) return ErrnoError("sync", wal_path_);
    MAPR_RETURN_IF_ERROR(agg_->PushLines({message}));
    ++messages_since_commit_;
    return Reply("OK");
  }

  // Puts the delta partial of the messages since the last one on disk,
  // then starts a new log (a copy that ends in between leaves a log whose
  // split is on disk: an adopter knows its messages are counted).
  absl::Status Commit(bool final = false) {
    StreamMark mark;
    mark.final = final;
    // Where standard input stands (the end of its last whole line), as a
    // `map --follow` of it would say: a reducer of a stream that has not
    // ended (the copy runs, or died and is not adopted yet) then notes
    // that it lacks what came later.
    mark.positions.push_back({"-", line_end_});
    absl::StatusOr<std::string> frame = agg_->TakeDeltaPartial(mark);
    if (!frame.ok()) return frame.status();
    absl::StatusOr<PartialInfo> info = InspectPartial(*frame);
    if (!info.ok()) return info.status();  // Our own frame: a bug.
    total_ += info->counters;
    MAPR_RETURN_IF_ERROR(WriteAllTo(parts_fd_->get(), *frame, parts_path_));
    if (::fdatasync(parts_fd_->get()) != 0) {
      return ErrnoError("sync", parts_path_);
    }
    ++next_split_;
    messages_since_commit_ = 0;
    wal_fd_.reset();
    return NewWal();
  }

  const Flags& flags_;
  const Query& query_;
  std::string source_;
  std::string parts_path_;
  std::string wal_path_;
  absl::Duration interval_;
  std::optional<Fd> parts_fd_;
  std::optional<Fd> wal_fd_;
  std::optional<Aggregator> agg_;
  absl::flat_hash_set<std::string> skip_;
  uint64_t next_split_ = 0;
  uint64_t messages_since_commit_ = 0;
  // Standard input's bytes: up to the end of its last whole line, and of
  // the line being read.
  uint64_t line_end_ = 0;
  uint64_t line_bytes_ = 0;
  uint64_t skipped_ = 0;
  LineCounters total_;
};

}  // namespace

int RunOmprog(const Flags& flags, const Query& query) {
  if (!flags.files.empty()) {
    return UsageError("--omprog reads standard input: give no FILE");
  }
  if (flags.follow || flags.range.has_value() || flags.split.has_value() ||
      flags.partitions > 0 || flags.b64) {
    return UsageError(
        "--omprog writes its own stream of delta partials: no --follow, "
        "--range, --split, --partitions or --b64");
  }
  // rsyslog closing our standard output is an error, not a silent death.
  signal(SIGPIPE, SIG_IGN);
  OmprogCopy copy(flags, query);
  return copy.Run();
}

}  // namespace mapr::cli
