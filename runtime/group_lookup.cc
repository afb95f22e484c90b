#include "runtime/group_lookup.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "util/scan.h"
#include "util/status_macros.h"

namespace mapr::runtime {
namespace {

using plan::FieldId;
using util::BytesEqual;

// A key of up to 16 bytes as two words that, with its size, determine it:
// its first and last 8 bytes (overlapping below 16), or fewer loads below
// 8. Reads only the key's bytes.
inline void ShortKeyWords(std::string_view key, uint64_t* w0, uint64_t* w1) {
  const char* p = key.data();
  const size_t n = key.size();
  if (n >= 8) {
    std::memcpy(w0, p, 8);
    std::memcpy(w1, p + n - 8, 8);
    return;
  }
  *w1 = 0;
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    *w0 = lo | (uint64_t{hi} << 32);
    return;
  }
  *w0 = n == 0 ? 0
               : static_cast<uint64_t>(static_cast<uint8_t>(p[0])) |
                     (uint64_t{static_cast<uint8_t>(p[n / 2])} << 8) |
                     (uint64_t{static_cast<uint8_t>(p[n - 1])} << 16);
}

// The memo entry of a short key's words.
inline uint16_t MemoEntry(uint64_t w0, uint64_t w1, size_t size) {
  const uint64_t h =
      (w0 ^ (w1 * 0x9e3779b97f4a7c15) ^ size) * 0xff51afd7ed558ccd;
  return static_cast<uint16_t>(h >> 54);  // 10 bits: kKeyMemoSize entries
}

absl::Status TooManyGroups(uint64_t max_groups) {
  return absl::ResourceExhaustedError(
      absl::StrCat(MoreGroupsThan(max_groups),
                   "; raise the limit or group by fewer distinct values"));
}

// The id of `key` into *gid, creating the group unless that would pass
// `max_groups` (0: no limit).
inline absl::Status FindOrInsertLimited(GroupTable& groups,
                                        std::string_view key, uint64_t hash,
                                        uint64_t max_groups, uint32_t* gid) {
  if (max_groups != 0 && groups.size() >= max_groups) {
    const uint32_t id = groups.Find(key, hash);
    if (id == GroupTable::kNotFound) return TooManyGroups(max_groups);
    *gid = id;
    return absl::OkStatus();
  }
  bool created;
  *gid = groups.FindOrInsert(key, hash, &created);
  return absl::OkStatus();
}

}  // namespace

GroupLookup::GroupLookup() {
  static_assert(kKeyMemoSize == 1 << 10, "MemoEntry gives 10 bits");
}

void GroupLookup::Allocate() {
  hashes_.resize(kMaxBatchRows);
  same_key_.resize(kMaxBatchRows);
  key_memo_.resize(kKeyMemoSize);
  memo_entry_.resize(kMaxBatchRows);
  // Heap buffers (beyond the small-string size), so swapping the two keeps
  // views of the previous key valid.
  key_scratch_.reserve(256);
  prev_key_scratch_.reserve(256);
}

void GroupLookup::Reset() {
  std::fill(key_memo_.begin(), key_memo_.end(), KeyMemo());
  memo_warm_ = false;
  memo_pause_ = 0;
}

absl::Status GroupLookup::Assign(const std::vector<FieldId>& group_by,
                                 BatchColumns& batch, uint64_t max_groups,
                                 GroupTable& groups, uint32_t* gids,
                                 bool one_key) {
  // The buffers come with the first batch: an aggregator that only merges
  // partials (one per source in a reducer) never needs them.
  if (hashes_.empty()) Allocate();
  const size_t rows =
      one_key ? std::min<size_t>(batch.sel_size, 1) : batch.sel_size;
  MAPR_RETURN_IF_ERROR(
      group_by.size() == 1
          ? AssignSingleKey(batch.column(group_by[0]), batch, rows, max_groups,
                            groups, gids)
          : AssignMultiKey(group_by, batch, rows, max_groups, groups, gids));
  if (rows < batch.sel_size) {
    std::fill(gids + rows, gids + batch.sel_size, gids[0]);
  }
  return absl::OkStatus();
}

