#include "bindings/cli/journal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bindings/cli/atomic_file.h"
#include "bindings/cli/fd.h"
#include "bindings/cli/follow.h"
#include "bindings/cli/steps.h"
#include "mapr/aggregator.h"
#include "mapr/journal.h"
#include "mapr/log_format.h"
#include "mapr/partial.h"
#include "util/strings.h"

namespace mapr::cli {

using ::mapr::util::ToAbsl;
using ::mapr::util::ToStd;

namespace {

constexpr std::string_view kStateMagic = "mapr-journal-state 1\n";

// Takes "<word> <value>\n" off the front of `in`.
bool TakeLine(std::string_view* in, std::string_view word,
              std::string_view* value) {
  const size_t end = in->find('\n');
  if (end == std::string_view::npos) return false;
  const std::string_view line = in->substr(0, end);
  if (line.size() < word.size() + 1 || line.substr(0, word.size()) != word ||
      line[word.size()] != ' ') {
    return false;
  }
  *value = line.substr(word.size() + 1);
  in->remove_prefix(end + 1);
  return true;
}

// SIGINT and SIGTERM as a signalfd (BlockStopSignals), so that no handler
// runs; the first stops following (the entries there are still read), the
// second stops at once.
class StopSignals {
 public:
  StopSignals() : fd_(Open()) {}
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  bool ok() const { return fd_.get() >= 0; }
  // Signals received so far.
  int Count() {
    signalfd_siginfo info;
    while (::read(fd_.get(), &info, sizeof(info)) == sizeof(info)) ++count_;
    return count_;
  }

 private:
  static int Open() {
    sigset_t set;
    if (!BlockStopSignals(&set).ok()) return -1;
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  }

