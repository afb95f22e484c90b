// mapr/result.h: the rendered result of a query and the counters that account
// for every input line.
//
// A ResultTable is what an Aggregator produces (TakeResult, Snapshot,
// TakeDelta). It owns all of its strings. Cells are already rendered exactly
// as DTail renders them (count as an integer, numbers with six decimals like
// Go's %f, last() raw); the numeric value that orders a row is kept beside
// each cell so hosts can sort or chart without parsing text again.
//
// Example:
//   absl::StatusOr<mapr::ResultTable> r = aggregator.TakeResult();
//   if (!r.ok()) return r.status();
//   std::fputs(r->ToCsv().c_str(), stdout);
//   std::printf("%llu lines aggregated\n",
//               (unsigned long long)r->stats().lines_aggregated);
//
// Thread safety: a ResultTable is a value; const methods may be called
// concurrently.
#ifndef MAPR_MAPR_RESULT_H_
#define MAPR_MAPR_RESULT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "mapr/export.h"

namespace mapr {

// What happened to the input lines. Every line read is counted exactly once
// in one of the terminal buckets:
//   lines_read = lines_too_long + lines_table_mismatch + lines_ignored
//              + lines_malformed + lines_unmatched + lines_header
//              + lines_filtered + lines_without_value + lines_aggregated
struct MAPR_EXPORT LineCounters {
  // Lines handed to the aggregator.
  uint64_t lines_read = 0;
  // Rejected because they were longer than AggregatorOptions::max_line_bytes.
  uint64_t lines_too_long = 0;
  // Did not contain the `from` table's `|MAPREDUCE:TABLE|` marker.
  uint64_t lines_table_mismatch = 0;
  // Matched the table but the log format does not apply to them (for the
  // default format: not INFO, fewer than 11 fields, no MAPREDUCE: field).
  // DTail ignores these silently.
  uint64_t lines_ignored = 0;
  // The log format could not parse them (a key=value token without '=', a
  // CSV row with more fields than the header). DTail drops and logs these.
  uint64_t lines_malformed = 0;
  // Did not match the pattern of `logformat regex`.
  uint64_t lines_unmatched = 0;
  // CSV header lines (one per input source).
  uint64_t lines_header = 0;
  // Parsed, but the `where` clause was false.
  uint64_t lines_filtered = 0;
  // Passed `where` but no select item took a value from them (for example
  // sum(x) where x is missing or not numeric).
  uint64_t lines_without_value = 0;
  // Contributed to at least one aggregate.
  uint64_t lines_aggregated = 0;

  // Not a line outcome, so not in the equation above: values that time(),
  // bucket(), duration(), bytes(), cidr(), ip_in() or arithmetic could not
  // read (each left its variable missing). Counted once
  // per call on a line, on the lines that reach the `set` step (all parsed
  // lines when `where` reads the variable).
  uint64_t values_unparsed = 0;

  // Lines that matched the table (everything but too long and mismatch).
  uint64_t lines_matched() const {
    return lines_read - lines_too_long - lines_table_mismatch;
  }
  // Lines the log format turned into fields.
  uint64_t lines_parsed() const {
    return lines_matched() - lines_ignored - lines_malformed - lines_unmatched -
           lines_header;
  }

