#include "mapr/turbo_aggregate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "api/query_internal.h"
#include "mapr/log_format.h"
#include "runtime/batch_aggregator.h"
#include "util/status_macros.h"

namespace mapr {
namespace turbo_internal {
namespace {

using Clock = std::chrono::steady_clock;

// Upper bound for TurboOptions::worker_threads.
constexpr int kMaxWorkerThreads = 1024;
// Spare batches whose buffer grew beyond this are freed, not recycled.
constexpr size_t kMaxRecycledBatchBytes = size_t{4} << 20;

LineCounters Minus(const LineCounters& a, const LineCounters& b) {
  LineCounters d;
  for (const LineCounterField& f : kLineCounterFields) {
    d.*f.value = a.*f.value - b.*f.value;
  }
  return d;
}

}  // namespace

// Lines of one batch, copied back to back into one buffer.
struct Batch {
  std::string data;
  std::vector<size_t> ends;  // End offset of each line in `data`.
  // Lines before these that Producer::PushBytes dropped as too long.
  uint64_t too_long = 0;

  size_t size() const { return ends.size(); }
  bool empty() const { return ends.empty() && too_long == 0; }
  void Append(std::string_view line) {
    data.append(line.data(), line.size());
    ends.push_back(data.size());
  }
  void Clear() {
    data.clear();
    ends.clear();
    too_long = 0;
  }
  void Views(std::vector<std::string_view>* out) const {
    out->clear();
    size_t begin = 0;
    for (size_t end : ends) {
      out->emplace_back(data.data() + begin, end - begin);
      begin = end;
    }
  }
};

// One producer's share of the aggregate. Owned by Core; stable address. Its
// queue of full batches is guarded by Core::mu_ and so lives in Core (a
// Strand, Core::strands_[index]), where the annotations can name mu_.
//
// Lock order: buf_mu, then Core::mu_; partial_mu, then Core::mu_ (only
// when Report() records a merge error). Nothing takes buf_mu or partial_mu
// while holding mu_.
struct ProducerState {
  ProducerState(size_t i, SourceId s,
                std::unique_ptr<runtime::BatchAggregator> p)
      : index(i), source(s), partial(std::move(p)) {}

  const size_t index;
  const SourceId source;

  // buf_mu is held across the hand-over of a batch to the queue, so the
  // reporter's flush of a partly filled batch can never overtake a full
  // batch the producer is handing over.
  absl::Mutex buf_mu;
  Batch buffer ABSL_GUARDED_BY(buf_mu);
  bool finish_called ABSL_GUARDED_BY(buf_mu) = false;

  // Only the worker owning the strand pushes; the reporter merges (and in
  // delta mode resets) between batches.
  absl::Mutex partial_mu;
  std::unique_ptr<runtime::BatchAggregator> partial ABSL_GUARDED_BY(partial_mu);
};

// A producer's queue of batches handed to the workers. Guarded by
// Core::mu_ (an element of Core::strands_).
struct Strand {
  std::deque<Batch> pending;  // FIFO: applied strictly in this order.
  bool scheduled = false;     // In Core::ready_ or being applied.
  uint64_t enqueued = 0;      // Batches handed to the queue.
  uint64_t applied = 0;       // Batches a worker is done with.
};

// The reporter thread's Core, so FinishInput() called from inside the
// callback knows not to wait for itself.
thread_local const Core* tls_reporter_core = nullptr;

class Core {
 public:
  Core(std::shared_ptr<const plan::Plan> plan, const TurboOptions& options,
       ResultCallback callback, size_t workers, size_t max_queued,
       int64_t interval_ms)
      : plan_(std::move(plan)),
        options_(options),
        callback_(std::move(callback)),
        num_workers_(workers),
        max_queued_(max_queued),
        interval_ms_(interval_ms) {}

  ~Core() { Abort(); }

  // Starts the threads. `self` is this Core (the reporter keeps it alive,
  // so the aggregate may be destroyed from inside the callback).
  absl::Status Start(const std::shared_ptr<Core>& self)
      ABSL_LOCKS_EXCLUDED(join_mu_) {
    try {
      absl::MutexLock join_lock(&join_mu_);
      workers_.reserve(num_workers_);
      for (size_t i = 0; i < num_workers_; ++i) {
        workers_.emplace_back([this] { WorkerLoop(); });
      }
      reporter_ = std::thread([self] { self->ReporterLoop(); });
    } catch (const std::system_error& e) {
      Abort();
      return absl::ResourceExhaustedError(
          absl::StrCat("TurboAggregate: cannot start a thread: ", e.what()));
    }
    return absl::OkStatus();
  }

