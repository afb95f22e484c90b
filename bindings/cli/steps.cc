#include "bindings/cli/steps.h"

#include <sys/stat.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bindings/cli/partials.h"
#include "bindings/cli/runner.h"
#include "mapr/aggregator.h"
#include "mapr/input.h"
#include "mapr/log_format.h"
#include "mapr/partial.h"
#include "mapr/partial_reducer.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ToAbsl;
using ::mapr::util::ToStd;

const char* CommandName(Command c) {
  switch (c) {
    case Command::kQuery:
      return "a query";
    case Command::kMap:
      return "map";
    case Command::kCombine:
      return "combine";
    case Command::kReduce:
      return "reduce";
    case Command::kInspect:
      return "inspect";
    case Command::kRemote:
      return "remote";
  }
  return "";
}

// Writes the partial `frame` to stdout, binary or as a --b64 line keyed by
// `key` (its first split; for a partition, its number). Returns the exit
// status.
int WritePartial(const Flags& flags, const std::string& frame, uint64_t key) {
  if (flags.b64) {
    WriteStdout(B64Line(key, frame));
  } else {
    // Binary, never to a terminal (RefuseTerminal).
    std::fwrite(frame.data(), 1, frame.size(), stdout);
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    PrintError("cannot write the partial to standard output");
    return kExitInputError;
  }
  return kExitOk;
}

// Writes one piece of a binary partial to stdout.
absl::Status WritePiece(std::string_view piece) {
  if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size()) {
    return absl::DataLossError("cannot write the partial to standard output");
  }
  return absl::OkStatus();
}

// Finishes `agg` and streams its binary partial (--partitions: one frame
// per partition) to stdout, never holding a whole frame; --stats prints its
// counters.
int FinishAndStream(const Flags& flags, Aggregator& agg) {
  absl::Status s = agg.FinishInput();
  absl::StatusOr<uint64_t> groups =
      !s.ok() ? absl::StatusOr<uint64_t>(s)
      : flags.partitions > 0
          ? agg.WritePartitions(flags.partitions,
                                [](uint32_t, std::string_view piece) {
                                  return WritePiece(piece);
                                })
          : agg.WritePartial(WritePiece);
  if (groups.ok() && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
    groups = absl::DataLossError("cannot write the partial to standard output");
  }
  if (!groups.ok()) {
    PrintError(ToStd(groups.status().message()));
    return kExitInputError;
  }
  if (flags.stats) PrintStats(agg.stats(), *groups);
  return kExitOk;
}

// Finishes `agg` and writes its partial (--partitions: one per partition,
// --b64 lines keyed by partition); --stats prints its counters.
int FinishPartitions(const Flags& flags, Aggregator& agg) {
  absl::Status s = agg.FinishInput();
  absl::StatusOr<std::vector<std::string>> frames =
      s.ok() ? agg.SerializePartitions(flags.partitions)
             : absl::StatusOr<std::vector<std::string>>(s);
  if (!frames.ok()) {
    PrintError(ToStd(frames.status().message()));
    return kExitInputError;
  }
  uint64_t groups = 0;
  for (size_t i = 0; i < frames->size(); ++i) {
    absl::StatusOr<PartialInfo> info = InspectPartial((*frames)[i]);
    if (!info.ok()) {  // Our own frame: a bug if it happens.
      PrintError(ToStd(info.status().message()));
      return kExitInputError;
    }
    groups += info->groups;
    if (const int rc = WritePartial(flags, (*frames)[i], i); rc != kExitOk) {
      return rc;
    }
  }
  if (flags.stats) PrintStats(agg.stats(), groups);
  return kExitOk;
}

