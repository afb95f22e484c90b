#include "runtime/batch_aggregator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "api/query_internal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/log_format.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"

namespace mapr::runtime {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::HasSubstr;

using ::mapr::testing::Stats;
using ::mapr::testing::TestOptions;

absl::StatusOr<std::unique_ptr<BatchAggregator>> Make(
    std::string_view query, const AggregatorOptions& options = TestOptions()) {
  absl::StatusOr<Query> q = Query::Compile(query);
  if (!q.ok()) return q.status();
  return BatchAggregator::Create(QueryInternal::SharedPlan(*q), options);
}

absl::Status Push(BatchAggregator& agg, const std::vector<std::string>& lines,
                  uint64_t source = 0) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return agg.Push(views, source);
}

// Runs `query` over `lines` (one source, one Push) and returns the CSV.
std::string RunCsv(std::string_view query,
                   const std::vector<std::string>& lines,
                   const AggregatorOptions& options = TestOptions()) {
  absl::StatusOr<std::unique_ptr<BatchAggregator>> agg = Make(query, options);
  if (!agg.ok()) return std::string(agg.status().ToString());
  absl::Status s = Push(**agg, lines);
  if (!s.ok()) return std::string(s.ToString());
  return (*agg)->Result()->ToCsv();
}

uint64_t SumOfBuckets(const LineCounters& c) {
  return c.lines_too_long + c.lines_table_mismatch + c.lines_ignored +
         c.lines_malformed + c.lines_header + c.lines_filtered +
         c.lines_without_value + c.lines_aggregated;
}

// ------------------------------------------------------------ aggregates

TEST(BatchAggregatorTest, CountCountsEveryPresentValueIncludingEmpty) {
  EXPECT_EQ(RunCsv("from STATS select count(v),count($line) group by $empty",
                   {Stats("v=1"), Stats("v="), Stats("w=1"), Stats("v=abc")}),
            "count(v),count($line)\n3,4\n");
}

TEST(BatchAggregatorTest, SumAddsOnlyNumericValues) {
  EXPECT_EQ(RunCsv("from STATS select sum(v) group by $empty",
                   {Stats("v=1.5"), Stats("v=abc"), Stats("w=1"), Stats("v=-4"),
                    Stats("v=10")}),
            "sum(v)\n7.500000\n");
}

TEST(BatchAggregatorTest, MinAndMaxStartFromTheFirstValue) {
  EXPECT_EQ(RunCsv("from STATS select min(v),max(v),min(w),max(w) "
                   "group by $empty",
                   {Stats("v=5|w=-3"), Stats("v=3|w=-1"), Stats("v=9|w=-7"),
                    Stats("v=x|w=y")}),
            "min(v),max(v),min(w),max(w)\n"
            "3.000000,9.000000,-7.000000,-1.000000\n");
}

TEST(BatchAggregatorTest, AvgDividesByTheNumericValuesOfItsField) {
  // DTail's own example: DTail divides by the 4 lines of the group and
  // gives 7.500000 (docs/compatibility.md, "Evaluation").
  EXPECT_EQ(RunCsv("from STATS select avg(x),count(y) group by $empty",
                   {Stats("x=10|y=1"), Stats("y=2"), Stats("x=abc|y=3"),
                    Stats("x=20|y=4")}),
            "avg(x),count(y)\n15.000000,4\n");
}

TEST(BatchAggregatorTest, LastKeepsTheLastValueInInputOrderAcrossChunks) {
  // More lines than one engine chunk (kMaxBatchRows) in a single Push.
  std::vector<std::string> lines;
  const int n = static_cast<int>(2 * kMaxBatchRows + 17);
  lines.reserve(n);
  for (int i = 0; i < n; ++i) {
    lines.push_back(
        Stats("g=" + std::to_string(i % 3) + "|v=" + std::to_string(i)));
  }
  std::string expected = "$g,last(v)\n";
  for (int g = 0; g < 3; ++g) {
    int last = n - 1;
    while (last % 3 != g) --last;
    expected += std::to_string(g) + "," + std::to_string(last) + "\n";
  }
  EXPECT_EQ(RunCsv("from STATS select $g,last(v) set $g = g group by g", lines),
            expected);
}

TEST(BatchAggregatorTest, LastIgnoresLinesWithoutTheField) {
  EXPECT_EQ(RunCsv("from STATS select last(v),count($line) group by $empty",
                   {Stats("v=first"), Stats("v=second"), Stats("w=1")}),
            "last(v),count($line)\nsecond,3\n");
}

TEST(BatchAggregatorTest, LastKeepsTheLastValueAcrossPushes) {
  ASSERT_OK_AND_ASSIGN(auto agg,
                       Make("from STATS select last(v) group by $empty"));
  ASSERT_OK(Push(*agg, {Stats("v=a"), Stats("v=b")}));
  ASSERT_OK(Push(*agg, {Stats("w=1")}));
  EXPECT_EQ(agg->Result()->ToCsv(), "last(v)\nb\n");
  ASSERT_OK(Push(*agg, {Stats("v=c")}));
  EXPECT_EQ(agg->Result()->ToCsv(), "last(v)\nc\n");
}

TEST(BatchAggregatorTest, LenIsTheByteLengthOfTheLastValueNotASum) {
  EXPECT_EQ(RunCsv("from STATS select len(v),len(w) group by $empty",
                   {Stats("v=abcdef|w=x"), Stats("v=abc"), Stats("w=")}),
            "len(v),len(w)\n3.000000,0.000000\n");
}

TEST(BatchAggregatorTest, PercentageIsTheShareOfTheTotalOverGroups) {
  EXPECT_EQ(RunCsv("from STATS select h,percentage(v) group by h",
                   {Stats("h=a|v=10"), Stats("h=b|v=30"), Stats("h=c|v=20")}),
            "h,percentage(v)\n"
            "a,16.666667\nb,50.000000\nc,33.333333\n");
}

TEST(BatchAggregatorTest, PercentileIsTheRankOfTheGroupSumTiesShareHigher) {
  EXPECT_EQ(RunCsv("from STATS select h,percentile(v) group by h",
                   {Stats("h=a|v=10"), Stats("h=b|v=10"), Stats("h=c|v=30")}),
            "h,percentile(v)\n"
            "a,66.666667\nb,66.666667\nc,100.000000\n");
  EXPECT_EQ(RunCsv("from STATS select h,percentile(v) group by h",
                   {Stats("h=a|v=10"), Stats("h=b|v=20"), Stats("h=c|v=30")}),
            "h,percentile(v)\n"
            "a,33.333333\nb,66.666667\nc,100.000000\n");
}

TEST(BatchAggregatorTest, PercentageAndPercentileCountGroupsWithoutTheField) {
  // Group b has no v: it adds 0 to the total and to the population.
  EXPECT_EQ(RunCsv("from STATS select h,percentage(v),percentile(v),"
                   "count($line) group by h",
                   {Stats("h=a|v=10"), Stats("h=b"), Stats("h=c|v=30")}),
            "h,percentage(v),percentile(v),count($line)\n"
            "a,25.000000,66.666667,1\n"
            "b,0.000000,33.333333,1\n"
            "c,75.000000,100.000000,1\n");
}

TEST(BatchAggregatorTest, PercentageOfAllZeroInputsIsZero) {
  EXPECT_EQ(RunCsv("from STATS select h,percentage(v) group by h",
                   {Stats("h=a|v=0"), Stats("h=b|v=0")}),
            "h,percentage(v)\na,0.000000\nb,0.000000\n");
}

TEST(BatchAggregatorTest, GroupWithoutAnyValueIsAbsent) {
  ASSERT_OK_AND_ASSIGN(auto agg, Make("from STATS select sum(x) group by h"));
  ASSERT_OK(Push(*agg, {Stats("h=a|x=1"), Stats("h=b|x=abc"), Stats("h=b")}));
  ResultTable r = *agg->Result();
  EXPECT_EQ(r.ToCsv(), "sum(x)\n1.000000\n");
  EXPECT_EQ(r.total_groups(), 1u);
  EXPECT_EQ(r.stats().lines_without_value, 2u);
  EXPECT_EQ(r.stats().lines_aggregated, 1u);
}

TEST(BatchAggregatorTest, DefaultGroupByIsTheFirstSelectItemsField) {
  EXPECT_EQ(RunCsv("select count($line)", {"b", "a", "b"}),
            "count($line)\n1\n2\n");
  EXPECT_EQ(RunCsv("select count(*)", {"b", "a", "b"}), "count(*)\n3\n");
}

