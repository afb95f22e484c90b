// mapr/alert.h: conditions over result rows, decided as `having` decides.
#include "mapr/alert.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kQuery[] =
    "select host,count($line),avg(ms),last(status) group by host "
    "logformat generickv";

std::vector<std::string> Lines() {
  return {"host=a|ms=10|status=ok",  "host=a|ms=30|status=bad",
          "host=b|ms=5|status=ok",   "host=c|ms=100|status=ok",
          "host=c|ms=300|status=ok", "host=c|ms=200|status=bad"};
}

TEST(RowConditionTest, DecidesEachRowAsHavingWould) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunQuery(kQuery, Lines()));
  ASSERT_EQ(r.ToCsv(),
            "host,count($line),avg(ms),last(status)\n"
            "a,2,20.000000,bad\nb,1,5.000000,ok\nc,3,200.000000,bad\n");
  for (const auto& [condition, want] :
       std::vector<std::pair<std::string, std::vector<bool>>>{
           {"count($line) >= 2", {true, false, true}},
           {"avg(ms) > 10 and last(status) eq \"bad\"", {true, false, true}},
           {"not (host eq \"b\") and avg(ms) < 100", {true, false, false}},
           {"last(status) =~ \"^o\" or count($line) > 2", {false, true, true}},
       }) {
    ASSERT_OK_AND_ASSIGN(RowCondition c, RowCondition::Compile(q, condition));
    EXPECT_EQ(c.text(), condition);
    EXPECT_EQ(c.Evaluate(r), want) << condition;
    // The same groups as the query with the condition as `having`.
    ASSERT_OK_AND_ASSIGN(
        ResultTable kept,
        RunQuery(std::string(kQuery) + " having " + condition, Lines()));
    size_t n = 0;
    for (bool b : want) n += b;
    EXPECT_EQ(kept.num_rows(), n) << condition;
  }
}

TEST(RowConditionTest, Errors) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  EXPECT_THAT(RowCondition::Compile(q, "sum(ms) > 1").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the condition reads sum(ms), which the "
                                 "query does not select")));
  // Positions and caret are in "QUERY having CONDITION".
  EXPECT_THAT(
      RowCondition::Compile(q, "count($line) >").status(),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          HasSubstr("1:102: expected a value after the comparison "
                    "operator, found end of query\n"
                    "...t host,count($line),avg(ms),last(status) group "
                    "by host logformat generickv having count($line) >\n"
                    "                                                    "
                    "                                               ^\n")));
  ASSERT_OK_AND_ASSIGN(
      Query having,
      Query::Compile(std::string(kQuery) + " having count($line) > 1"));
  EXPECT_THAT(RowCondition::Compile(having, "count($line) > 2").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the query has a having clause already")));
}

}  // namespace
}  // namespace mapr
