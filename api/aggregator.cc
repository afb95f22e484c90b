#include "mapr/aggregator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "api/aggregator_internal.h"
#include "api/aggregator_testing.h"
#include "api/query_internal.h"
#include "mapr/line_splitter.h"
#include "mapr/log_format.h"
#include "runtime/batch_aggregator.h"
#include "runtime/partial_codec.h"
#include "runtime/result_notes.h"
#include "util/status_macros.h"
#include "util/strings.h"

namespace mapr {

struct Aggregator::Rep {
  enum class Phase : uint8_t { kOpen, kFinished, kResultTaken };

  explicit Rep(std::unique_ptr<runtime::BatchAggregator> e)
      : coverage(e->options().splits), engine(std::move(e)) {}

  // The debug builds' concurrent-use detector (UseGuard below): 0 while no
  // call is inside, -1 during a non-const call, n > 0 during n Snapshot()
  // calls. Present in every build, so the layout does not depend on NDEBUG.
  // It moves with the state: moving an aggregator while a call is inside it
  // is a race in any case.
  mutable std::atomic<int> use{0};
  Phase phase = Phase::kOpen;
  absl::Status error;  // Sticky; OK until the aggregator fails.
  LineCounters failed_stats;
  absl::flat_hash_map<SourceId, LineSplitter> splitters;
  // The input splits the state covers (options.splits, widened by merges).
  SplitRange coverage;
  // TakeDeltaPartial() calls so far.
  uint64_t deltas = 0;
  // The stream mark of the latest delta the state holds (from partials).
  StreamMark mark;
  // The partition the state holds, for a state read from partitioned
  // partials.
  std::optional<Partition> partition;
  // Null once merged into another aggregator: the aggregator then acts as
  // moved from.
  std::unique_ptr<runtime::BatchAggregator> engine;
};

absl::StatusOr<Aggregator> Aggregator::Create(
    const Query& query, const AggregatorOptions& options) {
  if (options.splits.begin >= options.splits.end) {
    return absl::InvalidArgumentError(
        absl::StrCat("AggregatorOptions::splits [", options.splits.begin, ", ",
                     options.splits.end, ") is empty"));
  }
  MAPR_ASSIGN_OR_RETURN(std::unique_ptr<runtime::BatchAggregator> engine,
                        runtime::BatchAggregator::Create(
                            QueryInternal::SharedPlan(query), options));
  return Aggregator(query, std::make_unique<Rep>(std::move(engine)));
}

Aggregator::Aggregator(Query query, std::unique_ptr<Rep> rep)
    : query_(std::move(query)), rep_(std::move(rep)) {}
Aggregator::Aggregator(Aggregator&&) noexcept = default;
Aggregator& Aggregator::operator=(Aggregator&&) noexcept = default;
Aggregator::~Aggregator() = default;

// ---- Concurrent-use detector (debug builds)

namespace {

#ifdef NDEBUG
constexpr bool kDetectConcurrentUse = false;
#else
constexpr bool kDetectConcurrentUse = true;
#endif

constexpr char kConcurrentUse[] = "aggregator used from two threads at once";

// MergeSerialized reads a later frame this many groups at a time (a few MiB
// of decoded states), merging each chunk before it reads the next.
constexpr uint32_t kMergeChunkGroups = uint32_t{1} << 16;

}  // namespace

// Enters the aggregator for one API call: exclusively for a non-const call,
// shared for Snapshot(). A call that overlaps a non-const call from another
// thread (or a non-const call that overlaps any call) fails instead of
// racing. One atomic operation per call, never per line; nothing at all in
// release builds. A moved-from aggregator has nothing to guard (its calls
// fail with FailedPrecondition).
class Aggregator::UseGuard {
 public:
  UseGuard(const Aggregator& aggregator, bool mutating)
      : count_(aggregator.rep_ == nullptr ? nullptr : &aggregator.rep_->use),
        mutating_(mutating) {
    if (!kDetectConcurrentUse || count_ == nullptr) return;
    int n = 0;
    if (mutating_) {
      entered_ =
          count_->compare_exchange_strong(n, -1, std::memory_order_acquire);
      return;
    }
    n = count_->load(std::memory_order_relaxed);
    while (n >= 0 && !count_->compare_exchange_weak(
                         n, n + 1, std::memory_order_acquire)) {
    }
    entered_ = n >= 0;
  }
  UseGuard(const UseGuard&) = delete;
  UseGuard& operator=(const UseGuard&) = delete;
  ~UseGuard() {
    if (!kDetectConcurrentUse || count_ == nullptr || !entered_) return;
    if (mutating_) {
      count_->store(0, std::memory_order_release);
    } else {
      count_->fetch_sub(1, std::memory_order_release);
    }
  }

