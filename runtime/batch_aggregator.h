// The vectorized engine behind mapr::Aggregator. Per batch: trim and table
// filter -> log format fills only the planned fields -> `set` steps `where`
// depends on -> `where` into a selection vector -> remaining `set` -> drop
// rows that give no select item a value -> XXH3 group keys -> group ids ->
// one templated update loop per aggregate slot. Scratch buffers live here and
// are reused by every batch.
#ifndef MAPR_RUNTIME_BATCH_AGGREGATOR_H_
#define MAPR_RUNTIME_BATCH_AGGREGATOR_H_

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
#include "runtime/aggregate_ops.h"
#include "util/arena.h"
#include "runtime/group_table.h"

namespace mapr::runtime {

using util::Arena;

class BatchAggregator {
 public:
  static absl::StatusOr<std::unique_ptr<BatchAggregator>> Create(
      std::shared_ptr<const plan::Plan> plan, const AggregatorOptions& options);

  // Aggregates lines from `source`. Sticky ResourceExhausted on max_groups.
  absl::Status Push(std::span<const std::string_view> lines, uint64_t source);
  // Adds `later`'s state (same plan text required).
  absl::Status Merge(BatchAggregator& later);
  // Renders the current state.
  ResultTable Result() const;
  // Forgets all groups and counters.
  void Reset();

  // Counts `n` lines dropped before reaching the engine for being too long
  // (a LineSplitter never buffers them whole).
  void CountTooLong(uint64_t n) {
    counters_.lines_read += n;
    counters_.lines_too_long += n;
  }

  const LineCounters& counters() const { return counters_; }
  const AggregatorOptions& options() const { return options_; }
  const plan::Plan& plan() const { return *plan_; }

 private:
  class Fields;

  BatchAggregator(std::shared_ptr<const plan::Plan> plan,
                  const AggregatorOptions& options,
                  std::shared_ptr<const LogFormat> format);

  absl::Status PushChunk(std::span<const std::string_view> lines,
                         uint64_t source);
  absl::StatusOr<LogFormatParser*> ParserFor(uint64_t source);
  std::string_view* Column(plan::FieldId f) {
    return values_.data() + static_cast<size_t>(f) * kMaxBatchRows;
  }
  const std::string_view* Column(plan::FieldId f) const {
    return values_.data() + static_cast<size_t>(f) * kMaxBatchRows;
  }
  // Parses field `f` as numbers for rows [0, rows_) once per batch.
  void EnsureNumeric(plan::FieldId f);
  void RunSets(const std::vector<plan::SetStep>& steps);
  // Keeps the rows of sel_ for which `c` holds.
  void Filter(const plan::Condition& c);
  void Evaluate(const plan::Condition& c, const uint32_t* rows, size_t n,
                uint8_t* out, size_t depth);
  absl::Status Aggregate();
  absl::Status AssignGroups();

  std::shared_ptr<const plan::Plan> plan_;
  AggregatorOptions options_;
  std::shared_ptr<const LogFormat> format_;
  std::vector<std::string> extracted_names_;
  absl::flat_hash_map<uint64_t, std::unique_ptr<LogFormatParser>> parsers_;

  // Constant values of the common variables.
  std::string hostname_;
  std::string timezone_;
  std::string timeoffset_;

  // ---- Per-batch scratch, reused.
  size_t rows_ = 0;  // Dense rows that reached the format.
  std::vector<std::string_view> lines_;
  std::vector<LineOutcome> outcomes_;
  std::unique_ptr<bool[]> mismatch_;  // kMaxBatchRows; see TableFilteringParser
  std::vector<std::string_view> values_;  // field-major, kMaxBatchRows each
  std::vector<double> numbers_;
  std::vector<uint8_t> numeric_;
  std::vector<uint64_t> numeric_epoch_;
  uint64_t epoch_ = 0;
  std::vector<uint32_t> sel_;
  size_t sel_size_ = 0;
  std::vector<std::vector<uint8_t>> masks_;  // by nesting depth
  std::vector<uint8_t> result_;
  std::vector<uint32_t> gids_;
  std::vector<uint64_t> hashes_;
  std::vector<uint8_t> same_key_;  // 1: as the row before; 2: memo hit
  // A direct-mapped memo of single group keys of up to 16 bytes -> group
  // id: a hit costs two word compares instead of hashing and a table
  // lookup (Q1's 50 hostnames). Cleared with the groups; paused for a
  // while when it mostly misses (a million sessions).
  struct KeyMemo {
    uint64_t w0 = 0, w1 = 0;
    uint32_t size = UINT32_MAX;  // UINT32_MAX: empty
    uint32_t gid = 0;
  };
  static constexpr size_t kKeyMemoSize = 1024;
  static constexpr uint16_t kNoMemoSlot = 0xffff;
  std::vector<KeyMemo> key_memo_;
  std::vector<uint16_t> memo_slot_;  // Per row: the slot to fill, if any.
  uint32_t memo_pause_ = 0;          // Batches left without the memo.
  bool memo_warm_ = false;           // A batch has filled it since a reset.
  std::string key_scratch_;
  std::string prev_key_scratch_;
  std::vector<int32_t> last_row_;
  Arena arena_;

  // ---- State.
  GroupTable groups_;
  std::vector<SlotState> slots_;
  // Per slot: for a last() of a group-by field (`select host ... group by
  // host`), the index of that field in the key; such a slot keeps no
  // per-group state, its value is the group key part. Else -1.
  std::vector<int32_t> key_part_;
  LineCounters counters_;
  absl::Status sticky_error_;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_BATCH_AGGREGATOR_H_