TEST(BatchAggregatorTest, ItemsSharingAStateAgree) {
  EXPECT_EQ(RunCsv("from STATS select sum(v),percentage(v),percentile(v),"
                   "sum(v) group by $empty",
                   {Stats("v=1"), Stats("v=2")}),
            "sum(v),percentage(v),percentile(v),sum(v)\n"
            "3.000000,100.000000,100.000000,3.000000\n");
}

// ------------------------------------------------------------ rendering

TEST(BatchAggregatorTest, CountRendersAsIntegerNumbersWithSixDecimals) {
  std::vector<std::string> lines(3000, Stats("v=0.1"));
  lines.push_back(Stats("w=1e20"));
  EXPECT_EQ(RunCsv("from STATS select count(v),sum(v),max(w) "
                   "group by $empty",
                   lines),
            "count(v),sum(v),max(w)\n"
            "3000,300.000000,100000000000000000000.000000\n");
}

TEST(BatchAggregatorTest, RendersNanAndInfinitiesLikeGo) {
  EXPECT_EQ(
      RunCsv("from STATS select h,sum(v),avg(v) group by h",
             {Stats("h=a|v=NaN"), Stats("h=b|v=+Inf"), Stats("h=c|v=-inf"),
              Stats("h=d|v=inf"), Stats("h=d|v=-inf")}),
      "h,sum(v),avg(v)\n"
      "a,NaN,NaN\nb,+Inf,+Inf\nc,-Inf,-Inf\nd,NaN,NaN\n");
}

TEST(BatchAggregatorTest, EmptyGroupRendersZeroNeverNan) {
  EXPECT_EQ(RunCsv("from STATS select avg(x),sum(x),min(x),max(x),len(x),"
                   "last(x),percentage(x),percentile(x),count(x),"
                   "count($line) group by $empty",
                   {Stats("y=1"), Stats("x=abc")}),
            "avg(x),sum(x),min(x),max(x),len(x),last(x),percentage(x),"
            "percentile(x),count(x),count($line)\n"
            "0.000000,0.000000,0.000000,0.000000,3.000000,abc,0.000000,"
            "100.000000,1,2\n");
}

TEST(BatchAggregatorTest, SumOfNegativeZeroRendersLikeGo) {
  // DTail's first value initialises the sum, so it keeps the sign of -0.
  EXPECT_EQ(RunCsv("from STATS select sum(v),avg(v),min(v) group by $empty",
                   {Stats("v=-0"), Stats("v=-0.0")}),
            "sum(v),avg(v),min(v)\n-0.000000,-0.000000,-0.000000\n");
  EXPECT_EQ(RunCsv("from STATS select sum(v) group by $empty",
                   {Stats("v=-0"), Stats("v=0")}),
            "sum(v)\n0.000000\n");
}

TEST(BatchAggregatorTest, ResultDescribesColumnsAndOrderValues) {
  ASSERT_OK_AND_ASSIGN(
      auto agg, Make("from STATS select h,count($line) as n,avg(v),last(v) "
                     "group by h order by n"));
  ASSERT_OK(
      Push(*agg, {Stats("h=a|v=abc"), Stats("h=b|v=2.5"), Stats("h=b|v=3.5")}));
  ResultTable r = *agg->Result();
  ASSERT_EQ(r.num_columns(), 4u);
  EXPECT_EQ(r.columns()[0].name, "h");
  EXPECT_EQ(r.columns()[0].aggregate, "last");
  EXPECT_EQ(r.columns()[0].type, ValueType::kText);
  EXPECT_TRUE(r.columns()[0].is_group_key);
  EXPECT_FALSE(r.columns()[0].is_order_key);
  EXPECT_EQ(r.columns()[1].name, "n");
  EXPECT_EQ(r.columns()[1].aggregate, "count");
  EXPECT_EQ(r.columns()[1].type, ValueType::kInteger);
  EXPECT_EQ(r.columns()[1].field, "$line");
  EXPECT_TRUE(r.columns()[1].is_order_key);
  EXPECT_EQ(r.columns()[2].aggregate, "avg");
  EXPECT_EQ(r.columns()[2].type, ValueType::kNumber);
  EXPECT_EQ(r.columns()[2].field, "v");
  ASSERT_EQ(r.num_rows(), 2u);
  EXPECT_THAT(r.row(0).cells, ElementsAre("b", "2", "3.000000", "3.5"));
  EXPECT_THAT(r.row(0).values, ElementsAre(0, 2, 3, 3.5));
  // A non-numeric last() value orders as 0.
  EXPECT_THAT(r.row(1).cells, ElementsAre("a", "1", "0.000000", "abc"));
  EXPECT_THAT(r.row(1).values, ElementsAre(0, 1, 0, 0));
}

// ------------------------------------------------------------- ordering

TEST(BatchAggregatorTest, RowsComeInKeyTupleOrderWithoutOrderBy) {
  // Byte order ('B' < 'a'), and tuple order: ("a","b") sorts before
  // ("a+","x") although the DTail-joined key "a+,x" sorts before "a,b".
  EXPECT_EQ(RunCsv("from STATS select k,l,count($line) group by k,l",
                   {Stats("k=a+|l=x"), Stats("k=a|l=b"), Stats("k=B|l=z"),
                    Stats("k=a|l=a")}),
            "k,l,count($line)\n"
            "B,z,1\na,a,1\na,b,1\na+,x,1\n");
}

// Groups `h` of one line per key come out in byte order of the keys, on
// `threads` result threads of at least 1000 groups each.
void ExpectGroupsInByteOrder(const std::set<std::string>& keys,
                             size_t threads) {
  ASSERT_OK_AND_ASSIGN(auto agg,
                       Make("from STATS select h,count($line) group by h"));
  std::vector<std::string> lines;
  lines.reserve(keys.size());
  for (const std::string& key : keys) lines.push_back(Stats("h=" + key));
  std::shuffle(lines.begin(), lines.end(), std::mt19937(3));
  ASSERT_OK(Push(*agg, lines));
  const ResultTable r = *agg->Result(threads, 1000);
  ASSERT_EQ(r.num_rows(), keys.size());
  size_t i = 0;
  for (const std::string& key : keys) {
    ASSERT_EQ(r.cell(i++, 0), key) << i;
  }
}

// Many groups in byte order: short keys, keys equal in the 16-byte prefix
// the sort compares first, high bytes.
TEST(BatchAggregatorTest, ManyGroupsComeInByteOrder) {
  std::mt19937 rng(11);
  std::set<std::string> keys;
  const std::string prefix16 = "0123456789abcdef";
  while (keys.size() < 5000) {
    std::string key;
    if (rng() % 4 == 0) key = prefix16;  // Ties in the 16-byte prefix.
    const size_t len = rng() % (rng() % 8 == 0 ? 20 : 4);
    for (size_t i = 0; i < len; ++i) {
      key.push_back("ab\xff\x01"[rng() % 4]);
    }
    keys.insert(key);
  }
  ExpectGroupsInByteOrder(keys, 1);
  ExpectGroupsInByteOrder(keys, 3);
}

// Many groups with a prefix every key shares, some differing only past the
// 16-byte prefix the sort compares first, sorted on one and on several
// threads.
TEST(BatchAggregatorTest, ManyGroupsWithASharedPrefixComeInByteOrder) {
  std::mt19937 rng(12);
  std::set<std::string> keys;
  while (keys.size() < 20000) {
    std::string key = "host-";
    const size_t len = 1 + rng() % (rng() % 4 == 0 ? 20 : 6);
    for (size_t i = 0; i < len; ++i) key.push_back('0' + rng() % 10);
    keys.insert(key);
  }
  ExpectGroupsInByteOrder(keys, 1);
  ExpectGroupsInByteOrder(keys, 4);
}