  // FailedPrecondition if another thread is inside the aggregator.
  absl::Status status() const {
    if (!entered_) return absl::FailedPreconditionError(kConcurrentUse);
    return absl::OkStatus();
  }

 private:
  std::atomic<int>* const count_;  // Null for a moved-from aggregator.
  const bool mutating_;
  bool entered_ = true;
};

// ---- Test hook (api/aggregator_testing.h)

ScopedAggregatorUseForTesting::ScopedAggregatorUseForTesting(
    Aggregator& aggregator, bool mutating)
    : aggregator_(aggregator), mutating_(mutating) {
  std::atomic<int>& count = aggregator_.rep_->use;
  if (mutating_) {
    count.store(-1, std::memory_order_release);
  } else {
    count.fetch_add(1, std::memory_order_acq_rel);
  }
}

ScopedAggregatorUseForTesting::~ScopedAggregatorUseForTesting() {
  std::atomic<int>& count = aggregator_.rep_->use;
  if (mutating_) {
    count.store(0, std::memory_order_release);
  } else {
    count.fetch_sub(1, std::memory_order_acq_rel);
  }
}

// ---- The API

absl::Status Aggregator::CheckOpen(const char* method) const {
  if (rep_ == nullptr || rep_->engine == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(method, " called on a moved-from Aggregator"));
  }
  if (rep_->phase != Rep::Phase::kOpen) {
    return absl::FailedPreconditionError(
        absl::StrCat(method, " called after FinishInput(); the aggregator is ",
                     rep_->phase == Rep::Phase::kFinished
                         ? "finished"
                         : "finished and its result taken"));
  }
  return absl::OkStatus();
}

absl::Status Aggregator::CheckFinished(const char* method,
                                       const char* after_taken) const {
  if (rep_ == nullptr || rep_->engine == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(method, " called on a moved-from Aggregator"));
  }
  if (rep_->phase == Rep::Phase::kOpen) {
    return absl::FailedPreconditionError(
        absl::StrCat(method, " called before FinishInput()"));
  }
  if (rep_->phase == Rep::Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        absl::StrCat(method, " ", after_taken));
  }
  return absl::OkStatus();
}

absl::Status Aggregator::Fail(absl::Status status, const LineCounters& before) {
  if (!status.ok() && rep_->error.ok()) {
    rep_->error = status;
    rep_->failed_stats = before;
  }
  return status;
}

absl::Status Aggregator::PushLines(std::span<const std::string_view> lines,
                                   SourceId source) {
  return PushPaddedLines(lines, source, /*line_padding=*/0);
}

absl::Status Aggregator::PushPaddedLines(
    std::span<const std::string_view> lines, SourceId source,
    size_t line_padding) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("PushLines"));
  if (!rep_->error.ok()) return rep_->error;
  const LineCounters before = rep_->engine->counters();
  return Fail(rep_->engine->Push(lines, source, line_padding), before);
}

absl::Status Aggregator::PushLines(std::span<const std::string> lines,
                                   SourceId source) {
  // Views of at most one engine batch at a time, on the stack: no
  // allocation, and the engine cuts its batches at the same places.
  std::array<std::string_view, kMaxBatchRows> views;
  while (!lines.empty()) {
    const size_t n = std::min(lines.size(), views.size());
    std::copy_n(lines.begin(), n, views.begin());
    MAPR_RETURN_IF_ERROR(
        PushLines(std::span<const std::string_view>(views.data(), n), source));
    lines = lines.subspan(n);
  }
  return absl::OkStatus();
}

absl::Status Aggregator::SetSourceName(SourceId source, std::string_view name) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("SetSourceName"));
  rep_->engine->SetSourceName(source, name);
  return absl::OkStatus();
}

absl::Status Aggregator::PushBytes(std::string_view chunk, SourceId source) {
  return PushPaddedBytes(chunk, source, /*line_padding=*/0);
}

