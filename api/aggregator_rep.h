// Aggregator's state and its concurrent-use guard, shared by the files
// that implement the class (aggregator.cc: the API; aggregator_partial.cc:
// partials). Private to api/.
#ifndef MAPR_API_AGGREGATOR_REP_H_
#define MAPR_API_AGGREGATOR_REP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "mapr/aggregator.h"
#include "mapr/line_splitter.h"
#include "runtime/batch_aggregator.h"

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

// The concurrent-use detector (debug builds).

namespace aggregator_internal {

#ifdef NDEBUG
inline constexpr bool kDetectConcurrentUse = false;
#else
inline constexpr bool kDetectConcurrentUse = true;
#endif

inline constexpr char kConcurrentUse[] =
    "aggregator used from two threads at once";

}  // namespace aggregator_internal

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
    if (!aggregator_internal::kDetectConcurrentUse || count_ == nullptr) return;
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
    if (!aggregator_internal::kDetectConcurrentUse || count_ == nullptr ||
        !entered_)
      return;
    if (mutating_) {
      count_->store(0, std::memory_order_release);
    } else {
      count_->fetch_sub(1, std::memory_order_release);
    }
  }

  // FailedPrecondition if another thread is inside the aggregator.
  absl::Status status() const {
    if (!entered_)
      return absl::FailedPreconditionError(aggregator_internal::kConcurrentUse);
    return absl::OkStatus();
  }

 private:
  std::atomic<int>* const count_;  // Null for a moved-from aggregator.
  const bool mutating_;
  bool entered_ = true;
};

}  // namespace mapr

#endif  // MAPR_API_AGGREGATOR_REP_H_
