#include "mapr/aggregator.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using ::mapr::testing::Stats;
using ::mapr::testing::TestOptions;

absl::StatusOr<Aggregator> Make(
    std::string_view query, const AggregatorOptions& options = TestOptions()) {
  absl::StatusOr<Query> q = Query::Compile(query);
  if (!q.ok()) return q.status();
  return Aggregator::Create(*q, options);
}

absl::Status Push(Aggregator& agg, const std::vector<std::string>& lines,
                  SourceId source = 0) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return agg.PushLines(views, source);
}

uint64_t SumOfBuckets(const LineCounters& c) {
  return c.lines_too_long + c.lines_table_mismatch + c.lines_ignored +
         c.lines_malformed + c.lines_header + c.lines_filtered +
         c.lines_without_value + c.lines_aggregated;
}

constexpr std::string_view kCountByH =
    "from STATS select h,count($line) group by h";

// ---------------------------------------------------------------- basics

TEST(AggregatorTest, RunQueryIsTheOneCallHelper) {
  ASSERT_OK_AND_ASSIGN(ResultTable r,
                       RunQuery("select count($line) group by *", {"a", "b"}));
  EXPECT_EQ(r.ToCsv(), "count($line)\n2\n");
  std::vector<std::string_view> lines = {"x", "y", "x"};
  ASSERT_OK_AND_ASSIGN(ResultTable by_line,
                       RunQuery("select count($line),$line", lines));
  EXPECT_EQ(by_line.ToCsv(), "count($line),$line\n2,x\n1,y\n");
}

TEST(AggregatorTest, RunQueryReportsCompileErrors) {
  EXPECT_THAT(RunQuery("select avgg(x)", {"a"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("avgg")));
}

TEST(AggregatorTest, HostnameOptionFillsHostnameAndServer) {
  AggregatorOptions options;
  options.hostname = "web-01";
  ASSERT_OK_AND_ASSIGN(ResultTable r,
                       RunQuery("select $hostname,$server,count($line) "
                                "group by *",
                                {"a"}, options));
  EXPECT_EQ(r.ToCsv(), "$hostname,$server,count($line)\nweb-01,web-01,1\n");
  // Without it, the machine's name (never empty).
  ASSERT_OK_AND_ASSIGN(ResultTable local,
                       RunQuery("select $hostname group by *", {"a"}));
  ASSERT_EQ(local.num_rows(), 1u);
  EXPECT_FALSE(local.cell(0, 0).empty());
}

TEST(AggregatorTest, PushLinesKeepsSourcesApart) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg,
                       Make("select count($line) group by * logformat csv"));
  std::vector<std::string_view> a = {"h", "1", "2"};
  std::vector<std::string_view> b = {"h", "3"};
  ASSERT_OK(agg.PushLines(a, 1));
  ASSERT_OK(agg.PushLines(b, 2));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "count($line)\n3\n");
  EXPECT_EQ(r.stats().lines_header, 2u);
}

TEST(AggregatorTest, EndSourceStartsANewInputAndKeepsTheName) {
  ASSERT_OK_AND_ASSIGN(
      Aggregator agg,
      Make("select $file,sum(n),count($line) group by $file logformat csv"));
  ASSERT_OK(agg.SetSourceName(4, "a.csv"));
  ASSERT_OK(agg.PushBytes("n\n1\n2", 4));
  ASSERT_OK(agg.EndSource(4));  // "2" is aggregated now.
  // The same source again, after its end: a new input, whose first line is
  // its header (here with the column moved), under the same name.
  ASSERT_OK(agg.PushLines({"x,n", "a,10"}, 4));
  // Without EndSource, a source keeps its header.
  ASSERT_OK(agg.PushLines({"n", "100"}, 5));
  ASSERT_OK(agg.PushLines({"200"}, 5));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            "$file,sum(n),count($line)\n,300.000000,2\na.csv,13.000000,3\n");
  EXPECT_EQ(r.stats().lines_header, 3u);
}

