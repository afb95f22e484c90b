// mapr/journal.h: reading systemd's journal (sd-journal) as log lines.
//
// A JournalReader opens journal files, a journal directory or the local
// system's journal, and hands each entry to a sink as one line: a JSON
// object shaped as `journalctl -o json --all` prints it, which the query
// reads with `logformat journal` (docs/query-language.md, "journal"):
//
//   * "__CURSOR", "__REALTIME_TIMESTAMP", "__MONOTONIC_TIMESTAMP" and
//     "_BOOT_ID" first, then the entry's fields in the journal's order.
//     Timestamps are decimal strings of microseconds.
//   * A value is a JSON string when journalctl prints it as one: valid
//     UTF-8 with no control character other than tab and newline (so a
//     multi-line MESSAGE is one entry, one line, its newlines escaped).
//     Other values (binary data, a carriage return, a terminal escape) are
//     an array of their bytes, `[98,105,110]`, as journalctl prints them.
//   * A field given several times in one entry is an array of its values.
//   * Every value is kept whatever its size, as with journalctl's `--all`
//     (without it journalctl prints `null` for values over 4096 bytes). A
//     line longer than AggregatorOptions::max_line_bytes is counted as too
//     long, as any line.
//
// Resuming: cursor() names the last entry read; a reader opened with
// JournalSpec::after_cursor starts right after that entry, so a host that
// saves the cursor with its state reads every entry exactly once across
// restarts (`mapr --journal --journal-cursor-file FILE` saves it with the
// aggregate state, atomically; see
// docs/cli.md, "journald").
//
// Following: when Read() has returned every entry, Wait() sleeps until the
// journal changes or a timeout passes (sd_journal_wait), then Read() gives
// the new entries.
//
// Availability: the reader needs libsystemd (Debian: libsystemd-dev) when
// mapr is built. JournalSupported() says whether this libmapr has it; if
// not, Open() returns Unimplemented and says so.
//
// Example:
//   mapr::JournalSpec spec;
//   spec.files = {"system.journal"};
//   auto reader = mapr::JournalReader::Open(spec);
//   if (!reader.ok()) return reader.status();
//   absl::Status s = (*reader)->ReadAll(
//       [&](std::span<const std::string_view> lines) {
//         return aggregator.PushLines(lines);
//       });
//
// Errors: Open() returns NotFound for a missing file or directory,
// InvalidArgument for a malformed cursor, and the errno of sd-journal
// otherwise, each naming what it opened. Read() returns the sink's first
// error unchanged, and DataLoss when the journal cannot be read on.
//
// Thread safety: a JournalReader is thread-compatible (sd-journal objects
// may be used from one thread at a time). The free functions are
// thread-safe.
#ifndef MAPR_MAPR_JOURNAL_H_
#define MAPR_MAPR_JOURNAL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mapr/aggregator.h"
#include "mapr/export.h"

namespace mapr {

// Which journal to read. Give files or a directory, not both; neither reads
// the local system's journal (all its files the caller may read).
struct JournalSpec {
  // Journal files (`journalctl --file`), read as one interleaved journal.
  std::vector<std::string> files;
  // A folder of journal files (`journalctl --directory`).
  std::string directory;
  // Start after the entry this cursor names (as `journalctl
  // --after-cursor`); empty: at the first entry.
  std::string after_cursor;
};

// Whether this libmapr was built with libsystemd.
MAPR_EXPORT bool JournalSupported();

class MAPR_EXPORT JournalReader {
 public:
  using Sink =
      absl::FunctionRef<absl::Status(std::span<const std::string_view>)>;

  static absl::StatusOr<std::unique_ptr<JournalReader>> Open(
      const JournalSpec& spec);
  virtual ~JournalReader() = default;

  // Reads up to `max_entries` entries and gives them to `sink` in batches of
  // at most kMaxBatchRows lines. Returns how many were read (0: none is
  // there yet). The lines live until `sink` returns.
  virtual absl::StatusOr<size_t> Read(size_t max_entries, Sink sink) = 0;
  // Reads every entry there is now.
  absl::Status ReadAll(Sink sink);
  // Waits until the journal may have new entries, at most `timeout`.
  // Returns true if it changed (new entries, or files added or rotated).
  virtual absl::StatusOr<bool> Wait(absl::Duration timeout) = 0;
  // The cursor of the last entry read; empty before the first (then a
  // reader opened with after_cursor returns that cursor).
  virtual const std::string& cursor() const = 0;
  // Entries read so far.
  virtual uint64_t entries() const = 0;
};

// Appends one journal entry to `out` as the JSON object described above.
// `fields` are the entry's data items as sd-journal gives them
// ("NAME=value", the value any bytes); items without '=', or whose name is
// no text or one of the header's, are skipped. The header values come
// first; `cursor` and `boot_id` may be empty (then left out). Exposed for
// tests and fuzzing.
MAPR_EXPORT void AppendJournalJson(std::string_view cursor,
                                   uint64_t realtime_usec,
                                   uint64_t monotonic_usec,
                                   std::string_view boot_id,
                                   std::span<const std::string_view> fields,
                                   std::string* out);

// True if journalctl prints `value` as a JSON string rather than as an
// array of bytes: valid UTF-8 (no overlong form, surrogate or
// noncharacter) without a control character other than tab and newline.
MAPR_EXPORT bool JournalValueIsText(std::string_view value);

}  // namespace mapr

#endif  // MAPR_MAPR_JOURNAL_H_
