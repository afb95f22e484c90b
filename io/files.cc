#include "mapr/files.h"

#include <fcntl.h>
#include <glob.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "api/aggregator_internal.h"
#include "io/input_internal.h"
#include "mapr/aggregator.h"
#include "mapr/input.h"
#include "mapr/line_splitter.h"
#include "mapr/log_format.h"
#include "mapr/options.h"
#include "util/strings.h"

namespace mapr {
namespace {

using ::mapr::input_internal::ErrnoError;
using ::mapr::util::ToAbsl;

bool HasGlobChars(std::string_view s) {
  return s.find_first_of("*?[") != std::string_view::npos;
}

// Reports problems with inputs: to the callback, and into the report.
class Problems {
 public:
  Problems(const FilesOptions& options, FilesReport* report)
      : options_(options), report_(report) {}

  void Add(InputProblem problem) {
    if (options_.on_problem) options_.on_problem(problem);
    if (report_ != nullptr) report_->problems.push_back(std::move(problem));
  }

 private:
  const FilesOptions& options_;
  FilesReport* const report_;
};

// A whole input, or a line-aligned byte range of a plain file.
struct Piece {
  size_t input = 0;  // Index into the inputs: the SourceId.
  InputSpec spec;
};

struct Plan {
  // Contiguous runs of pieces in input order, one per worker.
  std::vector<std::vector<Piece>> groups;
  // Sum of the sizes of the regular files if every input is one, else 0.
  uint64_t total_bytes = 0;
};

// The first line start at or after `pos` (> 0): pos itself if the byte
// before it is '\n', else the byte after the next '\n'; `size` if there is
// none.
uint64_t NextLineStart(int fd, uint64_t pos, uint64_t size) {
  char buf[64 << 10];
  uint64_t at = pos - 1;
  while (at < size) {
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(sizeof(buf), size - at));
    ssize_t r;
    do {
      r = pread(fd, buf, want, static_cast<off_t>(at));
    } while (r < 0 && errno == EINTR);
    if (r <= 0) return size;  // The reader reports any error.
    const void* nl = std::memchr(buf, '\n', static_cast<size_t>(r));
    if (nl != nullptr) {
      return at + static_cast<uint64_t>(static_cast<const char*>(nl) - buf) + 1;
    }
    at += static_cast<uint64_t>(r);
  }
  return size;
}

// Opens `path` if it is a plain (uncompressed) file; -1 otherwise or on
// error (the reader reports errors later).
int OpenIfPlain(const std::string& path) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  char head[kCompressionMagicBytes];
  ssize_t r;
  do {
    r = pread(fd, head, sizeof(head), 0);
  } while (r < 0 && errno == EINTR);
  if (r <= 0 || DetectCompression(std::string_view(
                    head, static_cast<size_t>(r))) != Compression::kNone) {
    close(fd);
    return -1;
  }
  return fd;
}

// The bytes at [offset, offset + n) of `fd` (fewer at its end).
std::string ReadAt(int fd, uint64_t offset, size_t n) {
  std::string buf(n, '\0');
  ssize_t r;
  do {
    r = pread(fd, buf.data(), n, static_cast<off_t>(offset));
  } while (r < 0 && errno == EINTR);
  buf.resize(r > 0 ? static_cast<size_t>(r) : 0);
  return buf;
}

