// mapr/aggregator.h: running a compiled query over log lines.
//
// An Aggregator consumes batches of lines, keeps one mergeable state per
// group, and produces ResultTables. One aggregator serves one input stream
// (or one partial of it); partials from other threads or processes are
// combined with Merge().
//
// Example:
//   absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(query);
//   if (!agg.ok()) return agg.status();
//   std::vector<std::string_view> lines = {"a", "b"};
//   absl::Status s = agg->PushLines(lines);  // any number of batches
//   s.Update(agg->FinishInput());
//   absl::StatusOr<mapr::ResultTable> result = agg->TakeResult();
//
// Lifetimes: the lines need to live only for the duration of the push call;
// the aggregator copies every group key and value it keeps. A ResultTable
// owns its strings.
//
// Thread safety: thread-compatible. One thread at a time may call a
// non-const method; use one aggregator per thread and Merge() them, or
// mapr::TurboAggregate for many producers. Debug builds (NDEBUG not
// defined) detect a call that overlaps a non-const call from another
// thread: it returns FailedPrecondition "aggregator used from two threads
// at once" and leaves the aggregator untouched (the check is one atomic
// operation per call; release builds skip it).
//
// Phases are enforced: PushLines/PushBytes/EndSource/Merge after
// FinishInput() and TakeResult() before it return FailedPrecondition.
// Snapshot() and TakeDelta() work in any phase before the result is taken.
//
// Failure is sticky. When PushLines, PushBytes, EndSource or Merge
// fails for a reason other than call order (FailedPrecondition) or a bad
// Merge argument (InvalidArgument) -- in practice ResourceExhausted from
// AggregatorOptions::max_groups, or an error of a host log format's
// NewParser -- the aggregator has failed and its result is void: the engine
// batch that hit the limit may be half applied, so no partial result is
// offered. Afterwards
//   * PushLines, PushBytes, EndSource, Merge, Snapshot, TakeDelta,
//     FinishInput and TakeResult return that same error (FinishInput still
//     ends the input phase; call-order errors still take precedence);
//   * stats() keeps returning the counters as they were before the failing
//     call: exactly the lines of every call that returned OK;
//   * the aggregator can be destroyed or moved from. To keep the groups it
//     had, take a Snapshot() (or a TakeDelta()) before the limit is reached;
//     to go on, create a new aggregator.
// A partial that failed can not be merged into another aggregator (Merge
// returns its error and leaves both untouched).
#ifndef MAPR_MAPR_AGGREGATOR_H_
#define MAPR_MAPR_AGGREGATOR_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/export.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr {

// Identifies an input source (a file, a socket). Formats with per-source
// state (CSV's header) keep one state per source.
using SourceId = uint64_t;

class MAPR_EXPORT Aggregator {
 public:
  // Creates an aggregator for `query`. Returns FailedPrecondition if the
  // query's log format is no longer registered. (Errors of the log
  // format's NewParser come later, from the push that brings a source's
  // first line.)
  static absl::StatusOr<Aggregator> Create(
      const Query& query, const AggregatorOptions& options = {});

  Aggregator(Aggregator&&) noexcept;
  Aggregator& operator=(Aggregator&&) noexcept;
  ~Aggregator();

  // Aggregates `lines` of input source `source`. Each line is a view
  // without its '\n'; a trailing '\r' and surrounding whitespace are
  // trimmed by the engine. Bad lines are counted, never errors. Returns
  // FailedPrecondition after FinishInput(); ResourceExhausted ("more than N
  // groups (AggregatorOptions::max_groups); ...") when a line would create
  // group max_groups + 1; the error of the log format's NewParser when the
  // first line of a source arrives. On ResourceExhausted or a NewParser
  // error the aggregator has failed (see "Failure is sticky" above).
  //
  // A `multiline` query joins each source's lines into events (its lines
  // up to the next line that starts one, joined by '\n'), the first line of
  // a source always starting one. An event is aggregated, and counted as
  // one line, once the next one starts, or at EndSource(), Merge() or
  // FinishInput(): until then Snapshot() and TakeDelta() leave it out.
  absl::Status PushLines(std::span<const std::string_view> lines,
                         SourceId source = 0);
  // The same for owned strings (`std::vector<std::string>`) and for a
  // braced list (`agg.PushLines({"a=1", "a=2"})`); no copy of the lines.
  absl::Status PushLines(std::span<const std::string> lines,
                         SourceId source = 0);
  absl::Status PushLines(std::initializer_list<std::string_view> lines,
                         SourceId source = 0) {
    return PushLines(
        std::span<const std::string_view>(lines.begin(), lines.size()), source);
  }