TEST(AggregatorTest, PushLinesTakesOwnedStringsAndBracedLists) {
  // More lines than one engine batch, so the owned-string overload cuts
  // them into several pushes.
  std::vector<std::string> owned;
  for (int i = 0; i < 5000; ++i) owned.push_back(absl::StrCat("k", i % 3));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make("select $line,count($line)"));
  ASSERT_OK(agg.PushLines(owned));
  ASSERT_OK(agg.PushLines({"k0", "k9"}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "$line,count($line)\nk0,1668\nk1,1667\nk2,1666\nk9,1\n");
  ASSERT_OK_AND_ASSIGN(ResultTable one,
                       RunQuery("select count($line) group by *", owned));
  EXPECT_EQ(one.ToCsv(), "count($line)\n5000\n");
}

TEST(AggregatorTest, SetSourceNameFillsFile) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg,
                       Make("select $file,count($line) group by $file"));
  ASSERT_OK(agg.SetSourceName(7, "/var/log/app.log"));
  ASSERT_OK(agg.PushLines({"a", "b"}, 7));
  ASSERT_OK(agg.PushLines({"c"}, 8));
  ASSERT_OK(agg.FinishInput());
  EXPECT_THAT(agg.SetSourceName(7, "x"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("SetSourceName called after FinishInput()")));
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "$file,count($line)\n,1\n/var/log/app.log,2\n");
}

TEST(AggregatorTest, QueryAndStatsAccessors) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  EXPECT_EQ(agg.query().text(), kCountByH);
  ASSERT_OK(Push(agg, {Stats("h=a"), "noise"}));
  EXPECT_EQ(agg.stats().lines_read, 2u);
  EXPECT_EQ(agg.stats().lines_table_mismatch, 1u);
  EXPECT_EQ(agg.stats().lines_aggregated, 1u);
}

// ------------------------------------------------------------ API misuse

TEST(AggregatorTest, PushAfterFinishInputIsFailedPrecondition) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(agg.FinishInput());
  std::vector<std::string_view> lines = {"x"};
  EXPECT_THAT(agg.PushLines(lines),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "PushLines called after FinishInput(); the aggregator "
                       "is finished"));
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.stats().lines_read, 0u);
  EXPECT_THAT(agg.PushLines(lines),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "PushLines called after FinishInput(); the aggregator "
                       "is finished and its result taken"));
}

TEST(AggregatorTest, MergeAfterFinishInputIsFailedPrecondition) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK_AND_ASSIGN(Aggregator later, Make(kCountByH));
  ASSERT_OK(agg.FinishInput());
  EXPECT_THAT(agg.Merge(std::move(later)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "Merge called after FinishInput(); the aggregator is "
                       "finished"));
}

TEST(AggregatorTest, TakeResultBeforeFinishInputIsFailedPrecondition) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  EXPECT_THAT(agg.TakeResult().status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "TakeResult called before FinishInput()"));
  // Nothing was consumed: the normal order still works.
  ASSERT_OK(Push(agg, {Stats("h=a")}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line)\na,1\n");
}

TEST(AggregatorTest, FinishInputTwiceIsFailedPrecondition) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(agg.FinishInput());
  EXPECT_THAT(agg.FinishInput(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                          "FinishInput called twice"));
  ASSERT_OK(agg.TakeResult().status());
  EXPECT_THAT(agg.FinishInput(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                          "FinishInput called twice"));
}

TEST(AggregatorTest, TakeResultTwiceIsFailedPrecondition) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK(agg.TakeResult().status());
  EXPECT_THAT(agg.TakeResult().status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "TakeResult called twice"));
}

TEST(AggregatorTest, SnapshotAndDeltaAfterTheResultIsTaken) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK(agg.TakeResult().status());
  EXPECT_THAT(agg.Snapshot().status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "Snapshot called after the result was taken"));
  EXPECT_THAT(agg.TakeDelta().status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "TakeDelta called after the result was taken"));
}