// Little-endian unsigned integer of `n` bytes at `p`.
uint64_t LoadLe(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

// The decoded size a zstd frame header announces (`head` starts at the
// frame's magic), or 0 if it announces none.
uint64_t ZstdContentSize(std::string_view head) {
  if (head.size() < 5) return 0;
  const auto fhd = static_cast<unsigned char>(head[4]);
  const unsigned fcs_flag = fhd >> 6;
  const bool single_segment = (fhd >> 5) & 1;
  static constexpr size_t kDictIdBytes[] = {0, 1, 2, 4};
  static constexpr size_t kFcsBytes[] = {0, 2, 4, 8};
  const size_t fcs_bytes =
      fcs_flag == 0 ? (single_segment ? 1 : 0) : kFcsBytes[fcs_flag];
  if (fcs_bytes == 0) return 0;
  const size_t at = 5 + (single_segment ? 0 : 1) + kDictIdBytes[fhd & 3];
  if (head.size() < at + fcs_bytes) return 0;
  const uint64_t v = LoadLe(head.data() + at, fcs_bytes);
  return fcs_bytes == 2 ? v + 256 : v;
}

// What reading a regular file of `size` bytes costs, in the units of a
// plain file's bytes (parsing one byte costs 1): for compressed input, the
// decoded bytes (announced by the file where it can: gzip's trailer, a zstd
// frame header; else `size` times a typical log's ratio) times parsing plus
// decoding them. Without it a .gz file would weigh its compressed size, a
// fifth of its work, and groups of mixed input would be far from even.
struct FileWork {
  uint64_t work = 0;
  bool compressed = false;
};
FileWork WorkOfFile(const std::string& path, uint64_t size) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return {size, false};  // The reader reports the error.
  const std::string head = ReadAt(fd, 0, 32);
  const Compression c = DetectCompression(head);
  // Decoding cost per decoded byte in tenths of the cost of parsing it
  // (Q1 on the STATS log: ISA-L decodes twice as fast as the engine
  // parses, libzstd about as fast; liblzma and libbz2 are several times
  // slower).
  uint64_t decode_cost = 0;
  uint64_t decoded = 0;
  switch (c) {
    case Compression::kGzip: {
      decode_cost = 5;
      // ISIZE: the last member's length mod 2^32; one member is usual.
      const std::string tail =
          size >= 18 ? ReadAt(fd, size - 4, 4) : std::string();
      if (tail.size() == 4) {
        decoded = LoadLe(tail.data(), 4);
        while (decoded < size) decoded += uint64_t{1} << 32;
      }
      break;
    }
    case Compression::kZstd:
      decode_cost = 10;
      decoded = ZstdContentSize(head);
      break;
    case Compression::kXz:
      decode_cost = 40;
      break;
    case Compression::kBzip2:
      decode_cost = 100;
      break;
    default:
      break;
  }
  close(fd);
  if (decode_cost == 0) return {size, false};
  if (decoded < size) decoded = size * 5;
  return {decoded / 10 * (10 + decode_cost), true};
}

// Deals pieces into at most `max_groups` contiguous groups of about
// `target` bytes each, cutting plain files at line boundaries where a group
// is full. `slack` is the smallest piece worth cutting off.
class Grouper {
 public:
  Grouper(size_t max_groups, uint64_t target, uint64_t slack)
      : max_groups_(max_groups), target_(target), slack_(slack) {
    groups_.emplace_back();
  }

  // Adds a piece that cannot be cut, of about `weight` bytes.
  void Add(Piece piece, uint64_t weight) {
    if (!groups_.back().empty() && filled_ + weight / 2 > target_ &&
        CanOpenGroup()) {
      NewGroup();
    }
    groups_.back().push_back(std::move(piece));
    filled_ += weight;
  }

  // Adds the plain file `path` (open as `fd`, `size` bytes) as input
  // `input`, cutting it where groups fill up.
  // Only its bytes [begin, size) are read (both line starts); `file_size`
  // is the whole file's.
  void AddPlainFile(size_t input, const std::string& path, int fd,
                    uint64_t begin, uint64_t size, uint64_t file_size) {
    uint64_t pos = begin;
    while (pos < size) {
      const uint64_t rest = size - pos;
      uint64_t cut = size;
      if (CanOpenGroup() && filled_ + rest > target_ + slack_) {
        uint64_t room = target_ > filled_ ? target_ - filled_ : 0;
        if (room < slack_) {
          if (!groups_.back().empty()) {
            NewGroup();
            continue;
          }
          room = slack_;
        }
        cut = NextLineStart(fd, pos + room, size);
      }
      Piece piece;
      piece.input = input;
      piece.spec.path = path;
      if (pos > 0 || cut < file_size) {
        piece.spec.ranged = true;
        piece.spec.begin = pos;
        piece.spec.end = cut;
      }
      groups_.back().push_back(std::move(piece));
      filled_ += cut - pos;
      pos = cut;
      if (pos < size) NewGroup();
    }
  }