  size_t max_line_bytes() const { return options_.aggregator.max_line_bytes; }

  // Stops every thread without a final report (the destructor path).
  void Abort() ABSL_LOCKS_EXCLUDED(mu_, join_mu_) {
    {
      absl::MutexLock lock(&mu_);
      aborted_.store(true, std::memory_order_release);
    }
    NotifyAll();
    JoinThreads();
  }

  absl::StatusOr<ProducerState*> AddProducer(SourceId source,
                                             std::string_view source_name)
      ABSL_LOCKS_EXCLUDED(mu_) {
    {
      absl::MutexLock lock(&mu_);
      MAPR_RETURN_IF_ERROR(CheckCanRegisterLocked());
    }
    // Created outside the lock: it resolves the host name and time zone.
    MAPR_ASSIGN_OR_RETURN(
        std::unique_ptr<runtime::BatchAggregator> partial,
        runtime::BatchAggregator::Create(plan_, options_.aggregator));
    if (!source_name.empty()) partial->SetSourceName(source, source_name);
    absl::MutexLock lock(&mu_);
    MAPR_RETURN_IF_ERROR(CheckCanRegisterLocked());
    producers_.push_back(std::make_unique<ProducerState>(
        producers_.size(), source, std::move(partial)));
    strands_.emplace_back();
    return producers_.back().get();
  }

  // Queues `lines`, after counting `too_long` lines dropped before them.
  // Without `wait_for_room` a full batch is queued even past
  // max_queued_batches (Finish() and the destructor never block).
  absl::Status Push(ProducerState* p, std::span<const std::string_view> lines,
                    uint64_t too_long = 0, bool wait_for_room = true)
      ABSL_LOCKS_EXCLUDED(p->buf_mu, mu_) {
    size_t i = 0;
    do {
      absl::MutexLock buf_lock(&p->buf_mu);
      if (p->finish_called) {
        return absl::FailedPreconditionError(
            "TurboAggregate::Producer: PushLine called after Finish()");
      }
      MAPR_RETURN_IF_ERROR(FastCheck());
      p->buffer.too_long += too_long;
      too_long = 0;
      size_t n =
          std::min(options_.batch_lines - p->buffer.size(), lines.size() - i);
      for (size_t k = 0; k < n; ++k) p->buffer.Append(lines[i + k]);
      i += n;
      if (p->buffer.size() >= options_.batch_lines) {
        absl::MutexLock lock(&mu_);
        MAPR_RETURN_IF_ERROR(EnqueueLocked(p, wait_for_room));
      }
    } while (i < lines.size());
    return absl::OkStatus();
  }

  absl::Status Finish(ProducerState* p) ABSL_LOCKS_EXCLUDED(p->buf_mu, mu_) {
    absl::MutexLock buf_lock(&p->buf_mu);
    if (p->finish_called) {
      return absl::FailedPreconditionError(
          "TurboAggregate::Producer: Finish called twice");
    }
    p->finish_called = true;
    absl::MutexLock lock(&mu_);
    absl::Status status;
    // No backpressure wait: at most one extra batch per producer, and a
    // Producer's destructor never blocks on the workers.
    if (!p->buffer.empty()) {
      status = EnqueueLocked(p, /*wait_for_room=*/false);
    }
    p->buffer = Batch();
    ++finished_count_;
    reporter_cv_.SignalAll();
    if (status.ok()) status = StatusLocked();
    return status;
  }

  // FinishInput(): seals, then waits for the final report (until
  // `deadline` if given).
  absl::Status WaitFinal(std::optional<Clock::time_point> deadline)
      ABSL_LOCKS_EXCLUDED(mu_, join_mu_) {
    {
      absl::MutexLock lock(&mu_);
      if (!sealed_) {
        sealed_ = true;
        reporter_cv_.SignalAll();
      }
      if (tls_reporter_core == this) return absl::OkStatus();
      while (!CompleteLocked()) {
        if (!deadline.has_value()) {
          done_cv_.Wait(&mu_);
          continue;
        }
        const Clock::time_point now = Clock::now();
        if (now >= *deadline) break;
        done_cv_.WaitWithTimeout(&mu_, absl::FromChrono(*deadline - now));
      }
      if (!CompleteLocked()) {  // The deadline passed.
        size_t unfinished = producers_.size() - finished_count_;
        if (unfinished > 0) {
          return absl::DeadlineExceededError(absl::StrCat(
              "TurboAggregate::FinishInput: ", unfinished, " of ",
              producers_.size(),
              " producers have not finished (call Producer::Finish)"));
        }
        return absl::DeadlineExceededError(
            "TurboAggregate::FinishInput: the final report is still "
            "running");
      }
      if (!done_) {
        return absl::CancelledError(
            "TurboAggregate::FinishInput: the aggregate was destroyed");
      }
    }
    JoinThreads();
    absl::MutexLock lock(&mu_);
    return first_error_;
  }