TEST(AggregatorTest, MergeOfADifferentQueryIsInvalidArgumentAndKeepsLater) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK_AND_ASSIGN(Aggregator later,
                       Make("from STATS select h,count($line) group by h "
                            "limit 1"));
  ASSERT_OK(Push(later, {Stats("h=b")}));
  EXPECT_THAT(agg.Merge(std::move(later)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "cannot merge a partial of a different query: '" +
                           // NOLINTNEXTLINE(bugprone-use-after-move): kept.
                           later.query().ToString() + "' into '" +
                           agg.query().ToString() + "'"));
  // `later` was not consumed.
  ASSERT_OK(later.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, later.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line)\nb,1\n");
}

TEST(AggregatorTest, MergeOfATakenOrMovedFromAggregatorIsFailedPrecondition) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK_AND_ASSIGN(Aggregator taken, Make(kCountByH));
  ASSERT_OK(taken.FinishInput());
  ASSERT_OK(taken.TakeResult().status());
  EXPECT_THAT(agg.Merge(std::move(taken)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "Merge of an aggregator whose result was already "
                       "taken"));
  ASSERT_OK_AND_ASSIGN(Aggregator later, Make(kCountByH));
  ASSERT_OK(agg.Merge(std::move(later)));
  // NOLINTNEXTLINE(bugprone-use-after-move): merging it again is the test.
  EXPECT_THAT(agg.Merge(std::move(later)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "Merge of a moved-from Aggregator"));
}

TEST(AggregatorTest, MergeIntoItselfIsInvalidArgument) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(Push(agg, {Stats("h=a")}));
  Aggregator& self = agg;
  EXPECT_THAT(agg.Merge(std::move(self)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Merge of an aggregator into itself"));
  // Nothing was doubled or lost.
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line)\na,1\n");
  EXPECT_EQ(r.stats().lines_read, 1u);
}

TEST(AggregatorTest, MovedFromAggregatorRefusesEverything) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(Push(agg, {Stats("h=a")}));
  Aggregator moved = std::move(agg);
  EXPECT_THAT(Push(agg, {Stats("h=a")}),  // NOLINT(bugprone-use-after-move)
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "PushLines called on a moved-from Aggregator"));
  EXPECT_THAT(agg.FinishInput(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "FinishInput called on a moved-from Aggregator"));
  EXPECT_THAT(agg.TakeResult().status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "TakeResult called on a moved-from Aggregator"));
  EXPECT_THAT(agg.Snapshot().status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::_));
  EXPECT_EQ(agg.stats(), LineCounters());
  // The state moved with it.
  EXPECT_EQ(moved.stats().lines_aggregated, 1u);
}

TEST(AggregatorTest, MergeCombinesPartials) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK_AND_ASSIGN(Aggregator later, Make(kCountByH));
  ASSERT_OK(Push(agg, {Stats("h=a")}));
  ASSERT_OK(Push(later, {Stats("h=a"), Stats("h=b")}));
  ASSERT_OK(agg.Merge(std::move(later)));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line)\na,2\nb,1\n");
  EXPECT_EQ(r.stats().lines_read, 3u);
}

TEST(AggregatorTest, MergeCompletesTheLaterPartialsUnfinishedLine) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK_AND_ASSIGN(Aggregator later, Make(kCountByH));
  ASSERT_OK(agg.PushBytes(Stats("h=a") + "\n"));
  ASSERT_OK(later.PushBytes(Stats("h=b") + "\n" + Stats("h=c")));
  ASSERT_OK(agg.Merge(std::move(later)));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line)\na,1\nb,1\nc,1\n");
}

// ------------------------------------------------------ max_groups (API)