// AggregatorOptions::result_threads (with few groups per thread), with every
// kind of finalizer (those that prepare facts
// over all groups, key parts, sketches), one and two group fields, having,
// order by and limit: the same table for any number of threads.
TEST(BatchAggregatorTest, ResultThreadsGiveTheSameResult) {
  std::mt19937 rng(13);
  std::vector<std::string> lines;
  lines.reserve(20000);
  for (int i = 0; i < 20000; ++i) {
    lines.push_back(Stats(absl::StrCat(
        "h=k", rng() % 10000, "|g=", rng() % 3, "|v=", rng() % 1000,
        "|w=", static_cast<int>(rng() % 2000) - 1000, ".", rng() % 100,
        "|t=", 1700000000 + rng() % 300000)));
  }
  for (const char* query : {
           "from STATS select h,count($line),sum(v),avg(w),min(w),max(v),"
           "last(v),first(w),percentage(v),percentile(w),p90(v),median(w),"
           "dcount(v),stddev(w),len(h),last(h) group by h",
           "from STATS select g,h,sum(v),percentile(v) group by g,h",
           "from STATS select h,sum(v),count($line) group by h having "
           "sum(v) > 100 order by sum(v) desc limit 7000",
           // Running totals across the rendering's blocks and rounds.
           "from STATS select h,count($line),cumsum(count($line)),cumsum(v) "
           "group by h order by count($line) desc",
           // Windows joined from their hops on several threads.
           "from STATS select g,$w,count($line),sum(v),first(w),last(v),"
           "p90(v),dcount(h) set $w = window(t, 10m, 1m) group by g,$w",
       }) {
    ASSERT_OK_AND_ASSIGN(auto agg, Make(query));
    ASSERT_OK(Push(*agg, lines));
    const std::string want = agg->Result(1, 500)->ToCsv();
    ASSERT_GT(std::count(want.begin(), want.end(), '\n'), 4000) << query;
    for (size_t threads : {2, 3, 8}) {
      ASSERT_TRUE(agg->Result(threads, 500)->ToCsv() == want)
          << query << " differs on " << threads << " threads";
    }
  }
  // The running count is the prefix sum of the count column, row by row.
  ASSERT_OK_AND_ASSIGN(
      auto agg, Make("from STATS select h,count($line),cumsum(count($line)) "
                     "group by h order by count($line) desc"));
  ASSERT_OK(Push(*agg, lines));
  const ResultTable t = *agg->Result(3, 500);
  ASSERT_GT(t.num_rows(), 4000u);
  double total = 0;
  for (size_t r = 0; r < t.num_rows(); ++r) {
    total += t.value(r, 1);
    ASSERT_EQ(t.value(r, 2), total) << "row " << r;
  }
  EXPECT_EQ(total, 20000);
}

// Merge looks up the later partial's groups on several threads and
// combines the states a state per thread: the same groups, ids and result as
// a merge on one thread, and the same state when max_groups stops it.
TEST(BatchAggregatorTest, MergeOnThreadsIsTheSerialMerge) {
  std::mt19937 rng(17);
  auto lines = [&rng](int n) {
    std::vector<std::string> out;
    out.reserve(n);
    for (int i = 0; i < n; ++i) {
      out.push_back(Stats(absl::StrCat(
          "h=k", rng() % 12000, "|v=", rng() % 1000,
          "|w=", static_cast<int>(rng() % 2000) - 1000, ".", rng() % 100)));
    }
    return out;
  };
  const std::vector<std::string> first = lines(15000);
  const std::vector<std::string> second = lines(15000);
  constexpr std::string_view kQuery =
      "from STATS select h,count($line),sum(v),avg(w),min(w),max(v),last(v),"
      "first(w),percentile(w),dcount(v),stddev(w),last(h) group by h";
  for (uint64_t max_groups : {uint64_t{0}, uint64_t{11000}}) {
    SCOPED_TRACE(max_groups);
    std::string want;
    for (size_t threads : {1, 2, 3, 8}) {
      AggregatorOptions options = TestOptions();
      options.max_groups = max_groups;
      options.result_threads = threads;
      ASSERT_OK_AND_ASSIGN(auto a, Make(kQuery, options));
      ASSERT_OK_AND_ASSIGN(auto b, Make(kQuery, options));
      ASSERT_OK(Push(*a, first));
      ASSERT_OK(Push(*b, second));
      // One thread per 100 of b's ~8000 groups, at most `threads`.
      const absl::Status merged = a->Merge(*b, 100);
      EXPECT_EQ(merged.ok(), max_groups == 0) << merged;
      // A failed merge leaves a failed aggregator (sticky, no result): its
      // error is compared instead.
      const std::string got =
          merged.ok() ? a->Result(1)->ToCsv() : std::string(merged.message());
      if (threads == 1) {
        want = got;
        if (max_groups == 0) {
          ASSERT_GT(std::count(want.begin(), want.end(), '\n'), 9000);
        }
      } else {
        EXPECT_TRUE(got == want) << "differs on " << threads << " threads";
      }
    }
  }
}

TEST(BatchAggregatorTest, OrderByIsStableAndTiesKeepKeyOrder) {
  // DTail's example: non-numeric last values order as 0, ties keep the
  // key order (docs/query-language.md, "order by").
  EXPECT_EQ(RunCsv("from STATS select h,last(v) group by h order by last(v)",
                   {Stats("h=b|v=10"), Stats("h=a|v=abc"), Stats("h=d|v=2"),
                    Stats("h=c|v=10"), Stats("h=e|v=-1")}),
            "h,last(v)\nb,10\nc,10\nd,2\na,abc\ne,-1\n");
}

TEST(BatchAggregatorTest, RorderSortsAscendingTiesKeepKeyOrder) {
  EXPECT_EQ(RunCsv("from STATS select h,last(v) group by h rorder by last(v)",
                   {Stats("h=b|v=10"), Stats("h=a|v=abc"), Stats("h=d|v=2"),
                    Stats("h=c|v=10"), Stats("h=e|v=-1")}),
            "h,last(v)\ne,-1\na,abc\nd,2\nb,10\nc,10\n");
}

TEST(BatchAggregatorTest, NanSortsLastInBothDirections) {
  std::vector<std::string> lines = {Stats("h=a|v=nan"), Stats("h=b|v=1"),
                                    Stats("h=c|v=-inf"), Stats("h=d|v=2")};
  EXPECT_EQ(
      RunCsv("from STATS select h,sum(v) group by h order by sum(v)", lines),
      "h,sum(v)\nd,2.000000\nb,1.000000\nc,-Inf\na,NaN\n");
  EXPECT_EQ(
      RunCsv("from STATS select h,sum(v) group by h rorder by sum(v)", lines),
      "h,sum(v)\nc,-Inf\nb,1.000000\nd,2.000000\na,NaN\n");
}

// ---------------------------------------------------------------- limit

TEST(BatchAggregatorTest, LimitKeepsTheFirstRowsAfterOrdering) {
  ASSERT_OK_AND_ASSIGN(auto agg, Make("from STATS select h,count($line) "
                                      "group by h order by count($line) "
                                      "limit 2"));
  ASSERT_OK(Push(*agg, {Stats("h=a"), Stats("h=b"), Stats("h=b"), Stats("h=c"),
                        Stats("h=c"), Stats("h=c")}));
  ResultTable r = *agg->Result();
  EXPECT_EQ(r.ToCsv(), "h,count($line)\nc,3\nb,2\n");
  EXPECT_EQ(r.total_groups(), 3u);
}

TEST(BatchAggregatorTest, LimitAboveTheGroupCountAndLimitZero) {
  std::vector<std::string> lines = {Stats("h=a"), Stats("h=b")};
  EXPECT_EQ(RunCsv("from STATS select h group by h limit 5", lines),
            "h\na\nb\n");
  EXPECT_EQ(RunCsv("from STATS select h group by h limit 0", lines), "h\n");
}

TEST(BatchAggregatorTest, PercentagesUseAllGroupsBeforeTheLimit) {
  EXPECT_EQ(RunCsv("from STATS select h,percentage(v) group by h "
                   "order by percentage(v) limit 1",
                   {Stats("h=a|v=1"), Stats("h=b|v=3")}),
            "h,percentage(v)\nb,75.000000\n");
}

// ------------------------------------------------------------- counters