  LineCounters stats() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return stats_;
  }

 private:
  bool CompleteLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return done_ || aborted_.load();
  }

  absl::Status CheckCanRegisterLocked() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (aborted_.load()) {
      return absl::CancelledError("TurboAggregate was destroyed");
    }
    if (sealed_) {
      return absl::FailedPreconditionError(
          "TurboAggregate::AddProducer called after FinishInput()");
    }
    return first_error_;
  }

  // The status a Producer call returns when the aggregate cannot take
  // lines any more.
  absl::Status StatusLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (aborted_.load()) {
      return absl::CancelledError("TurboAggregate was destroyed");
    }
    return first_error_;
  }

  // Lock-free check on the Push fast path.
  absl::Status FastCheck() const ABSL_LOCKS_EXCLUDED(mu_) {
    if (aborted_.load(std::memory_order_acquire) ||
        failed_.load(std::memory_order_acquire)) {
      absl::MutexLock lock(&mu_);
      return StatusLocked();
    }
    return absl::OkStatus();
  }

  // Hands p->buffer to the queue; with `wait_for_room`, first waits
  // (releasing mu_, not buf_mu) while max_queued_ batches are queued.
  absl::Status EnqueueLocked(ProducerState* p, bool wait_for_room)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->buf_mu, mu_) {
    if (wait_for_room) {
      while (queued_ >= max_queued_ && !aborted_.load() && first_error_.ok()) {
        room_cv_.Wait(&mu_);
      }
    }
    absl::Status status = StatusLocked();
    if (!status.ok()) {
      p->buffer.Clear();
      return status;
    }
    Strand& strand = strands_[p->index];
    strand.pending.push_back(std::move(p->buffer));
    ++queued_;
    ++strand.enqueued;
    if (!spare_.empty()) {
      p->buffer = std::move(spare_.back());
      spare_.pop_back();
    } else {
      p->buffer = Batch();
    }
    if (!strand.scheduled) {
      strand.scheduled = true;
      ready_.push_back(p);
      work_cv_.Signal();
    }
    return absl::OkStatus();
  }

  void SetErrorLocked(const absl::Status& s)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (first_error_.ok()) {
      first_error_ = s;
      failed_.store(true, std::memory_order_release);
      room_cv_.SignalAll();
    }
  }

  void NotifyAll() {
    work_cv_.SignalAll();
    room_cv_.SignalAll();
    applied_cv_.SignalAll();
    reporter_cv_.SignalAll();
    done_cv_.SignalAll();
  }

  void JoinThreads() ABSL_LOCKS_EXCLUDED(join_mu_) {
    absl::MutexLock join_lock(&join_mu_);
    for (std::thread& t : workers_) {
      if (t.joinable()) t.join();
    }
    if (reporter_.joinable()) {
      // From inside the callback (the aggregate destroyed there) the
      // reporter cannot join itself; it holds a reference to this Core
      // and ends when the callback returns.
      if (tls_reporter_core == this) {
        reporter_.detach();
      } else {
        reporter_.join();
      }
    }
  }

  // Each worker repeatedly takes the next producer with pending batches
  // (round robin over producers) and applies that producer's oldest batch.
  // A producer in ready_ or being applied is `scheduled`, so no two workers
  // ever apply batches of the same producer: its batches are applied in
  // push order.
  void WorkerLoop() ABSL_LOCKS_EXCLUDED(mu_) {
    std::vector<std::string_view> views;
    mu_.Lock();
    while (true) {
      while (ready_.empty() && !stop_workers_ && !aborted_.load()) {
        work_cv_.Wait(&mu_);
      }
      if (aborted_.load()) break;
      if (ready_.empty()) {
        if (stop_workers_) break;
        continue;
      }
      ProducerState* p = ready_.front();
      ready_.pop_front();
      Batch batch = std::move(strands_[p->index].pending.front());
      strands_[p->index].pending.pop_front();
      --queued_;
      room_cv_.Signal();
      // After an error the batch is dropped: the result is void anyway.
      const bool apply = first_error_.ok();
      mu_.Unlock();

      LineCounters delta;
      absl::Status status;
      if (apply) {
        // Spare bytes after the last line, so the format may read past
        // every line (FieldBatch::line_padding()) instead of copying it.
        batch.data.append(kLinePadding, '\0');
        batch.Views(&views);
        absl::MutexLock partial_lock(&p->partial_mu);
        LineCounters before = p->partial->counters();
        p->partial->CountTooLong(batch.too_long);
        status = p->partial->Push(views, p->source, kLinePadding);
        delta = Minus(p->partial->counters(), before);
      }

      mu_.Lock();
      stats_ += delta;
      if (!status.ok()) SetErrorLocked(status);
      Strand& strand = strands_[p->index];
      ++strand.applied;
      if (!strand.pending.empty()) {
        ready_.push_back(p);  // This worker takes the next one itself.
      } else {
        strand.scheduled = false;
      }
      if (spare_.size() < max_queued_ + num_workers_ &&
          batch.data.capacity() <= kMaxRecycledBatchBytes) {
        batch.Clear();
        spare_.push_back(std::move(batch));
      }
      if (reporter_waiting_) applied_cv_.SignalAll();
    }
    mu_.Unlock();
  }

  void ReporterLoop() ABSL_LOCKS_EXCLUDED(mu_) {
    tls_reporter_core = this;
    const auto interval =
        std::chrono::milliseconds(interval_ms_ > 0 ? interval_ms_ : int64_t{0});
    Clock::time_point next = Clock::now() + interval;
    mu_.Lock();
    while (true) {
      if (aborted_.load()) {
        mu_.Unlock();
        return;
      }
      if (sealed_ && finished_count_ == producers_.size()) break;
      if (interval_ms_ < 0) {
        reporter_cv_.Wait(&mu_);
        continue;
      }
      const Clock::time_point now = Clock::now();
      if (now < next) {
        reporter_cv_.WaitWithTimeout(&mu_, absl::FromChrono(next - now));
        continue;
      }
      mu_.Unlock();
      Report(/*is_final=*/false);
      mu_.Lock();
      next += interval;
      // After a slow callback, skip the missed ticks instead of bursting.
      const Clock::time_point after = Clock::now();
      if (next <= after) next = after + interval;
    }
    mu_.Unlock();
    Report(/*is_final=*/true);
    absl::MutexLock lock(&mu_);
    done_ = true;
    stop_workers_ = true;
    work_cv_.SignalAll();
    done_cv_.SignalAll();
  }

  // Makes one report: flushes the producers' partly filled batches, waits
  // until every batch handed over so far is applied, merges the partials
  // in registration order into a fresh aggregator (in delta mode resetting
  // each partial under the same lock, so each line is in exactly one
  // report) and calls the callback.
  void Report(bool is_final) ABSL_LOCKS_EXCLUDED(mu_) {
    std::vector<ProducerState*> producers;
    {
      absl::MutexLock lock(&mu_);
      if (!first_error_.ok()) return;
      producers.reserve(producers_.size());
      for (const auto& p : producers_) producers.push_back(p.get());
    }
    std::vector<uint64_t> cut(producers.size());
    for (size_t i = 0; i < producers.size(); ++i) {
      ProducerState* p = producers[i];
      absl::MutexLock buf_lock(&p->buf_mu);
      absl::MutexLock lock(&mu_);
      if (!p->buffer.empty()) {
        EnqueueLocked(p, /*wait_for_room=*/false).IgnoreError();
      }
      cut[i] = strands_[p->index].enqueued;
    }
    {
      absl::MutexLock lock(&mu_);
      reporter_waiting_ = true;
      while (!aborted_.load() && first_error_.ok() &&
             !AppliedLocked(producers, cut)) {
        applied_cv_.Wait(&mu_);
      }
      reporter_waiting_ = false;
      if (aborted_.load() || !first_error_.ok()) return;
    }

    absl::StatusOr<std::unique_ptr<runtime::BatchAggregator>> merged =
        runtime::BatchAggregator::Create(plan_, options_.aggregator);
    if (!merged.ok()) {
      absl::MutexLock lock(&mu_);
      SetErrorLocked(merged.status());
      return;
    }
    const bool delta = options_.mode == ReportMode::kDelta;
    for (ProducerState* p : producers) {
      absl::MutexLock partial_lock(&p->partial_mu);
      // Each producer's last `multiline` event is complete at the end.
      if (is_final && p->partial->has_pending_events()) {
        const LineCounters before = p->partial->counters();
        absl::Status flushed = p->partial->FlushEvents();
        absl::MutexLock lock(&mu_);
        stats_ += Minus(p->partial->counters(), before);
        if (!flushed.ok()) {
          SetErrorLocked(flushed);
          return;
        }
      }
      absl::Status status = (*merged)->Merge(*p->partial);
      if (!status.ok()) {
        absl::MutexLock lock(&mu_);
        SetErrorLocked(status);
        return;
      }
      if (delta) p->partial->Reset();
    }
    absl::StatusOr<ResultTable> built = (*merged)->Result();
    if (!built.ok()) {
      absl::MutexLock lock(&mu_);
      SetErrorLocked(built.status());
      return;
    }
    ResultTable& result = *built;
    if (!is_final) {
      const uint64_t read = result.stats().lines_read;
      const bool unchanged = delta ? read == 0 : read == last_reported_read_;
      if (unchanged) return;
      last_reported_read_ = read;
    }
    if (aborted_.load()) return;
    callback_(result, is_final);
  }

  // True when every batch up to `cut` is applied.
  bool AppliedLocked(const std::vector<ProducerState*>& producers,
                     const std::vector<uint64_t>& cut) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (size_t i = 0; i < producers.size(); ++i) {
      if (strands_[producers[i]->index].applied < cut[i]) return false;
    }
    return true;
  }

  // ---- Immutable after construction.
  const std::shared_ptr<const plan::Plan> plan_;
  const TurboOptions options_;
  const ResultCallback callback_;
  const size_t num_workers_;
  const size_t max_queued_;
  const int64_t interval_ms_;  // < 0: no interval reports.

  // ---- Threads.
  absl::Mutex join_mu_;
  std::vector<std::thread> workers_ ABSL_GUARDED_BY(join_mu_);
  std::thread reporter_ ABSL_GUARDED_BY(join_mu_);

  // ---- Reporter thread only.
  uint64_t last_reported_read_ = 0;

  // ---- Guarded by mu_ (the atomics are written under mu_ and may be read
  // without it).
  mutable absl::Mutex mu_;
  absl::CondVar work_cv_;      // ready_ or stop changed.
  absl::CondVar room_cv_;      // queued_ dropped, or error/abort.
  absl::CondVar applied_cv_;   // A batch was applied.
  absl::CondVar reporter_cv_;  // Sealed or a producer finished.
  absl::CondVar done_cv_;      // done_ or aborted_.
  std::vector<std::unique_ptr<ProducerState>> producers_ ABSL_GUARDED_BY(mu_);
  // By producer index; a deque, so references stay valid as it grows.
  std::deque<Strand> strands_ ABSL_GUARDED_BY(mu_);
  // Producers with pending batches.
  std::deque<ProducerState*> ready_ ABSL_GUARDED_BY(mu_);
  std::vector<Batch> spare_ ABSL_GUARDED_BY(mu_);  // Recycled batch buffers.
  // Batches in all `pending` queues.
  size_t queued_ ABSL_GUARDED_BY(mu_) = 0;
  size_t finished_count_ ABSL_GUARDED_BY(mu_) = 0;
  bool sealed_ ABSL_GUARDED_BY(mu_) = false;
  // The final report was made (or skipped on error).
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_workers_ ABSL_GUARDED_BY(mu_) = false;
  bool reporter_waiting_ ABSL_GUARDED_BY(mu_) = false;
  LineCounters stats_ ABSL_GUARDED_BY(mu_);
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> aborted_{false};
  std::atomic<bool> failed_{false};
};

}  // namespace turbo_internal

