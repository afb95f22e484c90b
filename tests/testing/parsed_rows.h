// The rows a log format's parser writes into a batch, for the format unit
// tests: one runner instead of one per test file.
//
//   TestFieldBatch batch(fields.size());
//   std::vector<std::string_view> views(lines.begin(), lines.end());
//   std::vector<ParsedRow> rows = ParseRows(*parser, batch, fields, views);
//   EXPECT_EQ(rows[0].fields["status"], "200");
#ifndef MAPR_TESTS_TESTING_PARSED_ROWS_H_
#define MAPR_TESTS_TESTING_PARSED_ROWS_H_

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "mapr/log_format.h"
#include "tests/testing/field_batch.h"

namespace mapr::testing {

// What ParseRows() shows for a missing field with `mark_missing`.
inline constexpr std::string_view kMissingText = "<missing>";

struct ParsedRow {
  LineOutcome outcome;
  // The requested fields that have a value, by name (with `mark_missing`,
  // every requested field, kMissingText for a missing one).
  std::map<std::string, std::string> fields;
  friend bool operator==(const ParsedRow&, const ParsedRow&) = default;
};

struct ParseRowsOptions {
  // Every requested field is in `fields`, kMissingText where missing.
  bool mark_missing = false;
  // The FieldBatch contract, checked for the values of parsed lines: each
  // points into its line, into the batch's memory or at
  // FieldBatch::kEmptyValue.
  bool check_pointers = false;
  // Only parsed lines' rows list fields.
  bool only_parsed_fields = false;
  // Each line's outcome before the parse: one the format never gives shows
  // a line it left without one.
  LineOutcome preset = LineOutcome::kIgnored;
};

// Runs `parser` over `lines` as one batch into `batch` (cleared first) and
// collects the rows. A missing value must be an empty view (EXPECT).
inline std::vector<ParsedRow> ParseRows(LogFormatParser& parser,
                                        TestFieldBatch& batch,
                                        const std::vector<std::string>& fields,
                                        std::span<const std::string_view> lines,
                                        ParseRowsOptions options = {}) {
  batch.Clear();
  std::vector<LineOutcome> outcomes(lines.size(), options.preset);
  parser.ParseBatch(lines, batch, outcomes.data());
  std::vector<ParsedRow> rows;
  for (size_t r = 0; r < lines.size(); ++r) {
    ParsedRow row{outcomes[r], {}};
    for (size_t f = 0; f < fields.size(); ++f) {
      const std::string_view v = batch.column(f)[r];
      if (v.data() == nullptr) {
        EXPECT_TRUE(v.empty());
        if (options.mark_missing) row.fields[fields[f]] = kMissingText;
        continue;
      }
      const bool parsed = outcomes[r] == LineOutcome::kParsed;
      if (options.only_parsed_fields && !parsed) continue;
      if (options.check_pointers && parsed) {
        const char* b = lines[r].data();
        const bool in_line =
            v.data() >= b && v.data() + v.size() <= b + lines[r].size();
        EXPECT_TRUE(in_line || batch.Owns(v) ||
                    v.data() == FieldBatch::kEmptyValue.data())
            << fields[f] << " of line " << r << " points elsewhere";
      }
      row.fields[fields[f]] = std::string(v);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_PARSED_ROWS_H_
