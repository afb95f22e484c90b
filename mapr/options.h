// mapr/options.h: options for compiling queries and running aggregators.
// Plain structs; every field says its default.
#ifndef MAPR_MAPR_OPTIONS_H_
#define MAPR_MAPR_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mapr/export.h"

namespace mapr {

// The input splits an aggregator covers, [begin, end) in the runner's input
// order (split i of N is {i, i + 1}). Partials (mapr/partial.h) record it;
// merging them requires adjacent coverage. Default {0, 1}: the whole input
// as one split.
struct SplitRange {
  uint64_t begin = 0;
  uint64_t end = 1;
  friend bool operator==(const SplitRange&, const SplitRange&) = default;
};

struct MAPR_EXPORT CompileOptions {
  // ---- Limits: exceeding one is an InvalidArgument error, never a crash.

  // Longest accepted query text, in bytes. Default: 64 KiB.
  size_t max_query_bytes = 64 * 1024;
  // Deepest nesting of parentheses, `not` and function calls. Values above
  // 1000 act as 1000: the parser takes stack space for every level (about
  // 1 KiB each in a debug build), and deeper input could overflow the
  // compiling thread's stack. Default: 64.
  size_t max_depth = 64;
  // Most select items, where comparisons, set assignments and group-by
  // fields (each counted separately). Default: 1024.
  size_t max_items = 1024;
  // Most memory RE2 may use for each regular expression of the query
  // (`=~`, `!~`, regex(), `logformat regex`), in bytes; a pattern that needs
  // more is an error. Default: 8 MiB, RE2's own default.
  int64_t max_regex_memory = 8 << 20;
  // Largest lookup() table file, in bytes. Default: 64 MiB.
  size_t max_lookup_bytes = 64 << 20;

  // ---- Files.

  // Lets lookup(x, 'table.csv', 'column') read its table (a path relative
  // to the working directory) when the query compiles. Off by default, so
  // a host that compiles queries from others reads no file because of
  // them; the mapr command turns it on. A partial's query is compiled with
  // AggregatorOptions::partial_lookup_dir instead (FromPartial).
  bool allow_file_lookups = false;
  // With allow_file_lookups: the folder lookup() tables must be in (after
  // resolving symbolic links and ".."); a table elsewhere is refused
  // ("... is outside ..."). Default: empty, anywhere. Either way a table
  // must be a regular file (a FIFO or a device is refused, never waited
  // on).
  std::string lookup_dir;

  // ---- Aggregates: these change results, so partials merge only with
  // partials of the same settings.

  // median() and pN() are exact while a group holds at most this many
  // values (at most 1048576); past it, a DDSketch of relative accuracy
  // `percentile_accuracy` (0.0001 to 0.2) takes over. Defaults: 1024, 1 %.
  uint32_t percentile_exact_values = 1024;
  double percentile_accuracy = 0.01;
};

// How far a stream of delta partials has read one input: the bytes of
// `input` before `offset` are in this partial or an earlier one of its
// stream (whole lines only; an unfinished last line belongs to a later
// delta). `mapr map --follow --resume-from` restarts there.
struct InputPosition {
  std::string input;  // The path as given, or "-" for standard input.
  uint64_t offset = 0;
  friend bool operator==(const InputPosition&, const InputPosition&) = default;
};

// What a delta partial says about its stream (docs/partial-format.md, the
// stream section): whether it is the stream's last, and where its inputs
// stand. The stream's source is AggregatorOptions::source.
struct StreamMark {
  // The last delta of its stream: the input ended (standard input reached
  // its end, or `--until-eof`). A reducer knows the source is complete.
  bool final = false;
  std::vector<InputPosition> positions;
  friend bool operator==(const StreamMark&, const StreamMark&) = default;
};

// One partition of the group-key space (hash-partitioned partials,
// Aggregator::SerializePartitions): the groups whose key hashes to `index`
// of `count` (docs/partial-format.md, the partition section).
struct Partition {
  uint32_t count = 1;
  uint32_t index = 0;
  friend bool operator==(const Partition&, const Partition&) = default;
};

struct MAPR_EXPORT AggregatorOptions {
  // ---- Behaviour

  // The value of $hostname and $server. Default: empty, meaning the
  // machine's host name (gethostname) when the aggregator is created.
  std::string hostname;

  // The input splits this aggregator covers. Partials record it
  // (Aggregator::SerializePartial) and merging partials requires adjacent
  // coverage (Aggregator::MergeSerialized). It does not change results.
  // Default: {0, 1}, the whole input as one split.
  SplitRange splits;

  // The run the aggregator's partials belong to (a job id, a timestamp):
  // partials record it, and partials of different runs refuse to merge
  // (InvalidArgument naming both), so that a stale partial left by an
  // earlier run (a rerun with fewer blocks in the same folder) cannot join
  // this one. A partial read with Aggregator::FromPartial takes its run.
  // Default: empty, no run (such partials merge only with each other).
  std::string run_id;

  // The source of the aggregator's partials: the host (or daemon instance)
  // whose lines they hold, when several sources number their splits (their
  // delta partials) each from 0. Partials record it; partials of one source
  // merge by the split rules (MergeSerialized refuses another source's),
  // and a mapr::PartialReducer merges whole sources, in the order it is
  // given. It does not change results. A partial read with
  // Aggregator::FromPartial takes its source. Default: empty, no source.
  std::string source;

  // The folder the lookup() tables of a partial's query must be in
  // (CompileOptions::lookup_dir) when Aggregator::FromPartial or a
  // PartialReducer compiles that query: a partial comes from elsewhere,
  // and its query must not make this process read its files. Default:
  // empty, the tables of a partial's query are not read and such a
  // partial is refused (InvalidArgument naming this option); "/" reads
  // them wherever they are, for a query the caller wrote itself.
  std::string partial_lookup_dir;

  // ---- Limits and performance

  // Lines longer than this (after removing the line ending) are rejected
  // and counted in LineCounters::lines_too_long, never split.
  // Default: 1 MiB.
  size_t max_line_bytes = 1024 * 1024;
  // Most groups an aggregator may hold; the push that would create group
  // max_groups + 1 returns ResourceExhausted ("more than N groups
  // (AggregatorOptions::max_groups); raise the limit or group by fewer
  // distinct values") and the aggregator fails: every later call returns
  // that error, no partial result is offered, and stats() keeps the counters
  // of the calls before (see mapr/aggregator.h, "Failure is sticky"). The
  // groups' memory stays bounded by the limit however much input follows.
  // A result's groups count too: a window() query's result, whose windows
  // outnumber its hops up to w / h times, returns ResourceExhausted ("more
  // than N groups (max_groups) once hops are joined into windows; ...")
  // beyond the limit (that refusal is not sticky).
  // 0 means unlimited. Default: 0.
  uint64_t max_groups = 0;
  // Threads that build a result (Result, Snapshot, TakeResult, ...): they
  // sort the groups by key and render the cells, which with a million
  // groups is most of a run's serial time. The calling thread is one of
  // them, and fewer are used for fewer than about 65536 groups. The result
  // is the same for any value. 0 counts as 1. Default: 1.
  size_t result_threads = 1;
};

}  // namespace mapr

#endif  // MAPR_MAPR_OPTIONS_H_
