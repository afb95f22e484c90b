#include "bindings/cli/map_follow.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bindings/cli/follow.h"
#include "bindings/cli/partials.h"
#include "bindings/cli/steps.h"
#include "mapr/aggregator.h"
#include "mapr/files.h"
#include "mapr/partial.h"
#include "util/errno_text.h"
#include "util/host_name.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ToStd;

// Writes all of `bytes` to fd 1. EPIPE (the reader has gone; SIGPIPE is
// ignored) is Cancelled; other errors have their errno's code.
absl::Status WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(STDOUT_FILENO, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) return absl::CancelledError("standard output closed");
      return absl::Status(absl::ErrnoToStatusCode(errno),
                          absl::StrCat("cannot write to standard output: ",
                                       util::ErrnoText(errno)));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// Aggregates every input's bytes into one Aggregator (one SourceId per
// input) and writes a delta partial per tick.
class DeltaSink : public FollowSink {
 public:
  DeltaSink(Aggregator& agg, bool b64) : agg_(agg), b64_(b64) {}

  absl::Status Begin(size_t index, const std::string& name,
                     uint64_t offset) override {
    Position& p = positions_[index];
    p.name = name;
    p.line_end = p.read = offset;
    return agg_.SetSourceName(static_cast<SourceId>(index), name);
  }

  absl::Status Bytes(size_t index, std::string_view chunk,
                     uint64_t end_offset) override {
    Position& p = positions_[index];
    p.read = end_offset;
    const size_t nl = chunk.rfind('\n');
    if (nl != std::string_view::npos) {
      p.line_end = end_offset - (chunk.size() - nl - 1);
    }
    return agg_.PushBytes(chunk, static_cast<SourceId>(index));
  }

  absl::Status EndData(size_t index) override {
    Position& p = positions_[index];
    p.line_end = p.read;  // The unfinished line is a line now.
    return agg_.EndSource(static_cast<SourceId>(index));
  }

  void Finish(size_t /*index*/) override {}

  absl::Status Tick() override { return WriteDelta(/*final=*/false); }

  // Takes the delta since the previous one and writes it.
  absl::Status WriteDelta(bool final) {
    StreamMark mark;
    mark.final = final;
    for (const auto& [index, p] : positions_) {
      mark.positions.push_back({p.name, p.line_end});
    }
    absl::StatusOr<std::string> frame = agg_.TakeDeltaPartial(mark);
    if (!frame.ok()) return frame.status();
    absl::StatusOr<PartialInfo> info = InspectPartial(*frame);
    if (!info.ok()) return info.status();  // Our own frame: a bug.
    total_ += info->counters;
    return WriteAll(b64_ ? B64Line(info->splits.begin, *frame) : *frame);
  }

  // The counters of every delta written.
  const LineCounters& total() const { return total_; }

 private:
  struct Position {
    std::string name;
    uint64_t read = 0;      // Bytes read up to here.
    uint64_t line_end = 0;  // The end of the last complete line pushed.
  };

  Aggregator& agg_;
  const bool b64_;
  std::map<size_t, Position> positions_;  // By input index: in input order.
  LineCounters total_;
};

// The --resume-from offsets by input index, or the usage problem.
std::string ResumeOffsets(const Flags& flags,
                          const std::vector<FileInput>& inputs,
                          std::vector<std::optional<uint64_t>>* offsets) {
  offsets->assign(inputs.size(), std::nullopt);
  for (const auto& [file, offset] : flags.resume_from) {
    if (file.empty()) {
      if (inputs.size() != 1 || inputs[0].is_stdin ||
          flags.resume_from.size() != 1) {
        return "--resume-from OFFSET needs exactly one FILE (not standard "
               "input); with several, use --resume-from FILE=OFFSET";
      }
      (*offsets)[0] = offset;
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].is_stdin && inputs[i].path == file) {
        if ((*offsets)[i].has_value()) {
          return absl::StrCat("--resume-from names ", file, " twice");
        }
        (*offsets)[i] = offset;
        found = true;
        break;
      }
    }
    if (!found) {
      return absl::StrCat("--resume-from names ", file,
                          ", which is not one of the FILEs");
    }
  }
  return "";
}

}  // namespace

