#include "bindings/cli/flags.h"

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "mapr/catalog.h"
#include "mapr/log_format.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ToAbsl;

absl::Status Usage(std::string_view message) {
  return absl::InvalidArgumentError(ToAbsl(message));
}

absl::StatusOr<OutputFormat> ParseOutput(std::string_view v) {
  if (v == "table") return OutputFormat::kTable;
  if (v == "csv") return OutputFormat::kCsv;
  if (v == "json") return OutputFormat::kJson;
  if (v == "jsonl" || v == "ndjson") return OutputFormat::kJsonl;
  if (v == "chart") return OutputFormat::kChart;
  if (v == "prometheus") return OutputFormat::kPrometheus;
  return Usage(
      absl::StrCat("invalid --output '", ToAbsl(v),
                   "' (use table, csv, json, jsonl, chart or prometheus)"));
}

absl::StatusOr<int> ParseThreads(std::string_view v) {
  int n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < 1 ||
      n > kMaxThreads) {
    return Usage(absl::StrCat("invalid --threads '", ToAbsl(v),
                              "' (use a number from 1 to ", kMaxThreads, ")"));
  }
  return n;
}

// A whole number from `lo` to `hi` for `flag`; else "invalid FLAG 'V' (use
// a number of UNIT from LO to HI[NOTE])".
absl::StatusOr<int64_t> ParseInRange(std::string_view v, std::string_view flag,
                                     int64_t lo, int64_t hi,
                                     std::string_view unit,
                                     std::string_view note = "") {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi) {
    return Usage(absl::StrCat("invalid ", ToAbsl(flag), " '", ToAbsl(v),
                              "' (use a number of ", ToAbsl(unit), " from ", lo,
                              " to ", hi, ToAbsl(note), ")"));
  }
  return n;
}

absl::StatusOr<int64_t> ParseIntervalMs(std::string_view v) {
  return ParseInRange(v, "--interval-ms", 1, kMaxIntervalMs, "milliseconds");
}

absl::StatusOr<int64_t> ParseHostTimeout(std::string_view v) {
  return ParseInRange(v, "--host-timeout", 0, kMaxHostTimeoutSeconds, "seconds",
                      "; 0: none");
}

absl::StatusOr<ListenAddress> ParseListen(std::string_view v) {
  absl::StatusOr<ListenAddress> a = ParseListenAddress(v);
  if (!a.ok()) return Usage(util::ToStd(a.status().message()));
  return a;
}

absl::StatusOr<uint64_t> ParseMaxGroups(std::string_view v) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n > kMaxGroupsLimit) {
    return Usage(absl::StrCat("invalid --max-groups '", ToAbsl(v),
                              "' (use a number from 0 to ", kMaxGroupsLimit,
                              "; 0: no limit)"));
  }
  return n;
}

// A byte count from 1 to `limit` with an optional K, M or G suffix (powers
// of 1024), for the option `flag` ("up to `limit_text`" in its message).
absl::StatusOr<uint64_t> ParseByteCount(std::string_view v,
                                        std::string_view flag, uint64_t limit,
                                        std::string_view limit_text) {
  const absl::Status bad =
      Usage(absl::StrCat("invalid ", ToAbsl(flag), " '", ToAbsl(v),
                         "' (use a number of bytes from 1 to ",
                         ToAbsl(limit_text), ", optionally with K, M or G)"));
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end == v.data()) return bad;
  std::string_view suffix(end, static_cast<size_t>(v.data() + v.size() - end));
  int shift = 0;
  if (suffix == "K" || suffix == "k" || suffix == "KiB") {
    shift = 10;
  } else if (suffix == "M" || suffix == "m" || suffix == "MiB") {
    shift = 20;
  } else if (suffix == "G" || suffix == "g" || suffix == "GiB") {
    shift = 30;
  } else if (!suffix.empty()) {
    return bad;
  }
  if (n == 0 || n > (limit >> shift)) return bad;
  return n << shift;
}

absl::StatusOr<size_t> ParseBytes(std::string_view v) {
  absl::StatusOr<uint64_t> n =
      ParseByteCount(v, "--max-line-bytes", kMaxLineBytesLimit, "1G");
  if (!n.ok()) return n.status();
  return static_cast<size_t>(*n);
}

