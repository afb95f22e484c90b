// The `mapr` command: runs a DTail-compatible mapreduce query over log files
// (or standard input) and prints the result. See docs/cli.md.
//
//   mapr 'from STATS select count($line) group by $hostname' app.log
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bindings/cli/chart.h"
#include "bindings/cli/flags.h"
#include "bindings/cli/follow.h"
#include "bindings/cli/format_sample.h"
#include "bindings/cli/huge_pages.h"
#include "bindings/cli/journal.h"
#include "bindings/cli/map_follow.h"
#include "bindings/cli/omprog.h"
#include "bindings/cli/remote.h"
#include "bindings/cli/runner.h"
#include "bindings/cli/steps.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/outfile.h"
#include "mapr/prometheus.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "mapr/turbo_aggregate.h"
#include "mapr/version.h"
#include "util/errno_text.h"
#include "util/strings.h"

namespace mapr::cli {

using ::mapr::util::ToStd;

namespace {

// The terminal shows this many rows of a query without `limit` (DTail).
constexpr int64_t kTerminalRows = 10;

}  // namespace

namespace {

// True for a byte a terminal would act on rather than show: the C0 controls
// (ESC starts colour, cursor and title sequences; CR overwrites a line) but
// the newline and the tab, and DEL.
bool ActsOnTerminal(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\n' && c != '\t') || u == 0x7f;
}

// Writes `s` to `f`; on a terminal, such bytes as \xNN. Values from a log
// line, a partial or a host then cannot recolour, retitle or rewrite the
// reader's terminal; a pipe or a file gets the bytes as they are.
void WriteShown(std::FILE* f, bool terminal, std::string_view s) {
  if (!terminal || std::none_of(s.begin(), s.end(),
                                [](char c) { return ActsOnTerminal(c); })) {
    std::fwrite(s.data(), 1, s.size(), f);
    return;
  }
  std::string shown;
  shown.reserve(s.size() + 16);
  for (char c : s) {
    if (ActsOnTerminal(c)) {
      absl::StrAppendFormat(&shown, "\\x%02x", static_cast<unsigned char>(c));
    } else {
      shown.push_back(c);
    }
  }
  std::fwrite(shown.data(), 1, shown.size(), f);
}

bool StderrIsTerminal() {
  static const bool terminal = isatty(STDERR_FILENO) == 1;
  return terminal;
}

bool StdoutIsTerminal() {
  static const bool terminal = isatty(STDOUT_FILENO) == 1;
  return terminal;
}

}  // namespace

void PrintError(std::string_view message) {
  // The library names its limits as its APIs spell them ("more than 2
  // groups (max_groups)"); here the user gave them as options.
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"(max_groups)", "(--max-groups)"},
      {"(max_frame_bytes)", "(--max-frame-bytes)"},
  };
  std::string line = "mapr: ";
  bool named = false;
  for (const auto& [library, option] : kNames) {
    const size_t at = message.find(library);
    if (at == std::string_view::npos) continue;
    absl::StrAppend(&line, util::ToAbsl(message.substr(0, at)),
                    util::ToAbsl(option),
                    util::ToAbsl(message.substr(at + library.size())));
    named = true;
    break;
  }
  if (!named) line.append(message.data(), message.size());
  line.push_back('\n');
  WriteShown(stderr, StderrIsTerminal(), line);
}

int UsageError(std::string_view message) {
  PrintError(message);
  std::fputs("Try 'mapr --help' for more information.\n", stderr);
  return kExitUsage;
}

std::string ReportEnd(OutputFormat format, size_t number, bool is_final) {
  if (format == OutputFormat::kJson || format == OutputFormat::kJsonl) {
    return absl::StrCat("{\"mapr_report_end\":", number,
                        ",\"final\":", is_final ? "true" : "false", "}\n");
  }
  return absl::StrCat("# end of report ", number, is_final ? " (final)" : "",
                      "\n");
}

void WriteStdout(std::string_view s) {
  WriteShown(stdout, StdoutIsTerminal(), s);
}

namespace {

int DefaultThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxThreads));
}

}  // namespace