  // Names `source` (a file's path, say) for the `$file` variable. A source
  // never named has an empty $file. May be called at any time before
  // FinishInput(); later lines of the source see the new name. Returns
  // FailedPrecondition after FinishInput().
  absl::Status SetSourceName(SourceId source, std::string_view name);

  // Aggregates a chunk of raw bytes from `source`: complete lines are
  // aggregated now; an unfinished last line is kept (per source) until the
  // next chunk completes it, or until FinishInput()/EndSource(). Lines longer
  // than AggregatorOptions::max_line_bytes are counted as too long without
  // being buffered whole. Same errors as PushLines().
  absl::Status PushBytes(std::string_view chunk, SourceId source = 0);
  // Ends `source`: aggregates the unfinished last line of its byte stream,
  // if any, and frees its log format parser, so that an aggregator fed many
  // sources in turn holds one only for each source still open. Lines pushed
  // for `source` afterwards begin a new input: a csv source starts with its
  // header line again. Its name (SetSourceName) is kept. With a
  // `multiline` query it also completes the source's last event, and the
  // next line pushed starts one.
  absl::Status EndSource(SourceId source = 0);

  // Adds the state of `later` (a partial of the same query whose lines come
  // after this one's: its last() values win) and consumes it. If `later`'s
  // splits follow this one's (later.begin == this.end) the coverage grows
  // to include them; Merge checks no adjacency (MergeSerialized does); `later`
  // may be finished or not (its unfinished PushBytes lines are completed
  // first). With a `multiline` query the events pending on both sides are
  // completed, this one's first (the lines of events are read per source in
  // order; docs/query-language.md, "multiline"). Returns InvalidArgument if it
  // was created from a different query (then `later` is left untouched) or is
  // this aggregator itself; FailedPrecondition after this aggregator's
  // FinishInput(), or if `later`'s result was already taken; the error of
  // either aggregator if it has failed (both untouched); ResourceExhausted if
  // the merged groups would exceed max_groups (this aggregator has then
  // failed); DataLoss if a merged count or exact sum would overflow ("count(x)
  // overflows when merged: ...", "lines_read overflows when merged: ..."),
  // which only states read from hostile or broken partials reach (this
  // aggregator has then failed).
  absl::Status Merge(Aggregator&& later);

  // The cumulative result so far; the state is kept (DTail's dmap). Returns
  // FailedPrecondition after TakeResult(), or the error of a failed
  // aggregator; ResourceExhausted ("more than N groups (max_groups) once
  // hops are joined into windows; ...") if the result of a window() query
  // would hold more than max_groups windows: a line counts in w / h of
  // them, so they can outnumber the groups (hops) the aggregator holds.
  // That refusal is not sticky: the state stays as it was, and its
  // partial can still be taken.
  absl::StatusOr<ResultTable> Snapshot() const;
  // The result since the previous delta, and resets the state and counters
  // (DTail's tail mode). Same errors as Snapshot(); on error nothing is
  // reset.
  absl::StatusOr<ResultTable> TakeDelta();

  // Declares the end of input. FailedPrecondition if called twice; the
  // error of a failed aggregator (the input phase ends all the same).
  absl::Status FinishInput();
  // The final result. REQUIRES: FinishInput() was called; returns
  // FailedPrecondition otherwise, or if the result was already taken; the
  // error of a failed aggregator; Snapshot()'s ResourceExhausted for too
  // many windows (the result is then not taken).
  absl::StatusOr<ResultTable> TakeResult();

  // ---- Partials (mapr/partial.h, docs/partial-format.md)
  //
  // A partial is the aggregator's whole state as a MAPRPART frame: every
  // group (no order by, limit, ranks, avg division or outfile: those happen
  // only in the final result), the line counters and per-field counts, and
  // the input splits it covers (AggregatorOptions::splits, widened by
  // merges). The bytes of one pass and of any tree of adjacent merges over
  // the same splits are identical.