absl::Status Aggregator::PushPaddedBytes(std::string_view chunk,
                                         SourceId source, size_t line_padding) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("PushBytes"));
  if (!rep_->error.ok()) return rep_->error;
  runtime::BatchAggregator& engine = *rep_->engine;
  const LineCounters before = engine.counters();
  auto it = rep_->splitters.find(source);
  if (it == rep_->splitters.end()) {
    it = rep_->splitters
             .emplace(source, LineSplitter(engine.options().max_line_bytes))
             .first;
  }
  LineSplitter& splitter = it->second;
  const uint64_t too_long = splitter.too_long_lines();
  // Lines point into `chunk` or into the splitter's padded carry buffer.
  std::span<const std::string_view> lines = splitter.Split(chunk);
  engine.CountTooLong(splitter.too_long_lines() - too_long);
  return Fail(engine.Push(lines, source, line_padding), before);
}

absl::Status Aggregator::EndSource(SourceId source) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("EndSource"));
  if (!rep_->error.ok()) return rep_->error;
  absl::Status s = FlushSource(source);
  if (s.ok()) rep_->engine->EndSource(source);
  return s;
}

absl::Status Aggregator::FlushSource(SourceId source) {
  auto it = rep_->splitters.find(source);
  if (it == rep_->splitters.end()) return absl::OkStatus();
  runtime::BatchAggregator& engine = *rep_->engine;
  const LineCounters before = engine.counters();
  LineSplitter& splitter = it->second;
  const uint64_t too_long = splitter.too_long_lines();
  std::optional<std::string_view> last = splitter.Finish();
  engine.CountTooLong(splitter.too_long_lines() - too_long);
  absl::Status s;
  // The last line is in the splitter's carry buffer, always padded.
  if (last.has_value()) s = engine.Push({&*last, 1}, source, kLinePadding);
  rep_->splitters.erase(it);
  return Fail(s, before);
}

absl::Status Aggregator::Merge(Aggregator&& later) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  // `later` is consumed: nobody else may be inside it either. (Merging an
  // aggregator into itself is refused below.)
  std::optional<UseGuard> later_use;
  if (&later != this) {
    later_use.emplace(later, /*mutating=*/true);
    MAPR_RETURN_IF_ERROR(later_use->status());
  }
  MAPR_RETURN_IF_ERROR(CheckOpen("Merge"));
  if (later.rep_ == nullptr || later.rep_->engine == nullptr) {
    return absl::FailedPreconditionError("Merge of a moved-from Aggregator");
  }
  if (later.rep_->phase == Rep::Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "Merge of an aggregator whose result was already taken");
  }
  if (&later == this) {
    // Merging would double every state, then destroy this aggregator's own.
    return absl::InvalidArgumentError("Merge of an aggregator into itself");
  }
  runtime::BatchAggregator& engine = *rep_->engine;
  runtime::BatchAggregator& later_engine = *later.rep_->engine;
  if (later_engine.plan().canonical != engine.plan().canonical) {
    return engine.Merge(later_engine);  // InvalidArgument; `later` is kept.
  }
  // Errors of either side; `later` is kept and this one stays usable.
  if (!rep_->error.ok()) return rep_->error;
  if (!later.rep_->error.ok()) return later.rep_->error;
  // `later`'s unfinished last lines (PushBytes) belong to its state too.
  std::vector<SourceId> sources;
  sources.reserve(later.rep_->splitters.size());
  for (const auto& [source, splitter] : later.rep_->splitters) {
    sources.push_back(source);
  }
  std::sort(sources.begin(), sources.end());
  for (SourceId source : sources) {
    MAPR_RETURN_IF_ERROR(later.FlushSource(source));
  }
  const LineCounters before = engine.counters();
  MAPR_RETURN_IF_ERROR(Fail(engine.Merge(later_engine), before));
  if (later.rep_->coverage.begin == rep_->coverage.end) {
    rep_->coverage.end = later.rep_->coverage.end;
    rep_->mark = std::move(later.rep_->mark);
  }
  // `later` now acts as moved from. Its Rep stays: later_use still points
  // into it.
  later.rep_->engine.reset();
  return absl::OkStatus();
}