TEST(BatchAggregatorTest, EveryLineIsCountedInExactlyOneBucket) {
  AggregatorOptions options = TestOptions();
  options.max_line_bytes = 200;
  ASSERT_OK_AND_ASSIGN(auto agg, Make("from STATS select sum(x) "
                                      "where not y eq \"skip\" group by h",
                                      options));
  ASSERT_OK(
      Push(*agg, {
                     Stats("x=1|pad=" + std::string(200, 'p')),   // long
                     "hello",                                     // table
                     "WARN|1|2|3|4|5|6|7|8|MAPREDUCE:STATS|x=1",  // ignored
                     Stats("x=1|noeq"),                           // malformed
                     Stats("x=1|y=skip"),                         // filtered
                     Stats("x=abc"),    // without value
                     Stats("x=2"),      // aggregated
                     Stats("h=b|x=3"),  // aggregated
                 }));
  const LineCounters& c = agg->counters();
  EXPECT_EQ(c.lines_read, 8u);
  EXPECT_EQ(c.lines_too_long, 1u);
  EXPECT_EQ(c.lines_table_mismatch, 1u);
  EXPECT_EQ(c.lines_ignored, 1u);
  EXPECT_EQ(c.lines_malformed, 1u);
  EXPECT_EQ(c.lines_header, 0u);
  EXPECT_EQ(c.lines_filtered, 1u);
  EXPECT_EQ(c.lines_without_value, 1u);
  EXPECT_EQ(c.lines_aggregated, 2u);
  EXPECT_EQ(SumOfBuckets(c), c.lines_read);
  EXPECT_EQ(c.lines_matched(), 6u);
  EXPECT_EQ(c.lines_parsed(), 4u);
  EXPECT_EQ(agg->Result()->stats(), c);
}

// DTail's table filter is a substring search of the whole line, made
// before the format looks at it; mapr folds it into the default format's
// scan and must keep both its verdicts and its counting.
TEST(BatchAggregatorTest, TableFilterIsASubstringSearchBeforeTheFormat) {
  ASSERT_OK_AND_ASSIGN(auto agg, Make("from STATS select sum(x) group by h"));
  const std::string other = "INFO|t|1|c|1|2|3|0.1|1h|MAPREDUCE:OTHER|";
  ASSERT_OK(
      Push(*agg,
           {
               other + "x=1",   // mismatch
               other + "noeq",  // mismatch, not bad
               "WARN|t|1|c|1|2|3|0.1|1h|MAPREDUCE:OTHER|x=1",  // mismatch
               "WARN|t|1|c|1|2|3|0.1|1h|MAPREDUCE:STATS|x=1",  // ignored
               // The marker as token 1 matches, and token 9 need only start
               // with MAPREDUCE: (DTail's quirk).
               "INFO|MAPREDUCE:STATS|1|c|1|2|3|0.1|1h|MAPREDUCE:OTHER|x=4",
               other + "x=1|y=|MAPREDUCE:STATS|",  // matches, then malformed
               Stats("x=2"),
           }));
  const LineCounters& c = agg->counters();
  EXPECT_EQ(c.lines_table_mismatch, 3u);
  EXPECT_EQ(c.lines_ignored, 1u);
  EXPECT_EQ(c.lines_malformed, 1u);
  EXPECT_EQ(c.lines_aggregated, 2u);
  EXPECT_EQ(SumOfBuckets(c), c.lines_read);
  EXPECT_EQ(agg->Result()->ToCsv(), "sum(x)\n6.000000\n");
}

TEST(BatchAggregatorTest, CsvHeaderIsCountedOncePerSource) {
  ASSERT_OK_AND_ASSIGN(auto agg, Make("select count($line),sum(b) group by * "
                                      "logformat csv"));
  ASSERT_OK(Push(*agg, {"a,b", "1,2", "3,4"}, 7));
  ASSERT_OK(Push(*agg, {"a,b", "5,6"}, 8));
  ASSERT_OK(Push(*agg, {"7,8", "1,2,3"}, 7));  // No new header; too many.
  const LineCounters& c = agg->counters();
  EXPECT_EQ(c.lines_header, 2u);
  EXPECT_EQ(c.lines_malformed, 1u);
  EXPECT_EQ(c.lines_aggregated, 4u);
  EXPECT_EQ(SumOfBuckets(c), c.lines_read);
  EXPECT_EQ(agg->Result()->ToCsv(), "count($line),sum(b)\n4,20.000000\n");
}

TEST(BatchAggregatorTest, CountersAccumulateAcrossPushesAndChunks) {
  ASSERT_OK_AND_ASSIGN(auto agg,
                       Make("from STATS select count($line) group by $empty"));
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows * 3 + 1; ++i) {
    lines.push_back(i % 5 == 0 ? std::string("noise") : Stats("x=1"));
  }
  ASSERT_OK(Push(*agg, lines));
  ASSERT_OK(Push(*agg, lines));
  const LineCounters& c = agg->counters();
  EXPECT_EQ(c.lines_read, 2 * lines.size());
  EXPECT_EQ(c.lines_table_mismatch, 2 * ((lines.size() + 4) / 5));
  EXPECT_EQ(SumOfBuckets(c), c.lines_read);
}

// ---------------------------------------------------------- line limits

TEST(BatchAggregatorTest, LongerLineIsRejectedAndCountedNotSplit) {
  AggregatorOptions options = TestOptions();
  options.max_line_bytes = 100;
  ASSERT_OK_AND_ASSIGN(auto agg, Make("select count($line),len($line) "
                                      "group by *",
                                      options));
  ASSERT_OK(Push(
      *agg, {std::string(101, 'x'), std::string(100, 'y'),
             std::string(100, 'z') + "\r\n", std::string(100, 'w') + "\r\r"}));
  const LineCounters& c = agg->counters();
  EXPECT_EQ(c.lines_read, 4u);
  // The line ending does not count; other trailing bytes do.
  EXPECT_EQ(c.lines_too_long, 2u);
  EXPECT_EQ(c.lines_aggregated, 2u);
  EXPECT_EQ(agg->Result()->ToCsv(), "count($line),len($line)\n2,100.000000\n");
}

TEST(BatchAggregatorTest, TenMegabyteLine) {
  const std::string big = Stats("v=" + std::string(10 << 20, 'x'));
  // Default limit (1 MiB): rejected whole.
  ASSERT_OK_AND_ASSIGN(auto rejected,
                       Make("from STATS select count($line) group by *"));
  ASSERT_OK(Push(*rejected, {big, Stats("v=1")}));
  EXPECT_EQ(rejected->counters().lines_too_long, 1u);
  EXPECT_EQ(rejected->Result()->ToCsv(), "count($line)\n1\n");

  AggregatorOptions options = TestOptions();
  options.max_line_bytes = 16 << 20;
  ASSERT_OK_AND_ASSIGN(
      auto accepted,
      Make("from STATS select len(v),count($line) group by *", options));
  ASSERT_OK(Push(*accepted, {big}));
  EXPECT_EQ(accepted->Result()->ToCsv(),
            "len(v),count($line)\n10485760.000000,1\n");
}

// ----------------------------------------------------------- max_groups

TEST(BatchAggregatorTest, MaxGroupsIsResourceExhaustedNamingTheLimitSticky) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 2;
  ASSERT_OK_AND_ASSIGN(
      auto agg, Make("from STATS select h,count($line) group by h", options));
  ASSERT_OK(Push(*agg, {Stats("h=a"), Stats("h=b"), Stats("h=a")}));
  const auto exhausted =
      StatusIs(absl::StatusCode::kResourceExhausted,
               AllOf(HasSubstr("more than 2 groups"), HasSubstr("max_groups")));
  EXPECT_THAT(Push(*agg, {Stats("h=c")}), exhausted);
  // Sticky: even lines of existing groups are refused now.
  EXPECT_THAT(Push(*agg, {Stats("h=a")}), exhausted);
  EXPECT_THAT(Push(*agg, {}), exhausted);
  // The groups so far can still be rendered.
  EXPECT_EQ(agg->Result()->ToCsv(), "h,count($line)\na,2\nb,1\n");
}

TEST(BatchAggregatorTest, MaxGroupsAcceptsExistingGroupsAtTheLimit) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 2;
  ASSERT_OK_AND_ASSIGN(
      auto agg, Make("from STATS select h,count($line) group by h", options));
  ASSERT_OK(Push(*agg, {Stats("h=a"), Stats("h=b")}));
  ASSERT_OK(Push(*agg, {Stats("h=b"), Stats("h=a"), Stats("h=b")}));
  EXPECT_EQ(agg->Result()->ToCsv(), "h,count($line)\na,2\nb,3\n");
}

TEST(BatchAggregatorTest, MergeBeyondMaxGroupsIsResourceExhausted) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 2;
  constexpr std::string_view kQuery =
      "from STATS select h,count($line) group by h";
  ASSERT_OK_AND_ASSIGN(auto a, Make(kQuery, options));
  ASSERT_OK_AND_ASSIGN(auto b, Make(kQuery, options));
  ASSERT_OK(Push(*a, {Stats("h=a"), Stats("h=b")}));
  ASSERT_OK(Push(*b, {Stats("h=c")}));
  EXPECT_THAT(a->Merge(*b), StatusIs(absl::StatusCode::kResourceExhausted,
                                     HasSubstr("more than 2 groups")));
  EXPECT_THAT(Push(*a, {Stats("h=a")}),
              StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
}