// Finishes `agg` and writes its partial; --stats prints its counters.
int FinishAndWrite(const Flags& flags, Aggregator& agg) {
  if (!flags.b64) return FinishAndStream(flags, agg);
  if (flags.partitions > 0) return FinishPartitions(flags, agg);
  absl::Status s = agg.FinishInput();
  absl::StatusOr<std::string> frame =
      s.ok() ? agg.SerializePartial() : absl::StatusOr<std::string>(s);
  if (!frame.ok()) {
    PrintError(ToStd(frame.status().message()));
    return kExitInputError;
  }
  absl::StatusOr<PartialInfo> info = InspectPartial(*frame);
  if (!info.ok()) {  // Our own frame: a bug if it happens.
    PrintError(ToStd(info.status().message()));
    return kExitInputError;
  }
  const int rc =
      WritePartial(flags, *frame,
                   info->partitions > 0 ? info->partition : info->splits.begin);
  if (flags.stats) PrintStats(info->counters, info->groups);
  return rc;
}

// A binary partial is not written to a terminal.
bool RefuseTerminal(const Flags& flags) {
  if (!flags.b64 && isatty(STDOUT_FILENO) == 1) {
    UsageError(
        "standard output is a terminal: redirect it to a file (> PART), "
        "or use --b64");
    return true;
  }
  return false;
}

// True if `path` is a regular file (not a pipe such as <(...), which can be
// read once only).
bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// True if the file `path` itself (not decompressed) starts with MAPRPART.
bool StartsWithMagic(const std::string& path) {
  char head[8] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const bool ok = std::fread(head, 1, sizeof(head), f) == sizeof(head);
  std::fclose(f);
  return ok && std::string_view(head, sizeof(head)) == "MAPRPART";
}

}  // namespace

absl::StatusOr<std::string> ReadWhole(const InputSpec& spec) {
  absl::StatusOr<std::unique_ptr<ByteStream>> in = OpenInput(spec);
  if (!in.ok()) return in.status();
  std::string bytes;
  char buf[1 << 16];
  while (true) {
    absl::StatusOr<size_t> n = (*in)->Read(buf, sizeof(buf));
    if (!n.ok()) return n.status();
    if (*n == 0) return bytes;
    bytes.append(buf, *n);
  }
}

namespace {

// combine and reduce read each frame whole, one at a time, and free it once
// merged. glibc raises its mmap threshold to the largest block freed (up to
// 32 MiB) and then keeps freed frames in its heap, so a reducer's peak would
// hold a dead frame beside the live one (47 instead of 31 MiB for two
// 19 MiB frames): blocks of 16 MiB and more are mapped and unmapped instead
// (a dead smaller frame costs less than 16 MiB; a 4 MiB threshold mapped
// the merge's own buffers too, 40 % more CPU time).
void ReturnFreedFramesToTheSystem() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
#endif
}

// Reads every PART (files, or standard input for "-" or none) into frames.
// Problems are printed; returns false if there was one. With
// `empty_holds_none`, an empty PART holds no partials (a Hadoop reducer
// that got no key); else it is an error.
bool ReadPartials(const Flags& flags, std::vector<NamedFrame>& frames,
                  bool keep_bytes, bool empty_holds_none = false) {
  if (!keep_bytes) ReturnFreedFramesToTheSystem();
  std::vector<std::string> names = flags.files;
  if (names.empty()) names.push_back("-");
  bool ok = true;
  for (const std::string& name : names) {
    InputSpec spec;
    spec.is_stdin = name == "-";
    spec.path = name;
    absl::StatusOr<std::vector<NamedFrame>> decoded;
    if (!spec.is_stdin && !keep_bytes && IsRegularFile(name) &&
        StartsWithMagic(name)) {
      // Binary frames of a plain file are validated one at a time here and
      // read again when merged: the reducer's memory is the merged state
      // plus one frame, not every PART (or a whole PART) at once.
      decoded = ScanPartialFile(name, name, flags.max_frame_bytes);
    } else {
      // Standard input, a pipe, a compressed PART: its frames are checked
      // as they arrive, so what is not partials costs its first bytes.
      absl::StatusOr<std::unique_ptr<ByteStream>> in = OpenInput(spec);
      if (!in.ok()) {
        PrintInputProblem(name, ToStd(in.status().message()));
        ok = false;
        continue;
      }
      decoded = ReadPartialStream(name, **in, flags.max_frame_bytes,
                                  empty_holds_none);
    }
    if (!decoded.ok()) {
      PrintError(ToStd(decoded.status().message()));
      ok = false;
      continue;
    }
    for (NamedFrame& f : *decoded) frames.push_back(std::move(f));
  }
  return ok;
}