absl::StatusOr<ResultTable> Aggregator::Snapshot() const {
  UseGuard use(*this, /*mutating=*/false);
  MAPR_RETURN_IF_ERROR(use.status());
  if (rep_ == nullptr || rep_->engine == nullptr ||
      rep_->phase == Rep::Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "Snapshot called after the result was taken");
  }
  if (!rep_->error.ok()) return rep_->error;
  return rep_->engine->Result();
}

absl::StatusOr<ResultTable> Aggregator::TakeDelta() {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  if (rep_ == nullptr || rep_->engine == nullptr ||
      rep_->phase == Rep::Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "TakeDelta called after the result was taken");
  }
  if (!rep_->error.ok()) return rep_->error;
  ResultTable r = rep_->engine->Result();
  rep_->engine->Reset();
  return r;
}

absl::Status Aggregator::FinishInput() {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  if (rep_ == nullptr || rep_->engine == nullptr) {
    return absl::FailedPreconditionError(
        "FinishInput called on a moved-from Aggregator");
  }
  if (rep_->phase != Rep::Phase::kOpen) {
    return absl::FailedPreconditionError("FinishInput called twice");
  }
  absl::Status status;
  std::vector<SourceId> sources;
  sources.reserve(rep_->splitters.size());
  for (const auto& [source, splitter] : rep_->splitters) {
    sources.push_back(source);
  }
  std::sort(sources.begin(), sources.end());
  if (rep_->error.ok()) {
    for (SourceId source : sources) status.Update(FlushSource(source));
  }
  rep_->phase = Rep::Phase::kFinished;
  return rep_->error.ok() ? status : rep_->error;
}

absl::StatusOr<ResultTable> Aggregator::TakeResult() {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckFinished("TakeResult", "called twice"));
  if (!rep_->error.ok()) return rep_->error;
  rep_->phase = Rep::Phase::kResultTaken;
  return rep_->engine->Result();
}

// ---- Partials

namespace {

// Why `frame` (already decoded) cannot join `engine`'s state, if it cannot.
absl::Status CheckSameQuery(const runtime::PartialFrame& frame,
                            const runtime::BatchAggregator& engine) {
  if (frame.fingerprint == runtime::PartialCodec::Fingerprint(engine)) {
    return absl::OkStatus();
  }
  return QueryMismatch(
      frame.query, engine.plan().canonical,
      absl::StrCat("(max_line_bytes ", frame.max_line_bytes, "; here ",
                   engine.options().max_line_bytes,
                   "), other percentile settings (CompileOptions::"
                   "percentile_*) or another log format catalog"));
}

}  // namespace

absl::Status QueryMismatch(std::string_view theirs, std::string_view mine,
                           std::string_view options) {
  if (theirs != mine) {
    return absl::InvalidArgumentError(
        absl::StrCat("partial of another query: '", util::ToAbsl(theirs),
                     "' cannot merge into '", util::ToAbsl(mine), "'"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "partial of '", util::ToAbsl(theirs),
      "' was made with other result-changing options ", util::ToAbsl(options)));
}

absl::Status CheckSameRun(std::string_view mine, std::string_view theirs) {
  if (mine == theirs) return absl::OkStatus();
  auto name = [](std::string_view run) {
    return run.empty() ? std::string("no run id")
                       : absl::StrCat("run '", util::ToAbsl(run), "'");
  };
  return absl::InvalidArgumentError(absl::StrCat(
      "partial of another run: ", name(theirs), " cannot merge with ",
      name(mine),
      "; a partial left by an earlier run? write each run's partials to a "
      "fresh folder"));
}

namespace {

// Why partials of sources `mine` and `theirs` cannot merge, if they cannot.
absl::Status CheckSameSource(std::string_view mine, std::string_view theirs) {
  if (mine == theirs) return absl::OkStatus();
  auto name = [](std::string_view source) {
    return source.empty() ? std::string("no source")
                          : absl::StrCat("source '", util::ToAbsl(source), "'");
  };
  return absl::InvalidArgumentError(absl::StrCat(
      "partial of another source: ", name(theirs), " cannot merge with ",
      name(mine),
      " (each source numbers its splits; mapr::PartialReducer and mapr "
      "reduce merge whole sources)"));
}

std::string PartitionName(const std::optional<Partition>& p) {
  return p.has_value() ? absl::StrCat("partition ", p->index, " of ", p->count)
                       : std::string("an unpartitioned partial");
}

// Why a partial of partition `theirs` cannot join a state of `mine`.
absl::Status CheckSamePartition(const std::optional<Partition>& mine,
                                const std::optional<Partition>& theirs) {
  if (mine == theirs) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("partial of another partition: ", PartitionName(theirs),
                   " cannot merge with ", PartitionName(mine),
                   " (merge each partition's splits apart; mapr reduce "
                   "joins the partitions)"));
}

std::string SplitList(uint64_t lo, uint64_t hi) {  // [lo, hi), non-empty
  return hi - lo == 1 ? absl::StrCat("split ", lo)
                      : absl::StrCat("splits ", lo, "-", hi - 1);
}

// Whether `frame` may join `have`: adjacent, after (true) or before it.
absl::StatusOr<bool> CheckAdjacent(SplitRange have, SplitRange frame) {
  if (frame.begin == have.end) return true;
  if (frame.end == have.begin) return false;
  if (frame.begin < have.end && have.begin < frame.end) {
    return absl::InvalidArgumentError(absl::StrCat(
        "split ", std::max(have.begin, frame.begin),
        " would be counted twice (partial covers [", frame.begin, ", ",
        frame.end, "), the aggregator [", have.begin, ", ", have.end, "))"));
  }
  return absl::DataLossError(
      absl::StrCat("missing ",
                   frame.begin > have.end ? SplitList(have.end, frame.begin)
                                          : SplitList(frame.end, have.begin),
                   " between the aggregator's [", have.begin, ", ", have.end,
                   ") and the partial's [", frame.begin, ", ", frame.end, ")"));
}

}  // namespace