int RunMapFollow(const Flags& flags, const Query& query) {
  if (flags.range.has_value()) {
    return UsageError("--range does not work with --follow");
  }
  if (flags.split.has_value() && flags.split->automatic) {
    return UsageError(
        "--split auto does not work with --follow (give the first delta's "
        "split number)");
  }
  if (!flags.resume_from.empty() && query.multiline().has_value()) {
    // A partial's positions follow the lines read, and the last event of
    // each input is in no partial yet: resuming there would lose it.
    return UsageError(
        "--resume-from does not work with a multiline query: a partial's "
        "positions may fall inside an event");
  }
  if (flags.stop_on_stdin_eof &&
      (flags.files.empty() || std::find(flags.files.begin(), flags.files.end(),
                                        "-") != flags.files.end())) {
    return UsageError(
        "--stop-on-stdin-eof needs FILEs, and standard input is not one");
  }
  if (!flags.b64 && isatty(STDOUT_FILENO) == 1) {
    return UsageError(
        "standard output is a terminal: redirect it to a file (> PART), "
        "or use --b64");
  }
  // A closed standard output is an EPIPE error, not a silent death.
  signal(SIGPIPE, SIG_IGN);

  AggregatorOptions options;
  options.hostname = flags.hostname.empty() ? util::HostName() : flags.hostname;
  options.source = flags.source.empty() ? options.hostname : flags.source;
  options.run_id = flags.run_id;
  options.max_line_bytes = flags.max_line_bytes;
  options.max_groups = flags.max_groups;
  const uint64_t first = flags.split.has_value() ? flags.split->index : 0;
  options.splits = {first, first + 1};
  absl::StatusOr<Aggregator> agg = Aggregator::Create(query, options);
  if (!agg.ok()) {
    PrintError(ToStd(agg.status().message()));
    return kExitInputError;
  }

  std::vector<std::string> names = flags.files;
  if (names.empty()) names.push_back("-");
  bool glob_errors = false;
  const std::vector<FileInput> inputs =
      ExpandInputs(names, [&](std::string_view name, std::string_view reason) {
        glob_errors = true;
        PrintInputProblem(name, reason);
      });

  int64_t interval_ms = flags.interval_ms;
  if (interval_ms == 0) {
    interval_ms = query.interval_ms() > 0 ? query.interval_ms() : 1000;
  }
  FollowInputsOptions follow;
  follow.from_start = flags.from_start;
  follow.until_eof = flags.until_eof;
  follow.tick_ms = interval_ms;
  follow.hangup_fd = STDOUT_FILENO;
  if (flags.stop_on_stdin_eof) follow.stop_fd = STDIN_FILENO;
  if (std::string problem = ResumeOffsets(flags, inputs, &follow.resume_from);
      !problem.empty()) {
    return UsageError(problem);
  }
  follow.summary =
      absl::StrCat("a delta partial of source '", options.source, "' every ",
                   IntervalText(interval_ms),
                   flags.until_eof ? "; the last at the files' end"
                                   : "; Ctrl-C or SIGTERM writes the last");
  FollowCallbacks callbacks;
  callbacks.error = PrintInputProblem;
  callbacks.lost = PrintInputProblem;
  if (!flags.quiet) {
    callbacks.notice = PrintInputProblem;
    callbacks.started = PrintError;
  }

  DeltaSink sink(*agg, flags.b64);
  absl::StatusOr<FollowInputsResult> run =
      FollowInputs(inputs, follow, sink, callbacks);
  if (!run.ok()) {
    // A closed standard output (Cancelled) ends the run quietly: nobody
    // reads any more.
    if (!absl::IsCancelled(run.status())) {
      PrintError(ToStd(run.status().message()));
    }
    return kExitInputError;
  }
  if (!run->followed) return kExitInputError;  // Nothing could be opened.
  if (run->hung_up) return kExitInputError;    // Nobody reads the last one.
  if (absl::Status s = sink.WriteDelta(/*final=*/true); !s.ok()) {
    PrintError(ToStd(s.message()));
    return kExitInputError;
  }
  if (flags.stats) PrintStats(sink.total(), 0);
  return glob_errors || run->inputs_failed > 0 ? kExitInputError : kExitOk;
}

}  // namespace mapr::cli