absl::StatusOr<uint64_t> ParseFrameBytes(std::string_view v) {
  return ParseByteCount(v, "--max-frame-bytes", kMaxFrameBytesLimit, "1024G");
}

// Sets a switch.
template <bool Flags::*kField>
absl::Status Set(Flags& flags, std::string_view) {
  flags.*kField = true;
  return absl::OkStatus();
}

// Parses a value with kParse into the field kField.
template <auto kField, auto kParse>
absl::Status Parse(Flags& flags, std::string_view value) {
  auto v = kParse(value);
  if (!v.ok()) return v.status();
  flags.*kField = *std::move(v);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ParseUint(std::string_view v, std::string_view flag,
                                   std::string_view what) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
    return Usage(absl::StrCat("invalid ", ToAbsl(flag), " '", ToAbsl(v),
                              "' (use ", ToAbsl(what), ")"));
  }
  return n;
}

// ParseUint's number, also refused outside [lo, hi] with the same message.
absl::StatusOr<uint64_t> ParseUintIn(std::string_view v, std::string_view flag,
                                     std::string_view what, uint64_t lo,
                                     uint64_t hi) {
  absl::StatusOr<uint64_t> n = ParseUint(v, flag, what);
  if (n.ok() && (*n < lo || *n > hi)) {
    return Usage(absl::StrCat("invalid ", ToAbsl(flag), " '", ToAbsl(v),
                              "' (use ", ToAbsl(what), ")"));
  }
  return n;
}

// `value` into `flags.*kField`, refused when empty with `message`.
template <auto kField>
absl::Status SetNonEmpty(Flags& flags, std::string_view value,
                         std::string_view message) {
  if (value.empty()) return Usage(message);
  flags.*kField = std::string(value);
  return absl::OkStatus();
}

absl::StatusOr<SplitFlag> ParseSplit(std::string_view v) {
  SplitFlag split;
  if (v == "auto") {
    split.automatic = true;
    return split;
  }
  absl::StatusOr<uint64_t> n =
      ParseUint(v, "--split", "a split number from 0, or auto");
  if (!n.ok()) return n.status();
  if (*n == UINT64_MAX) {
    return Usage(absl::StrCat("invalid --split '", ToAbsl(v),
                              "' (use a split number from 0, or auto)"));
  }
  split.index = *n;
  return split;
}

absl::StatusOr<std::pair<uint64_t, uint64_t>> ParseRange(std::string_view v) {
  const absl::Status bad = Usage(absl::StrCat(
      "invalid --range '", ToAbsl(v), "' (use LO:HI, byte offsets, LO <= HI)"));
  const size_t colon = v.find(':');
  if (colon == std::string_view::npos) return bad;
  absl::StatusOr<uint64_t> lo =
      ParseUint(v.substr(0, colon), "--range", "LO:HI");
  absl::StatusOr<uint64_t> hi =
      ParseUint(v.substr(colon + 1), "--range", "LO:HI");
  if (!lo.ok() || !hi.ok() || *lo > *hi) return bad;
  return std::make_pair(*lo, *hi);
}

absl::StatusOr<uint64_t> ParseExpectSplits(std::string_view v) {
  return ParseUintIn(v, "--expect-splits", "a number of splits from 1", 1,
                     UINT64_MAX);
}

absl::Status SetHostname(Flags& flags, std::string_view value) {
  // Empty would mean "the machine's name" in the library: refused rather
  // than silently replaced.
  return SetNonEmpty<&Flags::hostname>(
      flags, value,
      "--hostname needs a non-empty NAME (leave it out for the machine's "
      "host name)");
}

absl::Status SetPartitions(Flags& flags, std::string_view value) {
  absl::StatusOr<uint64_t> n =
      ParseUintIn(value, "--partitions", "a count from 1 to 65536", 1, 65536);
  if (!n.ok()) return n.status();
  flags.partitions = static_cast<uint32_t>(*n);
  return absl::OkStatus();
}

absl::Status SetPartition(Flags& flags, std::string_view value) {
  absl::StatusOr<uint64_t> n =
      ParseUintIn(value, "--partition", "a partition number from 0", 0, 65535);
  if (!n.ok()) return n.status();
  flags.partition = static_cast<uint32_t>(*n);
  return absl::OkStatus();
}

