// mapr/partial_reducer.h: merges the partials of several sources (hosts,
// daemon instances), each numbering its own splits, into one result.
//
// A source is AggregatorOptions::source of the aggregator that wrote a
// partial (`mapr map --source`, and `mapr map --follow`, whose default is
// the host name). Within a source, partials join by the split rules of
// Aggregator::MergeSerialized (adjacent, never twice, none missing); across
// sources they add up. The result is that of one pass over the sources'
// lines concatenated in source order, so order-sensitive aggregates
// (first(), last()) take the first source's first value and the last
// source's last one. The order is the one DeclareSource() gives, then the
// order in which Add() first meets each other source: deterministic for a
// given order of calls, whatever order frames of different sources arrive
// in.
//
// Example (`mapr remote`: the frames the hosts sent, as they arrived):
//   mapr::PartialReducer reducer;
//   for (const std::string& host : hosts) reducer.DeclareSource(host);
//   for (const std::string& frame : frames) {
//     if (absl::Status s = reducer.Add(frame); !s.ok()) return s;
//   }
//   absl::StatusOr<mapr::ResultTable> now = reducer.Result();
//
// Thread safety: not thread-safe; one thread at a time.
#ifndef MAPR_MAPR_PARTIAL_REDUCER_H_
#define MAPR_MAPR_PARTIAL_REDUCER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/export.h"
#include "mapr/options.h"
#include "mapr/partial.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr {

class MAPR_EXPORT PartialReducer {
 public:
  // `options` give max_groups (per source and for the merged result) and
  // result_threads; the rest comes from the partials.
  explicit PartialReducer(const AggregatorOptions& options = {});
  ~PartialReducer();
  PartialReducer(PartialReducer&&) noexcept;
  PartialReducer& operator=(PartialReducer&&) noexcept;

  // Places `source` after the sources declared or met so far (nothing if it
  // is known already). Declaring every source first fixes the order.
  void DeclareSource(std::string_view source);

  // Adds one frame (exactly one: SplitPartialFrames cuts a file of several)
  // to its source's state. Errors: those of Aggregator::FromPartial and
  // MergeSerialized, prefixed with the source ("source 'web1': missing split
  // 4 ..."); InvalidArgument for a partial of another query or run than the
  // partials added before. On error nothing changes, except where
  // MergeSerialized fails the source's state: ResourceExhausted, and
  // DataLoss for counts or exact sums that overflow when merged (hostile
  // partials: "count(x) overflows when merged: ...").
  absl::Status Add(std::string_view frame);

  // Ends partition `index` of hash-partitioned partials: every source's
  // state of it is merged (in source order) and cut down to the groups the
  // result can show (with `order by ... limit N`, the first N after
  // `having`; every group without a limit or with percentage() or
  // percentile(), whose values read every group), and later partials of it
  // are refused (FailedPrecondition). A reducer that adds one partition's
  // partials at a time and ends each holds one partition plus the result's
  // rows, however many groups there are in all (`mapr reduce` does this).
  // sources() still reports what the ended partition held. Errors:
  // FailedPrecondition before any partial, for unpartitioned partials or a
  // partition ended already; InvalidArgument for an index past the count;
  // Merge()'s errors.
  absl::Status EndPartition(uint32_t index);
  // Add(frame) then EndPartition() of its partition, for a frame that holds
  // the whole of its partition (every source's splits merged into it, as
  // `mapr combine --partition P` writes): when no other partial of the
  // partition was added, its groups are read a chunk at a time, each cut
  // down before the next, so the partition is never held whole. For
  // unpartitioned partials, Add(frame). Errors as Add() and EndPartition().
  absl::Status AddLastOfPartition(std::string_view frame);

  // What one source has sent.
  struct Source {
    std::string name;
    // The splits held; {0, 0} before the source's first partial.
    SplitRange splits{0, 0};
    // Partials added.
    uint64_t partials = 0;
    // The mark of its latest partial: `final` once its stream has ended.
    StreamMark mark;
    LineCounters counters;
    // Hash-partitioned partials (Aggregator::SerializePartitions): their
    // count (0: not partitioned) and the splits each partition holds
    // ({0, 0}: none yet); `splits` and `mark` are then partition 0's (or,
    // without it, the first partition's met).
    uint32_t partition_count = 0;
    std::vector<SplitRange> partition_splits;
  };
  // Every source declared or met, in source order.
  std::vector<Source> sources() const;

  // The query of the partials (of the first one added); null before any.
  const Query* query() const;

  // The result over everything added so far: the sources merged in source
  // order (sources without partials count as empty). The state is kept, so
  // it may be called again after more Add()s. FailedPrecondition before any
  // partial was added; ResourceExhausted if the merged groups exceed
  // max_groups; DataLoss if merged counts or sums overflow; the error of a
  // source whose state failed.
  absl::StatusOr<ResultTable> Result() const;
  // The same result, taking the sources' states instead of copying them
  // (half the memory of Result() for the last report). Afterwards the
  // reducer holds nothing: Result() and TakeResult() are FailedPrecondition.
  absl::StatusOr<ResultTable> TakeResult();

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace mapr

#endif  // MAPR_MAPR_PARTIAL_REDUCER_H_