TEST(AggregatorTest, MaxGroupsIsStickyResourceExhausted) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 1;
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH, options));
  ASSERT_OK(Push(agg, {Stats("h=a"), Stats("h=a")}));
  const auto exhausted =
      StatusIs(absl::StatusCode::kResourceExhausted,
               StartsWith("more than 1 group (max_groups); raise the "
                          "limit or group by fewer distinct values"));
  EXPECT_THAT(Push(agg, {Stats("h=b")}), exhausted);
  EXPECT_THAT(Push(agg, {Stats("h=a")}), exhausted);
  ASSERT_OK_AND_ASSIGN(Aggregator later, Make(kCountByH, options));
  EXPECT_THAT(agg.Merge(std::move(later)), exhausted);
  // The aggregator has failed: no partial result, only the counters of the
  // calls that returned OK.
  EXPECT_THAT(agg.Snapshot(), exhausted);
  EXPECT_THAT(agg.TakeDelta(), exhausted);
  EXPECT_THAT(agg.EndSource(0), exhausted);
  EXPECT_EQ(agg.stats().lines_read, 2u);
  EXPECT_EQ(agg.stats().lines_aggregated, 2u);
  EXPECT_THAT(agg.FinishInput(), exhausted);
  EXPECT_THAT(agg.TakeResult(), exhausted);
  EXPECT_THAT(agg.FinishInput(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                          "FinishInput called twice"));
}

// Regression: the engine batch that hit the limit had created groups before
// the overflowing line without giving them state, and Snapshot() then read
// past the end of the per-group vectors.
TEST(AggregatorTest, GroupsCreatedByTheOverflowingBatchAreNeverRead) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 3;
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH, options));
  ASSERT_OK(Push(agg, {Stats("h=a"), Stats("h=b")}));
  ASSERT_OK_AND_ASSIGN(ResultTable before, agg.Snapshot());
  const LineCounters counters = agg.stats();
  // h=c becomes group 3 in this batch, h=d would be group 4.
  EXPECT_THAT(
      Push(agg, {Stats("h=c"), Stats("h=c"), Stats("h=d"), Stats("h=a")}),
      StatusIs(absl::StatusCode::kResourceExhausted,
               "more than 3 groups (max_groups); "
               "raise the limit or group by fewer distinct values"));
  EXPECT_EQ(agg.stats(), counters);
  EXPECT_EQ(SumOfBuckets(agg.stats()), agg.stats().lines_read);
  EXPECT_THAT(agg.Snapshot(),
              StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
  EXPECT_EQ(before.ToCsv(), "h,count($line)\na,1\nb,1\n");
}

TEST(AggregatorTest, PushBytesFailureFreezesTheCountersOfTheCallsBefore) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 1;
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH, options));
  ASSERT_OK(agg.PushBytes(Stats("h=a") + "\n" + Stats("h=a") + "\n"));
  const LineCounters counters = agg.stats();
  EXPECT_EQ(counters.lines_aggregated, 2u);
  EXPECT_THAT(agg.PushBytes(Stats("h=b") + "\n" + Stats("h=a") + "\nx"),
              StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
  EXPECT_EQ(agg.stats(), counters);
  EXPECT_THAT(agg.PushBytes("more\n"),
              StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
  EXPECT_EQ(agg.stats(), counters);
}

TEST(AggregatorTest, MergeOfAnExhaustedPartialReportsItsError) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 1;
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH, options));
  ASSERT_OK_AND_ASSIGN(Aggregator later, Make(kCountByH, options));
  EXPECT_THAT(Push(later, {Stats("h=a"), Stats("h=b")}),
              StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
  EXPECT_THAT(
      agg.Merge(std::move(later)),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("max_groups")));
  // Only `later` failed: this aggregator goes on.
  ASSERT_OK(Push(agg, {Stats("h=z")}));
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.Snapshot());
  EXPECT_EQ(r.ToCsv(), "h,count($line)\nz,1\n");
}

