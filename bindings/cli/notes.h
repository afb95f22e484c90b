// bindings/cli/notes.h: the notes `mapr` prints on stderr when a result is
// probably not what the user meant.
//
// A query can run without error and still answer nothing useful: every line
// of a plain log rejected by `from STATS`, a group-by field that no line has,
// a file without newlines skipped as one too-long line, a binary file read as
// text. The library reports all of these through its counters
// (LineCounters, ResultTable::field_counts); ResultNotes() turns them into
// one short sentence each, with the fix where there is one. `mapr --quiet`
// does not print them.
//
// Example:
//   for (const std::string& note : ResultNotes(facts)) {
//     std::fprintf(stderr, "warning: %s\n", note.c_str());
//   }
#ifndef MAPR_BINDINGS_CLI_NOTES_H_
#define MAPR_BINDINGS_CLI_NOTES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapr/result.h"

namespace mapr::cli {

// What a finished run knows about its input.
struct ResultFacts {
  // The `from` table (`STATS`, `*`), if the query has one.
  std::optional<std::string> table;
  // The query's log format (canonical name).
  std::string log_format;
  LineCounters stats;
  // ResultTable::field_counts() of a cumulative result; empty if unknown
  // (delta reports).
  std::vector<FieldCount> fields;
  // Lines that contained a NUL byte.
  uint64_t lines_with_nul = 0;
  // Inputs with lines but none parsed (FilesReport).
  std::vector<std::string> inputs_without_parsed_lines;
  // The --max-line-bytes limit.
  size_t max_line_bytes = 0;
};

// The notes for `facts`, each one sentence without "warning: " and without a
// newline; empty when nothing looks wrong. In this order:
//   - lines skipped as too long;
//   - lines with NUL bytes;
//   - no line aggregated: the rule that rejected the most lines, named,
//     with its count and the fix (never `where`: a condition that matches
//     nothing is an answer);
//   - else, more than 1 % of the matched lines malformed or unmatched
//     (lines of another format mixed in), with the count and the share;
//   - every input none of whose lines could be parsed, named;
//   - every extracted field that no parsed line had.
std::vector<std::string> ResultNotes(const ResultFacts& facts);

// `bytes` as --max-line-bytes spells it: "1M", "64K", "3G", or the plain
// number of bytes when it is not a whole multiple.
std::string FormatByteSize(uint64_t bytes);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_NOTES_H_