  // The aggregator's state as a frame. REQUIRES: FinishInput() was called;
  // returns FailedPrecondition otherwise, or after TakeResult(); the error
  // of a failed aggregator; FailedPrecondition for a state read from a
  // partition (FromPartial) that no longer is one: lines were pushed into
  // it, or another partition's state merged, so that it holds groups of
  // other partitions or (a partition but the first) line counters, which
  // its reader would refuse. The aggregator stays finished and can still
  // TakeResult().
  absl::StatusOr<std::string> SerializePartial() const;

  // The aggregator's state as `count` frames, one per partition of the
  // group-key space (docs/partial-format.md, hash-partitioned partials):
  // frame i holds the groups whose key hashes to i, and frame 0 also the
  // line counters, so that the frames add up to SerializePartial()'s. Each
  // partition is merged on its own (MergeSerialized refuses another
  // partition's frame), so a reducer per partition holds about 1/count of
  // the groups; mapr::PartialReducer (and `mapr reduce`) joins the
  // partitions into the result. Same phase rules and errors as
  // SerializePartial(); InvalidArgument unless 1 <= count <= 65536;
  // FailedPrecondition for a state read from a partition already.
  absl::StatusOr<std::vector<std::string>> SerializePartitions(
      uint32_t count) const;
  // Frame `index` of SerializePartitions(count) alone, for a caller that
  // writes one partition at a time (the C API). Same errors, and
  // InvalidArgument unless index < count.
  absl::StatusOr<std::string> SerializePartition(uint32_t count,
                                                 uint32_t index) const;

  // SerializePartial()'s frame, given to `write` a piece (about 1 MiB) at a
  // time instead of returned whole, for a state too large to hold twice
  // (`mapr map` and `combine` write binary partials this way). The state
  // sections are serialized twice: once to size the frame, whose header
  // holds its size, and once to write it. Returns the number of groups in
  // the frame; SerializePartial()'s errors; or write's first error (what
  // was written is then no frame).
  absl::StatusOr<uint64_t> WritePartial(
      absl::FunctionRef<absl::Status(std::string_view)> write) const;
  // SerializePartitions(count)'s frames the same way, in partition order,
  // through write(index, piece). Returns the number of groups in all.
  absl::StatusOr<uint64_t> WritePartitions(
      uint32_t count,
      absl::FunctionRef<absl::Status(uint32_t, std::string_view)> write) const;

  // Validates `frame`, then adds its state. It must come from the
  // same query and result-changing options (equal fingerprint; otherwise
  // InvalidArgument naming both queries) and cover splits adjacent to this
  // aggregator's: frame.begin == this.end (its lines come later: its last()
  // values win) or frame.end == this.begin (its lines come earlier: its
  // first() values win). Overlap is InvalidArgument ("split 3 would be
  // counted twice"); a gap is DataLoss ("missing splits 4-5"); the frame's
  // own errors are those of InspectPartial(). On any of these errors the
  // aggregator is untouched. A later frame's groups are read and merged a
  // chunk at a time (no second state of the frame's size is built), so
  // DataLoss for states malformed behind a valid checksum (a broken
  // writer, not a damaged file) after the first chunk leaves the aggregator
  // failed. ResourceExhausted if the merged groups would
  // exceed max_groups, DataLoss if merged counts or sums would overflow
  // (the aggregator has then failed, as in Merge());
  // FailedPrecondition after FinishInput(); the error of a failed
  // aggregator.
  absl::Status MergeSerialized(std::string_view frame);

  // An open aggregator holding `frame`'s state, for the frame's own query
  // (compiled from its stored text) and coverage. `options` give hostname
  // and max_groups; splits and max_line_bytes are taken from the frame (they
  // are part of what the partial means). Errors: those of InspectPartial();
  // InvalidArgument if the stored query no longer compiles to the same
  // fingerprint (another mapr's catalog, an unregistered log format);
  // ResourceExhausted if the frame holds more than options.max_groups
  // groups.
  static absl::StatusOr<Aggregator> FromPartial(
      std::string_view frame, const AggregatorOptions& options = {});

  // The streaming form for daemons: the partial of everything aggregated
  // since the previous TakeDeltaPartial() (or creation), then resets the
  // state and counters like TakeDelta(). Works while the aggregator is open
  // (FailedPrecondition after FinishInput()); the error of a failed
  // aggregator. Delta k (from 0) covers the split
  // [splits.begin + k, splits.begin + k + 1) of the options the aggregator
  // was created with, so a reducer can check that none is missing
  // (OutOfRange once splits.begin + k is 2^64 - 1: no split follows). Lines
  // that PushBytes() holds unfinished belong to a later delta.
  absl::StatusOr<std::string> TakeDeltaPartial();
  // The same, with `mark` in the frame (mapr/partial.h): the stream's last
  // delta (`final`) and how far its inputs were read, for a reducer's
  // status and a resuming reader. A final delta first completes what is
  // unfinished: PushBytes() lines and `multiline` events.
  absl::StatusOr<std::string> TakeDeltaPartial(const StreamMark& mark);