// ------------------------------------------------------------------ Producer

TurboAggregate::Producer::Producer(std::shared_ptr<turbo_internal::Core> core,
                                   turbo_internal::ProducerState* state,
                                   size_t max_line_bytes)
    : core_(std::move(core)), state_(state), max_line_bytes_(max_line_bytes) {}

TurboAggregate::Producer::~Producer() { Finish().IgnoreError(); }

absl::Status TurboAggregate::Producer::PushLine(std::string_view line) {
  return core_->Push(state_, std::span<const std::string_view>(&line, 1));
}

absl::Status TurboAggregate::Producer::PushLines(
    std::span<const std::string_view> lines) {
  return core_->Push(state_, lines);
}

absl::Status TurboAggregate::Producer::PushBytes(std::string_view chunk) {
  if (splitter_ == nullptr) {
    splitter_ = std::make_unique<LineSplitter>(max_line_bytes_);
  }
  const uint64_t too_long = splitter_->too_long_lines();
  std::span<const std::string_view> lines = splitter_->Split(chunk);
  return core_->Push(state_, lines, splitter_->too_long_lines() - too_long);
}

absl::Status TurboAggregate::Producer::Finish() {
  absl::Status status;
  if (splitter_ != nullptr) {
    // The unfinished last line of PushBytes is a line too.
    const uint64_t too_long = splitter_->too_long_lines();
    std::optional<std::string_view> last = splitter_->Finish();
    const uint64_t dropped = splitter_->too_long_lines() - too_long;
    if (last.has_value() || dropped > 0) {
      status = core_->Push(state_,
                           last.has_value()
                               ? std::span<const std::string_view>(&*last, 1)
                               : std::span<const std::string_view>(),
                           dropped, /*wait_for_room=*/false);
    }
    splitter_.reset();
  }
  absl::Status finish = core_->Finish(state_);
  // A Finish() after the first reports the second call, not a push error.
  if (finish.code() == absl::StatusCode::kFailedPrecondition) return finish;
  status.Update(finish);
  return status;
}