// ---------------------------------------------------------- merge, reset

TEST(BatchAggregatorTest, MergeOfADifferentQueryIsInvalidArgument) {
  ASSERT_OK_AND_ASSIGN(auto a, Make("select count($line) group by *"));
  ASSERT_OK_AND_ASSIGN(auto b, Make("select count(*) group by *"));
  EXPECT_THAT(a->Merge(*b),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cannot merge a partial of a different "
                                 "query")));
}

TEST(BatchAggregatorTest, MergeAddsStateAndCountersLaterLastWins) {
  constexpr std::string_view kQuery =
      "from STATS select h,count($line),sum(v),min(v),max(v),avg(v),last(v),"
      "len(v) group by h";
  ASSERT_OK_AND_ASSIGN(auto a, Make(kQuery));
  ASSERT_OK_AND_ASSIGN(auto b, Make(kQuery));
  ASSERT_OK(Push(*a, {Stats("h=x|v=1"), Stats("h=y|v=10"), "noise"}));
  ASSERT_OK(Push(*b, {Stats("h=x|v=3"), Stats("h=z|v=-2"), Stats("h=x|w")}));
  ASSERT_OK(a->Merge(*b));
  ResultTable r = *a->Result();
  EXPECT_EQ(r.ToCsv(),
            "h,count($line),sum(v),min(v),max(v),avg(v),last(v),len(v)\n"
            "x,2,4.000000,1.000000,3.000000,2.000000,3,1.000000\n"
            "y,1,10.000000,10.000000,10.000000,10.000000,10,2.000000\n"
            "z,1,-2.000000,-2.000000,-2.000000,-2.000000,-2,2.000000\n");
  EXPECT_EQ(r.stats().lines_read, 6u);
  EXPECT_EQ(r.stats().lines_table_mismatch, 1u);
  EXPECT_EQ(r.stats().lines_malformed, 1u);
  EXPECT_EQ(r.stats().lines_aggregated, 4u);
}

TEST(BatchAggregatorTest, MergeKeepsValuesTheLaterPartialLacks) {
  constexpr std::string_view kQuery =
      "from STATS select count($line),min(a),max(b),last(c),len(c),sum(d) "
      "group by $empty";
  ASSERT_OK_AND_ASSIGN(auto a, Make(kQuery));
  ASSERT_OK_AND_ASSIGN(auto b, Make(kQuery));
  ASSERT_OK(Push(*a, {Stats("a=5|b=-5|c=hello|d=-0")}));
  ASSERT_OK(Push(*b, {Stats("e=1")}));
  ASSERT_OK(a->Merge(*b));
  EXPECT_EQ(a->Result()->ToCsv(),
            "count($line),min(a),max(b),last(c),len(c),sum(d)\n"
            "2,5.000000,-5.000000,hello,5.000000,-0.000000\n");
}

// Short single keys are remembered (key -> group id) across batches; after
// Reset the same keys get other ids, and the memo must not hand out the old
// ones. Keys of every length up to and past the memo's 16 bytes, empty and
// missing ones included.
TEST(BatchAggregatorTest, ShortKeyMemoFollowsResetAndEveryKeyLength) {
  ASSERT_OK_AND_ASSIGN(
      auto agg, Make("from STATS select h,count($line),sum(v) group by h"));
  std::vector<std::string> keys = {"",
                                   "a",
                                   "ab",
                                   "abc",
                                   "abcd",
                                   "abcde",
                                   "abcdefg",
                                   "abcdefgh",
                                   "abcdefghi",
                                   "0123456789abcdef",
                                   "0123456789abcdefg",
                                   "bbcdefgh",
                                   "abcdefgb"};
  // Keys alike in size and first 8 bytes, so that some share a memo slot
  // and only their last 8 bytes tell them apart.
  for (int i = 0; i < 400; ++i) {
    keys.push_back("abcdefgh" + std::to_string(1000 + i));
  }
  auto lines_for = [&](bool reversed) {
    std::vector<std::string> lines;
    for (int round = 0; round < 50; ++round) {
      for (size_t k = 0; k < keys.size(); ++k) {
        const size_t i = reversed ? keys.size() - 1 - k : k;
        lines.push_back(Stats("h=" + keys[i] + "|v=" + std::to_string(i)));
      }
      lines.push_back(Stats("v=100"));  // No h: the empty key too.
    }
    return lines;
  };
  ASSERT_OK(Push(*agg, lines_for(false)));
  ASSERT_OK(Push(*agg, lines_for(false)));  // Now from the memo.
  agg->Reset();
  ASSERT_OK(Push(*agg, lines_for(true)));  // Other ids for the same keys.
  ASSERT_OK(Push(*agg, lines_for(true)));
  // Two pushes of 50 rounds since the reset.
  const ResultTable r = *agg->Result();
  ASSERT_EQ(r.num_rows(), keys.size());
  for (size_t row = 0; row < r.num_rows(); ++row) {
    const std::string key(r.cell(row, 0));
    const auto it = std::find(keys.begin(), keys.end(), key);
    ASSERT_NE(it, keys.end()) << key;
    const int i = static_cast<int>(it - keys.begin());
    const int count = key.empty() ? 200 : 100;
    const int sum = key.empty() ? 100 * 100 : 100 * i;
    EXPECT_EQ(r.cell(row, 1), std::to_string(count)) << key;
    EXPECT_EQ(r.cell(row, 2), std::to_string(sum) + ".000000") << key;
  }
}

TEST(BatchAggregatorTest, ResetForgetsGroupsAndCountersButNotCsvHeaders) {
  ASSERT_OK_AND_ASSIGN(auto agg, Make("select a,sum(b) group by a "
                                      "logformat csv"));
  ASSERT_OK(Push(*agg, {"a,b", "x,1", "y,2"}));
  agg->Reset();
  EXPECT_EQ(agg->counters(), LineCounters());
  EXPECT_EQ(agg->Result()->ToCsv(), "a,sum(b)\n");
  // The source's header is still known: the next line is data.
  ASSERT_OK(Push(*agg, {"z,3"}));
  EXPECT_EQ(agg->Result()->ToCsv(), "a,sum(b)\nz,3.000000\n");
  EXPECT_EQ(agg->counters().lines_header, 0u);
  EXPECT_EQ(agg->counters().lines_read, 1u);
}

// ------------------------------------------------------------ bad input

TEST(BatchAggregatorTest, NulBytesAndInvalidUtf8AreOrdinaryBytes) {
  const std::string nul_key = Stats(std::string("h=a\0b|v=1", 9));
  const std::string utf8_key = Stats("h=\xff\xfe\xc3|v=2");
  const std::string nul_value = Stats(std::string("h=c|v=1\0", 8));
  ASSERT_OK_AND_ASSIGN(auto agg,
                       Make("from STATS select h,count($line),sum(v),len(v) "
                            "group by h"));
  ASSERT_OK(Push(*agg, {nul_key, utf8_key, nul_value, nul_key}));
  std::string expected = "h,count($line),sum(v),len(v)\n";
  expected += std::string("a\0b", 3) + ",2,2.000000,1.000000\n";
  expected += "c,1,0.000000,2.000000\n";
  expected += "\xff\xfe\xc3,1,2.000000,1.000000\n";
  EXPECT_EQ(agg->Result()->ToCsv(), expected);
}

TEST(BatchAggregatorTest, LineEndingsAndSurroundingWhitespaceAreTrimmed) {
  ASSERT_OK_AND_ASSIGN(auto agg, Make("from STATS select last($line),"
                                      "count($line),sum(v) group by $empty"));
  ASSERT_OK(Push(*agg, {Stats("v=1") + "\r\n", Stats("v=1") + "\n",
                        "\t " + Stats("v=1") + " \r", Stats("v=1") + "\r\r\n",
                        "\r" + Stats("v=1")}));
  EXPECT_EQ(agg->Result()->ToCsv(), "last($line),count($line),sum(v)\n" +
                                        Stats("v=1") + ",5,5.000000\n");
}

