// Aggregator's partials: serializing (whole, by partition, as deltas),
// merging frames chunk by chunk, and aggregators read from partials
// (mapr/aggregator.h, docs/partial-format.md).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/aggregator_internal.h"
#include "api/aggregator_rep.h"
#include "api/query_internal.h"
#include "mapr/aggregator.h"
#include "parser/planner.h"
#include "runtime/batch_aggregator.h"
#include "runtime/partial_codec.h"
#include "util/status_macros.h"
#include "util/strings.h"

namespace mapr {
namespace {

// MergeSerialized reads a later frame this many groups at a time (a few MiB
// of decoded states), merging each chunk before it reads the next.
constexpr uint32_t kMergeChunkGroups = uint32_t{1} << 16;

}  // namespace

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

namespace {

// "partial of another run: run 'b' cannot merge with run 'a'<tail>" when
// the names of two partials' runs (or sources) differ.
absl::Status CheckSameName(std::string_view what, std::string_view none,
                           std::string_view mine, std::string_view theirs,
                           std::string_view tail) {
  if (mine == theirs) return absl::OkStatus();
  auto name = [&](std::string_view n) {
    return n.empty()
               ? std::string(none)
               : absl::StrCat(util::ToAbsl(what), " '", util::ToAbsl(n), "'");
  };
  return absl::InvalidArgumentError(absl::StrCat(
      "partial of another ", util::ToAbsl(what), ": ", name(theirs),
      " cannot merge with ", name(mine), util::ToAbsl(tail)));
}

}  // namespace

absl::Status CheckSameRun(std::string_view mine, std::string_view theirs) {
  return CheckSameName("run", "no run id", mine, theirs,
                       "; a partial left by an earlier run? write each run's "
                       "partials to a fresh folder");
}

namespace {

// Why partials of sources `mine` and `theirs` cannot merge, if they cannot.
absl::Status CheckSameSource(std::string_view mine, std::string_view theirs) {
  return CheckSameName("source", "no source", mine, theirs,
                       " (each source numbers its splits; "
                       "mapr::PartialReducer and mapr reduce merge whole "
                       "sources)");
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
  if (rep_->partition.has_value()) {
    MAPR_RETURN_IF_ERROR(runtime::PartialCodec::CheckWritableAs(
        *rep_->engine, *rep_->partition));
  }
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
  if (rep_->partition.has_value()) {
    MAPR_RETURN_IF_ERROR(runtime::PartialCodec::CheckWritableAs(
        *rep_->engine, *rep_->partition));
  }
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
  // A query with lookup() reads its tables again (their hashes are in the
  // fingerprint checked below), but only from the folder the caller names:
  // the query comes with the partial, from elsewhere.
  compile.allow_file_lookups = !options.partial_lookup_dir.empty();
  compile.lookup_dir = options.partial_lookup_dir;
  if (f.state_options) {
    compile.percentile_exact_values = f.state_options->percentile_exact_values;
    compile.percentile_accuracy = f.state_options->percentile_accuracy;
  }
  absl::StatusOr<Query> query = Query::Compile(f.query, compile);
  if (!query.ok()) {
    // The first line only: the hint below it may quote a table's content.
    std::string_view why = util::ToStd(query.status().message());
    why = why.substr(0, why.find('\n'));
    if (why.find(parser::kLookupNotAllowed) != std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the partial's query '", util::ToAbsl(f.query),
          "' reads lookup() tables: a partial's query reads files only from "
          "the folder the caller allows (AggregatorOptions::"
          "partial_lookup_dir; mapr --lookup-dir DIR)"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("the partial's query '", util::ToAbsl(f.query),
                     "' does not compile: ", util::ToAbsl(why)));
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
  // The stream's last delta holds every line: the unfinished last lines
  // of PushBytes and the pending `multiline` events too.
  if (mark.final) MAPR_RETURN_IF_ERROR(FlushAll());
  const uint64_t split = engine.options().splits.begin + rep_->deltas;
  // [split, split + 1) must be a split: none follows 2^64 - 2.
  if (split == UINT64_MAX || split < engine.options().splits.begin) {
    return absl::OutOfRangeError(
        absl::StrCat("TakeDeltaPartial: no split follows split ", split - 1));
  }
  std::string out =
      runtime::PartialCodec::Encode(engine, {split, split + 1}, mark);
  engine.Reset();
  ++rep_->deltas;
  return out;
}

}  // namespace mapr