  std::vector<std::vector<Piece>> Take() { return std::move(groups_); }

 private:
  bool CanOpenGroup() const { return groups_.size() < max_groups_; }
  void NewGroup() {
    groups_.emplace_back();
    filled_ = 0;
  }

  const size_t max_groups_;
  const uint64_t target_;
  const uint64_t slack_;
  std::vector<std::vector<Piece>> groups_;
  uint64_t filled_ = 0;
};

Plan MakePlan(const Query& query, const std::vector<FileInput>& inputs,
              const FilesOptions& options, std::vector<bool>& failed,
              Problems& problems) {
  Plan plan;
  // An input of unknown size (a pipe) weighs as much as one chunk.
  const uint64_t unknown_weight = options.min_chunk_bytes;
  std::vector<uint64_t> sizes(inputs.size(), 0);
  std::vector<bool> regular(inputs.size(), false);
  // Regular files: the estimated work (WorkOfFile), and whether they are
  // compressed.
  std::vector<uint64_t> weights(inputs.size(), 0);
  std::vector<bool> compressed(inputs.size(), false);
  bool sizes_known = true;
  uint64_t total_weight = 0;
  // Non-regular inputs (pipes, terminals, devices) seen, by device and inode.
  std::set<std::pair<dev_t, ino_t>> streams;
  bool shared_stream = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const FileInput& in = inputs[i];
    if (in.is_stdin) {
      sizes_known = false;
      total_weight += unknown_weight;
      struct stat st;
      if (fstat(STDIN_FILENO, &st) == 0 && !S_ISREG(st.st_mode) &&
          !streams.insert({st.st_dev, st.st_ino}).second) {
        shared_stream = true;
      }
      continue;
    }
    struct stat st;
    if (stat(in.path.c_str(), &st) != 0) {
      problems.Add({in.path, ErrnoError(errno)});
      failed[i] = true;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      problems.Add({in.path, ErrnoError(EISDIR)});
      failed[i] = true;
      continue;
    }
    if (S_ISREG(st.st_mode)) {
      regular[i] = true;
      sizes[i] = static_cast<uint64_t>(st.st_size);
      if (options.range.has_value() && i == 0) {
        sizes[i] = options.range->end - options.range->begin;
      }
      plan.total_bytes += sizes[i];
      // Weights only matter when there is more than one group.
      FileWork work{sizes[i], false};
      if (options.threads > 1 && !(options.range.has_value() && i == 0)) {
        work = WorkOfFile(in.path, sizes[i]);
      }
      weights[i] = std::max<uint64_t>(work.work, 1);
      compressed[i] = work.compressed;
      total_weight += weights[i];
    } else {
      sizes_known = false;
      total_weight += unknown_weight;
      if (!streams.insert({st.st_dev, st.st_ino}).second) {
        shared_stream = true;
      }
    }
  }
  if (!sizes_known) plan.total_bytes = 0;

  // Two threads must not read one pipe at once: a pipe (or standard input
  // that is not a regular file) named twice makes the run single-threaded.
  const uint64_t threads =
      shared_stream ? 1 : static_cast<uint64_t>(std::max(1, options.threads));
  const bool can_cut =
      threads > 1 && LogFormatIsLineIndependent(query.log_format());
  Grouper grouper(static_cast<size_t>(threads),
                  (total_weight + threads - 1) / threads,
                  std::max<uint64_t>(options.min_chunk_bytes, 1));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (failed[i]) continue;
    Piece piece;
    piece.input = i;
    if (inputs[i].is_stdin) {
      piece.spec.is_stdin = true;
      grouper.Add(std::move(piece), unknown_weight);
      continue;
    }
    piece.spec.path = inputs[i].path;
    if (!regular[i]) {
      grouper.Add(std::move(piece), unknown_weight);
      continue;
    }
    // A --range: only the line-aligned bytes [begin, end) (LineAlignedRange).
    const bool ranged = options.range.has_value() && i == 0;
    const uint64_t begin = ranged ? options.range->begin : 0;
    const uint64_t end = ranged ? options.range->end : sizes[i];
    const int fd = can_cut && end - begin >= 2 * options.min_chunk_bytes
                       ? OpenIfPlain(inputs[i].path)
                       : -1;
    if (fd < 0) {
      if (ranged) {
        piece.spec.ranged = true;
        piece.spec.begin = begin;
        piece.spec.end = end;
      }
      grouper.Add(std::move(piece),
                  ranged ? std::max<uint64_t>(end - begin, 1) : weights[i]);
      continue;
    }
    grouper.AddPlainFile(i, inputs[i].path, fd, begin, end, sizes[i]);
    close(fd);
  }
  plan.groups = grouper.Take();
  // Threads the groups leave idle decompress: a group reading compressed
  // input then decodes on a second thread, pipelined with its parsing. The
  // decoder thread counts against --threads, so that N threads never keep
  // more than N cores busy, and --threads 1 stays on one core. Groups are
  // served in order; each uses at most one decoder thread at a time (its
  // pieces are read one after another).
  size_t spare = plan.groups.size() < threads
                     ? static_cast<size_t>(threads) - plan.groups.size()
                     : 0;
  for (std::vector<Piece>& group : plan.groups) {
    if (spare == 0) break;
    bool uses = false;
    for (Piece& piece : group) {
      // Standard input and other streams may be compressed too: they get
      // the thread as well (it starts only for compressed input).
      if (piece.spec.ranged) continue;
      if (!piece.spec.is_stdin && regular[piece.input] &&
          !compressed[piece.input]) {
        continue;
      }
      piece.spec.decompress_on_thread = true;
      uses = true;
    }
    if (uses) --spare;
  }
  return plan;
}