  Fd fd_;
  int count_ = 0;
};

// Whether the reader of our standard output has gone (a closed pipe or ssh
// session): then following on would write to nobody.
bool StdoutHungUp() {
  pollfd p{STDOUT_FILENO, 0, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

class JournalRun {
 public:
  JournalRun(const Flags& flags, const Query& query)
      : flags_(flags), query_(query) {}

  int Run() {
    if (int code = Start(); code != kExitOk) return code;
    return flags_.follow ? Follow() : Once();
  }

 private:
  // Reads the cursor file, opens the journal after its cursor and the
  // aggregator that goes on from its state.
  int Start() {
    JournalSpec spec;
    spec.files = flags_.journal_files;
    spec.directory = flags_.journal_dir;
    uint64_t next_split = 0;
    if (!flags_.journal_cursor_file.empty()) {
      InputSpec file;
      file.path = flags_.journal_cursor_file;
      absl::StatusOr<std::string> bytes = ReadWhole(file);
      if (!bytes.ok() && !absl::IsNotFound(bytes.status())) {
        PrintInputProblem(flags_.journal_cursor_file,
                          ToStd(bytes.status().message()));
        return kExitInputError;
      }
      if (bytes.ok()) {  // Missing: the first run.
        absl::StatusOr<JournalState> state = ParseJournalState(*bytes);
        if (!state.ok()) {
          PrintError(absl::StrCat("journal cursor file '",
                                  flags_.journal_cursor_file,
                                  "': ", state.status().message()));
          return kExitInputError;
        }
        spec.after_cursor = state->cursor;
        if (!flags_.delta && !state->state.empty()) {
          absl::StatusOr<PartialInfo> info = InspectPartial(state->state);
          if (!info.ok() || info->query != query_.ToString()) {
            PrintError(absl::StrCat(
                "journal cursor file '", flags_.journal_cursor_file, "' ",
                info.ok() ? absl::StrCat("holds the state of another query (",
                                         info->query, ")")
                          : absl::StrCat("holds a broken state: ",
                                         info.status().message()),
                "; run that query, or give another file to start again"));
            return kExitInputError;
          }
          next_split = info->splits.end;
          state_ = std::move(state->state);
        }
      }
    }
    absl::StatusOr<std::unique_ptr<JournalReader>> reader =
        JournalReader::Open(spec);
    if (!reader.ok()) {
      PrintError(ToStd(reader.status().message()));
      return kExitInputError;
    }
    reader_ = *std::move(reader);
    options_.hostname = flags_.hostname;
    options_.max_groups = flags_.max_groups;
    options_.max_line_bytes = flags_.max_line_bytes;
    // The saved state and the deltas are of the query given here.
    options_.partial_lookup_dir = std::string("/");
    options_.splits = {next_split, next_split + 1};
    absl::StatusOr<Aggregator> live = Aggregator::Create(query_, options_);
    if (!live.ok()) {
      PrintError(ToStd(live.status().message()));
      return kExitInputError;
    }
    live_.emplace(*std::move(live));
    live_->SetSourceName(0, "journal").IgnoreError();
    return kExitOk;
  }

  // Reads up to `max` entries; false (printed) on an error.
  bool ReadSome(size_t max, size_t* read) {
    absl::StatusOr<size_t> n =
        reader_->Read(max, [&](std::span<const std::string_view> lines) {
          return live_->PushLines(lines);
        });
    if (!n.ok()) {
      PrintError(ToStd(n.status().message()));
      return false;
    }
    *read = *n;
    return true;
  }

  // The result of everything so far, or of the entries since the previous
  // report with --delta. With a cursor file: the state plus the new entries,
  // saved there (with the cursor) before the result is made.
  absl::StatusOr<ResultTable> Report(bool is_final) {
    if (flags_.journal_cursor_file.empty()) {
      // No state to save: the aggregator's own results.
      if (is_final) {
        if (absl::Status s = live_->FinishInput(); !s.ok()) return s;
        return live_->TakeResult();
      }
      return flags_.delta ? live_->TakeDelta() : live_->Snapshot();
    }
    absl::StatusOr<std::string> delta = live_->TakeDeltaPartial();
    if (!delta.ok()) return delta.status();
    absl::StatusOr<Aggregator> all =
        Aggregator::FromPartial(state_.empty() ? *delta : state_, options_);
    if (!all.ok()) return all.status();
    if (!state_.empty()) {
      if (absl::Status s = all->MergeSerialized(*delta); !s.ok()) return s;
    }
    if (absl::Status s = all->FinishInput(); !s.ok()) return s;
    if (!flags_.delta) {
      absl::StatusOr<std::string> frame = all->SerializePartial();
      if (!frame.ok()) return frame.status();
      state_ = *std::move(frame);
    }
    absl::Status s =
        WriteFileAtomically(flags_.journal_cursor_file,
                            SerializeJournalState({reader_->cursor(), state_}),
                            "journal cursor file");
    if (!s.ok()) return s;
    return all->TakeResult();
  }

  int Once() {
    size_t read = 0;
    const bool read_ok = ReadSome(SIZE_MAX, &read);
    absl::StatusOr<ResultTable> result = Report(/*is_final=*/true);
    if (!result.ok()) {
      PrintError(ToStd(result.status().message()));
      return kExitInputError;
    }
    FilesReport report;
    report.inputs_ok = read_ok ? 1 : 0;
    report.inputs_failed = read_ok ? 0 : 1;
    return EmitResult(flags_, query_, *result, result->stats(), report,
                      read_ok ? kExitOk : kExitInputError);
  }

  int Follow() {
    StopSignals signals;
    if (!signals.ok()) {
      PrintError(absl::StrCat("cannot catch SIGINT and SIGTERM: ",
                              std::strerror(errno)));
      return kExitInputError;
    }
    ReportWriter writer(flags_, query_);
    ReportExtras extras;
    if (int code = SetUpReportExtras(flags_, query_, writer, extras);
        code != kExitOk) {
      return code;
    }
    int64_t interval_ms =
        flags_.interval_ms > 0 ? flags_.interval_ms : query_.interval_ms();
    if (interval_ms <= 0) interval_ms = 1000;  // `interval 0`, as DTail.
    const absl::Duration interval = absl::Milliseconds(interval_ms);
    if (!flags_.quiet) {
      PrintError(absl::StrCat("following the journal; ",
                              flags_.delta ? "delta" : "cumulative",
                              " report every ", absl::FormatDuration(interval),
                              "; Ctrl-C or SIGTERM prints the final result"));
    }
    bool failed = false;
    absl::Time next_report = absl::Now() + interval;
    for (;;) {
      const int stops = signals.Count();
      if (stops >= 2 || StdoutHungUp()) break;
      size_t read = 0;
      // A bounded read, so that reports keep their interval through a
      // backlog.
      if (!ReadSome(4 * mapr::kMaxBatchRows, &read)) {
        failed = true;
        break;
      }
      if (stops == 1 && read == 0) break;  // Read what was there: end.
      // As DTail sends no empty snapshots, an interval without new entries
      // makes no report.
      if (absl::Now() >= next_report &&
          reader_->entries() != reported_entries_) {
        reported_entries_ = reader_->entries();
        absl::StatusOr<ResultTable> r = Report(/*is_final=*/false);
        if (!r.ok()) {
          PrintError(ToStd(r.status().message()));
          return kExitInputError;
        }
        writer.Write(*r, /*is_final=*/false);
      }
      if (absl::Now() >= next_report) {
        next_report += interval;
        if (next_report < absl::Now()) next_report = absl::Now() + interval;
      }
      if (read == 0 && stops == 0) {
        const absl::Duration wait =
            std::min(absl::Milliseconds(200), next_report - absl::Now());
        absl::StatusOr<bool> changed = reader_->Wait(wait);
        if (!changed.ok()) {
          PrintError(ToStd(changed.status().message()));
          failed = true;
          break;
        }
      }
    }
    absl::StatusOr<ResultTable> r = Report(/*is_final=*/true);
    if (!r.ok()) {
      PrintError(ToStd(r.status().message()));
      return kExitInputError;
    }
    writer.Write(*r, /*is_final=*/true);
    if (flags_.stats) PrintStats(r->stats(), r->total_groups());
    if (!flags_.quiet) {
      PrintNotes(ResultNotesFor(query_, r->stats(), r->field_counts(),
                                flags_.max_line_bytes));
    }
    if (failed || writer.failed()) return kExitInputError;
    return writer.alert_fired() ? kExitAlert : kExitOk;
  }

  const Flags& flags_;
  const Query& query_;
  AggregatorOptions options_;
  std::unique_ptr<JournalReader> reader_;
  std::optional<Aggregator> live_;
  std::string state_;              // The state up to the cursor file's cursor.
  uint64_t reported_entries_ = 0;  // reader_->entries() at the last report.
};

}  // namespace

absl::StatusOr<JournalState> ParseJournalState(std::string_view bytes) {
  JournalState out;
  if (bytes.substr(0, kStateMagic.size()) != kStateMagic) {
    // A bare cursor, as `journalctl --cursor-file` writes it.
    std::string_view line = bytes;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
      line.remove_suffix(1);
    }
    if (line.empty() || line.find_first_of("\n\r") != std::string_view::npos ||
        line.find('=') == std::string_view::npos) {
      return absl::InvalidArgumentError(
          "neither a journal cursor nor a state mapr wrote");
    }
    out.cursor = std::string(line);
    return out;
  }
  bytes.remove_prefix(kStateMagic.size());
  std::string_view cursor, size;
  uint64_t n = 0;
  if (!TakeLine(&bytes, "cursor", &cursor) ||
      !TakeLine(&bytes, "state", &size) ||
      !absl::SimpleAtoi(ToAbsl(size), &n) || n != bytes.size()) {
    return absl::InvalidArgumentError(
        "a state mapr wrote, but cut short or changed");
  }
  out.cursor = std::string(cursor);
  out.state = std::string(bytes);
  return out;
}

std::string SerializeJournalState(const JournalState& state) {
  return absl::StrCat(ToAbsl(kStateMagic), "cursor ", state.cursor, "\nstate ",
                      state.state.size(), "\n", state.state);
}

int RunJournal(const Flags& flags, const Query& query) {
  return JournalRun(flags, query).Run();
}

}  // namespace mapr::cli
