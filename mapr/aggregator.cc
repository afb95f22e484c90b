#include "mapr/aggregator.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"
#include "runtime/batch_aggregator.h"

namespace mapr {

absl::StatusOr<Aggregator> Aggregator::Create(
    const Query& query, const AggregatorOptions& options) {
  // The plan is shared with the query (an aliasing shared_ptr would need the
  // query's control block; copying the Query keeps it alive instead).
  auto plan = std::shared_ptr<const plan::Plan>(std::make_shared<Query>(query),
                                                &query.plan());
  MAPR_ASSIGN_OR_RETURN(std::unique_ptr<runtime::BatchAggregator> impl,
                        runtime::BatchAggregator::Create(plan, options));
  return Aggregator(query, std::move(impl));
}

Aggregator::Aggregator(Query query,
                       std::unique_ptr<runtime::BatchAggregator> impl)
    : query_(std::move(query)), impl_(std::move(impl)) {}
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

}  // namespace

// Enters the aggregator for one API call: exclusively for a non-const call,
// shared for Snapshot(). A call that overlaps a non-const call from another
// thread (or a non-const call that overlaps any call) fails instead of
// racing. One atomic operation per call, never per line; nothing at all in
// release builds.
class Aggregator::UseGuard {
 public:
  UseGuard(const Aggregator& aggregator, bool mutating)
      : count_(aggregator.use_.value), mutating_(mutating) {
    if (!kDetectConcurrentUse) return;
    int n = 0;
    if (mutating_) {
      entered_ =
          count_.compare_exchange_strong(n, -1, std::memory_order_acquire);
      return;
    }
    n = count_.load(std::memory_order_relaxed);
    while (n >= 0 &&
           !count_.compare_exchange_weak(n, n + 1, std::memory_order_acquire)) {
    }
    entered_ = n >= 0;
  }
  UseGuard(const UseGuard&) = delete;
  UseGuard& operator=(const UseGuard&) = delete;
  ~UseGuard() {
    if (!kDetectConcurrentUse || !entered_) return;
    if (mutating_) {
      count_.store(0, std::memory_order_release);
    } else {
      count_.fetch_sub(1, std::memory_order_release);
    }
  }

  // FailedPrecondition if another thread is inside the aggregator.
  absl::Status status() const {
    if (!entered_) return absl::FailedPreconditionError(kConcurrentUse);
    return absl::OkStatus();
  }

 private:
  std::atomic<int>& count_;
  const bool mutating_;
  bool entered_ = true;
};

ScopedAggregatorUseForTesting::ScopedAggregatorUseForTesting(
    Aggregator& aggregator, bool mutating)
    : aggregator_(aggregator), mutating_(mutating) {
  std::atomic<int>& count = aggregator_.use_.value;
  if (mutating_) {
    count.store(-1, std::memory_order_release);
  } else {
    count.fetch_add(1, std::memory_order_acq_rel);
  }
}

ScopedAggregatorUseForTesting::~ScopedAggregatorUseForTesting() {
  std::atomic<int>& count = aggregator_.use_.value;
  if (mutating_) {
    count.store(0, std::memory_order_release);
  } else {
    count.fetch_sub(1, std::memory_order_acq_rel);
  }
}

// ---- The API

absl::Status Aggregator::CheckOpen(const char* method) const {
  if (impl_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(method, " called on a moved-from Aggregator"));
  }
  if (phase_ != Phase::kOpen) {
    return absl::FailedPreconditionError(absl::StrCat(
        method, " called after FinishInput(); the aggregator is ",
        phase_ == Phase::kFinished ? "finished"
                                   : "finished and its result taken"));
  }
  return absl::OkStatus();
}

absl::Status Aggregator::Fail(absl::Status status, const LineCounters& before) {
  if (!status.ok() && error_.ok()) {
    error_ = status;
    failed_stats_ = before;
  }
  return status;
}

absl::Status Aggregator::Push(const LineBatch& batch) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("Push"));
  if (!error_.ok()) return error_;
  const LineCounters before = impl_->counters();
  return Fail(impl_->Push(batch.lines, batch.source), before);
}

absl::Status Aggregator::PushLines(std::span<const std::string_view> lines,
                                   SourceId source) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("PushLines"));
  if (!error_.ok()) return error_;
  const LineCounters before = impl_->counters();
  return Fail(impl_->Push(lines, source), before);
}

absl::Status Aggregator::PushBytes(std::string_view chunk, SourceId source) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("PushBytes"));
  if (!error_.ok()) return error_;
  const LineCounters before = impl_->counters();
  auto it = splitters_.find(source);
  if (it == splitters_.end()) {
    it = splitters_
             .emplace(source, LineSplitter(impl_->options().max_line_bytes))
             .first;
  }
  LineSplitter& splitter = it->second;
  uint64_t too_long = splitter.too_long_lines();
  std::span<const std::string_view> lines = splitter.Split(chunk);
  impl_->CountTooLong(splitter.too_long_lines() - too_long);
  return Fail(impl_->Push(lines, source), before);
}