// The run's counters and its progress reports.
class Progress {
 public:
  Progress(const FilesOptions& options, uint64_t total_bytes)
      : options_(options),
        total_bytes_(total_bytes),
        start_(std::chrono::steady_clock::now()),
        last_(start_) {}

  // Bytes and lines read so far by every reader (and the lines with a NUL
  // byte, for the report).
  InputCounters counters;

  // Reports progress if the interval has passed since the last report.
  void Tick() {
    if (!options_.on_progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < options_.progress_interval) return;
    last_ = now;
    Report(now, /*done=*/false);
  }

  // The last report.
  void Finish() {
    if (options_.on_progress) {
      Report(std::chrono::steady_clock::now(), /*done=*/true);
    }
  }

 private:
  void Report(std::chrono::steady_clock::time_point now, bool done) {
    FilesProgress p;
    p.bytes_read = counters.raw_bytes.load(std::memory_order_relaxed);
    p.total_bytes = total_bytes_;
    p.lines = counters.lines.load(std::memory_order_relaxed);
    p.elapsed = now - start_;
    p.done = done;
    options_.on_progress(p);
  }

  const FilesOptions& options_;
  const uint64_t total_bytes_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

// What a worker produced from its group of pieces.
// Lines read and parsed from one input (summed over its pieces).
struct InputLines {
  uint64_t read = 0;
  uint64_t parsed = 0;
};

struct GroupOutcome {
  std::optional<Aggregator> agg;
  // Per input this group read a piece of (by input index).
  std::vector<std::pair<size_t, InputLines>> lines;
  // Inputs that could not be (fully) read, with the reason.
  std::vector<std::pair<size_t, absl::Status>> input_errors;
  absl::Status engine_error;  // Fatal for the whole run.
  bool done = false;
};

// Runs one group into one aggregator.
GroupOutcome RunGroup(const Query& query, const AggregatorOptions& agg_options,
                      const std::vector<Piece>& pieces, size_t max_line_bytes,
                      Progress& progress, const std::atomic<bool>& cancel) {
  GroupOutcome out;
  absl::StatusOr<Aggregator> agg = Aggregator::Create(query, agg_options);
  if (!agg.ok()) {
    out.engine_error = agg.status();
    return out;
  }
  // One splitter for the group's pieces; it is reset at the end of each.
  LineSplitter splitter(max_line_bytes);
  for (const Piece& piece : pieces) {
    if (cancel.load(std::memory_order_relaxed)) break;
    absl::StatusOr<std::unique_ptr<ByteStream>> stream =
        OpenInput(piece.spec, &progress.counters);
    if (!stream.ok()) {
      out.input_errors.emplace_back(piece.input, stream.status());
      continue;
    }
    absl::Status engine;
    const SourceId source = static_cast<SourceId>(piece.input);
    // $file: the path as given (a glob's matches as found), "-" for stdin.
    out.engine_error =
        agg->SetSourceName(source, piece.spec.is_stdin ? "-" : piece.spec.path);
    if (!out.engine_error.ok()) return out;
    // A range that starts past the file's start begins mid-stream: no
    // byte-order mark to drop there.
    if (piece.spec.ranged && piece.spec.begin > 0) splitter.ContinueStream();
    const LineCounters before = agg->stats();
    absl::Status read = ReadLines(
        **stream, splitter,
        [&](std::span<const std::string_view> lines) {
          if (cancel.load(std::memory_order_relaxed)) {
            engine = absl::CancelledError("cancelled");
          } else {
            // ReadLines() pads every line (mapr/input.h).
            engine = AggregatorInternal::PushPaddedLines(*agg, lines, source);
          }
          return engine;
        },
        &progress.counters);
    if (!engine.ok()) {
      out.engine_error = engine;
      return out;
    }
    if (!read.ok()) out.input_errors.emplace_back(piece.input, read);
    // Frees the piece's parser and name (ReadLines() pushed its last line):
    // a run over many files holds neither per file.
    out.engine_error = AggregatorInternal::EndInput(*agg, source);
    if (!out.engine_error.ok()) return out;
    const LineCounters after = agg->stats();
    out.lines.emplace_back(
        piece.input, InputLines{after.lines_read - before.lines_read,
                                after.lines_parsed() - before.lines_parsed()});
  }
  // Counted inside the aggregator, so a partial's counters include them.
  AggregatorInternal::CountTooLongLines(*agg, splitter.too_long_lines());
  out.agg = std::move(*agg);
  return out;
}

// Runs each group on its own thread; the caller takes the outcomes in
// group order.
class Executor {
 public:
  Executor(const Query& query, const AggregatorOptions& agg_options,
           const std::vector<std::vector<Piece>>& groups, size_t max_line_bytes,
           Progress& progress)
      : outcomes_(groups.size()) {
    const Query* q = &query;
    const AggregatorOptions* o = &agg_options;
    Progress* p = &progress;
    try {
      for (size_t i = 0; i < groups.size(); ++i) {
        const std::vector<Piece>* pieces = &groups[i];
        threads_.emplace_back([this, q, o, p, pieces, i, max_line_bytes] {
          Work(*q, *o, *pieces, i, max_line_bytes, *p);
        });
      }
    } catch (...) {
      Stop();
      throw;
    }
  }