absl::Status SetSource(Flags& flags, std::string_view value) {
  return SetNonEmpty<&Flags::source>(flags, value,
                                     "--source needs a non-empty ID");
}

absl::Status SetOmprogDir(Flags& flags, std::string_view value) {
  return SetNonEmpty<&Flags::omprog_dir>(flags, value,
                                         "--omprog needs a folder");
}

absl::Status SetEventStart(Flags& flags, std::string_view value) {
  return SetNonEmpty<&Flags::event_start>(
      flags, value, "--event-start needs a regular expression");
}

// OFFSET, or FILE=OFFSET (the last '=' separates them).
absl::Status SetResumeFrom(Flags& flags, std::string_view value) {
  const size_t eq = value.rfind('=');
  const std::string_view file =
      eq == std::string_view::npos ? std::string_view() : value.substr(0, eq);
  absl::StatusOr<uint64_t> n =
      ParseUint(eq == std::string_view::npos ? value : value.substr(eq + 1),
                "--resume-from", "OFFSET or FILE=OFFSET, a byte offset from 0");
  if (!n.ok()) return n.status();
  if (eq != std::string_view::npos && file.empty()) {
    return Usage(absl::StrCat("invalid --resume-from '", ToAbsl(value),
                              "' (use OFFSET or FILE=OFFSET)"));
  }
  flags.resume_from.emplace_back(file, *n);
  return absl::OkStatus();
}

// Appends the comma-separated hosts of `value` (empty entries skipped).
absl::Status AddHosts(Flags& flags, std::string_view value) {
  size_t before = flags.hosts.size();
  for (std::string_view rest = value; !rest.empty();) {
    const size_t comma = rest.find(',');
    std::string_view host = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view()
                                           : rest.substr(comma + 1);
    if (!host.empty()) flags.hosts.emplace_back(host);
  }
  if (flags.hosts.size() == before) return Usage("--hosts needs a host");
  return absl::OkStatus();
}

// Appends the hosts of file `value`: one per line; blank lines and lines
// starting with '#' are skipped, and so is what follows a host on its line.
absl::Status AddHostsFile(Flags& flags, std::string_view value) {
  std::FILE* f = std::fopen(std::string(value).c_str(), "r");
  if (f == nullptr) {
    return Usage(absl::StrCat("--hosts-file ", ToAbsl(value), ": ",
                              std::strerror(errno)));
  }
  char line[4096];
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    std::string_view l(line);
    const size_t start = l.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || l[start] == '#') continue;
    l.remove_prefix(start);
    flags.hosts.emplace_back(l.substr(0, l.find_first_of(" \t\r\n")));
  }
  std::fclose(f);
  return absl::OkStatus();
}

template <std::string Flags::*kField>
absl::Status SetText(Flags& flags, std::string_view value) {
  flags.*kField = std::string(value);
  return absl::OkStatus();
}

absl::Status SetAlert(Flags& flags, std::string_view value) {
  return SetNonEmpty<&Flags::alert>(flags, value, "--alert needs a condition");
}

absl::Status SetAlertFormat(Flags& flags, std::string_view value) {
  if (value != "text" && value != "json") {
    return Usage(absl::StrCat("invalid --alert-format '", util::ToAbsl(value),
                              "' (use text or json)"));
  }
  flags.alert_json = value == "json";
  return absl::OkStatus();
}

absl::Status SetRunId(Flags& flags, std::string_view value) {
  return SetNonEmpty<&Flags::run_id>(flags, value,
                                     "--run-id needs a non-empty ID");
}

absl::Status SetQuery(Flags& flags, std::string_view value) {
  flags.query = std::string(value);
  return absl::OkStatus();
}

absl::Status AddFiles(Flags& flags, std::string_view value) {
  for (absl::string_view f :
       absl::StrSplit(ToAbsl(value), ',', absl::SkipEmpty())) {
    flags.files.emplace_back(f);
  }
  return absl::OkStatus();
}

// The journal options imply --journal.
absl::Status AddJournalFile(Flags& flags, std::string_view value) {
  if (value.empty()) return Usage("--journal-file is empty");
  flags.journal = true;
  flags.journal_files.emplace_back(value);
  return absl::OkStatus();
}

absl::Status SetJournalDir(Flags& flags, std::string_view value) {
  flags.journal = true;
  return SetNonEmpty<&Flags::journal_dir>(flags, value,
                                          "--journal-dir is empty");
}

