// bindings/cli/journal.h: `mapr --journal`, a query over systemd's journal
// (mapr/journal.h), once or following it (--follow), resumable from a
// cursor file that holds the aggregate state with the cursor.
//
// The cursor file (--journal-cursor-file) is written after every report,
// whole or not at all (a new file renamed over the old one, both synced):
//
//   mapr-journal-state 1
//   cursor <the cursor of the last entry the state holds>
//   state <N>
//   <N bytes: the aggregate state, a partial (docs/partial-format.md)>
//
// So the state and the cursor always agree: a run started on the file
// reads the entries after the cursor into that state, and a run killed at
// any moment (kill -9 included) loses no entry and counts none twice when
// it is started again. With --delta each report holds its own entries only,
// and the file holds the cursor without a state (state 0). A file that
// holds only a cursor, as `journalctl --cursor-file` writes it, is read as
// such a file.
#ifndef MAPR_BINDINGS_CLI_JOURNAL_H_
#define MAPR_BINDINGS_CLI_JOURNAL_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bindings/cli/flags.h"
#include "mapr/query.h"

namespace mapr::cli {

// What a cursor file holds: the cursor of the last entry read, and the
// aggregate state up to it (empty: none).
struct JournalState {
  std::string cursor;
  std::string state;
};

// Parses a cursor file's bytes. InvalidArgument if they are neither what
// SerializeJournalState() writes nor a bare cursor line.
absl::StatusOr<JournalState> ParseJournalState(std::string_view bytes);
std::string SerializeJournalState(const JournalState& state);

// Runs `query` (whose log format reads journal lines) over the journal the
// flags name; returns the exit status.
int RunJournal(const Flags& flags, const Query& query);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_JOURNAL_H_
