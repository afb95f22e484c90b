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
#include "io/files_plan.h"
#include "io/input_internal.h"
#include "mapr/aggregator.h"
#include "mapr/input.h"
#include "mapr/line_splitter.h"
#include "mapr/log_format.h"
#include "mapr/options.h"
#include "util/strings.h"

namespace mapr {
namespace {

using ::mapr::files_internal::EventRule;
using ::mapr::files_internal::MakePlan;
using ::mapr::files_internal::NextEventStart;
using ::mapr::files_internal::Piece;
using ::mapr::files_internal::Plan;
using ::mapr::files_internal::Problems;
using ::mapr::input_internal::ErrnoError;
using ::mapr::util::ToAbsl;

bool HasGlobChars(std::string_view s) {
  return s.find_first_of("*?[") != std::string_view::npos;
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
  uint64_t read = 0;  // Lines pushed.
  uint64_t parsed = 0;
  uint64_t too_long = 0;  // Lines the splitter dropped, never pushed.
  // The first unparsable line's number in the piece (from 1), or 0.
  uint64_t first_unparsable = 0;
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
    const uint64_t too_long_before = splitter.too_long_lines();
    // The piece's first unparsable line, if the group had none before it.
    // (Its number counts the too-long lines dropped up to the end of its
    // batch: one dropped after it in the same batch would count too.)
    const bool had_unparsable =
        AggregatorInternal::FirstUnparsableLine(*agg) != 0;
    uint64_t first_unparsable = 0;
    auto note_unparsable = [&] {
      if (had_unparsable || first_unparsable != 0) return;
      const uint64_t first = AggregatorInternal::FirstUnparsableLine(*agg);
      if (first == 0) return;
      first_unparsable = first - before.lines_read +
                         (splitter.too_long_lines() - too_long_before);
    };
    absl::Status read = ReadLines(
        **stream, splitter,
        [&](std::span<const std::string_view> lines) {
          if (cancel.load(std::memory_order_relaxed)) {
            engine = absl::CancelledError("cancelled");
          } else {
            // ReadLines() pads every line (mapr/input.h).
            engine = AggregatorInternal::PushPaddedLines(*agg, lines, source);
            note_unparsable();
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
    note_unparsable();
    const LineCounters after = agg->stats();
    out.lines.emplace_back(
        piece.input, InputLines{after.lines_read - before.lines_read,
                                after.lines_parsed() - before.lines_parsed(),
                                splitter.too_long_lines() - too_long_before,
                                first_unparsable});
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
    // A CondVar, not Mutex::Await: util/absl_mutex_tsan.cc shows TSan the
    // CondVar's waits, not a Condition's.
    mu_.Lock();
    while (!outcomes_[i].done) {
      done_.WaitWithTimeout(&mu_, absl::Milliseconds(100));
      mu_.Unlock();
      tick();
      mu_.Lock();
    }
    GroupOutcome out = std::move(outcomes_[i]);
    outcomes_[i] = GroupOutcome();
    mu_.Unlock();
    return out;
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
    done_.SignalAll();
  }

  std::atomic<bool> cancel_{false};
  absl::Mutex mu_;
  absl::CondVar done_;  // Signalled when an outcome is done.
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

namespace {

// LineAlignedRange() by `rule` (null: lines).
absl::StatusOr<LineRange> AlignRange(const std::string& path, uint64_t lo,
                                     uint64_t hi,
                                     const parser::EventStart* rule,
                                     size_t max_line_bytes) {
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
  range.begin =
      lo == 0 ? 0 : NextEventStart(fd, lo, size, rule, max_line_bytes);
  range.end = hi == 0      ? 0
              : hi == size ? size
                           : NextEventStart(fd, hi, size, rule, max_line_bytes);
  if (range.end < range.begin) range.end = range.begin;
  close(fd);
  return range;
}

}  // namespace

absl::StatusOr<LineRange> LineAlignedRange(const std::string& path, uint64_t lo,
                                           uint64_t hi) {
  return AlignRange(path, lo, hi, nullptr, 0);
}

absl::StatusOr<LineRange> LineAlignedRange(const std::string& path, uint64_t lo,
                                           uint64_t hi, const Query& query,
                                           size_t max_line_bytes) {
  return AlignRange(path, lo, hi, EventRule(query), max_line_bytes);
}

namespace {

// --range's conditions: a file first, and a format without state
// between lines.
absl::Status CheckRange(const Query& query,
                        const std::vector<FileInput>& inputs,
                        const FilesOptions& options) {
  if (!options.range.has_value()) return absl::OkStatus();
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
  return absl::OkStatus();
}

// Adds a group's line counts per input, and the report's first unparsable
// line if this group has it.
void CountLines(const GroupOutcome& out, const std::vector<FileInput>& inputs,
                std::vector<InputLines>& input_lines, FilesReport& report) {
  for (const auto& [input, lines] : out.lines) {
    // Pieces come in input order: the first one with an unparsable line has
    // the first, after the lines of the input's earlier pieces.
    if (lines.first_unparsable != 0 && report.first_unparsable_line == 0) {
      report.first_unparsable_input =
          inputs[input].is_stdin ? "-" : inputs[input].path;
      report.first_unparsable_line = input_lines[input].read +
                                     input_lines[input].too_long +
                                     lines.first_unparsable;
    }
    input_lines[input].read += lines.read;
    input_lines[input].parsed += lines.parsed;
    input_lines[input].too_long += lines.too_long;
  }
}

absl::StatusOr<Aggregator> Aggregate(const Query& query,
                                     const std::vector<FileInput>& inputs,
                                     const FilesOptions& options,
                                     Problems& problems, FilesReport& report) {
  if (absl::Status s = CheckRange(query, inputs, options); !s.ok()) return s;
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
      CountLines(out, inputs, input_lines, report);
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
              InputFacts{out.lines_with_nul, out.inputs_without_parsed_lines,
                         out.first_unparsable_input,
                         out.first_unparsable_line}));
        }
        return table;
      });
}

}  // namespace mapr