void PrintInputProblem(std::string_view name, std::string_view reason) {
  WriteShown(stderr, StderrIsTerminal(),
             absl::StrCat("mapr: ", util::ToAbsl(name), ": ",
                          util::ToAbsl(reason), "\n"));
}

// The counters (mapr::kLineCounterFields, in order), then `groups`: the
// result's number of groups before `limit`.
void PrintStats(const LineCounters& c, uint64_t groups) {
  for (const LineCounterField& f : kLineCounterFields) {
    std::fprintf(stderr, "%.*s: %llu\n", static_cast<int>(f.name.size()),
                 f.name.data(), static_cast<unsigned long long>(c.*f.value));
  }
  std::fprintf(stderr, "groups: %llu\n",
               static_cast<unsigned long long>(groups));
}

namespace {

// DTail's note when the terminal output shows `max_rows` of the rows.
void NoteTerminalRows(const ResultTable& r, int64_t max_rows, bool quiet) {
  if (max_rows >= 0 && r.num_rows() > static_cast<size_t>(max_rows) && !quiet) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "Got %zu results but limited terminal output to %lld "
                 "rows! Use 'limit' clause to override!\n",
                 r.num_rows(), static_cast<long long>(max_rows));
  }
}

// Prints `r` on stdout in `format`; the terminal table and chart are cut to
// 10 rows when the query has no limit, with DTail's note on stderr. False
// (after printing why) if the result cannot be drawn as a chart.
bool PrintResult(const Query& query, const ResultTable& r, OutputFormat format,
                 bool quiet) {
  switch (format) {
    case OutputFormat::kTable: {
      TableOptions options;
      if (query.limit() < 0) options.max_rows = kTerminalRows;
      r.WriteTable(options, WriteStdout);
      NoteTerminalRows(r, options.max_rows, quiet);
      break;
    }
    case OutputFormat::kChart: {
      ChartOptions options;
      if (query.limit() < 0) options.max_rows = kTerminalRows;
      options.width = TerminalWidth();
      absl::StatusOr<std::string> chart = RenderChart(r, options);
      if (!chart.ok()) {
        PrintError(ToStd(chart.status().message()));
        return false;
      }
      WriteStdout(*chart);
      NoteTerminalRows(r, options.max_rows, quiet);
      break;
    }
    case OutputFormat::kCsv:
      r.WriteCsv(WriteStdout);
      break;
    case OutputFormat::kJson:
      r.WriteJson(WriteStdout);
      break;
    case OutputFormat::kJsonl:
      r.WriteNdjson(WriteStdout);
      break;
    case OutputFormat::kPrometheus:
      if (absl::Status s = WritePrometheus(r, {}, WriteStdout); !s.ok()) {
        PrintError(ToStd(s.message()));
        return false;
      }
      break;
  }
  return true;
}

}  // namespace

void PrintNotes(const std::vector<ResultNote>& notes) {
  for (const ResultNote& note : notes) {
    std::fprintf(stderr, "warning: %s\n", note.text.c_str());
  }
}

ReportWriter::ReportWriter(const Flags& flags, const Query& query)
    : flags_(flags), query_(query), format_(flags.output) {
  if (!query.outfile().has_value() && !format_.has_value()) {
    format_ = OutputFormat::kTable;
  }
}

void ReportWriter::Write(const ResultTable& r, bool is_final) {
  if (query_.outfile().has_value()) {
    absl::Status s = WriteOutfile(query_, r);
    if (!s.ok()) {
      // Once per distinct message, not every interval.
      const std::string message(ToStd(s.message()));
      if (message != last_outfile_error_) PrintError(message);
      last_outfile_error_ = message;
      failed_ = true;
    } else {
      last_outfile_error_.clear();
    }
  }
  if (alert_ != nullptr) CheckAlert(r);
  if (metrics_ != nullptr) {
    absl::StatusOr<std::string> text = ToPrometheus(r);
    if (text.ok()) {
      metrics_->Publish(*std::move(text));
      last_metrics_error_.clear();
    } else {
      // Once per distinct message; scrapes keep the last good report.
      const std::string message(ToStd(text.status().message()));
      if (message != last_metrics_error_) PrintError("--listen: " + message);
      last_metrics_error_ = message;
      failed_ = true;
    }
  }
  if (format_.has_value()) {
    if (reports_ > 0) WriteStdout("\n");
    if (!PrintResult(query_, r, *format_, flags_.quiet)) failed_ = true;
    WriteStdout(ReportEnd(*format_, reports_ + 1, is_final));
    if (std::fflush(stdout) != 0 && !failed_) {
      failed_ = true;
      PrintError(absl::StrCat("cannot write to standard output: ",
                              std::strerror(errno)));
    }
  }
  ++reports_;
}