absl::Status GroupLookup::AssignSingleKey(const std::string_view* column,
                                          BatchColumns& batch, size_t rows,
                                          uint64_t max_groups,
                                          GroupTable& groups, uint32_t* gids) {
  // Two passes: hash every key and start loading its bucket, then look the
  // keys up, so that with a large table the slot loads overlap instead of
  // stalling one row at a time. A row with the same key as the row before
  // (few groups, sorted or bursty logs) skips both, and so does a short
  // key found in the memo.
  auto key_of = [&](size_t i) {
    std::string_view key = column[batch.sel[i]];
    return key.data() == nullptr ? FieldBatch::kEmptyValue : key;
  };
  const bool use_memo = memo_pause_ == 0;
  size_t probes = 0, hits = 0;
  for (size_t i = 0; i < rows; ++i) {
    const std::string_view key = key_of(i);
    const std::string_view prev = i > 0 ? key_of(i - 1) : std::string_view();
    if (i > 0 && key.size() == prev.size() &&
        BytesEqual(key.data(), prev.data(), key.size())) {
      same_key_[i] = 1;
      continue;
    }
    same_key_[i] = 0;
    memo_entry_[i] = kNoMemoEntry;
    if (use_memo && key.size() <= 16) {
      uint64_t w0, w1;
      ShortKeyWords(key, &w0, &w1);
      const uint16_t slot = MemoEntry(w0, w1, key.size());
      const KeyMemo& m = key_memo_[slot];
      ++probes;
      if (m.size == key.size() && m.w0 == w0 && m.w1 == w1) {
        gids[i] = m.gid;
        same_key_[i] = 2;
        ++hits;
        continue;
      }
      memo_entry_[i] = slot;
    }
    hashes_[i] = HashKey(key);
    groups.Prefetch(hashes_[i]);
  }
  // Pause when more than one probe in 8 misses (many keys: the misses
  // cost a hash anyway, and a branch that goes either way mispredicts),
  // and look again later. (The first batch after a reset fills the memo;
  // it cannot hit yet.)
  if (!use_memo) {
    --memo_pause_;
  } else if (!memo_warm_) {
    memo_warm_ = true;
  } else if (probes >= 256 && hits * 8 < probes * 7) {
    memo_pause_ = 64;
  }
  for (size_t i = 0; i < rows; ++i) {
    if (same_key_[i] == 1) {
      gids[i] = gids[i - 1];
      continue;
    }
    if (same_key_[i] == 2) continue;
    const std::string_view key = key_of(i);
    if (max_groups != 0) {
      MAPR_RETURN_IF_ERROR(
          FindOrInsertLimited(groups, key, hashes_[i], max_groups, &gids[i]));
    } else {
      bool created;
      gids[i] = groups.FindOrInsert(key, hashes_[i], &created);
    }
    if (memo_entry_[i] != kNoMemoEntry) {
      KeyMemo& m = key_memo_[memo_entry_[i]];
      ShortKeyWords(key, &m.w0, &m.w1);
      m.size = static_cast<uint32_t>(key.size());
      m.gid = gids[i];
    }
  }
  return absl::OkStatus();
}

absl::Status GroupLookup::AssignMultiKey(const std::vector<FieldId>& group_by,
                                         BatchColumns& batch, size_t rows,
                                         uint64_t max_groups,
                                         GroupTable& groups, uint32_t* gids) {
  std::string_view prev_key;
  for (size_t i = 0; i < rows; ++i) {
    const uint32_t r = batch.sel[i];
    // Two scratch buffers, so the previous row's key stays readable.
    key_scratch_.swap(prev_key_scratch_);
    key_scratch_.clear();
    for (FieldId id : group_by) {
      std::string_view part = batch.column(id)[r];
      AppendKeyPart(part.data() == nullptr ? std::string_view() : part,
                    &key_scratch_);
    }
    const std::string_view key = key_scratch_;
    if (i > 0 && key == prev_key) {
      gids[i] = gids[i - 1];
      prev_key = key;
      continue;
    }
    prev_key = key;
    MAPR_RETURN_IF_ERROR(
        FindOrInsertLimited(groups, key, HashKey(key), max_groups, &gids[i]));
  }
  return absl::OkStatus();
}

}  // namespace mapr::runtime