SourceId TurboAggregate::Producer::source() const { return state_->source; }
size_t TurboAggregate::Producer::index() const { return state_->index; }

// ------------------------------------------------------------ TurboAggregate

absl::StatusOr<std::unique_ptr<TurboAggregate>> TurboAggregate::Create(
    const Query& query, const TurboOptions& options, ResultCallback callback) {
  if (!callback) {
    return absl::InvalidArgumentError(
        "TurboAggregate::Create: the result callback is empty");
  }
  if (options.worker_threads < 0 ||
      options.worker_threads > turbo_internal::kMaxWorkerThreads) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TurboAggregate::Create: worker_threads must be in [0, ",
        turbo_internal::kMaxWorkerThreads, "], not ", options.worker_threads));
  }
  if (options.batch_lines == 0) {
    return absl::InvalidArgumentError(
        "TurboAggregate::Create: batch_lines must be at least 1");
  }
  std::shared_ptr<const plan::Plan> plan = QueryInternal::SharedPlan(query);
  // Fails as Aggregator::Create does (e.g. an unregistered log format).
  MAPR_RETURN_IF_ERROR(
      runtime::BatchAggregator::Create(plan, options.aggregator).status());

  size_t workers = static_cast<size_t>(options.worker_threads);
  if (workers == 0) {
    workers = std::max(1u, std::thread::hardware_concurrency());
  }
  size_t max_queued =
      options.max_queued_batches > 0 ? options.max_queued_batches : 2 * workers;
  int64_t interval_ms = options.interval_ms;
  if (interval_ms == 0) {
    interval_ms = query.interval_ms() > 0 ? query.interval_ms() : 1000;
  }

  auto core = std::make_shared<turbo_internal::Core>(
      std::move(plan), options, std::move(callback), workers, max_queued,
      interval_ms);
  MAPR_RETURN_IF_ERROR(core->Start(core));
  return std::unique_ptr<TurboAggregate>(new TurboAggregate(std::move(core)));
}

TurboAggregate::TurboAggregate(std::shared_ptr<turbo_internal::Core> core)
    : core_(std::move(core)) {}

TurboAggregate::~TurboAggregate() { core_->Abort(); }

absl::StatusOr<std::unique_ptr<TurboAggregate::Producer>>
TurboAggregate::AddProducer(SourceId source, std::string_view source_name) {
  MAPR_ASSIGN_OR_RETURN(turbo_internal::ProducerState * state,
                        core_->AddProducer(source, source_name));
  return std::unique_ptr<Producer>(
      new Producer(core_, state, core_->max_line_bytes()));
}

absl::Status TurboAggregate::FinishInput() {
  return core_->WaitFinal(std::nullopt);
}

absl::Status TurboAggregate::FinishInputWithin(absl::Duration timeout) {
  // Beyond ~100 years the deadline would overflow the clock: wait forever.
  if (timeout > absl::Hours(24 * 365 * 100)) return FinishInput();
  if (timeout < absl::ZeroDuration()) timeout = absl::ZeroDuration();
  return core_->WaitFinal(turbo_internal::Clock::now() +
                          absl::ToChronoNanoseconds(timeout));
}

LineCounters TurboAggregate::stats() const { return core_->stats(); }

}  // namespace mapr