TEST(AggregatorTest, MergeBeyondMaxGroupsFailsTheTarget) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 2;
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH, options));
  ASSERT_OK_AND_ASSIGN(Aggregator later, Make(kCountByH, options));
  ASSERT_OK(Push(agg, {Stats("h=a"), Stats("h=b")}));
  ASSERT_OK(Push(later, {Stats("h=c")}));
  const LineCounters counters = agg.stats();
  const auto exhausted = StatusIs(absl::StatusCode::kResourceExhausted,
                                  HasSubstr("after merging"));
  EXPECT_THAT(agg.Merge(std::move(later)), exhausted);
  EXPECT_EQ(agg.stats(), counters);
  EXPECT_THAT(agg.Snapshot(), exhausted);
  EXPECT_THAT(Push(agg, {Stats("h=a")}), exhausted);
}

// ------------------------------------------------- Snapshot and TakeDelta

TEST(AggregatorTest, SnapshotKeepsTheState) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(Push(agg, {Stats("h=a"), Stats("h=b")}));
  ASSERT_OK_AND_ASSIGN(ResultTable first, agg.Snapshot());
  ASSERT_OK_AND_ASSIGN(ResultTable again, agg.Snapshot());
  EXPECT_EQ(first, again);
  EXPECT_EQ(first.ToCsv(), "h,count($line)\na,1\nb,1\n");
  ASSERT_OK(Push(agg, {Stats("h=a")}));
  ASSERT_OK_AND_ASSIGN(ResultTable cumulative, agg.Snapshot());
  EXPECT_EQ(cumulative.ToCsv(), "h,count($line)\na,2\nb,1\n");
  EXPECT_EQ(cumulative.stats().lines_read, 3u);
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable after_finish, agg.Snapshot());
  ASSERT_OK_AND_ASSIGN(ResultTable result, agg.TakeResult());
  EXPECT_EQ(after_finish, result);
  EXPECT_EQ(result, cumulative);
}

TEST(AggregatorTest, TakeDeltaResetsGroupsAndCounters) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kCountByH));
  ASSERT_OK(Push(agg, {Stats("h=a"), Stats("h=b"), "noise"}));
  ASSERT_OK_AND_ASSIGN(ResultTable first, agg.TakeDelta());
  EXPECT_EQ(first.ToCsv(), "h,count($line)\na,1\nb,1\n");
  EXPECT_EQ(first.stats().lines_read, 3u);
  EXPECT_EQ(agg.stats(), LineCounters());
  // An interval without lines: header only, zero counters.
  ASSERT_OK_AND_ASSIGN(ResultTable empty, agg.TakeDelta());
  EXPECT_EQ(empty.ToCsv(), "h,count($line)\n");
  EXPECT_EQ(empty.stats(), LineCounters());
  EXPECT_EQ(empty.total_groups(), 0u);
  ASSERT_OK(Push(agg, {Stats("h=b"), Stats("h=c")}));
  ASSERT_OK_AND_ASSIGN(ResultTable second, agg.TakeDelta());
  EXPECT_EQ(second.ToCsv(), "h,count($line)\nb,1\nc,1\n");
  EXPECT_EQ(second.stats().lines_read, 2u);
  // Works after FinishInput() as well; TakeResult() then has what is left.
  ASSERT_OK(Push(agg, {Stats("h=d")}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable third, agg.TakeDelta());
  EXPECT_EQ(third.ToCsv(), "h,count($line)\nd,1\n");
  ASSERT_OK_AND_ASSIGN(ResultTable rest, agg.TakeResult());
  EXPECT_EQ(rest.ToCsv(), "h,count($line)\n");
}

TEST(AggregatorTest, DeltaPercentagesUseOnlyTheIntervalsGroups) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make("from STATS select h,"
                                            "percentage(v) group by h"));
  ASSERT_OK(Push(agg, {Stats("h=a|v=1"), Stats("h=b|v=3")}));
  ASSERT_OK_AND_ASSIGN(ResultTable first, agg.TakeDelta());
  EXPECT_EQ(first.ToCsv(), "h,percentage(v)\na,25.000000\nb,75.000000\n");
  ASSERT_OK(Push(agg, {Stats("h=a|v=5")}));
  ASSERT_OK_AND_ASSIGN(ResultTable second, agg.TakeDelta());
  EXPECT_EQ(second.ToCsv(), "h,percentage(v)\na,100.000000\n");
}