TEST(BatchAggregatorTest, EmptyAndNullLinesAreLines) {
  ASSERT_OK_AND_ASSIGN(auto agg, Make("select count($line),last($line) "
                                      "group by *"));
  std::vector<std::string_view> lines = {std::string_view(), "", "  ", "\r\n"};
  ASSERT_OK(agg->Push(lines, 0));
  EXPECT_EQ(agg->Result()->ToCsv(), "count($line),last($line)\n4,\n");
  ASSERT_OK_AND_ASSIGN(auto stats,
                       Make("from STATS select count($line) group by *"));
  ASSERT_OK(stats->Push(lines, 0));
  EXPECT_EQ(stats->counters().lines_table_mismatch, 4u);
}

TEST(BatchAggregatorTest, NumericEdgeCases) {
  EXPECT_EQ(
      RunCsv("from STATS select h,count(v),sum(v),min(v),max(v),avg(v) "
             "group by h",
             {Stats("h=a|v=1e309"), Stats("h=b|v=-0"), Stats("h=c|v=nan"),
              Stats("h=d|v=0x10"), Stats("h=e|v=1_000"), Stats("h=f|v="),
              Stats("h=g|v=-1e-400"), Stats("h=h|v=1.7976931348623157e308"),
              Stats("h=h|v=1.7976931348623157e308")}),
      "h,count(v),sum(v),min(v),max(v),avg(v)\n"
      "a,1,0.000000,0.000000,0.000000,0.000000\n"
      "b,1,-0.000000,-0.000000,-0.000000,-0.000000\n"
      "c,1,NaN,NaN,NaN,NaN\n"
      "d,1,0.000000,0.000000,0.000000,0.000000\n"
      "e,1,0.000000,0.000000,0.000000,0.000000\n"
      "f,1,0.000000,0.000000,0.000000,0.000000\n"
      "g,1,-0.000000,-0.000000,-0.000000,-0.000000\n"
      "h,2,+Inf,179769313486231570814527423731704356798070567525844996"
      "598917476803157260780028538760589558632766878171540458953514382"
      "464234321326889464182768467546703537516986049910576551282076245"
      "490090389328944075868508455133942304583236903222948165808559332"
      "123348274797826204144723168738177180919299881250404026184124858"
      "368.000000,179769313486231570814527423731704356798070567525844996"
      "598917476803157260780028538760589558632766878171540458953514382"
      "464234321326889464182768467546703537516986049910576551282076245"
      "490090389328944075868508455133942304583236903222948165808559332"
      "123348274797826204144723168738177180919299881250404026184124858"
      "368.000000,+Inf\n");
}

TEST(BatchAggregatorTest, WhereOnNonNumericAndMissingValues) {
  EXPECT_EQ(RunCsv("from STATS select h,count($line) where v >= 1 group by h",
                   {Stats("h=a|v=2"), Stats("h=b|v=x"), Stats("h=c"),
                    Stats("h=d|v=nan"), Stats("h=e|v=inf")}),
            "h,count($line)\na,1\ne,1\n");
  EXPECT_EQ(RunCsv("from STATS select h,count($line) where v != 1 group by h",
                   {Stats("h=a|v=2"), Stats("h=b|v=x"), Stats("h=d|v=nan")}),
            "h,count($line)\na,1\nd,1\n");
}

// Random bytes in every log format: never crashes, every line accounted.
TEST(BatchAggregatorTest, RandomBytesNeverCrash) {
  // Long literals are split across lines on purpose (adjacent
  // literals).
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::vector<std::string_view> queries = {
      "from STATS select h,count($line),sum(v),avg(v),min(v),max(v),last(v),"
      "len(v),percentage(v),percentile(v) where (v > 1 or not h eq \"\") "
      "set $m = maskdigits(h), $d = md5sum(v) group by h,$m order by sum(v)",
      "from * select count($line),last($time),max($goroutines) "
      "group by $time",
      "select a,sum(b),count($line) group by a,c logformat csv",
      "select count($line),last(k) group by k logformat generickv",
      "select count($line),len($line) group by $line limit 3",
  };
  // NOLINTEND(bugprone-suspicious-missing-comma)
  const std::string_view pieces[] = {
      "INFO",
      "|",
      "MAPREDUCE:STATS",
      "=",
      "h",
      "v",
      "1",
      "-2.5",
      "nan",
      ",",
      "\"",
      "\r",
      "\n",
      std::string_view("\0", 1),
      "\xff",
      " ",
      "a",
      "b",
      "c",
      "k",
      "1e309",
      "$time",
  };
  std::mt19937_64 rng(20240611);
  for (std::string_view query : queries) {
    SCOPED_TRACE(query);
    AggregatorOptions options = TestOptions();
    options.max_line_bytes = 64;
    ASSERT_OK_AND_ASSIGN(auto agg, Make(query, options));
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<std::string> lines(rng() % 300);
      for (std::string& line : lines) {
        size_t n = rng() % 30;
        for (size_t i = 0; i < n; ++i) {
          line.append(pieces[rng() % std::size(pieces)]);
        }
      }
      ASSERT_OK(Push(*agg, lines, rng() % 3));
    }
    ResultTable r = *agg->Result();
    EXPECT_EQ(SumOfBuckets(r.stats()), r.stats().lines_read);
    for (const ResultRow& row : r.CopyRows()) {
      EXPECT_EQ(row.cells.size(), r.num_columns());
      EXPECT_EQ(row.values.size(), r.num_columns());
    }
    (void)r.ToCsv();
    (void)r.ToTable();
    (void)r.ToJson();
  }
}

// ------------------------------------------- where operators (every one)
// Each operator over the same lines: h names the line, v and w are its
// values. Under any operator a missing field, and under a float operator a
// non-numeric value, makes the condition false (docs/query-language.md,
// "Operators").

const std::vector<std::string>& OperatorLines() {
  static const auto* lines = new std::vector<std::string>{
      Stats("h=one|v=1|w=2"),     Stats("h=two|v=2|w=2"),
      Stats("h=three|v=3|w=2"),   Stats("h=text|v=x|w=2"),
      Stats("h=nan|v=nan|w=2"),   Stats("h=none|w=2"),
      Stats("h=wtext|v=1|w=abc"),
  };
  return *lines;
}

// The h of the lines that pass `where CONDITION`, in key order.
std::string Passing(std::string_view condition) {
  std::string csv = RunCsv(absl::StrCat("from STATS select h where ",
                                        std::string(condition), " group by h"),
                           OperatorLines());
  EXPECT_TRUE(absl::StartsWith(csv, "h\n")) << condition << ": " << csv;
  std::string rows = csv.substr(std::min<size_t>(2, csv.size()));
  absl::StrReplaceAll({{"\n", " "}}, &rows);
  return std::string(absl::StripTrailingAsciiWhitespace(rows));
}

TEST(BatchAggregatorWhereTest, EveryFloatOperatorAgainstANumber) {
  EXPECT_EQ(Passing("v == 2"), "two");
  EXPECT_EQ(Passing("v != 2"), "nan one three wtext");
  EXPECT_EQ(Passing("v < 2"), "one wtext");
  EXPECT_EQ(Passing("v <= 2"), "one two wtext");
  EXPECT_EQ(Passing("v =< 2"), "one two wtext");
  EXPECT_EQ(Passing("v > 2"), "three");
  EXPECT_EQ(Passing("v >= 2"), "three two");
  EXPECT_EQ(Passing("v => 2"), "three two");
}

TEST(BatchAggregatorWhereTest, NumberOnTheLeftMirrorsTheOperator) {
  EXPECT_EQ(Passing("2 > v"), Passing("v < 2"));
  EXPECT_EQ(Passing("2 <= v"), Passing("v >= 2"));
  EXPECT_EQ(Passing("2 == v"), Passing("v == 2"));
  // Two numbers: the condition is constant.
  EXPECT_EQ(Passing("1 < 2"), "nan none one text three two wtext");
  EXPECT_EQ(Passing("2 < 1"), "");
}

TEST(BatchAggregatorWhereTest, FieldAgainstField) {
  // w=2 everywhere except wtext (non-numeric): v compared to w.
  EXPECT_EQ(Passing("v < w"), "one");
  EXPECT_EQ(Passing("v == w"), "two");
  EXPECT_EQ(Passing("v >= w"), "three two");
  EXPECT_EQ(Passing("w > v"), "one");
  // As strings, "1" vs "abc" compares; a missing side never does.
  EXPECT_EQ(Passing("v ne w"), "nan one text three wtext");
  EXPECT_EQ(Passing("w eq v"), "two");
}