void ReportWriter::CheckAlert(const ResultTable& r) {
  const std::vector<bool> holds = alert_->Evaluate(r);
  std::set<std::string> now;
  // --alert-format json: each group's row, for the lines.
  std::map<std::string, size_t> rows;
  // A row's group: its group-key cells as name=value (every line's group
  // when the query has no group key column).
  auto group_of = [&](size_t row) {
    std::string group;
    for (size_t c = 0; c < r.num_columns(); ++c) {
      if (!r.columns()[c].is_group_key) continue;
      if (!group.empty()) group += " ";
      absl::StrAppend(&group, r.columns()[c].name, "=",
                      util::ToAbsl(r.cell(row, c)));
    }
    return group.empty() ? std::string("(all lines)") : group;
  };
  auto say = [&](std::string_view what, const std::string& group) {
    if (!flags_.alert_json) {
      std::fprintf(stderr, "mapr: alert %.*s: %s: %s (report %zu)\n",
                   static_cast<int>(what.size()), what.data(), group.c_str(),
                   alert_->text().c_str(), reports_ + 1);
      return;
    }
    // The row, if the report has the group (an ended one may be gone).
    const auto row = rows.find(group);
    const std::string line = absl::StrCat(
        "{\"alert\":", JsonString(what),
        ",\"condition\":", JsonString(alert_->text()),
        ",\"group\":", JsonString(group), ",\"report\":", reports_ + 1,
        ",\"row\":", row == rows.end() ? "null" : r.RowToJson(row->second),
        "}\n");
    std::fputs(line.c_str(), stderr);
  };
  for (size_t row = 0; row < holds.size(); ++row) {
    if (!holds[row] && !flags_.alert_json) continue;
    std::string group = group_of(row);
    if (flags_.alert_json) rows.emplace(group, row);
    if (!holds[row]) continue;
    if (!firing_.contains(group)) say("started", group);
    now.insert(std::move(group));
  }
  for (const std::string& group : firing_) {
    if (!now.contains(group)) say("ended", group);
  }
  alert_fired_ = alert_fired_ || !now.empty();
  firing_ = std::move(now);
}

int EmitResult(const Flags& flags, const Query& query, const ResultTable& table,
               const LineCounters& stats, const FilesReport& report,
               int exit_code, bool write_outfile) {
  std::optional<OutputFormat> format = flags.output;
  if (query.outfile().has_value() && write_outfile) {
    if (absl::Status s = WriteOutfile(query, table); !s.ok()) {
      PrintError(ToStd(s.message()));
      exit_code = kExitInputError;
    }
  } else if (!format.has_value()) {
    format = OutputFormat::kTable;
  }
  if (format.has_value() && !PrintResult(query, table, *format, flags.quiet)) {
    exit_code = kExitUsage;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    PrintError(absl::StrCat("cannot write to standard output: ",
                            std::strerror(errno)));
    exit_code = kExitInputError;
  }
  if (flags.stats) PrintStats(stats, table.total_groups());
  if (!flags.quiet) {
    // The table's notes, with what the input layer saw (QueryFiles
    // results have it already; other results get it here).
    PrintNotes(ResultNotesFor(
        query, stats, table.field_counts(), flags.max_line_bytes,
        InputFacts{report.lines_with_nul, report.inputs_without_parsed_lines,
                   report.first_unparsable_input,
                   report.first_unparsable_line}));
  }
  return exit_code;
}

