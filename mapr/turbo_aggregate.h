// mapr/turbo_aggregate.h: one query over many concurrent inputs, aggregated
// by a worker pool, with interval reports and an explicit end of input.
//
// A TurboAggregate is the multi-threaded, streaming form of mapr::Aggregator
// (docs/query-language.md, "interval"; the C++ answer to DTail's "turbo"
// aggregate). Each input (a file, a socket, stdin) registers a
// Producer and pushes lines into it from its own thread. Producers copy the
// lines into batches; worker threads aggregate the batches; a reporter thread
// calls the host back every interval with the cumulative result (DTail's
// dmap) or the delta since the previous report (DTail's tail mode), and once
// more, finally, when the input is complete.
//
// End of input is an explicit, counted contract, so nothing waits forever:
// the aggregate completes when FinishInput() has sealed the producer set AND
// every registered producer has finished (Producer::Finish() or its
// destructor). An aggregate with zero producers completes at once.
//
// Example:
//   auto turbo = mapr::TurboAggregate::Create(query, {}, PrintTable);
//   if (!turbo.ok()) return turbo.status();
//   auto producer = (*turbo)->AddProducer(/*source=*/1);  // one per input
//   if (!producer.ok()) return producer.status();
//   std::thread reader(ReadFile, path, *std::move(producer));  // PushLine...
//   absl::Status s = (*turbo)->FinishInput();  // waits for the producers
//   reader.join();
//
// Order and determinism (last() depends on line order):
//   * Each producer aggregates into its own partial state, in push order:
//     its batches are applied strictly in sequence, by one worker at a
//     time; different producers run in parallel. To spread one large input
//     over several cores, split it into producers registered in input order.
//   * Every report merges the partials in registration order. A cumulative
//     final result is exactly what one mapr::Aggregator returns for
//     producer 0's lines, then producer 1's, and so on (sums up to
//     floating-point rounding), whatever the timing and the number of
//     interval reports. A delta report is the same merge over the lines
//     since the previous report.
//
// Reports run on one reporter thread, never concurrently. A report includes
// every line whose PushLine(s) call returned before it started (the reporter
// flushes partly filled batches and waits until they are aggregated). No
// line is lost or counted twice: a cumulative report is a snapshot of
// everything so far; in delta mode each line is in exactly one report. An
// interval report is skipped when no line arrived since the previous one
// (as DTail sends no empty snapshots); the final report is always made
// unless the aggregate failed.
//
// Errors: unparsable lines are counted, never errors. A worker error
// (ResourceExhausted from AggregatorOptions::max_groups, or the error of a
// host log format's NewParser) is sticky: later batches are dropped,
// Producer calls and FinishInput() return it, and no further callback is
// made.
//
// Thread safety: TurboAggregate is thread-safe. A Producer is
// thread-compatible (one thread at a time; different producers from
// different threads). A Producer may outlive its TurboAggregate; its calls
// then return Cancelled.
#ifndef MAPR_MAPR_TURBO_AGGREGATE_H_
#define MAPR_MAPR_TURBO_AGGREGATE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mapr/aggregator.h"
#include "mapr/export.h"
#include "mapr/line_splitter.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr {

namespace turbo_internal {
class Core;
struct ProducerState;
}  // namespace turbo_internal

// What an interval report contains.
enum class ReportMode : uint8_t {
  // Everything aggregated so far; the state is kept (DTail's dmap).
  kCumulative,
  // Only what was aggregated since the previous report; the state is reset
  // after each report (DTail's tail mode). The final report holds the rest.
  kDelta,
};

struct MAPR_EXPORT TurboOptions {
  // ---- Behaviour

  // Options of every partial aggregator (hostname, limits). max_groups
  // applies to each producer's partial and to every merged report.
  AggregatorOptions aggregator;
  // Cumulative snapshots or deltas. Default: kCumulative.
  ReportMode mode = ReportMode::kCumulative;
  // Milliseconds between interval reports. 0 takes the query's `interval`
  // (Query::interval_ms(); `interval 0` means one second, as in DTail). A
  // negative value disables interval reports: only the final one is made.
  // Default: 0.
  int64_t interval_ms = 0;

  // ---- Limits and performance

  // Worker threads that aggregate batches, at most 1024. 0 means
  // std::thread::hardware_concurrency() (at least 1). Default: 0.
  int worker_threads = 0;
  // Lines a producer buffers before it hands a batch to the workers.
  // Must be at least 1. Default: 2048 (runtime's kMaxBatchRows).
  size_t batch_lines = 2048;
  // Batches queued for the workers (over all producers) before a
  // producer's PushLine(s) blocks until a worker takes one (backpressure).
  // 0 means twice the number of workers. Default: 0.
  size_t max_queued_batches = 0;
};

// Receives the reports. `result` is valid only during the call (copy it to
// keep it). `is_final` is true for the last call, made once unless the
// aggregate failed or was destroyed first. Runs on the aggregate's reporter
// thread, never concurrently with itself. It may call any method, including
// FinishInput() and the destructor (see there); it must not throw.
using ResultCallback =
    std::function<void(const ResultTable& result, bool is_final)>;

class MAPR_EXPORT TurboAggregate {
 public:
  // One input of the aggregate. Create it with AddProducer() before the
  // input starts, push its lines, then call Finish() (or destroy it).
  //
  // Thread safety: thread-compatible; used by one thread at a time.
  class MAPR_EXPORT Producer {
   public:
    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;
    // Finishes the producer if Finish() was not called (ignoring the
    // status), so a producer can never leave the aggregate waiting.
    ~Producer();