absl::StatusOr<std::string> Aggregator::SerializePartial() const {
  UseGuard use(*this, /*mutating=*/false);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(
      CheckFinished("SerializePartial", "called after TakeResult()"));
  if (!rep_->error.ok()) return rep_->error;
  return runtime::PartialCodec::Encode(*rep_->engine, rep_->coverage,
                                       rep_->mark, rep_->partition);
}

absl::StatusOr<uint64_t> Aggregator::WritePartial(
    absl::FunctionRef<absl::Status(std::string_view)> write) const {
  UseGuard use(*this, /*mutating=*/false);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(
      CheckFinished("WritePartial", "called after TakeResult()"));
  if (!rep_->error.ok()) return rep_->error;
  return runtime::PartialCodec::EncodeTo(*rep_->engine, rep_->coverage,
                                         rep_->mark, rep_->partition,
                                         /*selected=*/nullptr, write);
}

absl::StatusOr<uint64_t> Aggregator::WritePartitions(
    uint32_t count,
    absl::FunctionRef<absl::Status(uint32_t, std::string_view)> write) const {
  UseGuard use(*this, /*mutating=*/false);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckPartitionable("WritePartitions", count));
  const std::vector<std::vector<uint32_t>> groups =
      runtime::PartialCodec::PartitionGroups(*rep_->engine, count);
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    MAPR_ASSIGN_OR_RETURN(
        const uint64_t n,
        runtime::PartialCodec::EncodeTo(
            *rep_->engine, rep_->coverage, rep_->mark, Partition{count, i},
            &groups[i],
            [&](std::string_view piece) { return write(i, piece); }));
    total += n;
  }
  return total;
}

// Why the state cannot be cut into `count` partitions, if it cannot.
absl::Status Aggregator::CheckPartitionable(const char* method,
                                            uint32_t count) const {
  MAPR_RETURN_IF_ERROR(CheckFinished(method, "called after TakeResult()"));
  if (!rep_->error.ok()) return rep_->error;
  if (count == 0 || count > runtime::kMaxPartitions) {
    return absl::InvalidArgumentError(absl::StrCat(method, "(", count,
                                                   "): the count must be 1 to ",
                                                   runtime::kMaxPartitions));
  }
  if (rep_->partition.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat(method, " of a state that is ",
                     PartitionName(rep_->partition), " already"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> Aggregator::SerializePartitions(
    uint32_t count) const {
  UseGuard use(*this, /*mutating=*/false);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckPartitionable("SerializePartitions", count));
  // Each group's partition is computed once, for all the frames.
  const std::vector<std::vector<uint32_t>> groups =
      runtime::PartialCodec::PartitionGroups(*rep_->engine, count);
  std::vector<std::string> frames;
  frames.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    frames.push_back(
        runtime::PartialCodec::Encode(*rep_->engine, rep_->coverage, rep_->mark,
                                      Partition{count, i}, &groups[i]));
  }
  return frames;
}

absl::StatusOr<std::string> Aggregator::SerializePartition(
    uint32_t count, uint32_t index) const {
  UseGuard use(*this, /*mutating=*/false);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckPartitionable("SerializePartition", count));
  if (index >= count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SerializePartition: index ", index, " of ", count, " partitions"));
  }
  const std::vector<std::vector<uint32_t>> groups =
      runtime::PartialCodec::PartitionGroups(*rep_->engine, count);
  return runtime::PartialCodec::Encode(*rep_->engine, rep_->coverage,
                                       rep_->mark, Partition{count, index},
                                       &groups[index]);
}