// --partition P: keeps the frames of partition P, or prints why the PARTs
// do not have it and returns false.
bool SelectPartition(const Flags& flags, std::vector<NamedFrame>& frames) {
  if (!flags.partition.has_value()) return true;
  const uint32_t p = *flags.partition;
  std::vector<NamedFrame> kept;
  for (NamedFrame& f : frames) {
    if (f.info.partitions == 0) {
      PrintError(absl::StrCat("--partition ", p, ": ", f.name,
                              " holds an unpartitioned partial (written "
                              "without map --partitions)"));
      return false;
    }
    if (p >= f.info.partitions) {
      PrintError(absl::StrCat(
          "--partition ", p, ": ", f.name, " holds partials cut into ",
          f.info.partitions, " partitions (0 to ", f.info.partitions - 1, ")"));
      return false;
    }
    if (f.info.partition == p) kept.push_back(std::move(f));
  }
  if (kept.empty()) {
    PrintError(absl::StrCat("--partition ", p, ": no partial of partition ", p,
                            " in the PARTs"));
    return false;
  }
  frames = std::move(kept);
  return true;
}

// The options a reducing aggregator takes from the flags.
AggregatorOptions ReducerOptions(const Flags& flags) {
  AggregatorOptions options;
  options.hostname = flags.hostname;
  options.max_line_bytes = flags.max_line_bytes;
  options.max_groups = flags.max_groups;
  options.partial_lookup_dir = flags.lookup_dir;
  return options;
}

}  // namespace

std::string MisplacedOption(const Flags& flags) {
  const Command c = flags.command;
  const bool query_or_map = c == Command::kQuery || c == Command::kMap;
  struct Rule {
    bool given;
    const char* name;
    bool allowed;
    const char* where;
  };
  const bool map_follow = c == Command::kMap && flags.follow;
  const bool remote = c == Command::kRemote;
  const Rule rules[] = {
      {flags.split.has_value(), "--split", c == Command::kMap, "map"},
      {!flags.source.empty(), "--source", c == Command::kMap, "map"},
      {flags.partitions > 0, "--partitions",
       c == Command::kMap && !flags.follow, "map (without --follow)"},
      {flags.partition.has_value(), "--partition",
       c == Command::kCombine || c == Command::kReduce, "combine and reduce"},
      {flags.until_eof, "--until-eof", map_follow, "map --follow"},
      {!flags.resume_from.empty(), "--resume-from", map_follow, "map --follow"},
      {flags.stop_on_stdin_eof, "--stop-on-stdin-eof", map_follow,
       "map --follow"},
      {!flags.omprog_dir.empty(), "--omprog", c == Command::kMap, "map"},
      {flags.message_id, "--message-id",
       c == Command::kMap && !flags.omprog_dir.empty(), "map --omprog"},
      {!flags.hosts.empty(), "--hosts", remote, "remote"},
      {flags.ssh != Flags().ssh, "--ssh", remote, "remote"},
      {flags.remote_mapr != Flags().remote_mapr, "--remote-mapr", remote,
       "remote"},
      // A partial carries its query, multi-line rule included.
      {flags.event_start.has_value(), "--event-start", query_or_map || remote,
       "a query, map and remote"},
      // inspect prints a partial as it is: no limits, its counters always.
      {flags.max_groups > 0, "--max-groups", c != Command::kInspect,
       "a query, map, combine, reduce and remote"},
      // Partials hold no lines: the limit applied where they were made.
      {flags.max_line_bytes != Flags().max_line_bytes, "--max-line-bytes",
       query_or_map || remote, "a query, map and remote"},
      {!flags.lookup_dir.empty(), "--lookup-dir",
       c == Command::kCombine || c == Command::kReduce, "combine and reduce"},
      // Partials are read by these four.
      {flags.max_frame_bytes != Flags().max_frame_bytes, "--max-frame-bytes",
       c == Command::kCombine || c == Command::kReduce ||
           c == Command::kInspect || remote,
       "combine, reduce, inspect and remote"},
      {flags.stats, "--stats", c != Command::kInspect,
       "a query, map, combine, reduce and remote"},
      {flags.quiet, "--quiet", c != Command::kInspect,
       "a query, map, combine, reduce and remote"},
      {flags.allow_partial, "--allow-partial", remote, "remote"},
      {flags.host_timeout_s != Flags().host_timeout_s, "--host-timeout",
       remote && !flags.follow, "remote (without --follow)"},
      {flags.range.has_value(), "--range", c == Command::kMap, "map"},
      {!flags.run_id.empty(), "--run-id", c == Command::kMap, "map"},
      {flags.b64, "--b64", (c == Command::kMap || c == Command::kCombine),
       "map and combine"},
      {flags.expect_splits > 0, "--expect-splits", c == Command::kReduce,
       "reduce"},
      {flags.output.has_value(), "--output",
       c == Command::kQuery || c == Command::kReduce || remote,
       "a query, reduce and remote"},
      {flags.follow, "--follow",
       c == Command::kQuery || c == Command::kMap || remote,
       "a query, map and remote"},
      {flags.delta, "--delta", c == Command::kQuery, "a query"},
      {flags.listen.has_value(), "--listen", c == Command::kQuery, "a query"},
      {flags.alert.has_value(), "--alert", c == Command::kQuery, "a query"},
      {flags.explain, "--explain", query_or_map, "a query and map"},
      {flags.threads > 0, "--threads", query_or_map, "a query and map"},
      {!flags.hostname.empty(), "--hostname", query_or_map, "a query and map"},
      {flags.journal, "--journal", c == Command::kQuery, "a query"},
  };
  for (const Rule& r : rules) {
    if (r.given && !r.allowed) {
      return absl::StrCat(r.name, " works only with ", r.where, ", not with ",
                          CommandName(c));
    }
  }
  return "";
}

