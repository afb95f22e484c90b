// Batch group lookup: the group id of every selected row of a batch, from
// its group-by fields, into a GroupTable (creating groups as needed). Its
// scratch (hashes, repeat marks, the short-key memo) lives here, reused by
// every batch.
#ifndef MAPR_RUNTIME_GROUP_LOOKUP_H_
#define MAPR_RUNTIME_GROUP_LOOKUP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "parser/plan.h"
#include "runtime/batch_columns.h"
#include "runtime/group_table.h"

namespace mapr::runtime {

class GroupLookup {
 public:
  GroupLookup();

  // gids[i] = the group of row batch.sel[i] for i < batch.sel_size.
  // ResourceExhausted when a new group would exceed `max_groups` (0: no
  // limit); the groups created before that row stay. `one_key`: every row
  // of the batch has the same key (the group-by fields are per-batch
  // constants, as `*`, $hostname or $file), so only the first is looked up.
  absl::Status Assign(const std::vector<plan::FieldId>& group_by,
                      BatchColumns& batch, uint64_t max_groups,
                      GroupTable& groups, uint32_t* gids, bool one_key);

  // Forgets the memo (with the groups it points to).
  void Reset();

 private:
  // Assign() for the first `rows` selected rows.
  absl::Status AssignSingleKey(const std::string_view* column,
                               BatchColumns& batch, size_t rows,
                               uint64_t max_groups, GroupTable& groups,
                               uint32_t* gids);
  absl::Status AssignMultiKey(const std::vector<plan::FieldId>& group_by,
                              BatchColumns& batch, size_t rows,
                              uint64_t max_groups, GroupTable& groups,
                              uint32_t* gids);

  // Sizes the buffers below (the first Assign).
  void Allocate();

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
  static constexpr uint16_t kNoMemoEntry = 0xffff;
  std::vector<KeyMemo> key_memo_;
  std::vector<uint16_t>
      memo_entry_;           // Per row: the memo entry to fill, if any.
  uint32_t memo_pause_ = 0;  // Batches left without the memo.
  bool memo_warm_ = false;   // A batch has filled it since a reset.
  std::string key_scratch_;
  std::string prev_key_scratch_;
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_GROUP_LOOKUP_H_
