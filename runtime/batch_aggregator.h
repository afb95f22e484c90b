// The vectorized engine behind mapr::Aggregator. Per batch: trim and table
// filter -> log format fills only the planned fields -> `set` steps `where`
// depends on -> `where` into a selection vector (runtime/filter.h) ->
// remaining `set` -> drop rows that give no select item a value -> group ids
// (runtime/group_lookup.h) -> one Update per aggregate state
// (runtime/aggregate.h). Results: runtime/result_builder.h. Scratch buffers
// live here and are reused by every batch.
#ifndef MAPR_RUNTIME_BATCH_AGGREGATOR_H_
#define MAPR_RUNTIME_BATCH_AGGREGATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/log_format.h"
#include "mapr/options.h"
#include "mapr/result.h"
#include "parser/plan.h"
#include "runtime/aggregate.h"
#include "runtime/batch_columns.h"
#include "runtime/filter.h"
#include "runtime/group_lookup.h"
#include "runtime/group_table.h"
#include "runtime/result_builder.h"
#include "runtime/time_functions.h"
#include "util/arena.h"

namespace mapr::runtime {

class TableFilteringParser;
class PartialCodec;

class BatchAggregator {
 public:
  static absl::StatusOr<std::unique_ptr<BatchAggregator>> Create(
      std::shared_ptr<const plan::Plan> plan, const AggregatorOptions& options);

  // Aggregates lines from `source`. Sticky ResourceExhausted on max_groups.
  // `line_padding`: bytes readable past the end of every line (0 or
  // kLinePadding), passed on to the format as FieldBatch::line_padding().
  //
  // With `multiline` (Plan::event_start) the lines are joined into events
  // first, per source: a line the rule says starts an event (or the first
  // line of a source) completes the source's pending event, and an event
  // is aggregated once complete. The last event of a source stays pending
  // until the next start, EndSource() or FlushEvents(): Result() leaves it
  // out. An event is one line to the counters; one longer than
  // max_line_bytes (its lines joined by '\n') is dropped and counted too
  // long, holding no more than that many bytes meanwhile. A single line
  // longer than that is dropped (and counted) by itself first, as a
  // LineSplitter drops it before it gets here: the event around it goes on.
  absl::Status Push(std::span<const std::string_view> lines, uint64_t source,
                    size_t line_padding = 0);
  // `multiline`: aggregates every source's pending event, in source order
  // (FinishInput, a merge of a whole aggregator, a final report).
  absl::Status FlushEvents();
  // True while some source has an event pending.
  bool has_pending_events() const { return !events_.empty(); }
  // Adds `later`'s state (same plan text required). With many groups the
  // look-ups of `later`'s groups in this table run on up to
  // AggregatorOptions::result_threads threads (one per
  // `min_groups_per_thread` of `later`'s groups), and the states combine on
  // as many, a state per thread; the groups' ids and the result are the
  // same for any number of threads.
  absl::Status Merge(const BatchAggregator& later) {
    return Merge(later, kMinGroupsPerResultThread);
  }
  absl::Status Merge(const BatchAggregator& later,
                     size_t min_groups_per_thread);
  // Renders the current state. ResourceExhausted if a window query's
  // windows are more than max_groups (JoinWindows); the state is unchanged.
  absl::StatusOr<ResultTable> Result() const {
    return Result(options_.result_threads);
  }
  // The same on up to `threads` threads (AggregatorOptions::result_threads),
  // one per `min_groups_per_thread` groups (BuildResult).
  absl::StatusOr<ResultTable> Result(
      size_t threads,
      size_t min_groups_per_thread = kMinGroupsPerResultThread) const;
  // Forgets all groups and counters.
  void Reset();
  // Drops the groups Result() would not show (ResultOrder: after `having`,
  // past the `limit`), keeping the count of those `having` kept for
  // Result()'s total_groups(); does nothing, and returns false, unless
  // ResultNeedsOnlyShownGroups(plan). Only for a state that no later input
  // will reach with a dropped group's key: a reducer joining disjoint
  // partitions, each complete. Result() is unchanged; merges of such
  // states add their dropped counts.
  absl::StatusOr<bool> KeepResultGroups();
  // Exchanges the groups, states, counters and field counts with `other`
  // (an aggregator of the same plan); the per-source parsers, names and
  // scratch stay. MergeSerialized uses it to merge an earlier partial:
  // earlier.Merge(*this), then SwapState(earlier).
  void SwapState(BatchAggregator& other);