absl::Status SetJournalCursorFile(Flags& flags, std::string_view value) {
  flags.journal = true;
  return SetNonEmpty<&Flags::journal_cursor_file>(
      flags, value, "--journal-cursor-file is empty");
}

absl::Status SetLookupDir(Flags& flags, std::string_view value) {
  return SetNonEmpty<&Flags::lookup_dir>(flags, value, "--lookup-dir is empty");
}

// Every option, in the order of --help; the parser and HelpText() both read
// it. `help` is pre-wrapped: lines separated by '\n', each at most 52
// columns (the text starts at column 27); "{cpus}" stands for the default
// thread count.
constexpr FlagSpec kFlagSpecs[] = {
    {"--output", 'o', "FORMAT", FlagSection::kOutput,
     "print the result as table (default), csv, json,\n"
     "jsonl, chart (bars of the first numeric column) or\n"
     "prometheus (metrics text); with an outfile, prints\n"
     "only when given",
     Parse<&Flags::output, ParseOutput>},
    {"--stats", 0, "", FlagSection::kOutput,
     "print the line counters on stderr (name: value)", Set<&Flags::stats>},
    {"--explain", 0, "", FlagSection::kOutput,
     "print the query plan and warnings; read no input", Set<&Flags::explain>},
    {"--quiet", 'q', "", FlagSection::kOutput,
     "no warnings, progress line or 10-row note on stderr", Set<&Flags::quiet>},
    {"--hostname", 0, "NAME", FlagSection::kInput,
     "value of $hostname and $server (default: the\n"
     "machine's host name)",
     SetHostname},
    {"--threads", 't', "N", FlagSection::kInput,
     "worker threads (default: the number of CPUs, {cpus})",
     Parse<&Flags::threads, ParseThreads>},
    {"--max-line-bytes", 0, "N", FlagSection::kInput,
     "longer lines are counted as too long and skipped\n"
     "(default 1M; K, M, G are powers of 1024 here, where\n"
     "the query's bytes() reads them as 1000; at most 1G)",
     Parse<&Flags::max_line_bytes, ParseBytes>},
    {"--max-groups", 0, "N", FlagSection::kInput,
     "fail (exit 1) rather than hold more than N groups\n"
     "(default 0: no limit)",
     Parse<&Flags::max_groups, ParseMaxGroups>},
    {"--max-frame-bytes", 0, "N", FlagSection::kInput,
     "combine, reduce, inspect, remote: refuse a partial's\n"
     "frame over N bytes once its header is read\n"
     "(default 1G; K, M, G as for --max-line-bytes)",
     Parse<&Flags::max_frame_bytes, ParseFrameBytes>},
    {"--lookup-dir", 0, "DIR", FlagSection::kInput,
     "combine, reduce: read the lookup() tables of the\n"
     "partials' query, only from inside DIR (without it,\n"
     "such partials are refused)",
     SetLookupDir},
    {"--query", 0, "QUERY", FlagSection::kInput,
     "the query; every positional argument is then a FILE\n"
     "(without it: the first argument containing\n"
     "\"select \", else the first argument)",
     SetQuery},
    {"--files", 0, "LIST", FlagSection::kInput,
     "comma-separated FILEs, read before positional ones", AddFiles},
    {"--event-start", 0, "REGEX", FlagSection::kInput,
     "read events of several lines: a line REGEX matches\n"
     "starts one (as the clause multiline 'REGEX')",
     SetEventStart},
    {"--journal", 0, "", FlagSection::kInput,
     "read systemd's journal instead of FILEs (the local\n"
     "system's, or --journal-file, --journal-dir); the\n"
     "query reads its entries with logformat journal",
     Set<&Flags::journal>},
    {"--journal-file", 0, "FILE", FlagSection::kInput,
     "read this journal file (repeatable); implies\n"
     "--journal",
     AddJournalFile},
    {"--journal-dir", 0, "DIR", FlagSection::kInput,
     "read the journal files in DIR; implies --journal", SetJournalDir},
    {"--journal-cursor-file", 0, "FILE", FlagSection::kInput,
     "resume after the cursor in FILE with the aggregate\n"
     "state saved beside it, and save both there after\n"
     "each report, atomically; implies --journal",
     SetJournalCursorFile},
    {"--follow", 0, "", FlagSection::kFollow,
     "follow the FILEs like tail -f, from their end\n"
     "(truncation and rotation handled), and report every\n"
     "interval in which lines arrived; Ctrl-C or SIGTERM\n"
     "prints the final result. Standard input is read until\n"
     "it ends",
     Set<&Flags::follow>},
    {"--delta", 0, "", FlagSection::kFollow,
     "each report holds only the lines since the previous\n"
     "one (DTail's tail mode); default: everything so far",
     Set<&Flags::delta>},
    {"--from-start", 0, "", FlagSection::kFollow,
     "read the files' existing content first", Set<&Flags::from_start>},
    {"--interval-ms", 0, "N", FlagSection::kFollow,
     "report every N milliseconds (default: the query's\n"
     "interval clause; 5 seconds without one)",
     Parse<&Flags::interval_ms, ParseIntervalMs>},
    {"--alert", 0, "CONDITION", FlagSection::kFollow,
     "a line on stderr when CONDITION (having's grammar,\n"
     "over the select items) starts or stops holding for\n"
     "a group; exit status 3 if it ever held",
     SetAlert},
    {"--alert-format", 0, "FORMAT", FlagSection::kFollow,
     "text (default) or json: each alert line a JSON\n"
     "object with the group's row",
     SetAlertFormat},
    {"--listen", 0, "ADDR:PORT", FlagSection::kFollow,
     "also serve each report as Prometheus metrics at\n"
     "http://ADDR:PORT/metrics (port 0: a free one,\n"
     "printed on stderr); e.g. 127.0.0.1:9100",
     Parse<&Flags::listen, ParseListen>},
    {"--split", 0, "I|auto", FlagSection::kDistributed,
     "map: the partial covers split I (from 0) of the\n"
     "input; auto: the index that GNU parallel, Open MPI,\n"
     "Slurm, Kubernetes or Hadoop set (see below).\n"
     "Default 0",
     Parse<&Flags::split, ParseSplit>},
    {"--range", 0, "LO:HI", FlagSection::kDistributed,
     "map: read only the lines of the one FILE that start\n"
     "in its bytes [LO, HI) (Hadoop's TextInputFormat\n"
     "rule); plain files, not for logformat csv",
     Parse<&Flags::range, ParseRange>},
    {"--run-id", 0, "ID", FlagSection::kDistributed,
     "map: the partial belongs to run ID; partials of\n"
     "different runs (a stale one of an earlier run) refuse\n"
     "to merge in combine and reduce",
     SetRunId},
    {"--source", 0, "ID", FlagSection::kDistributed,
     "map: the partials come from source ID (a host);\n"
     "each source numbers its splits from 0, and reduce\n"
     "merges sources (default with --follow: the host\n"
     "name; otherwise none)",
     SetSource},
    {"--until-eof", 0, "", FlagSection::kDistributed,
     "map --follow: end (final partial, exit 0) at the\n"
     "files' end instead of following them",
     Set<&Flags::until_eof>},
    {"--stop-on-stdin-eof", 0, "", FlagSection::kDistributed,
     "map --follow: the end of standard input stops it\n"
     "as SIGTERM does (the last partial, exit 0); FILEs\n"
     "are then needed",
     Set<&Flags::stop_on_stdin_eof>},
    {"--resume-from", 0, "[FILE=]OFFSET", FlagSection::kDistributed,
     "map --follow: read FILE (or the one FILE) from byte\n"
     "OFFSET, a partial's position (see inspect); may be\n"
     "repeated; other FILEs are then read from their start",
     SetResumeFrom},
    {"--omprog", 0, "DIR", FlagSection::kDistributed,
     "map: a program for rsyslog's omprog with\n"
     "confirmMessages=\"on\": reads standard input, confirms\n"
     "each message once it is synced to DIR/SOURCE.wal, and\n"
     "writes delta partials to DIR/SOURCE.parts",
     SetOmprogDir},
    {"--message-id", 0, "", FlagSection::kDistributed,
     "map --omprog: each line starts with a message id\n"
     "(rsyslog's %uuid%) and a space; a message sent again\n"
     "after a copy died is counted once",
     Set<&Flags::message_id>},
    {"--partitions", 0, "R", FlagSection::kDistributed,
     "map: write R partials, one per hash partition of the\n"
     "group keys (partition 0 carries the line counters)",
     SetPartitions},
    {"--partition", 0, "P", FlagSection::kDistributed,
     "combine, reduce: take only the partials of partition\n"
     "P; without it, combine folds each partition on its\n"
     "own and reduce joins every partition",
     SetPartition},
    {"--b64", 0, "", FlagSection::kDistributed,
     "map, combine: write a text line <split>TAB<base64>\n"
     "instead of a binary partial (Hadoop Streaming)",
     Set<&Flags::b64>},
    {"--expect-splits", 0, "N", FlagSection::kDistributed,
     "reduce: fail (exit 1) unless the partials cover\n"
     "splits 0 to N-1, naming the missing ones",
     Parse<&Flags::expect_splits, ParseExpectSplits>},
    {"--hosts", 0, "LIST", FlagSection::kRemote,
     "comma-separated hosts (ssh destinations) to query", AddHosts},
    {"--hosts-file", 0, "FILE", FlagSection::kRemote,
     "hosts, one per line ('#' comments)", AddHostsFile},
    {"--ssh", 0, "COMMAND", FlagSection::kRemote,
     "the ssh client and its options, split at spaces\n"
     "(default: ssh -o BatchMode=yes)",
     SetText<&Flags::ssh>},
    {"--remote-mapr", 0, "PATH", FlagSection::kRemote,
     "the mapr command on the hosts (default: mapr)",
     SetText<&Flags::remote_mapr>},
    {"--host-timeout", 0, "SECONDS", FlagSection::kRemote,
     "without --follow: a host that has not ended within\n"
     "SECONDS fails (default 3600; 0: no limit)",
     Parse<&Flags::host_timeout_s, ParseHostTimeout>},
    {"--allow-partial", 0, "", FlagSection::kRemote,
     "exit 0 even if a host failed (stderr still names\n"
     "the hosts the result lacks, even with --quiet)",
     Set<&Flags::allow_partial>},
    {"--help", 'h', "", FlagSection::kOther, "print this help and exit",
     Set<&Flags::help>},
    {"--version", 'V', "", FlagSection::kOther, "print the version and exit",
     Set<&Flags::version>},
};