// ------------------------------------------------------------ bad input

TEST(AggregatorTest, BadInputNeverCrashes) {
  const std::string nul = std::string("a\0b", 3);
  std::vector<std::string> lines = {
      Stats("h=" + nul + "|v=1"),
      Stats("h=\xc3\x28|v=\xff"),  // invalid UTF-8
      Stats("h=cr|v=2") + "\r\n",
      Stats("h=cr|v=3") + "\r",
      "\r\n",
      "",
      "\n",
      Stats("h=big|v=" + std::string(10 << 20, '9')),
      Stats("h=e|v=1e309"),
      Stats("h=e|v=-0"),
      Stats("h=e|v=nan"),
      Stats("h=e|v=0x10"),
      Stats("h=e|v=1_000"),
      Stats("h=e|v="),
      Stats("h=e|v"),
      Stats("h=e|"),
      Stats("|||||"),
      Stats("="),
      std::string(testing::kStatsPrefix),
  };
  for (std::string_view query :
       {"from STATS select h,count($line),sum(v),min(v),max(v),avg(v),"
        "last(v),len(v) group by h",
        "select count($line),len($line) group by *",
        "select count($line),last(h) group by h logformat csv",
        "select count($line) group by k logformat generickv"}) {
    SCOPED_TRACE(query);
    ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(query));
    ASSERT_OK(Push(agg, lines));
    ASSERT_OK(agg.FinishInput());
    ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
    EXPECT_EQ(r.stats().lines_read, lines.size());
    EXPECT_EQ(SumOfBuckets(r.stats()), r.stats().lines_read);
    // The 10 MB line is over the default 1 MiB limit.
    EXPECT_EQ(r.stats().lines_too_long, 1u);
    (void)r.ToCsv();
    (void)r.ToTable();
    (void)r.ToNdjson();
  }
}

TEST(AggregatorTest, BadNumbersRenderAsNoValue) {
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunQuery("from STATS select h,count(v),sum(v),max(v),avg(v) group by h",
               {Stats("h=a|v=1e309"), Stats("h=b|v=-0"), Stats("h=c|v=nan"),
                Stats("h=d|v=0x10"), Stats("h=e|v=1_000"), Stats("h=f|v=")},
               TestOptions()));
  EXPECT_EQ(r.ToCsv(),
            "h,count(v),sum(v),max(v),avg(v)\n"
            "a,1,0.000000,0.000000,0.000000\n"
            "b,1,-0.000000,-0.000000,-0.000000\n"
            "c,1,NaN,NaN,NaN\n"
            "d,1,0.000000,0.000000,0.000000\n"
            "e,1,0.000000,0.000000,0.000000\n"
            "f,1,0.000000,0.000000,0.000000\n");
}

