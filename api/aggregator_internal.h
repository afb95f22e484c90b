// api/aggregator_internal.h: the input layer's access to an Aggregator's
// per-source line splitters and its padded pushes. Not installed
// (cmake/mapr_install.cmake skips mapr/*_internal.h); for io/input.cc
// (PushFile), the `mapr` command and tests.
#ifndef MAPR_MAPR_AGGREGATOR_INTERNAL_H_
#define MAPR_MAPR_AGGREGATOR_INTERNAL_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "mapr/aggregator.h"

namespace mapr {

class AggregatorInternal {
 public:
  // Adds the state of `from` (its lines coming after `into`'s: its last()
  // values win) to `into`, leaving `from` unchanged: Merge() without
  // consuming, for mapr::PartialReducer's views over sources it keeps. No
  // adjacency or source check; `from`'s unfinished PushBytes() lines are
  // not included. Errors as Merge().
  static absl::Status MergeCopy(Aggregator& into, const Aggregator& from);
  // An open aggregator of `model`'s query and options, holding nothing,
  // with no source and covering split 0: where MergeCopy() gathers sources.
  static absl::StatusOr<Aggregator> EmptyLike(const Aggregator& model);
  // The splits `aggregator` covers and the stream mark of its latest
  // partial ({} for a moved-from aggregator).
  static SplitRange Coverage(const Aggregator& aggregator);
  static StreamMark Mark(const Aggregator& aggregator);
  // Drops the groups the result would not show (with `order by ... limit
  // N`: all but the first N; runtime BatchAggregator::KeepResultGroups),
  // keeping their count for ResultTable::total_groups(). For
  // mapr::PartialReducer's join of complete, disjoint partitions only.
  // False (nothing dropped) when the result needs every group: no `limit`,
  // or percentage()/percentile(). Errors: a failed or moved-from aggregator.
  static absl::StatusOr<bool> KeepResultGroups(Aggregator& aggregator);
  // Aggregator::FromPartial() of a frame whose groups are complete (no
  // later partial adds to them: the whole of a partition), cut down as
  // KeepResultGroups() does while it is read, a chunk of groups at a time,
  // so that it is never held whole. Same errors as FromPartial().
  static absl::StatusOr<Aggregator> FromPartialKeepingShown(
      std::string_view frame, const AggregatorOptions& options);
  // FromPartial(), or with `keep_shown` FromPartialKeepingShown().
  static absl::StatusOr<Aggregator> FromFrame(std::string_view frame,
                                              const AggregatorOptions& options,
                                              bool keep_shown);

  // Drops the line that PushBytes() left unfinished in `source`, without
  // aggregating or counting it, and ends `source`'s byte stream: the stream
  // broke off (a read error), so where that line would have ended is
  // unknown. Lines already counted as too long stay counted. Does nothing
  // for a moved-from aggregator or a source without an unfinished line.
  static void DiscardPartialLine(Aggregator& aggregator, SourceId source);

  // Ends an input that the caller named and read into `source`
  // (mapr::PushFile(), a piece of the `mapr` command's input): after
  // Aggregator::EndSource()'s work (its unfinished last line aggregated, its
  // parser freed), it also forgets the source's $file name, so that a run
  // over many files holds neither per file. Same errors as EndSource().
  static absl::Status EndInput(Aggregator& aggregator, SourceId source);

  // Counts `n` lines that a LineSplitter outside the aggregator dropped as
  // too long (never pushed), as PushBytes() counts its own: each is a line
  // read and a line too long. For readers that cut lines themselves (the
  // `mapr` command) and then serialize the aggregator's partial, whose
  // counters must include them. Does nothing for a moved-from aggregator.
  static void CountTooLongLines(Aggregator& aggregator, uint64_t n);

  // The number of the first line that the log format could not parse
  // (malformed or unmatched), counting the lines pushed since the
  // aggregator was made (or reset), or 0 if none: the input layer turns it
  // into a line of a file for the note on unparsable lines. 0 for a
  // moved-from aggregator.
  static uint64_t FirstUnparsableLine(const Aggregator& aggregator);

  // Aggregator::PushLines() and PushBytes() for lines that the caller read
  // into a buffer of its own with kLinePadding (mapr/log_format.h) readable
  // bytes after its end, so every line is followed by at least that many
  // (a LineSplitter's carry buffer has them too): the format may then read
  // them (FieldBatch::line_padding()) instead of copying each line. For
  // mapr::ReadLines() sinks (the `mapr` command) and mapr::PushFile().
  // REQUIRES: that padding; anything less is a buffer over-read.
  static absl::Status PushPaddedLines(Aggregator& aggregator,
                                      std::span<const std::string_view> lines,
                                      SourceId source);
  static absl::Status PushPaddedBytes(Aggregator& aggregator,
                                      std::string_view chunk, SourceId source);
};

// The refusals a partial meets in Aggregator's merges and in
// PartialReducer, worded once. Why a partial of query `theirs`, whose
// fingerprint differs, cannot join one of `mine`: another query, or (the
// same text) other result-changing options, which `options` names.
absl::Status QueryMismatch(std::string_view theirs, std::string_view mine,
                           std::string_view options);
// Why partials of runs `mine` and `theirs` cannot merge, if they cannot.
absl::Status CheckSameRun(std::string_view mine, std::string_view theirs);

}  // namespace mapr

#endif  // MAPR_MAPR_AGGREGATOR_INTERNAL_H_
