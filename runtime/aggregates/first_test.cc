// first(x): the first value in input order, the mirror of last().
#include <string>
#include <string_view>
#include <utility>
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

std::vector<std::string> Csv(
    std::string_view query,
    const std::vector<std::vector<std::string>>& parts) {
  absl::StatusOr<Query> q = Query::Compile(query);
  EXPECT_TRUE(q.ok()) << q.status();
  absl::StatusOr<Aggregator> total = Aggregator::Create(*q);
  EXPECT_TRUE(total.ok()) << total.status();
  for (const std::vector<std::string>& lines : parts) {
    absl::StatusOr<Aggregator> part = Aggregator::Create(*q);
    EXPECT_TRUE(part.ok());
    std::vector<std::string_view> views(lines.begin(), lines.end());
    EXPECT_TRUE(part->PushLines(views).ok());
    EXPECT_TRUE(part->FinishInput().ok());
    EXPECT_TRUE(total->Merge(std::move(*part)).ok());
  }
  EXPECT_TRUE(total->FinishInput().ok());
  absl::StatusOr<ResultTable> r = total->TakeResult();
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? ::mapr::testing::RowTexts(*r) : std::vector<std::string>();
}

constexpr std::string_view kQuery =
    "select g,first(v),last(v),count($line) group by g logformat generickv";

TEST(FirstTest, FirstValueInInputOrder) {
  EXPECT_THAT(Csv(kQuery, {{"g=a|v=1", "g=b|v=x", "g=a|v=2", "g=a|v=3"}}),
              ElementsAre("a,1,3,3", "b,x,x,1"));
}

TEST(FirstTest, SkipsRowsWithoutTheField) {
  EXPECT_THAT(Csv(kQuery, {{"g=a", "g=a|v=later", "g=a|v=last"}}),
              ElementsAre("a,later,last,3"));
  // A group that never has the field renders an empty cell.
  EXPECT_THAT(Csv(kQuery, {{"g=a", "g=a"}}), ElementsAre("a,,,2"));
}

TEST(FirstTest, MergeKeepsTheEarlierPartial) {
  // The same input split three ways: the first partial's first value wins,
  // even when it arrives in a partial that holds no value for another group.
  EXPECT_THAT(Csv(kQuery, {{"g=a|v=1"}, {"g=b|v=7", "g=a|v=2"}, {"g=a|v=3"}}),
              ElementsAre("a,1,3,3", "b,7,7,1"));
  EXPECT_THAT(Csv(kQuery, {{"g=a"}, {"g=a|v=2"}, {"g=a|v=3"}}),
              ElementsAre("a,2,3,3"));
}

TEST(FirstTest, OfAGroupByFieldIsTheKey) {
  EXPECT_THAT(Csv("select first(g),count($line) group by g logformat generickv",
                  {{"g=b|v=1", "g=a", "v=2"}, {"g=b", "g="}}),
              ElementsAre(",2", "a,1", "b,2"));
}

TEST(FirstTest, OrdersNumericallyLikeLast) {
  EXPECT_THAT(
      Csv("select g,first(v) group by g order by first(v) logformat generickv",
          {{"g=a|v=9", "g=b|v=10", "g=c|v=x", "g=a|v=100"}}),
      ElementsAre("b,10", "a,9", "c,x"));
}

}  // namespace
}  // namespace mapr