// The column where the help texts start (0-based).
constexpr size_t kHelpColumn = 26;

// "  -o, --output FORMAT" or "      --stats".
std::string Synopsis(const FlagSpec& f) {
  std::string s = f.short_name != 0
                      ? absl::StrCat("  -", std::string(1, f.short_name), ", ")
                      : std::string(6, ' ');
  absl::StrAppend(&s, ToAbsl(f.name));
  if (!f.argument.empty()) absl::StrAppend(&s, " ", ToAbsl(f.argument));
  return s;
}

const FlagSpec* FindLong(std::string_view name) {
  for (const FlagSpec& f : kFlagSpecs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const FlagSpec* FindShort(char c) {
  for (const FlagSpec& f : kFlagSpecs) {
    if (f.short_name != 0 && f.short_name == c) return &f;
  }
  return nullptr;
}

}  // namespace

std::span<const FlagSpec> FlagSpecs() { return kFlagSpecs; }

absl::StatusOr<Flags> ParseFlags(int argc, const char* const* argv) {
  Flags flags;
  std::vector<std::string> positional;
  bool options_done = false;
  int first = 1;
  if (argc > 1) {
    const std::string_view word = argv[1];
    if (word == "map") flags.command = Command::kMap;
    if (word == "combine") flags.command = Command::kCombine;
    if (word == "reduce") flags.command = Command::kReduce;
    if (word == "inspect") flags.command = Command::kInspect;
    if (word == "remote") flags.command = Command::kRemote;
    if (flags.command != Command::kQuery) first = 2;
  }
  for (int i = first; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      positional.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    // Find the option and its attached value: `--name=value`, `-xvalue`.
    const FlagSpec* spec;
    std::optional<std::string_view> value;
    const bool is_short = !arg.starts_with("--");
    if (!is_short) {
      const size_t eq = arg.find('=');
      const std::string_view name = arg.substr(0, eq);
      if (eq != std::string_view::npos) value = arg.substr(eq + 1);
      spec = FindLong(name);
      if (spec == nullptr) {
        return Usage(absl::StrCat("unknown option '", ToAbsl(name), "'"));
      }
    } else {
      if (arg.size() > 2) value = arg.substr(2);
      spec = FindShort(arg[1]);
      if (spec == nullptr) {
        return Usage(absl::StrCat("unknown option '", ToAbsl(arg), "'"));
      }
    }
    const absl::string_view name = ToAbsl(spec->name);
    if (spec->argument.empty()) {
      if (value.has_value()) {
        if (is_short) {
          return Usage(absl::StrCat("unknown option '", ToAbsl(arg), "'"));
        }
        return Usage(absl::StrCat("option '", name, "' takes no value"));
      }
    } else if (!value.has_value()) {
      if (i + 1 >= argc) {
        return Usage(absl::StrCat("option '", name, "' needs a value"));
      }
      value = argv[++i];
    }
    if (absl::Status s = spec->apply(flags, value.value_or("")); !s.ok()) {
      return s;
    }
  }
  // combine, reduce and inspect read partials only: every positional
  // argument is one.
  if (flags.command == Command::kCombine || flags.command == Command::kReduce ||
      flags.command == Command::kInspect) {
    if (flags.query.has_value()) {
      return Usage("--query works only with a query, map and remote");
    }
    for (std::string& p : positional) flags.files.push_back(std::move(p));
    return flags;
  }
  // Without --query, the query is the first positional argument containing
  // "select " (DTail's rule, case-insensitive), else the first one.
  size_t query_index = positional.size();
  if (!flags.query.has_value() && !positional.empty()) {
    query_index = 0;
    for (size_t k = 0; k < positional.size(); ++k) {
      if (absl::StrContains(absl::AsciiStrToLower(positional[k]), "select ")) {
        query_index = k;
        break;
      }
    }
    flags.query = positional[query_index];
  }
  for (size_t k = 0; k < positional.size(); ++k) {
    if (k != query_index) flags.files.push_back(positional[k]);
  }
  return flags;
}

namespace {

// `text` cut at spaces into lines of at most `width` characters (a longer
// word gets a line of its own).
std::vector<std::string> WrapWords(std::string_view text, size_t width) {
  std::vector<std::string> lines(1);
  for (absl::string_view word : absl::StrSplit(ToAbsl(text), ' ')) {
    std::string& line = lines.back();
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.emplace_back();
    }
    if (!lines.back().empty()) lines.back() += ' ';
    absl::StrAppend(&lines.back(), word);
  }
  return lines;
}

}  // namespace

