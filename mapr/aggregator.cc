#include "mapr/aggregator.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "mapr/internal/status_macros.h"
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

absl::Status Aggregator::Push(const LineBatch& batch) {
  MAPR_RETURN_IF_ERROR(CheckOpen("Push"));
  return impl_->Push(batch.lines, batch.source);
}

absl::Status Aggregator::PushLines(std::span<const std::string_view> lines,
                                   SourceId source) {
  MAPR_RETURN_IF_ERROR(CheckOpen("PushLines"));
  return impl_->Push(lines, source);
}

absl::Status Aggregator::PushBytes(std::string_view chunk, SourceId source) {
  MAPR_RETURN_IF_ERROR(CheckOpen("PushBytes"));
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
  return impl_->Push(lines, source);
}

absl::Status Aggregator::EndSource(SourceId source) {
  MAPR_RETURN_IF_ERROR(CheckOpen("EndSource"));
  return FlushSource(source);
}

absl::Status Aggregator::FlushSource(SourceId source) {
  auto it = splitters_.find(source);
  if (it == splitters_.end()) return absl::OkStatus();
  LineSplitter& splitter = it->second;
  uint64_t too_long = splitter.too_long_lines();
  std::optional<std::string_view> last = splitter.Finish();
  impl_->CountTooLong(splitter.too_long_lines() - too_long);
  absl::Status s;
  if (last.has_value()) s = impl_->Push({&*last, 1}, source);
  splitters_.erase(it);
  return s;
}

absl::Status Aggregator::Merge(Aggregator&& later) {
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
  // `later`'s unfinished last lines (PushBytes) belong to its state too.
  std::vector<SourceId> sources;
  for (const auto& [source, splitter] : later.splitters_) {
    sources.push_back(source);
  }
  std::sort(sources.begin(), sources.end());
  for (SourceId source : sources) {
    MAPR_RETURN_IF_ERROR(later.FlushSource(source));
  }
  MAPR_RETURN_IF_ERROR(impl_->Merge(*later.impl_));
  later.impl_.reset();
  return absl::OkStatus();
}

absl::StatusOr<ResultTable> Aggregator::Snapshot() const {
  if (impl_ == nullptr || phase_ == Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "Snapshot called after the result was taken");
  }
  return impl_->Result();
}

absl::StatusOr<ResultTable> Aggregator::TakeDelta() {
  if (impl_ == nullptr || phase_ == Phase::kResultTaken) {
    return absl::FailedPreconditionError(
        "TakeDelta called after the result was taken");
  }
  ResultTable r = impl_->Result();
  impl_->Reset();
  return r;
}

absl::Status Aggregator::FinishInput() {
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
  for (SourceId source : sources) status.Update(FlushSource(source));
  phase_ = Phase::kFinished;
  return status;
}

absl::StatusOr<ResultTable> Aggregator::TakeResult() {
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
  phase_ = Phase::kResultTaken;
  return impl_->Result();
}

LineCounters Aggregator::stats() const {
  return impl_ == nullptr ? LineCounters() : impl_->counters();
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