  // Stops the workers early (after an engine error) and waits for them.
  ~Executor() { Stop(); }
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Waits for group `i`, calling `tick` every 100 ms meanwhile.
  GroupOutcome Take(size_t i, const std::function<void()>& tick)
      ABSL_LOCKS_EXCLUDED(mu_) {
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        // outcomes_ never grows, so the flag stays where it is.
        if (mu_.AwaitWithTimeout(absl::Condition(&outcomes_[i].done),
                                 absl::Milliseconds(100))) {
          GroupOutcome out = std::move(outcomes_[i]);
          outcomes_[i] = GroupOutcome();
          return out;
        }
      }
      tick();
    }
  }

 private:
  void Stop() {
    cancel_.store(true);
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

  void Work(const Query& query, const AggregatorOptions& agg_options,
            const std::vector<Piece>& pieces, size_t i, size_t max_line_bytes,
            Progress& progress) {
    GroupOutcome out;
    try {
      out = RunGroup(query, agg_options, pieces, max_line_bytes, progress,
                     cancel_);
    } catch (const std::bad_alloc&) {
      out = GroupOutcome();
      out.engine_error = absl::ResourceExhaustedError("out of memory");
    } catch (const std::exception& e) {
      out = GroupOutcome();
      out.engine_error = absl::InternalError(e.what());
    }
    absl::MutexLock lock(&mu_);
    outcomes_[i] = std::move(out);
    outcomes_[i].done = true;
  }

  std::atomic<bool> cancel_{false};
  absl::Mutex mu_;
  std::vector<GroupOutcome> outcomes_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;  // Last: joined before the rest dies.
};

}  // namespace