absl::Status Aggregator::MergeSerialized(std::string_view frame) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("MergeSerialized"));
  if (!rep_->error.ok()) return rep_->error;
  runtime::BatchAggregator& engine = *rep_->engine;
  // Everything is checked, and the frame read into an engine of its own,
  // before this aggregator changes.
  MAPR_ASSIGN_OR_RETURN(runtime::PartialFrame f,
                        runtime::DecodePartialFrame(frame));
  MAPR_RETURN_IF_ERROR(CheckSameQuery(f, engine));
  MAPR_RETURN_IF_ERROR(CheckSameRun(engine.options().run_id, f.run_id));
  MAPR_RETURN_IF_ERROR(CheckSameSource(engine.options().source, f.source));
  MAPR_RETURN_IF_ERROR(CheckSamePartition(rep_->partition, f.partition));
  MAPR_ASSIGN_OR_RETURN(const bool later,
                        CheckAdjacent(rep_->coverage, f.splits));
  MAPR_ASSIGN_OR_RETURN(
      std::unique_ptr<runtime::BatchAggregator> other,
      runtime::BatchAggregator::Create(QueryInternal::SharedPlan(query_),
                                       engine.options()));
  const LineCounters before = engine.counters();
  if (later) {
    // Streamed in chunks of groups, each merged as it is read: no second
    // engine of the frame's size.
    bool merging = false;
    absl::Status s = runtime::PartialCodec::LoadInChunks(
        f, other.get(), kMergeChunkGroups,
        [&](runtime::BatchAggregator& chunk) {
          merging = true;
          return engine.Merge(chunk);
        });
    // Once a chunk is in, an error (malformed states behind a valid
    // checksum, max_groups) leaves the state incomplete: failed.
    if (merging || absl::IsResourceExhausted(s)) {
      MAPR_RETURN_IF_ERROR(Fail(s, before));
    }
    MAPR_RETURN_IF_ERROR(s);
    rep_->coverage.end = f.splits.end;
    rep_->mark = std::move(f.mark);
  } else {
    absl::Status s = runtime::PartialCodec::Load(f, other.get());
    if (absl::IsResourceExhausted(s)) return Fail(s, before);
    MAPR_RETURN_IF_ERROR(s);
    // The frame's lines come first: merge this state into it, then keep it.
    MAPR_RETURN_IF_ERROR(Fail(other->Merge(engine), before));
    engine.SwapState(*other);
    rep_->coverage.begin = f.splits.begin;
  }
  return absl::OkStatus();
}

absl::StatusOr<Aggregator> Aggregator::FromPartial(
    std::string_view frame, const AggregatorOptions& options) {
  return AggregatorInternal::FromFrame(frame, options, /*keep_shown=*/false);
}