namespace {
// --journal with FILEs, or a query whose format cannot read journal lines.
std::string JournalUsageProblem(const Flags& flags, const Query& query) {
  if (!flags.files.empty()) {
    return "--journal reads the journal, not FILEs; leave them out, or read "
           "them without --journal";
  }
  if (!flags.journal_files.empty() && !flags.journal_dir.empty()) {
    return "--journal-file and --journal-dir cannot be combined";
  }
  if (query.multiline().has_value()) {
    // A cursor after an entry of an unfinished event would lose it.
    return "--journal reads entries, each one event: a multiline query "
           "does not apply";
  }
  const std::string& f = query.log_format();
  if (query.log_format_given() && f != "journal" && f != "json" &&
      f != "ndjson" && f != "jsonl") {
    return absl::StrCat(
        "--journal gives the query journal entries as JSON lines, which "
        "logformat ",
        f, " does not read; name logformat journal, or no format");
  }
  return "";
}
}  // namespace

int SetUpReportExtras(const Flags& flags, const Query& query,
                      ReportWriter& writer, ReportExtras& extras) {
  if (flags.alert.has_value()) {
    absl::StatusOr<RowCondition> compiled =
        RowCondition::Compile(query, *flags.alert);
    if (!compiled.ok()) {
      return UsageError(absl::StrCat("--alert: ", compiled.status().message()));
    }
    extras.alert.emplace(*std::move(compiled));
    writer.set_alert(&*extras.alert);
  }
  if (flags.listen.has_value()) {
    absl::StatusOr<std::unique_ptr<MetricsServer>> server =
        MetricsServer::Start(*flags.listen);
    if (!server.ok()) {
      PrintError(ToStd(server.status().message()));
      return kExitInputError;
    }
    extras.metrics = *std::move(server);
    writer.set_metrics(extras.metrics.get());
    std::fprintf(stderr, "mapr: serving metrics at http://%s:%u/metrics\n",
                 flags.listen->address.c_str(),
                 static_cast<unsigned>(extras.metrics->port()));
  }
  return kExitOk;
}

