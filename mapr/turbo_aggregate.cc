#include "mapr/turbo_aggregate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "mapr/query_internal.h"
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
  d.lines_read = a.lines_read - b.lines_read;
  d.lines_too_long = a.lines_too_long - b.lines_too_long;
  d.lines_table_mismatch = a.lines_table_mismatch - b.lines_table_mismatch;
  d.lines_ignored = a.lines_ignored - b.lines_ignored;
  d.lines_malformed = a.lines_malformed - b.lines_malformed;
  d.lines_header = a.lines_header - b.lines_header;
  d.lines_filtered = a.lines_filtered - b.lines_filtered;
  d.lines_without_value = a.lines_without_value - b.lines_without_value;
  d.lines_aggregated = a.lines_aggregated - b.lines_aggregated;
  return d;
}

}  // namespace

// Lines of one batch, copied back to back into one buffer.
struct Batch {
  std::string data;
  std::vector<size_t> ends;  // End offset of each line in `data`.

  size_t size() const { return ends.size(); }
  bool empty() const { return ends.empty(); }
  void Append(std::string_view line) {
    data.append(line.data(), line.size());
    ends.push_back(data.size());
  }
  void Clear() {
    data.clear();
    ends.clear();
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

// One producer's share of the aggregate. Owned by Core; stable address.
//
// Lock order: buf_mu, then Core::mu_. partial_mu is never held together
// with mu_.
struct ProducerState {
  ProducerState(size_t i, SourceId s,
                std::unique_ptr<runtime::BatchAggregator> p)
      : index(i), source(s), partial(std::move(p)) {}

  const size_t index;
  const SourceId source;

  // ---- Guarded by buf_mu. It is held across the hand-over of a batch to
  // the queue, so the reporter's flush of a partly filled batch can never
  // overtake a full batch the producer is handing over.
  std::mutex buf_mu;
  Batch buffer;
  bool finish_called = false;

  // ---- Guarded by Core::mu_.
  std::deque<Batch> pending;  // FIFO: applied strictly in this order.
  bool scheduled = false;     // In Core::ready_ or being applied (a strand).
  bool finished = false;
  uint64_t enqueued = 0;  // Batches handed to the queue.
  uint64_t applied = 0;   // Batches a worker is done with.

  // ---- Guarded by partial_mu. Only the worker owning the strand pushes;
  // the reporter merges (and in delta mode resets) between batches.
  std::mutex partial_mu;
  std::unique_ptr<runtime::BatchAggregator> partial;
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
  absl::Status Start(const std::shared_ptr<Core>& self) {
    try {
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

  // Stops every thread without a final report (the destructor path).
  void Abort() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      aborted_.store(true, std::memory_order_release);
    }
    NotifyAll();
    JoinThreads();
  }

  absl::StatusOr<ProducerState*> AddProducer(SourceId source) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      MAPR_RETURN_IF_ERROR(CheckCanRegisterLocked());
    }
    // Created outside the lock: it resolves the host name and time zone.
    MAPR_ASSIGN_OR_RETURN(
        std::unique_ptr<runtime::BatchAggregator> partial,
        runtime::BatchAggregator::Create(plan_, options_.aggregator));
    std::lock_guard<std::mutex> lock(mu_);
    MAPR_RETURN_IF_ERROR(CheckCanRegisterLocked());
    producers_.push_back(std::make_unique<ProducerState>(
        producers_.size(), source, std::move(partial)));
    return producers_.back().get();
  }

  absl::Status Push(ProducerState* p, std::span<const std::string_view> lines) {
    size_t i = 0;
    do {
      std::lock_guard<std::mutex> buf_lock(p->buf_mu);
      if (p->finish_called) {
        return absl::FailedPreconditionError(
            "TurboAggregate::Producer: PushLine called after Finish()");
      }
      MAPR_RETURN_IF_ERROR(FastCheck());
      size_t n =
          std::min(options_.batch_lines - p->buffer.size(), lines.size() - i);
      for (size_t k = 0; k < n; ++k) p->buffer.Append(lines[i + k]);
      i += n;
      if (p->buffer.size() >= options_.batch_lines) {
        std::unique_lock<std::mutex> lock(mu_);
        MAPR_RETURN_IF_ERROR(EnqueueLocked(p, lock, /*wait_for_room=*/true));
      }
    } while (i < lines.size());
    return absl::OkStatus();
  }

  absl::Status Finish(ProducerState* p) {
    std::lock_guard<std::mutex> buf_lock(p->buf_mu);
    if (p->finish_called) {
      return absl::FailedPreconditionError(
          "TurboAggregate::Producer: Finish called twice");
    }
    p->finish_called = true;
    std::unique_lock<std::mutex> lock(mu_);
    absl::Status status;
    // No backpressure wait: at most one extra batch per producer, and a
    // Producer's destructor never blocks on the workers.
    if (!p->buffer.empty()) {
      status = EnqueueLocked(p, lock, /*wait_for_room=*/false);
    }
    p->buffer = Batch();
    p->finished = true;
    ++finished_count_;
    reporter_cv_.notify_all();
    if (status.ok()) status = StatusLocked();
    return status;
  }