    // Copies `line` into the current batch; a full batch is handed to the
    // workers, which may block while max_queued_batches are queued. The
    // line needs to live only for the duration of the call. Returns
    // FailedPrecondition after Finish(), Cancelled if the aggregate was
    // destroyed, or the aggregate's sticky error (ResourceExhausted).
    absl::Status PushLine(std::string_view line);
    // PushLine() for each line, in order. Same return codes; on an error
    // the lines from the failing one on are not aggregated.
    absl::Status PushLines(std::span<const std::string_view> lines);
    // Raw bytes: cuts `chunk` into lines as Aggregator::PushBytes does and
    // pushes the complete ones; an unfinished last line is kept until a
    // later chunk completes it or Finish() pushes it. Lines longer than
    // AggregatorOptions::max_line_bytes are counted as too long without
    // being buffered whole. Same return codes as PushLines(). Lines given to
    // PushLine(s) in between are pushed at once, not after the kept line.
    absl::Status PushBytes(std::string_view chunk);

    // Declares the end of this input: pushes the unfinished last line of
    // PushBytes, if any, hands the partly filled batch to the
    // workers and counts the producer as finished. Does not wait for the
    // lines to be aggregated. Returns FailedPrecondition when called twice
    // (the first call stands), Cancelled if the aggregate was destroyed, or
    // the aggregate's sticky error; in every case but the second call the
    // producer is finished afterwards.
    absl::Status Finish();

    // The SourceId given to AddProducer().
    SourceId source() const;
    // 0-based registration index; reports merge producers in this order.
    size_t index() const;

   private:
    friend class TurboAggregate;
    Producer(std::shared_ptr<turbo_internal::Core> core,
             turbo_internal::ProducerState* state, size_t max_line_bytes);

    std::shared_ptr<turbo_internal::Core> core_;
    turbo_internal::ProducerState* state_;  // Owned by core_.
    size_t max_line_bytes_;
    std::unique_ptr<LineSplitter> splitter_;  // Created by the first PushBytes.
  };

  // Creates the aggregate and starts its worker and reporter threads.
  // Returns InvalidArgument if `callback` is empty, worker_threads is
  // outside [0, 1024] or batch_lines is 0; FailedPrecondition if the
  // query's log format is no longer registered (as Aggregator::Create);
  // ResourceExhausted if a thread cannot be started.
  static absl::StatusOr<std::unique_ptr<TurboAggregate>> Create(
      const Query& query, const TurboOptions& options, ResultCallback callback);

  TurboAggregate(const TurboAggregate&) = delete;
  TurboAggregate& operator=(const TurboAggregate&) = delete;

  // Stops every thread and returns; never waits for producers. If the final
  // report was not made yet it is not made (a report running at that
  // moment is waited for). Unfinished producers stay valid; their calls
  // return Cancelled. May be called from inside the callback (the reporter
  // thread then ends when the callback returns).
  ~TurboAggregate();

  // Registers one input. `source` is handed to the log format with the
  // lines (per-source state such as the CSV header is kept per producer in
  // any case); `source_name` (a file's path, say) is its `$file` value.
  // Producers are numbered in registration order, which is the order reports
  // merge them in. The producer must be finished (Finish() or destruction) even
  // if it never pushes a line, or FinishInput() waits for it. Returns
  // FailedPrecondition after FinishInput() sealed the producer set, or the
  // aggregate's sticky error.
  absl::StatusOr<std::unique_ptr<Producer>> AddProducer(
      SourceId source = 0, std::string_view source_name = {});

  // Declares the end of input and waits for the final report:
  //   1. seals the producer set (AddProducer then fails);
  //   2. waits until every registered producer has finished;
  //   3. the reporter aggregates every pending batch, merges the partials
  //      in registration order and calls the callback with is_final = true;
  //   4. stops the threads and returns OK, or the sticky error (then no
  //      final report was made).
  // With zero producers it completes at once. Producers may keep pushing
  // from other threads until they finish.
  //
  // May be called again, from any thread: every later call waits the same
  // way and returns the same final status (an OK no-op once complete).
  //
  // Called from inside the callback it only seals and returns OK at once;
  // the final report follows after the current callback returns (once all
  // producers have finished).
  //
  // REQUIRES: the calling thread owns no unfinished Producer of this
  // aggregate (it would wait for itself); FinishInputWithin() bounds the
  // wait.
  absl::Status FinishInput();

  // FinishInput() that waits at most `timeout`. Returns DeadlineExceeded if
  // the aggregate did not complete in time: the producer set stays sealed
  // and the aggregate keeps running, so call it (or FinishInput()) again, or
  // destroy the aggregate to abandon it. Other codes as FinishInput().
  absl::Status FinishInputWithin(absl::Duration timeout);

  // Counters of the lines aggregated so far, over the whole run (delta
  // reports do not reset them). Lines still buffered in a producer or
  // queued for a worker are not counted yet; once FinishInput() returned
  // OK every pushed line is accounted for.
  LineCounters stats() const;

 private:
  explicit TurboAggregate(std::shared_ptr<turbo_internal::Core> core);

  std::shared_ptr<turbo_internal::Core> core_;
};

}  // namespace mapr

#endif  // MAPR_MAPR_TURBO_AGGREGATE_H_