  // Counts `n` lines dropped before reaching the engine for being too long
  // (a LineSplitter never buffers them whole).
  void CountTooLong(uint64_t n) {
    counters_.lines_read += n;
    counters_.lines_too_long += n;
  }

  // Names `source` for the $file variable (kept by Reset()).
  void SetSourceName(uint64_t source, std::string_view name) {
    source_names_[source] = std::string(name);
  }

  // Ends `source`'s input: aggregates its pending event (`multiline`) and
  // frees its parser, so a run over many sources holds parsers only for
  // those still open. Lines pushed for `source` later start a new input (a
  // csv source reads a header again; the first line starts an event).
  absl::Status EndSource(uint64_t source);
  // Drops `source`'s $file name (SetSourceName).
  void ForgetSourceName(uint64_t source) { source_names_.erase(source); }

  const LineCounters& counters() const { return counters_; }
  // The number (from 1, counting every line pushed and every too-long line
  // counted before it) of the first line the log format could not parse
  // (malformed or unmatched), or 0. Merge keeps this one's, else places
  // `later`'s after this one's lines; Reset() clears it.
  uint64_t first_unparsable_line() const { return first_unparsable_line_; }
  const AggregatorOptions& options() const { return options_; }
  const plan::Plan& plan() const { return *plan_; }

 private:
  class Fields;
  friend class PartialCodec;  // runtime/partial_codec.h

  BatchAggregator(std::shared_ptr<const plan::Plan> plan,
                  const AggregatorOptions& options,
                  std::shared_ptr<const LogFormat> format);

  // Push() of lines that are not joined into events.
  absl::Status PushLines(std::span<const std::string_view> lines,
                         uint64_t source, size_t line_padding);
  // Push() with `multiline`.
  absl::Status PushEvents(std::span<const std::string_view> lines,
                          uint64_t source, size_t line_padding);
  // Aggregates `source`'s pending event, if any, and forgets it.
  absl::Status FlushEvent(uint64_t source);
  absl::Status PushChunk(std::span<const std::string_view> in, uint64_t source);
  // Records the batch row `r` (of lines_) as the first unparsable line.
  void NoteFirstUnparsable(size_t r);
  // Trims `in`, counts and drops lines too long or of another table (unless
  // `table_parser` checks the table itself) into lines_; returns how many.
  size_t SelectLines(std::span<const std::string_view> in,
                     bool table_in_parser);
  // Runs the log format over lines_[0, rows) and selects the parsed rows.
  absl::Status ParseLines(size_t rows, uint64_t source,
                          TableFilteringParser* table_parser);
  void FillCommonVariables(uint64_t source);
  absl::StatusOr<LogFormatParser*> ParserFor(uint64_t source);
  void RunSets(const std::vector<plan::SetStep>& steps);
  // Applies call `f` to `values` (the selected rows' values), marking
  // unreadable_ rows.
  void ApplyCall(const plan::FunctionStep& f,
                 std::span<std::string_view> values);
  // A set expression's program over the selected rows, column by column;
  // marks unreadable_ rows (an unreadable value, a non-number under an
  // operator, a division by zero). The result: a column of columns_.
  std::span<std::string_view> EvalProgram(const plan::SetStep& step);
  absl::Status Aggregate();
  // Counts the selected rows' values that are not numbers, per field a
  // numeric aggregate reads (FieldCount::not_numeric).
  void CountNotNumeric();
  // Adds `count` values not numeric with the smallest `example` to
  // extracted field `index` (merges, partials).
  void MergeNotNumeric(size_t index, uint64_t count, std::string_view example);
  static constexpr size_t kMaxExampleBytes = 64;
  // Makes room in every state for the groups created so far.
  void ResizeStates();
  // Combines groups [0, groups) of `later` into merge_to_'s groups, on up
  // to `threads` threads (a state per thread). DataLoss naming the
  // aggregate if a count or sum overflows (CombineSlots): this state is
  // then unusable.
  absl::Status CombineStates(const BatchAggregator& later, uint32_t groups,
                             size_t threads = 1);
  // DataLoss naming the counter if a line counter, or a field's count of
  // lines or of values not numeric, would pass 2^64 - 1 added to
  // `later`'s (only partials from elsewhere get there).
  absl::Status CheckMergedCounts(const BatchAggregator& later) const;
  // Sets merge_to_[g] for `later`'s groups g in
  // [lo, hi): the group's id in this table, or GroupTable::kNotFound. Reads
  // the table only and writes only those slots, so disjoint slices may run
  // on several threads at once.
  void FindMergeTargets(const BatchAggregator& later, uint32_t lo, uint32_t hi);

