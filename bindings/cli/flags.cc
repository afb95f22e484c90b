#include "bindings/cli/flags.h"

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
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
  return Usage(absl::StrCat("invalid --output '", ToAbsl(v),
                            "' (use table, csv, json or jsonl)"));
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

absl::StatusOr<int64_t> ParseIntervalMs(std::string_view v) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < 1 ||
      n > kMaxIntervalMs) {
    return Usage(absl::StrCat("invalid --interval-ms '", ToAbsl(v),
                              "' (use a number of milliseconds from 1 to ",
                              kMaxIntervalMs, ")"));
  }
  return n;
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

// A byte count with an optional K, M or G suffix (powers of 1024).
absl::StatusOr<size_t> ParseBytes(std::string_view v) {
  const absl::Status bad = Usage(absl::StrCat(
      "invalid --max-line-bytes '", ToAbsl(v),
      "' (use a number of bytes from 1 to 1G, optionally with K, M or G)"));
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
  if (n == 0 || n > (uint64_t{kMaxLineBytesLimit} >> shift)) return bad;
  return static_cast<size_t>(n << shift);
}

}  // namespace

absl::StatusOr<Flags> ParseFlags(int argc, const char* const* argv) {
  Flags flags;
  std::vector<std::string> positional;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      positional.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    // Split into a canonical name and an attached value.
    std::string name;
    std::optional<std::string> value;
    if (arg.starts_with("--")) {
      const size_t eq = arg.find('=');
      name = std::string(arg.substr(0, eq));
      if (eq != std::string_view::npos) value = std::string(arg.substr(eq + 1));
    } else {
      name = std::string(arg.substr(0, 2));
      if (arg.size() > 2) value = std::string(arg.substr(2));
    }
    static constexpr std::pair<std::string_view, std::string_view> kShort[] = {
        {"-h", "--help"},  {"-V", "--version"}, {"-o", "--output"},
        {"-q", "--quiet"}, {"-t", "--threads"},
    };
    bool is_short = false;
    for (const auto& [s, l] : kShort) {
      if (name == s) {
        name = std::string(l);
        is_short = true;
      }
    }
    if (!is_short && !arg.starts_with("--")) {
      return Usage(absl::StrCat("unknown option '", ToAbsl(arg), "'"));
    }
    auto switch_flag = [&](bool& target) -> absl::Status {
      if (value.has_value()) {
        if (is_short) {
          return Usage(absl::StrCat("unknown option '", ToAbsl(arg), "'"));
        }
        return Usage(absl::StrCat("option '", name, "' takes no value"));
      }
      target = true;
      return absl::OkStatus();
    };
    auto take_value = [&]() -> absl::StatusOr<std::string> {
      if (value.has_value()) return *value;
      if (i + 1 >= argc) {
        return Usage(absl::StrCat("option '", name, "' needs a value"));
      }
      return std::string(argv[++i]);
    };
    absl::Status s;
    if (name == "--help") {
      s = switch_flag(flags.help);
    } else if (name == "--version") {
      s = switch_flag(flags.version);
    } else if (name == "--stats") {
      s = switch_flag(flags.stats);
    } else if (name == "--explain") {
      s = switch_flag(flags.explain);
    } else if (name == "--quiet") {
      s = switch_flag(flags.quiet);
    } else if (name == "--follow") {
      s = switch_flag(flags.follow);
    } else if (name == "--delta") {
      s = switch_flag(flags.delta);
    } else if (name == "--from-start") {
      s = switch_flag(flags.from_start);
    } else if (name == "--output" || name == "--hostname" ||
               name == "--threads" || name == "--max-line-bytes" ||
               name == "--max-groups" || name == "--query" ||
               name == "--files" || name == "--interval-ms") {
      absl::StatusOr<std::string> v = take_value();
      if (!v.ok()) return v.status();
      if (name == "--output") {
        absl::StatusOr<OutputFormat> f = ParseOutput(*v);
        if (!f.ok()) return f.status();
        flags.output = *f;
      } else if (name == "--hostname") {
        flags.hostname = *v;
      } else if (name == "--threads") {
        absl::StatusOr<int> n = ParseThreads(*v);
        if (!n.ok()) return n.status();
        flags.threads = *n;
      } else if (name == "--max-line-bytes") {
        absl::StatusOr<size_t> n = ParseBytes(*v);
        if (!n.ok()) return n.status();
        flags.max_line_bytes = *n;
      } else if (name == "--max-groups") {
        absl::StatusOr<uint64_t> n = ParseMaxGroups(*v);
        if (!n.ok()) return n.status();
        flags.max_groups = *n;
      } else if (name == "--interval-ms") {
        absl::StatusOr<int64_t> n = ParseIntervalMs(*v);
        if (!n.ok()) return n.status();
        flags.interval_ms = *n;
      } else if (name == "--query") {
        flags.query = *v;
      } else {
        for (absl::string_view f : absl::StrSplit(*v, ',', absl::SkipEmpty())) {
          flags.files.emplace_back(f);
        }
      }
    } else {
      return Usage(absl::StrCat("unknown option '", name, "'"));
    }
    if (!s.ok()) return s;
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

std::string HelpText(int cpus) {
  return absl::StrCat(
      R"(Usage: mapr [OPTION]... QUERY [FILE|GLOB]...

Runs a DTail-compatible mapreduce QUERY over log lines and prints the result
as a table. With no FILE, or where FILE is -, reads standard input. gzip and
zstd input is decompressed (recognized by its first bytes, whatever the name).
A name containing *, ? or [ that does not exist as given is expanded like a
shell glob. A file named twice is read twice; every file keeps its own CSV
header. With an `outfile` clause the result goes to that CSV file (and the
query to FILE.query) instead of standard output.

Output:
  -o, --output FORMAT     print the result as table (default), csv, json or
                          jsonl; with an outfile, prints only when given
      --stats             print the line counters on stderr (name: value)
      --explain           print the query plan and warnings; read no input
  -q, --quiet             no warnings, progress line or 10-row note on stderr

Input:
      --hostname NAME     value of $hostname and $server (default: the
                          machine's host name)
  -t, --threads N         worker threads (default: the number of CPUs, )",
      cpus, R"()
      --max-line-bytes N  longer lines are counted as too long and skipped
                          (default 1M; suffixes K, M, G; at most 1G)
      --max-groups N      fail (exit 1) rather than hold more than N groups
                          (default 0: no limit)
      --query QUERY       the query; every positional argument is then a FILE
                          (without it: the first argument containing
                          "select ", else the first argument)
      --files LIST        comma-separated FILEs, read before positional ones

Follow (tail mode):
      --follow            follow the FILEs like tail -f, from their end
                          (truncation and rotation handled), and report every
                          interval; Ctrl-C or SIGTERM prints the final result.
                          Standard input is read until it ends
      --delta             each report holds only the lines since the previous
                          one (DTail's tail mode); default: everything so far
      --from-start        read the files' existing content first
      --interval-ms N     report every N milliseconds (default: the query's
                          interval clause; 5 seconds without one)

Other:
  -h, --help              print this help and exit
  -V, --version           print the version and exit

Exit status: 0 on success (with --follow: after the final result); 1 if an
input could not be read (the others are still counted) or the outfile could
not be written; 2 on a usage error or an invalid query.

Examples:
  mapr 'from STATS select count($line),avg($goroutines) group by $hostname' app.log
  mapr -o csv 'from STATS select count($line),$time group by $time limit 5' 'logs/*.gz'
  mapr 'from STATS select max(lifetimeConnections) group by $hostname outfile out.csv' - <app.log
  mapr --follow --delta 'from STATS select count($line) group by $hostname interval 10' app.log
)");
}

}  // namespace mapr::cli