int RunMap(const Flags& flags, const Query& query, int default_threads) {
  RunOptions options;
  if (flags.split.has_value() && flags.split->automatic) {
    absl::StatusOr<AutoSplit> split = SplitFromEnvironment(std::getenv);
    if (!split.ok()) return UsageError(ToStd(split.status().message()));
    options.splits = {split->index, split->index + 1};
  } else if (flags.split.has_value()) {
    options.splits = {flags.split->index, flags.split->index + 1};
  }
  options.run_id = flags.run_id;
  options.source = flags.source;
  if (flags.range.has_value()) {
    if (!LogFormatIsLineIndependent(query.log_format())) {
      return UsageError(absl::StrCat(
          "--range needs a log format that keeps no state between lines "
          "(every built-in format but csv), not ",
          ToAbsl(query.log_format()), ": map whole files, one split each"));
    }
    if (flags.files.size() != 1 || flags.files[0] == "-") {
      return UsageError("--range needs exactly one FILE (not standard input)");
    }
    absl::StatusOr<LineRange> range =
        LineAlignedRange(flags.files[0], flags.range->first,
                         flags.range->second, query, flags.max_line_bytes);
    if (!range.ok()) {
      PrintInputProblem(flags.files[0], ToStd(range.status().message()));
      return kExitInputError;
    }
    options.range = *range;
  }
  if (RefuseTerminal(flags)) return kExitUsage;

  bool input_errors = false;
  auto report = [&](std::string_view name, std::string_view reason) {
    input_errors = true;
    PrintInputProblem(name, reason);
  };
  options.threads = flags.threads > 0 ? flags.threads : default_threads;
  options.max_line_bytes = flags.max_line_bytes;
  options.max_groups = flags.max_groups;
  options.hostname = flags.hostname;
  options.progress = false;
  absl::StatusOr<AggregationRun> run =
      RunAggregation(query, flags.files, options, report);
  if (!run.ok()) {
    PrintError(ToStd(run.status().message()));
    return kExitInputError;
  }
  // A partial that misses an input would be merged as if complete: write
  // none, so the launcher retries or the reducer reports the split missing.
  if (input_errors) {
    PrintError("no partial written: an input could not be read");
    return kExitInputError;
  }
  return FinishAndWrite(flags, *run->aggregator);
}