  std::shared_ptr<const plan::Plan> plan_;
  AggregatorOptions options_;
  std::shared_ptr<const LogFormat> format_;
  std::vector<std::string> extracted_names_;
  absl::flat_hash_map<uint64_t, std::unique_ptr<LogFormatParser>> parsers_;

  // Constant values of the common variables.
  std::string hostname_;
  std::string timezone_;
  std::string timeoffset_;
  // $file per source (SetSourceName); unnamed sources have an empty $file.
  absl::flat_hash_map<uint64_t, std::string> source_names_;

  // ---- `multiline`: the unfinished event of each source. Its lines, joined
  // by '\n' (each without its '\r'), or nothing once it is too long.
  struct PendingEvent {
    std::string text;
    bool too_long = false;
  };
  absl::flat_hash_map<uint64_t, PendingEvent> events_;
  // PushEvents' scratch: the bytes of the events it joined, and where each
  // event is (an offset into event_bytes_, or a line it passes on as is).
  std::string event_bytes_;
  struct EventPiece {
    std::string_view line;  // A one-line event; else empty with data null.
    size_t offset = 0;
    size_t size = 0;
  };
  std::vector<EventPiece> event_pieces_;
  std::vector<std::string_view> event_views_;
  // Per batch row: the whole event, for $line (lines_ holds its first line,
  // which the format parses).
  std::vector<std::string_view> event_lines_;

  // ---- Per-batch scratch, reused; allocated by the first batch
  // (AllocateBatch), so an aggregator that only merges partials (one per
  // source in a reducer) does not hold a batch's columns.
  void AllocateBatch();
  bool batch_allocated_ = false;
  // The current Push()'s line_padding (FieldBatch::line_padding()).
  size_t line_padding_ = 0;
  std::vector<std::string_view> lines_;
  std::vector<LineOutcome> outcomes_;
  std::unique_ptr<bool[]> mismatch_;  // kMaxBatchRows; see TableFilteringParser
  BatchColumns batch_;
  RowFilter filter_;
  GroupLookup lookup_;
  // Every row of a batch has the same group key: the group-by fields are
  // common variables that FillCommonVariables gives one value per batch
  // (`*`, $empty, $hostname, $file, ...), and no `set` assigns them.
  bool one_group_key_ = false;
  // Every selected row contributes to some select item: one takes a
  // non-number argument that is never missing, such a per-batch value or
  // $line (count(*), count($line)).
  bool every_row_contributes_ = false;
  std::vector<uint32_t> gids_;
  util::Arena arena_;
  // time()/bucket(): the date memo, and a step's numeric bin widths.
  TimeReader time_reader_;
  // RunSets' scratch: a step's values and unreadable marks per selected
  // row, and EvalProgram's stack of columns.
  std::vector<std::string_view> values_;
  std::vector<uint8_t> unreadable_;
  std::vector<std::vector<std::string_view>> columns_;

  // ---- State.
  GroupTable groups_;
  // One state per plan slot (null where key_part_ >= 0).
  std::vector<std::unique_ptr<AggregateState>> states_;
  // Per slot: for last() or first() of a group-by field (`select host ... group
  // by host`), the index of that field in the key; such a slot keeps no
  // per-group state, its value is the group key part. Else -1.
  std::vector<int32_t> key_part_;
  // Merge's scratch: the group in this aggregator of each group of `later`.
  std::vector<uint32_t> merge_to_;
  LineCounters counters_;
  // Per extracted field (extracted_names_): parsed lines with a value.
  std::vector<uint64_t> field_lines_;
  // Per extracted field: values that were not numbers where a numeric
  // aggregate reads it (FieldCount::not_numeric), and the smallest of them
  // (its first kMaxExampleBytes bytes), which is merge-order independent.
  std::vector<uint64_t> field_not_numeric_;
  std::vector<std::string> field_example_;
  // first_unparsable_line(); the current batch's lines, to number it.
  uint64_t first_unparsable_line_ = 0;
  // Groups `having` kept that KeepResultGroups dropped.
  uint64_t dropped_groups_ = 0;
  std::span<const std::string_view> batch_in_;
  // The (field, extracted index) pairs that numeric aggregates read.
  std::vector<std::pair<plan::FieldId, size_t>> numeric_fields_;
  absl::Status sticky_error_;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_BATCH_AGGREGATOR_H_