  LineCounters& operator+=(const LineCounters& o);
  friend bool operator==(const LineCounters&, const LineCounters&) = default;
};

// One LineCounters field: its name (as the field is spelled) and the field.
struct LineCounterField {
  std::string_view name;
  uint64_t LineCounters::*value;
  // True for the terminal buckets of a line (the equation above), false for
  // lines_read itself and for counts of something else (values_unparsed).
  bool line_outcome = true;
};

// Every LineCounters field, in declaration order: the one list that code
// naming or copying the counters iterates (the C API's mapr_counters_t, the
// Python module's stats, `mapr --stats`). A field added to LineCounters
// must be added here too; result.cc checks at compile time that the list
// holds every field once, in order.
//
// Example:
//   for (const mapr::LineCounterField& f : mapr::kLineCounterFields) {
//     std::printf("%.*s: %llu\n", static_cast<int>(f.name.size()),
//                 f.name.data(),
//                 static_cast<unsigned long long>(stats.*f.value));
//   }
inline constexpr LineCounterField kLineCounterFields[] = {
    {"lines_read", &LineCounters::lines_read, false},
    {"lines_too_long", &LineCounters::lines_too_long},
    {"lines_table_mismatch", &LineCounters::lines_table_mismatch},
    {"lines_ignored", &LineCounters::lines_ignored},
    {"lines_malformed", &LineCounters::lines_malformed},
    {"lines_unmatched", &LineCounters::lines_unmatched},
    {"lines_header", &LineCounters::lines_header},
    {"lines_filtered", &LineCounters::lines_filtered},
    {"lines_without_value", &LineCounters::lines_without_value},
    {"lines_aggregated", &LineCounters::lines_aggregated},
    {"values_unparsed", &LineCounters::values_unparsed, false},
};

// How a column's cells render and what its values are.
enum class ValueType : uint8_t {
  kInteger,  // count(): a whole number, rendered without decimals.
  kNumber,   // sum, avg, min, max, ...: rendered like Go's %f.
  kText,     // last(), first() and plain fields: the value as it was read.
};

// Describes one output column (one select item).
struct MAPR_EXPORT ResultColumn {
  // The column header: the select item's text as DTail spells it
  // (`count($line)`, `$time`) or its `as` alias.
  std::string name;
  // The aggregate that produced the column (`count`, `avg`, ...); `last` for
  // a plain field, which DTail renders as the group's last value.
  std::string aggregate = "last";
  ValueType type = ValueType::kText;
  // The field the item reads (`$line` for `count($line)`).
  std::string field;
  // True if `field` is one of the group-by fields and the item is a plain
  // field (DTail highlights such headers).
  bool is_group_key = false;
  // True if this column is one of the `order by` keys.
  bool is_order_key = false;
  // True if the column is a group key whose value `bucket()` gives: a bin
  // of numbers (`bucket(x, 100)`) or of times.
  bool is_bucket = false;
  // True if those bins are of times (`bucket($time, 5m)`): the cells are
  // instants (mapr::ReadTime reads them) and, unless `order by` says
  // otherwise, the rows come in time order.
  bool is_time_bucket = false;
};

// One output row, as a value (a copy out of a ResultTable, or input to its
// row-wise constructor).
// ResultTable::field_counts(): parsed lines in which a field had a value.
struct MAPR_EXPORT FieldCount {
  std::string name;
  uint64_t lines = 0;
  // For a field a numeric aggregate reads (sum, avg, min, ...): the values
  // that were there but not numbers (`18ms`, `n/a`; not empty ones), on the
  // lines that passed `where`, and the smallest of them (bytewise, its first
  // 64 bytes) as an example. Such values count as missing for the aggregate.
  uint64_t not_numeric = 0;
  std::string not_numeric_example;
  friend bool operator==(const FieldCount&, const FieldCount&) = default;
};

// A sentence on a result that is probably not what the user meant: lines
// skipped, rejected or unparsable, a field never found, values that were
// not numbers. `mapr` prints each as `warning: <text>` on stderr.
struct MAPR_EXPORT ResultNote {
  // What it is about, for programs: lines_too_long, lines_with_nul,
  // no_line_aggregated, lines_unparsable, input_without_parsed_lines,
  // values_unparsed, values_not_numeric, field_not_found, empty_input.
  std::string code;
  // One sentence, without a final newline.
  std::string text;
  friend bool operator==(const ResultNote&, const ResultNote&) = default;
};

struct MAPR_EXPORT ResultRow {
  // Rendered cells, one per column.
  std::vector<std::string> cells;
  // The value that orders the row under each column, as in DTail: the
  // number for numeric kinds; for last() the value parsed as a number, 0 if
  // it is not numeric (docs/query-language.md, "order by").
  std::vector<double> values;
};

// Options for the DTail terminal table.
struct MAPR_EXPORT TableOptions {
  // Maximum rows printed; a negative value prints every row.
  // Default: -1.
  int64_t max_rows = -1;
};

// Receives a rendered result in chunks (of up to about 64 KiB), in order.
using ResultSink = absl::FunctionRef<void(std::string_view chunk)>;

// Storage is columnar-compact: every cell's text lives in one buffer (each
// cell followed by a NUL byte, so cell_c_str() needs no copy) and every
// value in one array, so a million-row result costs about
// (17 bytes + text) per cell instead of two heap objects per row.
class MAPR_EXPORT ResultTable {
 public:
  ResultTable() = default;
  // Row-wise construction (tests, bindings). A row with fewer cells or
  // values than columns is padded with empty cells and 0; extra ones are
  // dropped.
  ResultTable(std::vector<ResultColumn> columns,
              const std::vector<ResultRow>& rows, LineCounters stats,
              uint64_t total_groups);
  // An empty table with `columns`, to be filled with AppendCell.
  ResultTable(std::vector<ResultColumn> columns, LineCounters stats,
              uint64_t total_groups)
      : columns_(std::move(columns)),
        stats_(stats),
        total_groups_(total_groups) {}