int RunCombine(const Flags& flags) {
  if (RefuseTerminal(flags)) return kExitUsage;
  std::vector<NamedFrame> frames;
  if (!ReadPartials(flags, frames, /*keep_bytes=*/false,
                    /*empty_holds_none=*/true)) {
    return kExitInputError;
  }
  if (frames.empty()) {
    // A Hadoop reducer whose shuffle brought no partition: nothing to
    // fold. The reduce that joins the combined partials names any
    // partition or split that is missing.
    if (!flags.quiet) {
      std::fprintf(stderr,
                   "warning: the input holds no partials: nothing "
                   "written\n");
    }
    return kExitOk;
  }
  if (!SelectPartition(flags, frames)) return kExitInputError;
  // Partitioned frames are combined partition by partition, one frame out
  // per partition in partition order (a Hadoop reducer may get several).
  std::map<uint32_t, std::vector<NamedFrame>> partitions;
  for (NamedFrame& f : frames) {
    if (f.info.partitions > 0 && frames.front().info.partitions == 0) {
      PrintError(absl::StrCat(f.name, ": partials cut into ", f.info.partitions,
                              " partitions cannot join unpartitioned ones"));
      return kExitInputError;
    }
    partitions[f.info.partition].push_back(std::move(f));
  }
  for (auto& [partition, group] : partitions) {
    absl::StatusOr<Aggregator> agg =
        MergePartials(group, ReducerOptions(flags));
    if (!agg.ok()) {
      PrintError(ToStd(agg.status().message()));
      return kExitInputError;
    }
    if (const int rc = FinishAndWrite(flags, *agg); rc != kExitOk) return rc;
  }
  return kExitOk;
}

// What is wrong with the partitions of a reduce over every partition
// (each present, all with the same splits), or "".
std::string PartitionProblem(const PartialReducer::Source& source) {
  if (source.partition_count == 0) return "";
  for (uint32_t i = 0; i < source.partition_count; ++i) {
    const SplitRange& have = source.partition_splits[i];
    if (have.begin == have.end) {
      return absl::StrCat("no partial of partition ", i, " of ",
                          source.partition_count,
                          " (every partition is needed; --partition P "
                          "reduces one)");
    }
    const SplitRange& first = source.partition_splits[0];
    if (!(have == first)) {
      return absl::StrCat("partition ", i, " of ", source.partition_count,
                          " covers splits [", have.begin, ", ", have.end,
                          "), partition 0 [", first.begin, ", ", first.end,
                          ")");
    }
  }
  return "";
}

