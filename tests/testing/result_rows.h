// A result's rows as text, for tests that compare rows: one helper instead
// of one per test file.
//
//   EXPECT_THAT(QueryRows("select g, count($line) group by g logformat "
//                         "generickv", {"g=a", "g=b", "g=a"}),
//               ElementsAre("a,2", "b,1"));
#ifndef MAPR_TESTS_TESTING_RESULT_ROWS_H_
#define MAPR_TESTS_TESTING_RESULT_ROWS_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"

namespace mapr::testing {

// Each row's cells joined by ',' (no CSV quoting, no header).
inline std::vector<std::string> RowTexts(const ResultTable& r) {
  std::vector<std::string> rows;
  for (size_t i = 0; i < r.num_rows(); ++i) {
    std::string row;
    for (size_t c = 0; c < r.num_columns(); ++c) {
      if (c > 0) row += ",";
      row += std::string(r.cell(i, c));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The rows of `query` (compiled with `options`) over `lines` in one pass.
// A failing step fails the test (EXPECT) and gives no rows.
inline std::vector<std::string> QueryRows(const std::string& query,
                                          const std::vector<std::string>& lines,
                                          const CompileOptions& options = {}) {
  absl::StatusOr<Query> q = Query::Compile(query, options);
  EXPECT_TRUE(q.ok()) << q.status();
  if (!q.ok()) return {};
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q);
  EXPECT_TRUE(agg.ok()) << agg.status();
  if (!agg.ok()) return {};
  EXPECT_TRUE(agg->PushLines(std::span<const std::string>(lines)).ok());
  EXPECT_TRUE(agg->FinishInput().ok());
  absl::StatusOr<ResultTable> r = agg->TakeResult();
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? RowTexts(*r) : std::vector<std::string>();
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_RESULT_ROWS_H_