  // Counters so far; for a failed aggregator, as they were before the call
  // that failed.
  LineCounters stats() const;
  const Query& query() const { return query_; }

 private:
  struct Rep;  // The state (aggregator.cc); null once moved from.
  class UseGuard;
  friend class ScopedAggregatorUseForTesting;  // api/aggregator_testing.h
  friend class AggregatorInternal;             // api/aggregator_internal.h

  Aggregator(Query query, std::unique_ptr<Rep> rep);
  absl::Status CheckOpen(const char* method) const;
  absl::Status CheckPartitionable(const char* method, uint32_t count) const;
  // FailedPrecondition unless FinishInput() was called and the result not
  // taken; `after_taken` ends the message for the latter ("called twice").
  absl::Status CheckFinished(const char* method, const char* after_taken) const;
  absl::Status FlushSource(SourceId source);
  // Aggregates the pending `multiline` events of every source.
  absl::Status FlushPendingEvents();
  // Completes everything unfinished: each source's PushBytes line (in
  // source order), then the pending events.
  absl::Status FlushAll();
  // PushLines() and PushBytes() with FieldBatch::line_padding()
  // (mapr/log_format.h): the public calls pass 0, AggregatorInternal's
  // padded ones kLinePadding.
  absl::Status PushPaddedLines(std::span<const std::string_view> lines,
                               SourceId source, size_t line_padding);
  absl::Status PushPaddedBytes(std::string_view chunk, SourceId source,
                               size_t line_padding);
  // Returns `status`; if it is the first error, the aggregator fails with it
  // and stats() freezes at `before`.
  absl::Status Fail(absl::Status status, const LineCounters& before);

  Query query_;
  std::unique_ptr<Rep> rep_;
};

// Compiles `query`, aggregates `lines` as one source, finishes and returns
// the result: the one-call helper for tests and small tools.
//
// Example (a query plugin's unit test):
//   ASSERT_OK_AND_ASSIGN(mapr::ResultTable r,
//                        mapr::RunQuery("select count($line) group by *",
//                                       {"a", "b"}));
//   EXPECT_EQ(r.ToCsv(), "count($line)\n2\n");
MAPR_EXPORT absl::StatusOr<ResultTable> RunQuery(
    std::string_view query, std::span<const std::string_view> lines,
    const AggregatorOptions& options = {});
MAPR_EXPORT absl::StatusOr<ResultTable> RunQuery(
    std::string_view query, std::initializer_list<std::string_view> lines,
    const AggregatorOptions& options = {});
MAPR_EXPORT absl::StatusOr<ResultTable> RunQuery(
    std::string_view query, std::span<const std::string> lines,
    const AggregatorOptions& options = {});

// What the input layer saw beside the counters, for ResultNotesFor.
struct InputFacts {
  // Lines that contained a NUL byte (FilesReport::lines_with_nul).
  uint64_t lines_with_nul = 0;
  // FilesReport::inputs_without_parsed_lines.
  std::vector<std::string> inputs_without_parsed_lines;
  // FilesReport::first_unparsable_input and first_unparsable_line: named in
  // the note on a share of unparsable lines.
  std::string first_unparsable_input;
  uint64_t first_unparsable_line = 0;
};

// The notes (ResultNote) on a result of `query` with counters `stats` and
// field counts `fields`, read with lines of at most `max_line_bytes`: what
// ResultTable::notes() holds, for a host that keeps counters of its own
// (cumulative counters beside delta results, say). mapr::QueryFiles and
// the `mapr` command add `input` with what their input layer saw.
MAPR_EXPORT std::vector<ResultNote> ResultNotesFor(
    const Query& query, const LineCounters& stats,
    const std::vector<FieldCount>& fields, size_t max_line_bytes = 1024 * 1024,
    const InputFacts& input = {});

}  // namespace mapr

#endif  // MAPR_MAPR_AGGREGATOR_H_