std::string HelpText(int cpus) {
  std::string text =
      R"(Usage: mapr [OPTION]... QUERY [FILE|GLOB]...
  or:  mapr map [OPTION]... QUERY [FILE|-]... > PART
  or:  mapr combine [--b64] PART...|- > PART
  or:  mapr reduce [OPTION]... PART...|-
  or:  mapr inspect PART...|-
  or:  mapr remote --hosts H1,H2,... [OPTION]... QUERY FILE...

Runs a DTail-compatible mapreduce QUERY over log lines and prints the result
as a table. With no FILE, or where FILE is -, reads standard input. gzip,
zstd, xz and bzip2 input is decompressed (recognized by its first bytes,
whatever the name); lz4, lzip, compress (.Z), 7z and zip input is refused.
A name containing *, ? or [ that does not exist as given is expanded like a
shell glob. A file named twice is read twice; every file keeps its own CSV
header. With an `outfile` clause the result goes to that CSV file (and the
query to FILE.query) instead of standard output.

map, combine and reduce run a query in MapReduce steps, Hadoop Streaming
style (docs/distributed.md): `map` writes the partial state of its input
(a versioned MAPRPART frame) to standard output, `combine` merges partials of
adjacent splits into one, and `reduce` merges them and prints the result
(`outfile` applies only there). Partials are taken in split order, whatever
order they are named in; a PART may hold several, binary or --b64 lines.
`inspect` prints what a partial holds. `map --follow` writes one delta
partial per interval (empty ones too) and a final one at the end of its
input. `remote` runs `mapr map` on every host over ssh (OpenSSH), merges
their partials and prints the result: once, or every interval with
--follow. A subcommand must be the first argument: elsewhere, a word like
`map` is a FILE.
)";
  static constexpr std::string_view kSectionTitles[] = {
      "Output",
      "Input",
      "Follow (tail mode)",
      "Distributed (mapr map|combine|reduce|inspect)",
      "Remote (mapr remote; also --follow, --interval-ms, --output)",
      "Other"};
  const std::string default_threads = absl::StrCat(cpus);
  const FlagSpec* previous = nullptr;
  for (const FlagSpec& f : kFlagSpecs) {
    if (previous == nullptr || previous->section != f.section) {
      absl::StrAppend(&text, "\n",
                      ToAbsl(kSectionTitles[static_cast<int>(f.section)]),
                      ":\n");
    }
    previous = &f;
    std::string line = Synopsis(f);
    if (line.size() + 2 > kHelpColumn) {
      absl::StrAppend(&text, line, "\n");
      line.clear();
    }
    const std::string help =
        absl::StrReplaceAll(ToAbsl(f.help), {{"{cpus}", default_threads}});
    for (absl::string_view part : absl::StrSplit(help, '\n')) {
      line.resize(kHelpColumn, ' ');
      absl::StrAppend(&line, part);
      absl::StrAppend(&text, line, "\n");
      line.clear();
    }
  }
  // The query language's aggregates and functions, from their catalogs.
  auto entry = [&](std::string synopsis, std::string_view summary) {
    std::string line = "  " + synopsis;
    if (line.size() + 2 > kHelpColumn) {
      absl::StrAppend(&text, line, "\n");
      line.clear();
    }
    for (const std::string& part : WrapWords(summary, 79 - kHelpColumn)) {
      line.resize(kHelpColumn, ' ');
      absl::StrAppend(&text, line, part, "\n");
      line.clear();
    }
    if (!line.empty()) absl::StrAppend(&text, line, "\n");  // No summary.
  };
  text += "\nAggregates (select items; sums are exact, rounded once):\n";
  for (const CatalogEntry& a : AggregateCatalog()) entry(a.usage, a.summary);
  text += "\nFunctions (set $v = f(x), nested calls apply innermost first):\n";
  for (const CatalogEntry& f : FunctionCatalog()) entry(f.usage, f.summary);
  text +=
      "\nLog formats (logformat NAME; every format also gives $line, "
      "$hostname,\n$server, $file, $timezone, $timeoffset, $empty and *):\n";
  for (const std::string& name : LogFormatNames()) {
    std::shared_ptr<const LogFormat> format = FindLogFormat(name);
    entry(name, format != nullptr ? format->description() : "");
    // The example line as it is, unwrapped, so it can be copied.
    const std::string example = format != nullptr ? format->example() : "";
    if (!example.empty()) absl::StrAppend(&text, "  e.g. ", example, "\n");
  }
  text +=
      "\nThe query language, with an example of everything: "
      "docs/query-language.md\nin mapr's sources.\n";
  absl::StrAppend(&text, R"(
--split auto reads, first found: PARALLEL_SEQ (GNU parallel, from 1),
OMPI_COMM_WORLD_RANK (Open MPI), SLURM_ARRAY_TASK_ID, SLURM_PROCID (Slurm),
JOB_COMPLETION_INDEX (a Kubernetes indexed Job), mapreduce_task_partition
(Hadoop Streaming): the innermost launcher wins.

Exit status: 0 on success (with --follow: after the final result); 1 if an
input could not be read (the others are still counted), the outfile could
not be written, a partial is invalid, of another query, overlapping or
missing, or a remote host failed (unless --allow-partial); 2 on a usage
error or an invalid query; 3 when --alert held for a group (and nothing
else failed).

Examples:
  mapr 'from STATS select count($line),avg($goroutines) group by $hostname' app.log
  mapr -o csv 'from STATS select count($line),$time group by $time limit 5' 'logs/*.gz'
  mapr 'from STATS select max(lifetimeConnections) group by $hostname outfile out.csv' - <app.log
  mapr --follow --delta 'from STATS select count($line) group by $hostname interval 10' app.log
  mapr map --split 1 --range 1000000:2000000 'from STATS select count($line)' app.log >1.part
  mapr reduce --expect-splits 4 0.part 1.part 2.part 3.part
  mapr remote --hosts web1,web2 --follow 'from STATS select count($line) group by $hostname' /var/log/app.log
)");
  return text;
}

}  // namespace mapr::cli