// Known issue (not fixed here): min/max follow DTail's rule that a leading
// NaN sticks and later NaNs are ignored. That rule is not mergeable with the
// current state (one value per group): a partial whose first value is NaN
// forgets its later numbers, so one pass over 5, nan, 1 gives min 1 while
// the partials [5] + [nan, 1] give 5. Enable this test once SlotState keeps
// the extreme of the non-NaN values beside a "first value was NaN" flag.
TEST(AggregatorTest, MinMaxWithNanDoNotDependOnTheSplit) {
  constexpr std::string_view kQuery =
      "from STATS select min(v),max(v) group by $empty";
  const std::vector<std::string> lines = {Stats("v=5"), Stats("v=nan"),
                                          Stats("v=1")};
  ASSERT_OK_AND_ASSIGN(Aggregator one_pass, Make(kQuery));
  ASSERT_OK(Push(one_pass, lines));
  ASSERT_OK_AND_ASSIGN(Aggregator first, Make(kQuery));
  ASSERT_OK_AND_ASSIGN(Aggregator second, Make(kQuery));
  ASSERT_OK(Push(first, {lines[0]}));
  ASSERT_OK(Push(second, {lines[1], lines[2]}));
  ASSERT_OK(first.Merge(std::move(second)));
  ASSERT_OK_AND_ASSIGN(ResultTable expected, one_pass.Snapshot());
  ASSERT_OK_AND_ASSIGN(ResultTable merged, first.Snapshot());
  EXPECT_EQ(expected.ToCsv(), "min(v),max(v)\n1.000000,5.000000\n");
  EXPECT_EQ(merged.ToCsv(), expected.ToCsv());

  // A NaN first sticks, as in DTail, also when it starts a later partial
  // merged into an empty one.
  const std::vector<std::string> nan_first = {Stats("v=nan"), Stats("v=3")};
  ASSERT_OK_AND_ASSIGN(Aggregator a, Make(kQuery));
  ASSERT_OK_AND_ASSIGN(Aggregator b, Make(kQuery));
  ASSERT_OK(Push(b, nan_first));
  ASSERT_OK(a.Merge(std::move(b)));
  ASSERT_OK_AND_ASSIGN(ResultTable r, a.Snapshot());
  EXPECT_EQ(r.ToCsv(), "min(v),max(v)\nNaN,NaN\n");
}

// ------------------------------------------------------- property test

// A random DTail STATS line: 5 groups (sometimes none), numeric values that
// add exactly in any order (multiples of 1/8), and lines with missing,
// empty or non-numeric values, plus lines of other tables and bad lines.
// NaN and Inf appear only in `n`, which no min()/max() reads (see
// MinMaxWithNanDoNotDependOnTheSplit).
std::string RandomLine(std::mt19937_64& rng) {
  auto pick = [&rng](uint64_t n) { return rng() % n; };
  switch (pick(40)) {
    case 0:
      return "noise without a table";
    case 1:
      return "WARN|1|2|3|4|5|6|7|8|MAPREDUCE:STATS|h=a|v=1";
    case 2:
      return Stats("h=a|v=1|broken");
    case 3:
      return "";
    default:
      break;
  }
  std::string kv;
  if (pick(10) != 0)
    kv += "h=" + std::string(1, static_cast<char>('a' + pick(5)));
  auto number = [&]() {
    int64_t eighths = static_cast<int64_t>(pick(1601)) - 800;
    std::string s = std::to_string(eighths / 8);
    if (eighths < 0 && eighths > -8) s = "-0";
    int64_t frac = (eighths < 0 ? -eighths : eighths) % 8;
    static constexpr const char* kFractions[] = {"",   ".125", ".25", ".375",
                                                 ".5", ".625", ".75", ".875"};
    return s + kFractions[frac];
  };
  switch (pick(8)) {
    case 0:
      break;  // v missing
    case 1:
      kv += "|v=";
      break;  // empty
    case 2:
      kv += "|v=abc";
      break;  // not numeric
    default:
      kv += "|v=" + number();
      break;
  }
  // n may be NaN or infinite: sums stay order-independent.
  switch (pick(12)) {
    case 0:
      kv += "|n=nan";
      break;
    case 1:
      kv += "|n=inf";
      break;
    case 2:
      break;
    default:
      kv += "|n=" + number();
      break;
  }
  if (pick(3) != 0) kv += "|s=" + std::string(pick(6), 'x') + "s";
  if (kv.empty() || kv.front() == '|') kv.insert(0, "pad=1");
  return Stats(kv);
}

