// bindings/cli/remote.h: `mapr remote`, DTail's server mode done over
// OpenSSH (docs/distributed.md, "Many hosts over SSH").
//
// For every host of --hosts/--hosts-file, in order, it starts
//   ssh [--ssh options] HOST 'mapr' 'map' '--quiet' '--source' 'HOST' ...
// with the system's ssh client and configuration (no transport or daemon of
// its own), reads the partials each host writes on the session's standard
// output, and merges them with a mapr::PartialReducer whose sources are the
// hosts in the order given (so first() and last() take the first host's
// first value and the last host's last one, run after run). What a host
// writes on standard error is printed with its name.
//
//   * Batch (default): each host runs `mapr map` over its FILEs and sends
//     one partial; when every host has ended, the result is printed once
//     (as `mapr reduce` prints it).
//   * --follow: each host runs `mapr map --follow --stop-on-stdin-eof`,
//     which sends a delta partial every interval; the merged cumulative
//     result is printed every interval with the ReportEnd() line, and a
//     status line on stderr ("3 hosts: 2 reporting, 1 lagging (c: no partial
//     for 12s)"). SIGINT or SIGTERM closes each session's standard input:
//     the host reads what its files hold, sends its final partial and ends;
//     the final result follows when every host has ended, or after
//     kStopTimeoutMs (a host still running is then stopped and counted as
//     failed). A second signal stops every host at once. A session lost on
//     the way (ssh cut) starts again from the last partial's positions and
//     split (`--resume-from FILE=OFFSET`, `--split`), up to kMaxReconnects
//     times: nothing is lost or counted twice.
//   * A host whose ssh or mapr fails (ssh's exit status, the stream ending
//     without its last partial, a partial of another query or source, a
//     newer partial format) is named with its error. The result of the
//     others is still printed, with a note that it lacks that host, and the
//     exit status is 1 unless --allow-partial.
#ifndef MAPR_BINDINGS_CLI_REMOTE_H_
#define MAPR_BINDINGS_CLI_REMOTE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bindings/cli/flags.h"
#include "mapr/options.h"
#include "mapr/query.h"

namespace mapr::cli {

// How long hosts get to send their final partial after a stop.
inline constexpr int kStopTimeoutMs = 10000;
// --follow: how often a lost session starts again (after 1, 2, 3 s) from
// its last partial's positions before the host counts as failed.
inline constexpr int kMaxReconnects = 3;

// `arg` quoted for a POSIX shell: 'it'\''s'. ssh passes the command to the
// host's shell as one string, so every argument is quoted.
std::string ShellQuote(std::string_view arg);

// The ssh command line for `host`: the words of `ssh` (split at spaces and
// tabs), the host, and the quoted `mapr map` command the flags ask for;
// with `resume_from`, a --follow session that continues each FILE from its
// position with split `first_split`.
std::vector<std::string> RemoteCommand(
    const Flags& flags, const std::string& ssh_host,
    const std::vector<InputPosition>& resume_from = {},
    uint64_t first_split = 0);

// Runs `mapr remote`; returns the exit status.
int RunRemote(const Flags& flags, const Query& query);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_REMOTE_H_