TEST(BatchAggregatorWhereTest, EveryStringOperator) {
  const std::vector<std::string> lines = {
      Stats("h=a|p=foobar"), Stats("h=b|p=bar"), Stats("h=c|p=fo"),
      Stats("h=d|p="),       Stats("h=e"),
  };
  auto passing = [&](std::string_view condition) {
    std::string csv =
        RunCsv(absl::StrCat("from STATS select h where ",
                            std::string(condition), " group by h"),
               lines);
    return csv.substr(std::min<size_t>(2, csv.size()));
  };
  EXPECT_EQ(passing("p eq \"bar\""), "b\n");
  EXPECT_EQ(passing("p ne \"bar\""), "a\nc\nd\n");
  EXPECT_EQ(passing("p contains \"oba\""), "a\n");
  EXPECT_EQ(passing("p ncontains \"bar\""), "c\nd\n");
  EXPECT_EQ(passing("p lacks \"bar\""), "c\nd\n");
  EXPECT_EQ(passing("p hasprefix \"foo\""), "a\n");
  EXPECT_EQ(passing("p nhasprefix \"foo\""), "b\nc\nd\n");
  // "fo" is shorter than the suffix: no match, and no out-of-range read.
  EXPECT_EQ(passing("p hassuffix \"bar\""), "a\nb\n");
  EXPECT_EQ(passing("p nhassuffix \"bar\""), "c\nd\n");
  EXPECT_EQ(passing("p hassuffix \"foobarbaz\""), "");
  // The empty string is a prefix, suffix and part of every present value.
  EXPECT_EQ(passing("p hasprefix \"\""), "a\nb\nc\nd\n");
  EXPECT_EQ(passing("p contains \"\""), "a\nb\nc\nd\n");
  // A literal may stand on the left.
  EXPECT_EQ(passing("\"fo\" eq p"), "c\n");
}

TEST(BatchAggregatorWhereTest, NotOfAMissingOrNonNumericValueIsTrue) {
  EXPECT_EQ(Passing("not v > 2"), "nan none one text two wtext");
  EXPECT_EQ(Passing("not v ncontains \"x\""), "none text");
  EXPECT_EQ(Passing("not (v < 2 or v > 2)"), "nan none text two");
  EXPECT_EQ(Passing("v > 1 and (v < 3 or w eq \"abc\") and not v == 2"), "");
  EXPECT_EQ(Passing("v >= 1 and (v < 2 or v > 2) and w != 3"), "one three");
}

// ------------------------------------------------------ common variables

TEST(BatchAggregatorTest, CommonVariablesHaveTheirValues) {
  time_t now = time(nullptr);
  struct tm local;
  ASSERT_NE(localtime_r(&now, &local), nullptr);
  const std::string zone = local.tm_zone != nullptr ? local.tm_zone : "UTC";
  EXPECT_EQ(RunCsv("select $hostname,$server,$timezone,$timeoffset,$empty,*,"
                   "count($line) group by $hostname",
                   {"a", "b"}),
            absl::StrCat("$hostname,$server,$timezone,$timeoffset,$empty,*,"
                         "count($line)\nintegrationtest,integrationtest,",
                         zone, ",", local.tm_gmtoff, ",,*,2\n"));
}

TEST(BatchAggregatorTest, FileIsTheSourcesNameAndEmptyWhenUnnamed) {
  absl::StatusOr<std::unique_ptr<BatchAggregator>> agg =
      Make("select $file,count($line) group by $file");
  ASSERT_TRUE(agg.ok()) << agg.status();
  (*agg)->SetSourceName(1, "logs/a.log");
  (*agg)->SetSourceName(2, "b.log.gz");
  ASSERT_TRUE(Push(**agg, {"x", "y"}, 1).ok());
  ASSERT_TRUE(Push(**agg, {"z"}, 2).ok());
  ASSERT_TRUE(Push(**agg, {"w"}, 3).ok());  // never named
  ASSERT_TRUE(Push(**agg, {"v"}, 1).ok());
  // A delta's Reset keeps the names.
  const std::string expected =
      "$file,count($line)\n,1\nb.log.gz,1\nlogs/a.log,3\n";
  EXPECT_EQ((*agg)->Result()->ToCsv(), expected);
  (*agg)->Reset();
  ASSERT_TRUE(Push(**agg, {"u"}, 2).ok());
  EXPECT_EQ((*agg)->Result()->ToCsv(), "$file,count($line)\nb.log.gz,1\n");
}

// Group keys and count(*) of per-batch values (`*`, $file, ...) skip the
// per-row work; a `set` that assigns such a variable makes it per row again.
TEST(BatchAggregatorTest, PerBatchGroupKeysAndValues) {
  absl::StatusOr<std::unique_ptr<BatchAggregator>> agg = Make(
      "select $file,count(*),count(v),sum(v) group by $file "
      "logformat generickv");
  ASSERT_TRUE(agg.ok()) << agg.status();
  (*agg)->SetSourceName(1, "a.log");
  (*agg)->SetSourceName(2, "b.log");
  ASSERT_TRUE(Push(**agg, {"v=1", "w=2", "v=x"}, 1).ok());
  ASSERT_TRUE(Push(**agg, {"v=10"}, 2).ok());
  ASSERT_TRUE(Push(**agg, {"v=5", "u=1"}, 1).ok());
  EXPECT_EQ((*agg)->Result()->ToCsv(),
            "$file,count(*),count(v),sum(v)\n"
            "a.log,5,3,6.000000\nb.log,1,1,10.000000\n");
  EXPECT_EQ((*agg)->counters().lines_aggregated, 6u);
  EXPECT_EQ((*agg)->counters().lines_without_value, 0u);

  EXPECT_EQ(RunCsv("select $hostname,count(*) set $hostname = $line "
                   "group by $hostname",
                   {"a", "b", "a"}),
            "$hostname,count(*)\na,2\nb,1\n");
  // `group by *` with a limit of one group: the one group fits.
  AggregatorOptions one = TestOptions();
  one.max_groups = 1;
  EXPECT_EQ(RunCsv("select count(*) group by *", {"a", "b", "c"}, one),
            "count(*)\n3\n");
  // Without a per-batch value among the select items, rows without any
  // value are still left out.
  absl::StatusOr<std::unique_ptr<BatchAggregator>> sums =
      Make("select sum(v) group by * logformat generickv");
  ASSERT_TRUE(sums.ok()) << sums.status();
  ASSERT_TRUE(Push(**sums, {"v=1", "w=2", "v=x", "v=3"}).ok());
  EXPECT_EQ((*sums)->Result()->ToCsv(), "sum(v)\n4.000000\n");
  EXPECT_EQ((*sums)->counters().lines_aggregated, 2u);
  EXPECT_EQ((*sums)->counters().lines_without_value, 2u);
  // $line is never missing, a blank line included, unless a `set` assigns
  // it.
  for (const char* query :
       {"select count($line) group by * logformat generickv",
        "select count($line) set $line = v group by * logformat generickv"}) {
    SCOPED_TRACE(query);
    const bool assigned =
        std::string_view(query).find("set") != std::string_view::npos;
    absl::StatusOr<std::unique_ptr<BatchAggregator>> lines = Make(query);
    ASSERT_TRUE(lines.ok()) << lines.status();
    ASSERT_TRUE(Push(**lines, {"v=1", "w=2", "", "v=3"}).ok());
    EXPECT_EQ((*lines)->Result()->ToCsv(),
              assigned ? "count($line)\n2\n" : "count($line)\n4\n");
    EXPECT_EQ((*lines)->counters().lines_without_value, assigned ? 2u : 0u);
  }
}

// ------------------------------------------------------- host log formats

