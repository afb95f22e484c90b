// The result's rows (runtime/result_builder.cc): `having` over the
// aggregated values, and the time order of groups keyed by time buckets.
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "tests/testing/result_rows.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::testing::ElementsAre;

// The result's rows as comma-joined cells.
std::vector<std::string> Rows(std::string_view query,
                              const std::vector<std::string>& lines) {
  return ::mapr::testing::QueryRows(std::string(query), lines);
}

const std::vector<std::string> kLines = {
    "g=a|v=10", "g=a|v=18",  // count 2, avg 14
    "g=b|v=14",              // count 1, avg 14
    "g=c|v=1",               // count 1, avg 1
    "g=d",                   // count 1, no v
};

TEST(HavingTest, Not) {
  EXPECT_THAT(Rows("select g, count($line) group by g having not "
                   "count($line) < 2 logformat generickv",
                   kLines),
              ElementsAre("a,2"));
}

// A text operator compares a number as it is rendered: the integer count
// as "2", the average as "14.000000".
TEST(HavingTest, TextOperatorsCompareRenderedNumbers) {
  EXPECT_THAT(Rows("select g, count($line), avg(v) group by g having "
                   "count($line) eq \"2\" or avg(v) eq \"14.000000\" "
                   "logformat generickv",
                   kLines),
              ElementsAre("a,2,14.000000", "b,1,14.000000"));
  EXPECT_THAT(Rows("select g, count($line) group by g having count($line) "
                   "hasprefix \"1\" and g ne \"c\" logformat generickv",
                   kLines),
              ElementsAre("b,1", "d,1"));
}

// A group without a value: a text comparison with it is false either way,
// as is a numeric one.
TEST(HavingTest, MissingValuesCompareFalse) {
  EXPECT_THAT(Rows("select g, last(v) group by g having last(v) eq \"1\" or "
                   "last(v) ne \"1\" logformat generickv",
                   kLines),
              ElementsAre("a,18", "b,14", "c,1"));
  EXPECT_THAT(Rows("select g, last(v) group by g having last(v) >= 0 "
                   "logformat generickv",
                   kLines),
              ElementsAre("a,18", "b,14", "c,1"));
}

// Groups keyed by a time bucket come in time order, not text order (the
// offset moves 09:59 +01:00 before 09:30 UTC); a line without a time
// (its bucket missing) first.
TEST(TimeBucketOrderTest, ByInstantMissingFirst) {
  const std::vector<std::string> lines = {"t=2026-12-01T09:30:10Z",
                                          "t=2026-12-01T09:59:59+01:00", "u=1",
                                          "t=2026-12-01T09:30:50Z"};
  const std::vector<std::string> want = {",1", "2026-12-01T09:59:00+01:00,1",
                                         "2026-12-01T09:30:00Z,2"};
  EXPECT_EQ(Rows("select $b, count($line) group by $b set $b = bucket(t, 1m) "
                 "logformat generickv",
                 lines),
            want);
  // The bucket as the last call of an expression.
  EXPECT_EQ(Rows("select $b, count($line) group by $b set $b = "
                 "bucket(coalesce(t, x), 1m) logformat generickv",
                 lines),
            want);
  // An expression that does not end in bucket(): text order.
  EXPECT_THAT(
      Rows("select $b, count($line) group by $b set $b = "
           "coalesce(t, u) logformat generickv",
           lines),
      ElementsAre("1,1", "2026-12-01T09:30:10Z,1", "2026-12-01T09:30:50Z,1",
                  "2026-12-01T09:59:59+01:00,1"));
}

}  // namespace
}  // namespace mapr