  // FinishInput(): seals, then waits for the final report (until
  // `deadline` if given).
  absl::Status WaitFinal(std::optional<Clock::time_point> deadline) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!sealed_) {
        sealed_ = true;
        reporter_cv_.notify_all();
      }
      if (tls_reporter_core == this) return absl::OkStatus();
      auto complete = [this] { return done_ || aborted_.load(); };
      if (deadline.has_value()) {
        if (!done_cv_.wait_until(lock, *deadline, complete)) {
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
      } else {
        done_cv_.wait(lock, complete);
      }
      if (!done_) {
        return absl::CancelledError(
            "TurboAggregate::FinishInput: the aggregate was destroyed");
      }
    }
    JoinThreads();
    std::lock_guard<std::mutex> lock(mu_);
    return first_error_;
  }

  LineCounters stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  absl::Status CheckCanRegisterLocked() const {
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
  absl::Status StatusLocked() const {
    if (aborted_.load()) {
      return absl::CancelledError("TurboAggregate was destroyed");
    }
    return first_error_;
  }

  // Lock-free check on the Push fast path.
  absl::Status FastCheck() const {
    if (aborted_.load(std::memory_order_acquire) ||
        failed_.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mu_);
      return StatusLocked();
    }
    return absl::OkStatus();
  }

  // Hands p->buffer to the queue. REQUIRES: p->buf_mu and mu_ (`lock`) held.
  absl::Status EnqueueLocked(ProducerState* p,
                             std::unique_lock<std::mutex>& lock,
                             bool wait_for_room) {
    if (wait_for_room) {
      room_cv_.wait(lock, [&] {
        return queued_ < max_queued_ || aborted_.load() || !first_error_.ok();
      });
    }
    absl::Status status = StatusLocked();
    if (!status.ok()) {
      p->buffer.Clear();
      return status;
    }
    p->pending.push_back(std::move(p->buffer));
    ++queued_;
    ++p->enqueued;
    if (!spare_.empty()) {
      p->buffer = std::move(spare_.back());
      spare_.pop_back();
    } else {
      p->buffer = Batch();
    }
    if (!p->scheduled) {
      p->scheduled = true;
      ready_.push_back(p);
      work_cv_.notify_one();
    }
    return absl::OkStatus();
  }

  void SetErrorLocked(const absl::Status& s) {
    if (first_error_.ok()) {
      first_error_ = s;
      failed_.store(true, std::memory_order_release);
      room_cv_.notify_all();
    }
  }

  void NotifyAll() {
    work_cv_.notify_all();
    room_cv_.notify_all();
    applied_cv_.notify_all();
    reporter_cv_.notify_all();
    done_cv_.notify_all();
  }

  void JoinThreads() {
    std::lock_guard<std::mutex> join_lock(join_mu_);
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
  void WorkerLoop() {
    std::vector<std::string_view> views;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      work_cv_.wait(lock, [this] {
        return !ready_.empty() || stop_workers_ || aborted_.load();
      });
      if (aborted_.load()) return;
      if (ready_.empty()) {
        if (stop_workers_) return;
        continue;
      }
      ProducerState* p = ready_.front();
      ready_.pop_front();
      Batch batch = std::move(p->pending.front());
      p->pending.pop_front();
      --queued_;
      room_cv_.notify_one();
      // After an error the batch is dropped: the result is void anyway.
      const bool apply = first_error_.ok();
      lock.unlock();

      LineCounters delta;
      absl::Status status;
      if (apply) {
        batch.Views(&views);
        std::lock_guard<std::mutex> partial_lock(p->partial_mu);
        LineCounters before = p->partial->counters();
        status = p->partial->Push(views, p->source);
        delta = Minus(p->partial->counters(), before);
      }

      lock.lock();
      stats_ += delta;
      if (!status.ok()) SetErrorLocked(status);
      ++p->applied;
      if (!p->pending.empty()) {
        ready_.push_back(p);  // This worker takes the next one itself.
      } else {
        p->scheduled = false;
      }
      if (spare_.size() < max_queued_ + num_workers_ &&
          batch.data.capacity() <= kMaxRecycledBatchBytes) {
        batch.Clear();
        spare_.push_back(std::move(batch));
      }
      if (reporter_waiting_) applied_cv_.notify_all();
    }
  }

  void ReporterLoop() {
    tls_reporter_core = this;
    const auto interval =
        std::chrono::milliseconds(interval_ms_ > 0 ? interval_ms_ : int64_t{0});
    Clock::time_point next = Clock::now() + interval;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (aborted_.load()) return;
      if (sealed_ && finished_count_ == producers_.size()) break;
      if (interval_ms_ < 0) {
        reporter_cv_.wait(lock);
        continue;
      }
      if (Clock::now() < next) {
        reporter_cv_.wait_until(lock, next);
        continue;
      }
      lock.unlock();
      Report(/*is_final=*/false);
      lock.lock();
      next += interval;
      // After a slow callback, skip the missed ticks instead of bursting.
      Clock::time_point now = Clock::now();
      if (next <= now) next = now + interval;
    }
    lock.unlock();
    Report(/*is_final=*/true);
    lock.lock();
    done_ = true;
    stop_workers_ = true;
    work_cv_.notify_all();
    done_cv_.notify_all();
  }

  // Makes one report: flushes the producers' partly filled batches, waits
  // until every batch handed over so far is applied, merges the partials
  // in registration order into a fresh aggregator (in delta mode resetting
  // each partial under the same lock, so each line is in exactly one
  // report) and calls the callback.
  void Report(bool is_final) {
    std::vector<ProducerState*> producers;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!first_error_.ok()) return;
      producers.reserve(producers_.size());
      for (const auto& p : producers_) producers.push_back(p.get());
    }
    std::vector<uint64_t> cut(producers.size());
    for (size_t i = 0; i < producers.size(); ++i) {
      ProducerState* p = producers[i];
      std::lock_guard<std::mutex> buf_lock(p->buf_mu);
      std::unique_lock<std::mutex> lock(mu_);
      if (!p->buffer.empty()) {
        EnqueueLocked(p, lock, /*wait_for_room=*/false).IgnoreError();
      }
      cut[i] = p->enqueued;
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      reporter_waiting_ = true;
      applied_cv_.wait(lock, [&] {
        if (aborted_.load() || !first_error_.ok()) return true;
        for (size_t i = 0; i < producers.size(); ++i) {
          if (producers[i]->applied < cut[i]) return false;
        }
        return true;
      });
      reporter_waiting_ = false;
      if (aborted_.load() || !first_error_.ok()) return;
    }

    absl::StatusOr<std::unique_ptr<runtime::BatchAggregator>> merged =
        runtime::BatchAggregator::Create(plan_, options_.aggregator);
    if (!merged.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      SetErrorLocked(merged.status());
      return;
    }
    const bool delta = options_.mode == ReportMode::kDelta;
    for (ProducerState* p : producers) {
      std::lock_guard<std::mutex> partial_lock(p->partial_mu);
      absl::Status status = (*merged)->Merge(*p->partial);
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        SetErrorLocked(status);
        return;
      }
      if (delta) p->partial->Reset();
    }
    ResultTable result = (*merged)->Result();
    if (!is_final) {
      const uint64_t read = result.stats().lines_read;
      const bool unchanged = delta ? read == 0 : read == last_reported_read_;
      if (unchanged) return;
      last_reported_read_ = read;
    }
    if (aborted_.load()) return;
    callback_(result, is_final);
  }

  // ---- Immutable after construction.
  const std::shared_ptr<const plan::Plan> plan_;
  const TurboOptions options_;
  const ResultCallback callback_;
  const size_t num_workers_;
  const size_t max_queued_;
  const int64_t interval_ms_;  // < 0: no interval reports.

  // ---- Threads. Guarded by join_mu_ (set up by Start before any sharing).
  std::mutex join_mu_;
  std::vector<std::thread> workers_;
  std::thread reporter_;

  // ---- Reporter thread only.
  uint64_t last_reported_read_ = 0;

  // ---- Guarded by mu_ (the atomics are written under mu_ and may be read
  // without it).
  mutable std::mutex mu_;
  std::condition_variable work_cv_;      // ready_ or stop changed.
  std::condition_variable room_cv_;      // queued_ dropped, or error/abort.
  std::condition_variable applied_cv_;   // A batch was applied.
  std::condition_variable reporter_cv_;  // Sealed or a producer finished.
  std::condition_variable done_cv_;      // done_ or aborted_.
  std::vector<std::unique_ptr<ProducerState>> producers_;
  std::deque<ProducerState*> ready_;  // Producers with pending batches.
  std::vector<Batch> spare_;          // Recycled batch buffers.
  size_t queued_ = 0;                 // Batches in all `pending` queues.
  size_t finished_count_ = 0;
  bool sealed_ = false;
  bool done_ = false;  // The final report was made (or skipped on error).
  bool stop_workers_ = false;
  bool reporter_waiting_ = false;
  LineCounters stats_;
  absl::Status first_error_;
  std::atomic<bool> aborted_{false};
  std::atomic<bool> failed_{false};
};

}  // namespace turbo_internal

// ------------------------------------------------------------------ Producer

TurboAggregate::Producer::Producer(std::shared_ptr<turbo_internal::Core> core,
                                   turbo_internal::ProducerState* state)
    : core_(std::move(core)), state_(state) {}

TurboAggregate::Producer::~Producer() { core_->Finish(state_).IgnoreError(); }

absl::Status TurboAggregate::Producer::PushLine(std::string_view line) {
  return core_->Push(state_, std::span<const std::string_view>(&line, 1));
}

absl::Status TurboAggregate::Producer::PushLines(
    std::span<const std::string_view> lines) {
  return core_->Push(state_, lines);
}

absl::Status TurboAggregate::Producer::Finish() {
  return core_->Finish(state_);
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
TurboAggregate::AddProducer(SourceId source) {
  MAPR_ASSIGN_OR_RETURN(turbo_internal::ProducerState * state,
                        core_->AddProducer(source));
  return std::unique_ptr<Producer>(new Producer(core_, state));
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