int RunReduce(const Flags& flags) {
  std::vector<NamedFrame> frames;
  if (!ReadPartials(flags, frames, /*keep_bytes=*/false) ||
      !SelectPartition(flags, frames)) {
    return kExitInputError;
  }
  absl::StatusOr<PartialReducer> reducer =
      ReducePartials(frames, ReducerOptions(flags),
                     /*join_partitions=*/!flags.partition.has_value());
  if (!reducer.ok()) {
    PrintError(ToStd(reducer.status().message()));
    return kExitInputError;
  }
  for (const PartialReducer::Source& source : reducer->sources()) {
    const std::string prefix =
        source.name.empty() ? std::string()
                            : absl::StrCat("source '", source.name, "': ");
    if (!flags.partition.has_value()) {
      if (std::string problem = PartitionProblem(source); !problem.empty()) {
        PrintError(prefix + problem);
        return kExitInputError;
      }
    }
    if (flags.expect_splits > 0) {
      std::string problem =
          ExpectedSplitsProblem(source.splits, flags.expect_splits);
      if (!problem.empty()) {
        PrintError(prefix + problem);
        return kExitInputError;
      }
    }
    // A gap at the start is a gap (one in the middle is an error of the
    // merge; --expect-splits makes this one an error too).
    if (flags.expect_splits == 0 && !flags.quiet && source.splits.begin > 0) {
      PrintError(absl::StrCat(
          prefix, ExpectedSplitsProblem(source.splits, source.splits.end),
          " (the partials start at split ", source.splits.begin,
          "): the result lacks ",
          source.splits.begin == 1 ? "its lines" : "their lines"));
    }
    // A stream of `map --follow` deltas that has not ended.
    if (!flags.quiet && !source.mark.positions.empty() && !source.mark.final) {
      PrintError(absl::StrCat(prefix,
                              "its last partial is not final (its stream had "
                              "not ended): the result lacks what came later"));
    }
  }
  const Query query = *reducer->query();
  absl::StatusOr<ResultTable> table = reducer->TakeResult();
  if (!table.ok()) {
    PrintError(ToStd(table.status().message()));
    return kExitInputError;
  }
  if (!flags.quiet) {
    for (const std::string& w : query.warnings()) {
      std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
  }
  // Another partition than 0 carries no line counters: notes on them
  // would be wrong.
  // A partial is input from elsewhere: reduce writes no file its query
  // names (an outfile of `../.ssh/authorized_keys`, say).
  if (query.outfile().has_value() && !flags.quiet) {
    PrintError(absl::StrCat(
        "the partials' query writes outfile '",
        absl::CHexEscape(*query.outfile()),
        "'; reduce writes no file a partial names: the result is on standard "
        "output (-o csv > FILE writes it)"));
  }
  Flags emit = flags;
  if (flags.partition.has_value() && *flags.partition != 0) emit.quiet = true;
  return EmitResult(emit, query, *table, table->stats(), FilesReport(), kExitOk,
                    /*write_outfile=*/false);
}

int RunInspect(const Flags& flags) {
  std::vector<NamedFrame> frames;
  const bool ok = ReadPartials(flags, frames, /*keep_bytes=*/true);
  std::string out;
  for (const NamedFrame& f : frames) {
    const PartialInfo& i = f.info;
    if (!out.empty()) out += "\n";
    absl::StrAppend(&out, "part: ", f.name, "\n");
    absl::StrAppend(&out, "version: ", i.major, ".", i.minor, "\n");
    absl::StrAppend(&out, "query: ", i.query, "\n");
    absl::StrAppend(&out, "log_format: ", i.log_format, "\n");
    absl::StrAppend(
        &out, "fingerprint: ",
        absl::StrFormat("%016x%016x", i.fingerprint[1], i.fingerprint[0]),
        "\n");
    absl::StrAppend(&out, "splits: [", i.splits.begin, ", ", i.splits.end,
                    ")\n");
    if (!i.run_id.empty()) absl::StrAppend(&out, "run_id: ", i.run_id, "\n");
    if (!i.source.empty()) absl::StrAppend(&out, "source: ", i.source, "\n");
    if (i.partitions > 0) {
      absl::StrAppend(&out, "partition: ", i.partition, " of ", i.partitions,
                      "\n");
    }
    if (i.mark.final) absl::StrAppend(&out, "final: yes\n");
    for (const InputPosition& p : i.mark.positions) {
      absl::StrAppend(&out, "position: ", p.offset, " ", p.input, "\n");
    }
    absl::StrAppend(&out, "groups: ", i.groups, "\n");
    absl::StrAppend(&out, "frame_bytes: ", i.frame_bytes, "\n");
    for (const LineCounterField& c : kLineCounterFields) {
      absl::StrAppend(&out, ToAbsl(c.name), ": ", i.counters.*c.value, "\n");
    }
  }
  WriteStdout(out);
  if (std::fflush(stdout) != 0) return kExitInputError;
  return ok ? kExitOk : kExitInputError;
}

}  // namespace mapr::cli