absl::Status Aggregator::EndSource(SourceId source) {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckOpen("EndSource"));
  if (!error_.ok()) return error_;
  return FlushSource(source);
}

absl::Status Aggregator::FlushSource(SourceId source) {
  auto it = splitters_.find(source);
  if (it == splitters_.end()) return absl::OkStatus();
  const LineCounters before = impl_->counters();
  LineSplitter& splitter = it->second;
  uint64_t too_long = splitter.too_long_lines();
  std::optional<std::string_view> last = splitter.Finish();
  impl_->CountTooLong(splitter.too_long_lines() - too_long);
  absl::Status s;
  if (last.has_value()) s = impl_->Push({&*last, 1}, source);
  splitters_.erase(it);
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
  if (later.impl_ == nullptr) {
    return absl::FailedPreconditionError("Merge of a moved-from Aggregator");
  }
  if (later.phase_ == Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "Merge of an aggregator whose result was already taken");
  }
  if (&later == this) {
    // Merging would double every state, then destroy this aggregator's own.
    return absl::InvalidArgumentError("Merge of an aggregator into itself");
  }
  if (later.impl_->plan().canonical != impl_->plan().canonical) {
    return impl_->Merge(*later.impl_);  // InvalidArgument; `later` is kept.
  }
  // Errors of either side; `later` is kept and this one stays usable.
  if (!error_.ok()) return error_;
  if (!later.error_.ok()) return later.error_;
  // `later`'s unfinished last lines (PushBytes) belong to its state too.
  std::vector<SourceId> sources;
  for (const auto& [source, splitter] : later.splitters_) {
    sources.push_back(source);
  }
  std::sort(sources.begin(), sources.end());
  for (SourceId source : sources) {
    MAPR_RETURN_IF_ERROR(later.FlushSource(source));
  }
  const LineCounters before = impl_->counters();
  MAPR_RETURN_IF_ERROR(Fail(impl_->Merge(*later.impl_), before));
  later.impl_.reset();
  return absl::OkStatus();
}

absl::StatusOr<ResultTable> Aggregator::Snapshot() const {
  UseGuard use(*this, /*mutating=*/false);
  MAPR_RETURN_IF_ERROR(use.status());
  if (impl_ == nullptr || phase_ == Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "Snapshot called after the result was taken");
  }
  if (!error_.ok()) return error_;
  return impl_->Result();
}

absl::StatusOr<ResultTable> Aggregator::TakeDelta() {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  if (impl_ == nullptr || phase_ == Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "TakeDelta called after the result was taken");
  }
  if (!error_.ok()) return error_;
  ResultTable r = impl_->Result();
  impl_->Reset();
  return r;
}

absl::Status Aggregator::FinishInput() {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  if (impl_ == nullptr) {
    return absl::FailedPreconditionError(
        "FinishInput called on a moved-from Aggregator");
  }
  if (phase_ != Phase::kOpen) {
    return absl::FailedPreconditionError("FinishInput called twice");
  }
  absl::Status status;
  std::vector<SourceId> sources;
  for (const auto& [source, splitter] : splitters_) sources.push_back(source);
  std::sort(sources.begin(), sources.end());
  if (error_.ok()) {
    for (SourceId source : sources) status.Update(FlushSource(source));
  }
  phase_ = Phase::kFinished;
  return error_.ok() ? status : error_;
}

absl::StatusOr<ResultTable> Aggregator::TakeResult() {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  if (impl_ == nullptr) {
    return absl::FailedPreconditionError(
        "TakeResult called on a moved-from Aggregator");
  }
  if (phase_ == Phase::kOpen) {
    return absl::FailedPreconditionError(
        "TakeResult called before FinishInput()");
  }
  if (phase_ == Phase::kResultTaken) {
    return absl::FailedPreconditionError("TakeResult called twice");
  }
  if (!error_.ok()) return error_;
  phase_ = Phase::kResultTaken;
  return impl_->Result();
}

LineCounters Aggregator::stats() const {
  if (impl_ == nullptr) return LineCounters();
  return error_.ok() ? impl_->counters() : failed_stats_;
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

absl::StatusOr<ResultTable> RunQuery(
    std::string_view query, std::initializer_list<std::string_view> lines,
    const AggregatorOptions& options) {
  return RunQuery(
      query, std::span<const std::string_view>(lines.begin(), lines.size()),
      options);
}

}  // namespace mapr