// Fills "upper" with the line upper-cased in batch scratch memory and "size"
// with its length copied through FieldBatch::Copy; a line whose requested
// field count disagrees with num_fields() is malformed. Refuses "forbidden".
class UpperFormat : public LogFormat {
 public:
  std::string name() const override { return "batchtestupper"; }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    for (const std::string& f : fields) {
      if (f == "forbidden") {
        return absl::InvalidArgumentError("batchtestupper has no 'forbidden'");
      }
    }
    return std::make_unique<Parser>(
        std::vector<std::string>(fields.begin(), fields.end()));
  }

 private:
  class Parser : public LogFormatParser {
   public:
    explicit Parser(std::vector<std::string> fields)
        : fields_(std::move(fields)) {}
    void ParseBatch(std::span<const std::string_view> lines, FieldBatch& batch,
                    LineOutcome* outcomes) override {
      for (size_t r = 0; r < lines.size(); ++r) {
        std::string_view line = lines[r];
        if (batch.num_fields() != fields_.size()) {
          outcomes[r] = LineOutcome::kMalformed;
          continue;
        }
        for (size_t f = 0; f < fields_.size(); ++f) {
          if (fields_[f] == "upper") {
            char* out = batch.Allocate(line.size());
            for (size_t i = 0; i < line.size(); ++i) {
              out[i] = absl::ascii_toupper(static_cast<unsigned char>(line[i]));
            }
            batch.column(f)[r] = std::string_view(out, line.size());
          } else if (fields_[f] == "size") {
            batch.column(f)[r] = batch.Copy(std::to_string(line.size()));
          }
        }
        outcomes[r] = LineOutcome::kParsed;
      }
    }

   private:
    std::vector<std::string> fields_;
  };
};

void RegisterUpperFormatOnce() {
  static const bool registered = [] {
    absl::Status s = RegisterLogFormat(std::make_shared<UpperFormat>());
    EXPECT_TRUE(s.ok()) << s;
    return true;
  }();
  (void)registered;
}

TEST(BatchAggregatorHostFormatTest, FillsFieldsFromBatchScratchMemory) {
  RegisterUpperFormatOnce();
  // More lines than a chunk, so scratch memory is recycled between chunks.
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows + 10; ++i) {
    lines.push_back(i % 2 == 0 ? "abc" : "hello");
  }
  ASSERT_OK_AND_ASSIGN(auto agg,
                       Make("select upper,count($line),sum(size),last(upper) "
                            "group by upper logformat batchtestupper"));
  ASSERT_OK(Push(*agg, lines));
  ResultTable r = *agg->Result();
  EXPECT_EQ(r.ToCsv(),
            "upper,count($line),sum(size),last(upper)\n"
            "ABC,1029,3087.000000,ABC\n"
            "HELLO,1029,5145.000000,HELLO\n");
  EXPECT_EQ(r.stats().lines_malformed, 0u);
  EXPECT_EQ(r.stats().lines_aggregated, lines.size());
}

TEST(BatchAggregatorHostFormatTest, ParserErrorIsReturnedAndSticky) {
  RegisterUpperFormatOnce();
  // The plan compiles; the format refuses the field when the first line of
  // a source needs a parser.
  ASSERT_OK_AND_ASSIGN(
      auto agg, Make("select forbidden,count($line) logformat batchtestupper"));
  EXPECT_OK(Push(*agg, {}));  // No line, no parser needed.
  EXPECT_THAT(Push(*agg, {"x"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("batchtestupper has no 'forbidden'")));
  EXPECT_THAT(Push(*agg, {"y"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("batchtestupper has no 'forbidden'")));
  ASSERT_OK_AND_ASSIGN(
      auto other,
      Make("select forbidden,count($line) logformat batchtestupper"));
  EXPECT_THAT(other->Merge(*agg),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("batchtestupper has no 'forbidden'")));
}

TEST(BatchAggregatorHostFormatTest, UnregisteredFormatIsFailedPrecondition) {
  auto plan = std::make_shared<plan::Plan>();
  plan->log_format = "batchtestnosuchformat";
  EXPECT_THAT(BatchAggregator::Create(plan, TestOptions()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       Eq("log format 'batchtestnosuchformat' is no longer "
                          "registered")));
}

// ------------------------------------------------- min/max NaN and merges

// DTail's min/max: the first value initialises the state, so a leading NaN
// sticks and a later one is ignored. Merging partial A then B must give what
// one aggregator gives for A's lines followed by B's, for every split.
TEST(BatchAggregatorTest, MinMaxWithNanAgreeForEverySplit) {
  constexpr std::string_view kQuery =
      "from STATS select h,min(v),max(v),count(v) group by h";
  const std::vector<std::vector<std::string>> kInputs = {
      {"nan", "5", "3"}, {"5", "nan", "3"}, {"5", "3", "nan"}, {"nan", "nan"},
      {"nan", "x", "7"}, {"x", "nan"},      {"7", "x", "nan"},
  };
  for (const std::vector<std::string>& values : kInputs) {
    std::vector<std::string> lines;
    lines.reserve(values.size());
    for (const std::string& v : values) lines.push_back(Stats("h=g|v=" + v));
    const std::string whole = RunCsv(kQuery, lines);
    for (size_t split = 0; split <= lines.size(); ++split) {
      SCOPED_TRACE(
          absl::StrCat(absl::StrJoin(values, ","), " split at ", split));
      ASSERT_OK_AND_ASSIGN(auto a, Make(kQuery));
      ASSERT_OK_AND_ASSIGN(auto b, Make(kQuery));
      ASSERT_OK(Push(
          *a, std::vector<std::string>(lines.begin(), lines.begin() + split)));
      ASSERT_OK(Push(
          *b, std::vector<std::string>(lines.begin() + split, lines.end())));
      ASSERT_OK(a->Merge(*b));
      EXPECT_EQ(a->Result()->ToCsv(), whole);
    }
  }
  // The expected values themselves.
  EXPECT_EQ(RunCsv(kQuery, {Stats("h=g|v=nan"), Stats("h=g|v=5")}),
            "h,min(v),max(v),count(v)\ng,NaN,NaN,2\n");
  EXPECT_EQ(
      RunCsv(kQuery, {Stats("h=g|v=5"), Stats("h=g|v=nan"), Stats("h=g|v=3")}),
      "h,min(v),max(v),count(v)\ng,3.000000,5.000000,3\n");
}

}  // namespace
}  // namespace mapr::runtime

namespace mapr::runtime {
namespace {

// A plain select of a group-by field keeps no per-group state; its cells
// come from the group key, so they must equal what last() would give,
// including for rows without the field, multi-field keys, and merges.
TEST(BatchAggregatorTest, GroupKeyColumnsRenderFromTheKey) {
  const std::vector<std::string> lines = {
      Stats("h=a|p=x|v=1"), Stats("h=b|p=y|v=2"), Stats("p=x|v=3"),
      Stats("h=a|p=y|v=4"), Stats("h=|p=x|v=5"),  Stats("h=a|p=x|v=6")};
  EXPECT_EQ(RunCsv("from STATS select h,count($line),sum(v) group by h", lines),
            "h,count($line),sum(v)\n"
            ",2,8.000000\na,3,11.000000\nb,1,2.000000\n");
  // Two fields, selected in the other order than grouped, and last() of a
  // key field beside the plain one; `order by` is descending, ties in key
  // order.
  EXPECT_EQ(RunCsv("from STATS select p,h,last(h),count($line) group by h,p "
                   "order by count($line)",
                   lines),
            "p,h,last(h),count($line)\n"
            "x,,,2\nx,a,a,2\ny,a,a,1\ny,b,b,1\n");
  // `select h group by h` alone: a row without h gives no value.
  absl::StatusOr<std::unique_ptr<BatchAggregator>> agg =
      Make("from STATS select h group by h");
  ASSERT_TRUE(agg.ok());
  ASSERT_TRUE(Push(**agg, lines).ok());
  EXPECT_EQ((*agg)->Result()->ToCsv(), "h\n\na\nb\n");
  EXPECT_EQ((*agg)->counters().lines_without_value, 1u);

  // Split and merged equals one pass.
  const std::string q = "from STATS select h,p,sum(v) group by p,h";
  absl::StatusOr<std::unique_ptr<BatchAggregator>> one = Make(q);
  absl::StatusOr<std::unique_ptr<BatchAggregator>> first = Make(q);
  absl::StatusOr<std::unique_ptr<BatchAggregator>> second = Make(q);
  ASSERT_TRUE(one.ok() && first.ok() && second.ok());
  ASSERT_TRUE(Push(**one, lines).ok());
  ASSERT_TRUE(Push(**first, {lines.begin(), lines.begin() + 3}).ok());
  ASSERT_TRUE(Push(**second, {lines.begin() + 3, lines.end()}).ok());
  ASSERT_TRUE((*first)->Merge(**second).ok());
  EXPECT_EQ((*first)->Result()->ToCsv(), (*one)->Result()->ToCsv());
  EXPECT_EQ((*one)->Result()->ToCsv(),
            "h,p,sum(v)\n,x,8.000000\na,x,7.000000\na,y,4.000000\n"
            "b,y,2.000000\n");
}

}  // namespace
}  // namespace mapr::runtime