namespace {

// --follow: reports every interval until a signal (see follow.h). Every
// report is written to the outfile and/or printed, each printed one ended
// by its ReportEnd() line, and reports separated by an empty line.
int RunFollow(const Flags& flags, const Query& query) {
  bool glob_errors = false;
  const std::vector<FileInput> inputs = ExpandInputs(
      flags.files, [&](std::string_view name, std::string_view reason) {
        glob_errors = true;
        PrintInputProblem(name, reason);
      });

  // Used by the reporter thread; read after FollowQuery() returned.
  ReportWriter writer(flags, query);
  ReportExtras extras;
  if (int code = SetUpReportExtras(flags, query, writer, extras);
      code != kExitOk) {
    return code;
  }
  uint64_t final_groups = 0;
  std::vector<FieldCount> final_fields;
  FollowCallbacks callbacks;
  callbacks.report = [&](const ResultTable& r, bool is_final) {
    writer.Write(r, is_final);
    if (is_final) {
      final_groups = r.total_groups();
      // A delta holds only its own lines' field counts.
      if (!flags.delta) final_fields = r.field_counts();
    }
  };
  callbacks.error = PrintInputProblem;
  callbacks.lost = PrintInputProblem;
  if (!flags.quiet) {
    callbacks.notice = PrintInputProblem;
    callbacks.started = PrintError;
  }

  FollowOptions options;
  options.threads = flags.threads > 0 ? flags.threads : DefaultThreads();
  options.max_line_bytes = flags.max_line_bytes;
  options.max_groups = flags.max_groups;
  options.hostname = flags.hostname;
  options.mode = flags.delta ? ReportMode::kDelta : ReportMode::kCumulative;
  options.interval_ms = flags.interval_ms;
  options.from_start = flags.from_start;
  options.hangup_fd = STDOUT_FILENO;
  absl::StatusOr<FollowResult> run =
      FollowQuery(query, inputs, options, callbacks);
  if (!run.ok()) {
    PrintError(ToStd(run.status().message()));
    return kExitInputError;
  }
  // Nothing could be opened: nothing was printed or written.
  if (!run->followed) return kExitInputError;
  if (flags.stats) PrintStats(run->stats, final_groups);
  if (!flags.quiet) {
    // (Followed input is not checked for NUL bytes.)
    PrintNotes(
        ResultNotesFor(query, run->stats, final_fields, flags.max_line_bytes));
  }
  if (glob_errors || run->inputs_failed > 0 || writer.failed()) {
    return kExitInputError;
  }
  return writer.alert_fired() ? kExitAlert : kExitOk;
}

int Run(int argc, char** argv) {
  absl::StatusOr<Flags> flags = ParseFlags(argc, argv);
  if (!flags.ok()) return UsageError(ToStd(flags.status().message()));
  if (flags->help) {
    WriteStdout(HelpText(DefaultThreads()));
    return kExitOk;
  }
  if (flags->version) {
    WriteStdout("mapr " MAPR_VERSION_STRING "\n");
    return kExitOk;
  }
  if (std::string problem = MisplacedOption(*flags); !problem.empty()) {
    return UsageError(problem);
  }
  switch (flags->command) {
    case Command::kCombine:
      return RunCombine(*flags);
    case Command::kReduce:
      return RunReduce(*flags);
    case Command::kInspect:
      return RunInspect(*flags);
    case Command::kQuery:
    case Command::kMap:
    case Command::kRemote:
      break;
  }
  if (!flags->follow) {
    const char* follow_only =
        flags->delta                                          ? "--delta"
        : flags->from_start                                   ? "--from-start"
        : flags->interval_ms > 0 && flags->omprog_dir.empty() ? "--interval-ms"
        : flags->listen.has_value()                           ? "--listen"
        : flags->alert.has_value()                            ? "--alert"
        : flags->alert_json                                   ? "--alert-format"
                                                              : nullptr;
    if (follow_only != nullptr) {
      return UsageError(absl::StrCat(follow_only, " works only with --follow"));
    }
  }
  if (flags->alert_json && !flags->alert.has_value()) {
    return UsageError("--alert-format works only with --alert");
  }
  if (!flags->query.has_value()) return UsageError("missing QUERY");

  CompileOptions compile;
  compile.allow_file_lookups = true;  // lookup() tables the user names.
  absl::StatusOr<Query> query = Query::Compile(*flags->query, compile);
  if (!query.ok()) {
    PrintError(ToStd(query.status().message()));
    return kExitUsage;
  }
  if (flags->event_start.has_value()) {
    // The rule goes into the query's text, so partials and --explain name
    // it as the clause does.
    const std::string& re = *flags->event_start;
    if (query->multiline().has_value()) {
      return UsageError(
          "--event-start and the query's multiline clause: give only one");
    }
    const bool single = re.find('\'') == std::string::npos;
    if (!single && re.find('"') != std::string::npos) {
      return UsageError(
          "--event-start: a regex with both ' and \" cannot be quoted in a "
          "query; write \\x27 or \\x22 for one of them");
    }
    const char* quote = single ? "'" : "\"";
    query = Query::Compile(
        absl::StrCat(*flags->query, " multiline ", quote, re, quote), compile);
    if (!query.ok()) {
      PrintError(ToStd(query.status().message()));
      return kExitUsage;
    }
  }
  if (flags->journal) {
    if (std::string problem = JournalUsageProblem(*flags, *query);
        !problem.empty()) {
      return UsageError(problem);
    }
    // Journal entries are JSON lines: a query that names no format reads
    // them as `logformat journal`, and says so in its text (the partials in
    // a cursor file hold the text).
    if (!query->log_format_given()) {
      query = Query::Compile(absl::StrCat(*flags->query, " logformat journal"),
                             compile);
      if (!query.ok()) {
        PrintError(ToStd(query.status().message()));
        return kExitUsage;
      }
    }
  }
  if (flags->output == OutputFormat::kChart && !HasNumericColumn(*query)) {
    return UsageError(
        "--output chart draws the first numeric column, and the query has "
        "none: select an aggregate such as count($line)");
  }
  // Before anything is printed or read: a large run may start again with
  // huge pages (huge_pages.h).
  if (!flags->follow && !flags->explain) {
    ReexecForHugePages(argv, flags->files);
  }
  if (flags->explain) {
    std::string text = query->Explain();
    if (!text.empty() && text.back() != '\n') text.push_back('\n');
    for (const std::string& w : query->warnings()) {
      const std::string line = absl::StrCat("warning: ", w, "\n");
      if (text.find(line) == std::string::npos) text += line;
    }
    if (query->log_format() == "auto") {
      for (const std::string& line : ExplainAutoFormat(flags->files)) {
        absl::StrAppend(&text, line, "\n");
      }
    }
    WriteStdout(text);
    int code = std::fflush(stdout) == 0 ? kExitOk : kExitInputError;
    // The FILEs are not read, but a name that a run could not open is
    // reported as the run would report it (exit 1).
    bool problems = false;
    const std::vector<FileInput> inputs = ExpandInputs(
        flags->files, [&](std::string_view name, std::string_view reason) {
          problems = true;
          PrintInputProblem(name, reason);
        });
    for (const FileInput& in : inputs) {
      if (in.is_stdin || access(in.path.c_str(), R_OK) == 0) continue;
      problems = true;
      PrintInputProblem(in.path, util::ErrnoText(errno));
    }
    return problems ? kExitInputError : code;
  }
  if (!flags->quiet) {
    for (const std::string& w : query->warnings()) {
      std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
    // `logformat auto` over files whose first lines mix formats: say so
    // (the first 16 files; a sample of each).
    if (query->log_format() == "auto" && !flags->follow) {
      for (const std::string& w : MixedFormatWarnings(flags->files, 16)) {
        std::fprintf(stderr, "warning: %s\n", w.c_str());
      }
    }
  }

  // Waiting for a terminal's lines looks like a hang: say what it waits for.
  if (!flags->quiet && !flags->journal && isatty(STDIN_FILENO) == 1 &&
      (flags->files.empty() ||
       std::find(flags->files.begin(), flags->files.end(), "-") !=
           flags->files.end())) {
    std::fprintf(stderr,
                 "mapr: reading log lines from standard input, a terminal; "
                 "end them with Ctrl-D, or name a FILE\n");
  }
  if (flags->journal) return RunJournal(*flags, *query);
  if (flags->command == Command::kMap && !flags->omprog_dir.empty()) {
    return RunOmprog(*flags, *query);
  }
  if (flags->command == Command::kMap && flags->follow) {
    return RunMapFollow(*flags, *query);
  }
  if (flags->command == Command::kRemote) {
    return RunRemote(*flags, *query);
  }
  if (flags->follow) return RunFollow(*flags, *query);
  if (flags->command == Command::kMap) {
    return RunMap(*flags, *query, DefaultThreads());
  }

  bool input_errors = false;
  auto report = [&](std::string_view name, std::string_view reason) {
    input_errors = true;
    PrintInputProblem(name, reason);
  };
  RunOptions options;
  options.threads = flags->threads > 0 ? flags->threads : DefaultThreads();
  options.max_line_bytes = flags->max_line_bytes;
  options.max_groups = flags->max_groups;
  options.hostname = flags->hostname;
  options.progress = !flags->quiet && isatty(STDERR_FILENO) == 1;
  absl::StatusOr<RunResult> run =
      RunQuery(*query, flags->files, options, report);
  if (!run.ok()) {
    PrintError(ToStd(run.status().message()));
    return kExitInputError;
  }
  // Nothing could be read: print nothing and keep any old outfile.
  if (run->report.inputs_ok == 0 && run->stats.lines_read == 0) {
    return kExitInputError;
  }

  return EmitResult(*flags, *query, run->table, run->stats, run->report,
                    input_errors ? kExitInputError : kExitOk);
}

}  // namespace
}  // namespace mapr::cli

int main(int argc, char** argv) {
  // A re-executed command (huge_pages.h) puts the caller's environment back.
  mapr::cli::RestoreEnvironmentAfterReexec();
  try {
    return mapr::cli::Run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("mapr: out of memory\n", stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mapr: internal error: %s\n", e.what());
  }
  return 1;
}