std::vector<FileInput> ExpandFileNames(const std::vector<std::string>& names,
                                       std::vector<InputProblem>* problems) {
  std::vector<FileInput> out;
  if (names.empty()) {
    out.push_back({"-", true});
    return out;
  }
  for (const std::string& a : names) {
    if (a == "-") {
      out.push_back({"-", true});
      continue;
    }
    struct stat st;
    if (!HasGlobChars(a) || lstat(a.c_str(), &st) == 0) {
      out.push_back({a, false});
      continue;
    }
    glob_t g{};
    const int rc = glob(a.c_str(), 0, nullptr, &g);
    if (rc == 0) {
      for (size_t k = 0; k < g.gl_pathc; ++k) {
        out.push_back({g.gl_pathv[k], false});
      }
    } else if (problems != nullptr) {
      problems->push_back(
          {a, rc == GLOB_NOMATCH
                  ? absl::NotFoundError("no file matches this pattern")
                  : absl::UnknownError("cannot expand this pattern")});
    }
    globfree(&g);
  }
  return out;
}

absl::StatusOr<LineRange> LineAlignedRange(const std::string& path, uint64_t lo,
                                           uint64_t hi) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return ErrnoError(errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(
        "a byte range needs a regular file (not a pipe or a directory)");
  }
  char head[kCompressionMagicBytes];
  ssize_t r;
  do {
    r = pread(fd, head, sizeof(head), 0);
  } while (r < 0 && errno == EINTR);
  const Compression c =
      r > 0 ? DetectCompression(std::string_view(head, static_cast<size_t>(r)))
            : Compression::kNone;
  if (c != Compression::kNone) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read a byte range of ", ToAbsl(CompressionName(c)),
        "-compressed input; decompress it first, or map the whole file"));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  lo = std::min(lo, size);
  hi = std::min(hi, size);
  LineRange range;
  range.begin = lo == 0 ? 0 : NextLineStart(fd, lo, size);
  range.end = hi == 0 ? 0 : hi == size ? size : NextLineStart(fd, hi, size);
  if (range.end < range.begin) range.end = range.begin;
  close(fd);
  return range;
}