absl::StatusOr<Aggregator> AggregatorInternal::FromFrame(
    std::string_view frame, const AggregatorOptions& options, bool keep_shown) {
  MAPR_ASSIGN_OR_RETURN(runtime::PartialFrame f,
                        runtime::DecodePartialFrame(frame));
  // The stored text compiled within the limits it was compiled with before.
  CompileOptions compile;
  compile.max_query_bytes = std::max(compile.max_query_bytes, f.query.size());
  compile.max_items = std::max(compile.max_items, f.query.size());
  compile.max_depth = 1000;
  // A query with lookup() reads its tables again: their hashes are in the
  // fingerprint checked below.
  compile.allow_file_lookups = true;
  if (f.state_options) {
    compile.percentile_exact_values = f.state_options->percentile_exact_values;
    compile.percentile_accuracy = f.state_options->percentile_accuracy;
  }
  absl::StatusOr<Query> query = Query::Compile(f.query, compile);
  if (!query.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the partial's query '", util::ToAbsl(f.query),
                     "' does not compile: ", query.status().message()));
  }
  AggregatorOptions with = options;
  with.splits = f.splits;
  with.run_id = std::string(f.run_id);
  with.source = std::string(f.source);
  with.max_line_bytes = f.max_line_bytes;
  MAPR_ASSIGN_OR_RETURN(Aggregator agg, Aggregator::Create(*query, with));
  runtime::BatchAggregator& engine = *agg.rep_->engine;
  if (f.fingerprint != runtime::PartialCodec::Fingerprint(engine)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the partial's fingerprint does not match its query '",
        util::ToAbsl(f.query), "' as this mapr compiles it (log format '",
        util::ToAbsl(f.log_format),
        "'): it was written by a mapr with other aggregates or formats"));
  }
  if (!keep_shown) {
    MAPR_RETURN_IF_ERROR(runtime::PartialCodec::Load(f, &engine));
  } else {
    // A chunk at a time, each cut down to its shown groups and merged.
    MAPR_ASSIGN_OR_RETURN(
        std::unique_ptr<runtime::BatchAggregator> chunks,
        runtime::BatchAggregator::Create(QueryInternal::SharedPlan(agg.query_),
                                         engine.options()));
    auto take = [&](runtime::BatchAggregator& chunk) -> absl::Status {
      MAPR_RETURN_IF_ERROR(chunk.KeepResultGroups().status());
      MAPR_RETURN_IF_ERROR(engine.Merge(chunk));
      return engine.KeepResultGroups().status();
    };
    MAPR_RETURN_IF_ERROR(runtime::PartialCodec::LoadInChunks(
        f, chunks.get(), kMergeChunkGroups, take));
  }
  agg.rep_->mark = std::move(f.mark);
  agg.rep_->partition = f.partition;
  return agg;
}

absl::StatusOr<Aggregator> AggregatorInternal::FromPartialKeepingShown(
    std::string_view frame, const AggregatorOptions& options) {
  return FromFrame(frame, options, /*keep_shown=*/true);
}

absl::StatusOr<std::string> Aggregator::TakeDeltaPartial() {
  return TakeDeltaPartial(StreamMark());
}

absl::StatusOr<std::string> Aggregator::TakeDeltaPartial(
    const StreamMark& mark) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("TakeDeltaPartial"));
  if (!rep_->error.ok()) return rep_->error;
  runtime::BatchAggregator& engine = *rep_->engine;
  const uint64_t split = engine.options().splits.begin + rep_->deltas;
  std::string out =
      runtime::PartialCodec::Encode(engine, {split, split + 1}, mark);
  engine.Reset();
  ++rep_->deltas;
  return out;
}

LineCounters Aggregator::stats() const {
  if (rep_ == nullptr || rep_->engine == nullptr) return LineCounters();
  return rep_->error.ok() ? rep_->engine->counters() : rep_->failed_stats;
}

absl::StatusOr<ResultTable> RunQuery(std::string_view query,
                                     std::span<const std::string_view> lines,
                                     const AggregatorOptions& options) {
  MAPR_ASSIGN_OR_RETURN(Query q, Query::Compile(query));
  MAPR_ASSIGN_OR_RETURN(Aggregator agg, Aggregator::Create(q, options));
  MAPR_RETURN_IF_ERROR(agg.PushLines(lines));
  MAPR_RETURN_IF_ERROR(agg.FinishInput());
  return agg.TakeResult();
}

absl::StatusOr<ResultTable> RunQuery(std::string_view query,
                                     std::span<const std::string> lines,
                                     const AggregatorOptions& options) {
  MAPR_ASSIGN_OR_RETURN(Query q, Query::Compile(query));
  MAPR_ASSIGN_OR_RETURN(Aggregator agg, Aggregator::Create(q, options));
  MAPR_RETURN_IF_ERROR(agg.PushLines(lines));
  MAPR_RETURN_IF_ERROR(agg.FinishInput());
  return agg.TakeResult();
}

absl::StatusOr<ResultTable> RunQuery(
    std::string_view query, std::initializer_list<std::string_view> lines,
    const AggregatorOptions& options) {
  return RunQuery(
      query, std::span<const std::string_view>(lines.begin(), lines.size()),
      options);
}

