// runtime/result_notes.h: the notes on a result that is probably not what
// the user meant (ResultTable::notes(); `mapr` prints them on stderr).
//
// A query can run without error and still answer nothing useful: every line
// of a plain log rejected by `from STATS`, a group-by field that no line has,
// a file without newlines skipped as one too-long line, a binary file read as
// text, an access log mixed with another log, `18ms` read as a number. The
// engine reports all of these through its counters (LineCounters,
// FieldCount); ResultNotes() turns them into one short sentence each, with
// the fix where there is one. Every result the engine builds carries them
// (BatchAggregator::Result), and mapr::QueryFiles adds what the input layer
// saw (NUL bytes, inputs without a parsed line).
//
// Example:
//   for (const ResultNote& note : ResultNotes(facts)) {
//     std::fprintf(stderr, "warning: %s\n", note.text.c_str());
//   }
#ifndef MAPR_RUNTIME_RESULT_NOTES_H_
#define MAPR_RUNTIME_RESULT_NOTES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapr/result.h"
#include "parser/plan.h"

namespace mapr::runtime {

// What a finished run knows about its input.
struct ResultFacts {
  // The `from` table (`STATS`, `*`), if the query has one.
  std::optional<std::string> table;
  // The query's log format (canonical name).
  std::string log_format;
  LineCounters stats;
  // ResultTable::field_counts(), less the fields a compile warning named.
  std::vector<FieldCount> fields;
  // Lines that contained a NUL byte.
  uint64_t lines_with_nul = 0;
  // Inputs with lines but none parsed (FilesReport).
  std::vector<std::string> inputs_without_parsed_lines;
  // The first unparsable line, where the input layer knows it (else 0).
  std::string first_unparsable_input;
  uint64_t first_unparsable_line = 0;
  // The max_line_bytes limit.
  size_t max_line_bytes = 0;
};

// The facts of a result of `plan` with `stats` and `fields`.
ResultFacts FactsOf(const plan::Plan& plan, const LineCounters& stats,
                    const std::vector<FieldCount>& fields,
                    size_t max_line_bytes);

// The notes for `facts`, each one sentence without "warning: " and without a
// newline; empty when nothing looks wrong. In this order:
//   - lines skipped as too long;
//   - lines with NUL bytes;
//   - no input line at all;
//   - no line aggregated: the rule that rejected the most lines, named,
//     with its count and the fix (never `where`: a condition that matches
//     nothing is an answer);
//   - else, more than 1 % of the matched lines malformed or unmatched
//     (lines of another format mixed in), with the count and the share;
//   - every input none of whose lines could be parsed, named;
//   - values time(), bucket(), ... or arithmetic could not read;
//   - per field, values that were not numbers, with an example;
//   - every extracted field that no parsed line had.
std::vector<ResultNote> ResultNotes(const ResultFacts& facts);

// `bytes` as --max-line-bytes spells it: "1M", "64K", "3G", or the plain
// number of bytes when it is not a whole multiple.
std::string FormatByteSize(uint64_t bytes);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_RESULT_NOTES_H_