  // Appends the next cell, row-major: after num_columns() cells a row is
  // complete. REQUIRES: num_columns() > 0.
  void AppendCell(std::string_view text, double value) {
    text_.append(text.data(), text.size());
    text_.push_back('\0');
    ends_.push_back(text_.size() - 1);
    values_.push_back(value);
  }
  // Makes room for `rows` rows of about `text_bytes` bytes of cell text.
  void Reserve(size_t rows, size_t text_bytes);
  // Appends the cells of `parts`, tables with the same number of columns
  // (rows rendered elsewhere, such as on other threads), in order, freeing
  // each part once it is copied (so that at most one part is held twice).
  void AppendCells(std::vector<ResultTable> parts);

  const std::vector<ResultColumn>& columns() const { return columns_; }
  size_t num_rows() const {
    return columns_.empty() ? 0 : ends_.size() / columns_.size();
  }
  size_t num_columns() const { return columns_.size(); }
  // REQUIRES: row < num_rows(), col < num_columns().
  std::string_view cell(size_t row, size_t col) const {
    const size_t i = row * columns_.size() + col;
    const size_t begin = i == 0 ? 0 : ends_[i - 1] + 1;
    return std::string_view(text_.data() + begin, ends_[i] - begin);
  }
  // The cell's text followed by a NUL byte (the text itself may hold NULs).
  // REQUIRES: row < num_rows(), col < num_columns().
  const char* cell_c_str(size_t row, size_t col) const {
    return cell(row, col).data();
  }
  // REQUIRES: row < num_rows(), col < num_columns().
  double value(size_t row, size_t col) const {
    return values_[row * columns_.size() + col];
  }
  // A copy of one row. REQUIRES: row < num_rows().
  ResultRow row(size_t row) const;
  // A copy of every row (tests, small results).
  std::vector<ResultRow> CopyRows() const;

  // The line counters at the time the result was produced.
  const LineCounters& stats() const { return stats_; }
  // For every field the log format extracts for the query (the fields it
  // reads, except the common variables and the results of `set`), in the
  // order of first use: how many of the parsed lines had a value for it. A
  // field at 0 was never found, which usually means a misspelt name or the
  // wrong log format (`mapr` warns about it). Not compared by operator==.
  const std::vector<FieldCount>& field_counts() const { return field_counts_; }
  void set_field_counts(std::vector<FieldCount> counts) {
    field_counts_ = std::move(counts);
  }
  // Number of groups that `having` kept, before `limit` was applied.
  uint64_t total_groups() const { return total_groups_; }

  // The notes on this result (ResultNote), in the order `mapr` prints them;
  // empty when nothing looks wrong. Made by the library from the counters,
  // the field counts and (for mapr::QueryFiles) what the input layer saw.
  // Not compared by operator==.
  const std::vector<ResultNote>& notes() const { return notes_; }
  void set_notes(std::vector<ResultNote> notes) { notes_ = std::move(notes); }

  // The DTail terminal table: each cell is a space, the text right-aligned
  // to the column width, a space; cells joined by '|'; a separator line of
  // '-' after the header; every line ends in '\n'. Column widths consider
  // every row, not only the printed ones.
  std::string ToTable(const TableOptions& options = {}) const;

  // CSV: header, then one line per row, each ending in '\n'. A value is
  // quoted per RFC 4180 only when it contains ',', '"', '\r' or '\n', so
  // DTail-clean data is byte-identical to DTail's output.
  std::string ToCsv() const;

  // A JSON array of objects, one per row, keyed by column name; count cells
  // are JSON integers, numeric cells JSON numbers (NaN/Inf as strings),
  // last() cells strings.
  std::string ToJson() const;

  // One JSON object per line (NDJSON), same encoding as ToJson().
  std::string ToNdjson() const;

  // Row `row` as the JSON object ToNdjson() writes for it (no newline).
  std::string RowToJson(size_t row) const;

  // The same renderings, streamed to `sink` in chunks so that a large
  // result is never held twice (the CLI writes them straight to stdout).
  void WriteTable(const TableOptions& options, ResultSink sink) const;
  void WriteCsv(ResultSink sink) const;
  void WriteJson(ResultSink sink) const;
  void WriteNdjson(ResultSink sink) const;

  // Exported explicitly: a class's MAPR_EXPORT does not cover its friends.
  friend MAPR_EXPORT bool operator==(const ResultTable& a,
                                     const ResultTable& b);

 private:
  std::vector<ResultColumn> columns_;
  // Cell texts, row-major, each followed by '\0'; ends_[i] is the offset of
  // cell i's NUL.
  std::string text_;
  std::vector<size_t> ends_;
  std::vector<double> values_;
  LineCounters stats_;
  uint64_t total_groups_ = 0;
  std::vector<FieldCount> field_counts_;
  std::vector<ResultNote> notes_;
};

// `s` as a JSON string literal, quoted and escaped as the JSON renderings
// write text (bytes that are not UTF-8 become U+FFFD).
MAPR_EXPORT std::string JsonString(std::string_view s);

}  // namespace mapr

#endif  // MAPR_MAPR_RESULT_H_