// ---- Internal access (api/aggregator_internal.h)

absl::Status AggregatorInternal::MergeCopy(Aggregator& into,
                                           const Aggregator& from) {
  if (into.rep_ == nullptr || into.rep_->engine == nullptr ||
      from.rep_ == nullptr || from.rep_->engine == nullptr) {
    return absl::FailedPreconditionError(
        "MergeCopy of a moved-from Aggregator");
  }
  if (!into.rep_->error.ok()) return into.rep_->error;
  if (!from.rep_->error.ok()) return from.rep_->error;
  const LineCounters before = into.rep_->engine->counters();
  return into.Fail(into.rep_->engine->Merge(*from.rep_->engine), before);
}

absl::StatusOr<Aggregator> AggregatorInternal::EmptyLike(
    const Aggregator& model) {
  if (model.rep_ == nullptr || model.rep_->engine == nullptr) {
    return absl::FailedPreconditionError(
        "EmptyLike of a moved-from Aggregator");
  }
  AggregatorOptions options = model.rep_->engine->options();
  options.splits = {0, 1};
  options.source.clear();
  return Aggregator::Create(model.query_, options);
}

absl::StatusOr<bool> AggregatorInternal::KeepResultGroups(
    Aggregator& aggregator) {
  if (aggregator.rep_ == nullptr || aggregator.rep_->engine == nullptr) {
    return absl::FailedPreconditionError(
        "KeepResultGroups of a moved-from Aggregator");
  }
  if (!aggregator.rep_->error.ok()) return aggregator.rep_->error;
  return aggregator.rep_->engine->KeepResultGroups();
}

SplitRange AggregatorInternal::Coverage(const Aggregator& aggregator) {
  return aggregator.rep_ == nullptr ? SplitRange{0, 0}
                                    : aggregator.rep_->coverage;
}

StreamMark AggregatorInternal::Mark(const Aggregator& aggregator) {
  return aggregator.rep_ == nullptr ? StreamMark() : aggregator.rep_->mark;
}

void AggregatorInternal::DiscardPartialLine(Aggregator& aggregator,
                                            SourceId source) {
  if (aggregator.rep_ == nullptr) return;
  // Too-long lines were counted as PushBytes() met them; a line being
  // skipped as too long is dropped uncounted, as LineSplitter does.
  aggregator.rep_->splitters.erase(source);
}

absl::Status AggregatorInternal::EndInput(Aggregator& aggregator,
                                          SourceId source) {
  absl::Status s = aggregator.EndSource(source);
  if (s.ok()) aggregator.rep_->engine->ForgetSourceName(source);
  return s;
}

absl::Status AggregatorInternal::PushPaddedLines(
    Aggregator& aggregator, std::span<const std::string_view> lines,
    SourceId source) {
  return aggregator.PushPaddedLines(lines, source, kLinePadding);
}

absl::Status AggregatorInternal::PushPaddedBytes(Aggregator& aggregator,
                                                 std::string_view chunk,
                                                 SourceId source) {
  return aggregator.PushPaddedBytes(chunk, source, kLinePadding);
}

uint64_t AggregatorInternal::FirstUnparsableLine(const Aggregator& aggregator) {
  if (aggregator.rep_ == nullptr || aggregator.rep_->engine == nullptr) {
    return 0;
  }
  return aggregator.rep_->engine->first_unparsable_line();
}

void AggregatorInternal::CountTooLongLines(Aggregator& aggregator, uint64_t n) {
  if (aggregator.rep_ == nullptr || n == 0) return;
  aggregator.rep_->engine->CountTooLong(n);
}

std::vector<ResultNote> ResultNotesFor(const Query& query,
                                       const LineCounters& stats,
                                       const std::vector<FieldCount>& fields,
                                       size_t max_line_bytes,
                                       const InputFacts& input) {
  runtime::ResultFacts facts = runtime::FactsOf(QueryInternal::GetPlan(query),
                                                stats, fields, max_line_bytes);
  facts.lines_with_nul = input.lines_with_nul;
  facts.inputs_without_parsed_lines = input.inputs_without_parsed_lines;
  facts.first_unparsable_input = input.first_unparsable_input;
  facts.first_unparsable_line = input.first_unparsable_line;
  return runtime::ResultNotes(facts);
}

}  // namespace mapr
