// `mapr --output chart`: a horizontal bar chart of a result, one bar per row
// for the first numeric column, drawn with Unicode blocks (█ and the eighth
// blocks ▏▎▍▌▋▊▉) and fitted to the terminal width. See docs/cli.md.
#ifndef MAPR_BINDINGS_CLI_CHART_H_
#define MAPR_BINDINGS_CLI_CHART_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr::cli {

struct ChartOptions {
  // The width of a line in terminal columns (at least 20 is used).
  int width = 80;
  // Rows drawn at most; negative: every row.
  int64_t max_rows = -1;
};

// The chart: a header line (the charted column's name), then per row a
// label (the row's text cells joined by spaces, or #N when the result has
// none), '│', the bar and the value as the table renders it. When a column
// is a bucket (ResultColumn::is_bucket), the rows are drawn in its order, as
// a series: times by instant, numbers by value. Fails with InvalidArgument
// if the result has no numeric column.
absl::StatusOr<std::string> RenderChart(const ResultTable& result,
                                        const ChartOptions& options);

// True if `query`'s result has a numeric column to chart.
bool HasNumericColumn(const Query& query);

// The terminal width: $COLUMNS if it is a positive number, else the width
// of standard output if it is a terminal, else 80.
int TerminalWidth();

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_CHART_H_