// Pushes lines[begin, end) into `agg` in random batch sizes, now and then
// taking a snapshot (which must not change anything).
absl::Status PushInRandomBatches(Aggregator& agg,
                                 const std::vector<std::string_view>& lines,
                                 size_t begin, size_t end,
                                 std::mt19937_64& rng) {
  while (begin < end) {
    size_t n = std::min<size_t>(end - begin, 1 + rng() % 3000);
    absl::Status s = agg.PushLines(
        std::span<const std::string_view>(lines.data() + begin, n));
    if (!s.ok()) return s;
    begin += n;
    if (rng() % 4 == 0) {
      absl::StatusOr<ResultTable> snapshot = agg.Snapshot();
      if (!snapshot.ok()) return snapshot.status();
    }
  }
  return absl::OkStatus();
}

TEST(AggregatorPropertyTest, MergedPartialsEqualOnePass) {
  // Each query spans several string literals.
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::vector<std::string_view> queries = {
      "from STATS select h,count($line),sum(v),avg(v),min(v),max(v),last(v),"
      "len(s),last(s),count(v) group by h",
      "from STATS select h,percentage(v),percentile(v),percentage(n),"
      "percentile(n),count($line) group by h order by percentage(v)",
      "from STATS select last($line),len($line),count($line),sum(n),avg(n) "
      "group by $empty",
      "from STATS select h,s,max(v),min(v),last(n) where v > -50 or s eq "
      "\"xs\" group by h,s rorder by max(v) limit 7",
      "from STATS select $k,avg(v),last(v),count($line) set $k = "
      "maskdigits(v) group by $k order by last(v)",
      "select count($line),last($line) group by *",
  };
  // NOLINTEND(bugprone-suspicious-missing-comma)
  std::mt19937_64 rng(0x6d617072);  // "mapr"
  constexpr int kIterations = 50;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    std::vector<std::string> text(rng() % 6000);
    for (std::string& line : text) line = RandomLine(rng);
    std::vector<std::string_view> lines(text.begin(), text.end());
    std::string_view query =
        queries[static_cast<size_t>(iteration) % queries.size()];
    SCOPED_TRACE(::testing::Message() << "iteration " << iteration << ", "
                                      << lines.size() << " lines, " << query);

    ASSERT_OK_AND_ASSIGN(Aggregator one_pass, Make(query));
    ASSERT_OK(one_pass.PushLines(lines));
    ASSERT_OK(one_pass.FinishInput());
    ASSERT_OK_AND_ASSIGN(ResultTable expected, one_pass.TakeResult());

    // Random contiguous partials, each pushed in random batches.
    size_t num_partials = 1 + rng() % 6;
    std::vector<size_t> cuts = {0, lines.size()};
    for (size_t i = 1; i < num_partials; ++i) {
      cuts.push_back(lines.empty() ? 0 : rng() % (lines.size() + 1));
    }
    std::sort(cuts.begin(), cuts.end());
    std::vector<Aggregator> partials;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(Aggregator partial, Make(query));
      ASSERT_OK(PushInRandomBatches(partial, lines, cuts[i], cuts[i + 1], rng));
      partials.push_back(std::move(partial));
    }
    // Merge in order: left to right, or pairwise as a tree (neighbours
    // only, so the later partial is always merged into the earlier one).
    if (rng() % 2 == 0) {
      for (size_t i = 1; i < partials.size(); ++i) {
        ASSERT_OK(partials[0].Merge(std::move(partials[i])));
      }
    } else {
      for (size_t step = 1; step < partials.size(); step *= 2) {
        for (size_t i = 0; i + step < partials.size(); i += 2 * step) {
          ASSERT_OK(partials[i].Merge(std::move(partials[i + step])));
        }
      }
    }
    ASSERT_OK(partials[0].FinishInput());
    ASSERT_OK_AND_ASSIGN(ResultTable merged, partials[0].TakeResult());

    EXPECT_EQ(merged.ToCsv(), expected.ToCsv());
    EXPECT_EQ(merged.stats(), expected.stats());
    EXPECT_EQ(merged.total_groups(), expected.total_groups());
    EXPECT_EQ(SumOfBuckets(merged.stats()), lines.size());
  }
}

}  // namespace
}  // namespace mapr