namespace {

absl::StatusOr<Aggregator> Aggregate(const Query& query,
                                     const std::vector<FileInput>& inputs,
                                     const FilesOptions& options,
                                     Problems& problems, FilesReport& report) {
  if (options.range.has_value()) {
    if (inputs.empty() || inputs[0].is_stdin) {
      return absl::InvalidArgumentError(
          "a byte range needs a file as the first input, not standard input");
    }
    if (!LogFormatIsLineIndependent(query.log_format())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a byte range needs a log format that keeps no state between "
          "lines (every built-in format but csv), not ",
          ToAbsl(query.log_format())));
    }
  }
  AggregatorOptions agg_options = options.aggregator;
  // A million groups: sorting and rendering them is most of the serial end
  // of a run.
  agg_options.result_threads =
      std::max(agg_options.result_threads,
               static_cast<size_t>(std::max(1, options.threads)));

  std::vector<bool> failed(inputs.size(), false);
  std::vector<InputLines> input_lines(inputs.size());
  const Plan plan = MakePlan(query, inputs, options, failed, problems);

  Progress progress(options, plan.total_bytes);
  std::optional<Aggregator> merged;
  {
    Executor executor(query, agg_options, plan.groups,
                      agg_options.max_line_bytes, progress);
    for (size_t i = 0; i < plan.groups.size(); ++i) {
      GroupOutcome out = executor.Take(i, [&] { progress.Tick(); });
      if (!out.engine_error.ok()) return out.engine_error;
      for (const auto& [input, lines] : out.lines) {
        input_lines[input].read += lines.read;
        input_lines[input].parsed += lines.parsed;
      }
      for (auto& [input, status] : out.input_errors) {
        if (failed[input]) continue;
        failed[input] = true;
        problems.Add({inputs[input].path, std::move(status)});
      }
      if (!out.agg.has_value()) continue;
      if (!merged.has_value()) {
        merged = std::move(out.agg);
      } else {
        absl::Status s = merged->Merge(std::move(*out.agg));
        out.agg.reset();
        if (!s.ok()) return s;
        // The spent partial's memory goes back to the system before the
        // next one is merged and the result is built.
        malloc_trim(0);
      }
    }
  }
  progress.Finish();
  if (!merged.has_value()) {
    absl::StatusOr<Aggregator> empty = Aggregator::Create(query, agg_options);
    if (!empty.ok()) return empty.status();
    merged = std::move(*empty);
  }
  report.inputs_failed =
      static_cast<size_t>(std::count(failed.begin(), failed.end(), true));
  report.inputs_ok = inputs.size() - report.inputs_failed;
  report.lines_with_nul = progress.counters.lines_with_nul.load();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (input_lines[i].read > 0 && input_lines[i].parsed == 0) {
      report.inputs_without_parsed_lines.push_back(
          inputs[i].is_stdin ? "-" : inputs[i].path);
    }
  }
  return std::move(*merged);
}

// Runs run(problems, report) on a cleared report (the caller's, or a local
// one) and turns what the standard library throws (a thread that cannot
// start, memory) into a status: the library throws nothing.
template <typename T, typename Run>
absl::StatusOr<T> Guarded(const FilesOptions& options, FilesReport* report,
                          Run run) {
  try {
    FilesReport local;
    FilesReport& out = report != nullptr ? *report : local;
    out = FilesReport();
    Problems problems(options, &out);
    return run(problems, out);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of memory");
  } catch (const std::system_error& e) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot start a thread: ", e.what()));
  }
}

}  // namespace

absl::StatusOr<Aggregator> AggregateFiles(const Query& query,
                                          const std::vector<FileInput>& inputs,
                                          const FilesOptions& options,
                                          FilesReport* report) {
  return Guarded<Aggregator>(
      options, report, [&](Problems& problems, FilesReport& out) {
        return Aggregate(query, inputs, options, problems, out);
      });
}

absl::StatusOr<ResultTable> QueryFiles(const Query& query,
                                       const std::vector<std::string>& names,
                                       const FilesOptions& options,
                                       FilesReport* report) {
  return Guarded<ResultTable>(
      options, report,
      [&](Problems& problems, FilesReport& out) -> absl::StatusOr<ResultTable> {
        std::vector<InputProblem> pattern_problems;
        const std::vector<FileInput> inputs =
            ExpandFileNames(names, &pattern_problems);
        for (InputProblem& p : pattern_problems) problems.Add(std::move(p));
        absl::StatusOr<Aggregator> agg =
            Aggregate(query, inputs, options, problems, out);
        if (!agg.ok()) return agg.status();
        // Glob patterns that matched nothing count as inputs that failed.
        out.inputs_failed += pattern_problems.size();
        if (absl::Status s = agg->FinishInput(); !s.ok()) return s;
        absl::StatusOr<ResultTable> table = agg->TakeResult();
        // The groups are rendered: their memory goes back before the caller
        // formats the result.
        agg = absl::CancelledError();
        malloc_trim(0);
        if (table.ok()) {
          // The notes, with what the input layer saw.
          table->set_notes(ResultNotesFor(
              query, table->stats(), table->field_counts(),
              options.aggregator.max_line_bytes,
              InputFacts{out.lines_with_nul, out.inputs_without_parsed_lines}));
        }
        return table;
      });
}

}  // namespace mapr
