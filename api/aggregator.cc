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
#include "api/aggregator_rep.h"
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
  if (s.ok()) {
    // Its pending `multiline` event is complete now.
    const LineCounters before = rep_->engine->counters();
    s = Fail(rep_->engine->EndSource(source), before);
  }
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

absl::Status Aggregator::FlushPendingEvents() {
  runtime::BatchAggregator& engine = *rep_->engine;
  if (!engine.has_pending_events()) return absl::OkStatus();
  const LineCounters before = engine.counters();
  return Fail(engine.FlushEvents(), before);
}

absl::Status Aggregator::FlushAll() {
  std::vector<SourceId> sources;
  sources.reserve(rep_->splitters.size());
  for (const auto& [source, splitter] : rep_->splitters) {
    sources.push_back(source);
  }
  std::sort(sources.begin(), sources.end());
  for (SourceId source : sources) MAPR_RETURN_IF_ERROR(FlushSource(source));
  return FlushPendingEvents();
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
  // `multiline` events pending on either side are complete: this one's
  // come before `later`'s lines. `later`'s unfinished last lines
  // (PushBytes) belong to its state too.
  MAPR_RETURN_IF_ERROR(FlushPendingEvents());
  MAPR_RETURN_IF_ERROR(later.FlushAll());
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
  // A result the engine refuses (more windows than max_groups) leaves the
  // input since the last delta in place.
  absl::StatusOr<ResultTable> r = rep_->engine->Result();
  if (r.ok()) rep_->engine->Reset();
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
  if (rep_->error.ok()) status = FlushAll();
  rep_->phase = Rep::Phase::kFinished;
  return rep_->error.ok() ? status : rep_->error;
}

absl::StatusOr<ResultTable> Aggregator::TakeResult() {
  UseGuard use(*this, /*mutating=*/true);
  MAPR_RETURN_IF_ERROR(use.status());
  MAPR_RETURN_IF_ERROR(CheckFinished("TakeResult", "called twice"));
  if (!rep_->error.ok()) return rep_->error;
  rep_->phase = Rep::Phase::kResultTaken;
  absl::StatusOr<ResultTable> r = rep_->engine->Result();
  // A refused result (more windows than max_groups) leaves the aggregator
  // finished: its partial can still be taken.
  if (!r.ok()) rep_->phase = Rep::Phase::kFinished;
  return r;
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
