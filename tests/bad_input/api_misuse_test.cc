// Bad-input catalogue: misuse of the Aggregator API (README.md, "API
// misuse"). Each case checks the exact code and message, and that the
// refused call changed nothing.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/aggregator_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::Stats;
using ::mapr::testing::StatusIs;
using ::mapr::testing::TestOptions;
using ::testing::Eq;

constexpr absl::StatusCode kPrecondition =
    absl::StatusCode::kFailedPrecondition;

constexpr std::string_view kQuery =
    "from STATS select h,count($line),sum(v) group by h";

Aggregator Make(std::string_view query = kQuery) {
  absl::StatusOr<Query> q = Query::Compile(query);
  EXPECT_TRUE(q.ok()) << q.status();
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, TestOptions());
  EXPECT_TRUE(agg.ok()) << agg.status();
  return *std::move(agg);
}

absl::Status Push(Aggregator& agg, const std::vector<std::string>& lines) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return agg.PushLines(views);
}

TEST(ApiMisuseTest, PushAfterFinishInput) {
  Aggregator agg = Make();
  ASSERT_OK(Push(agg, {Stats("h=a|v=1")}));
  ASSERT_OK(agg.FinishInput());
  const std::vector<std::string> more = {Stats("h=a|v=2")};
  const std::vector<std::string_view> views(more.begin(), more.end());
  EXPECT_THAT(
      agg.PushLines(views),
      StatusIs(kPrecondition, Eq("PushLines called after FinishInput(); the "
                                 "aggregator is finished")));
  EXPECT_THAT(
      agg.PushBytes("x\n"),
      StatusIs(kPrecondition, Eq("PushBytes called after FinishInput(); the "
                                 "aggregator is finished")));
  EXPECT_THAT(
      agg.EndSource(),
      StatusIs(kPrecondition, Eq("EndSource called after FinishInput(); the "
                                 "aggregator is finished")));
  // Nothing of the refused lines was counted.
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,1,1.000000\n");
  EXPECT_EQ(r.stats().lines_read, 1u);
  // After the result is taken the message says so.
  EXPECT_THAT(agg.PushLines(views),
              StatusIs(kPrecondition,
                       Eq("PushLines called after FinishInput(); the "
                          "aggregator is finished and its result taken")));
}

TEST(ApiMisuseTest, FinishInputTwice) {
  Aggregator agg = Make();
  ASSERT_OK(agg.PushBytes(Stats("h=a|v=1")));  // No newline: pending.
  ASSERT_OK(agg.FinishInput());
  EXPECT_THAT(agg.FinishInput(),
              StatusIs(kPrecondition, Eq("FinishInput called twice")));
  // The second call did not flush or count anything again.
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,1,1.000000\n");
  EXPECT_EQ(r.stats().lines_read, 1u);
  EXPECT_THAT(agg.FinishInput(),
              StatusIs(kPrecondition, Eq("FinishInput called twice")));
}

TEST(ApiMisuseTest, MergeOfAPartialFromAnotherQuery) {
  Aggregator agg = Make();
  Aggregator other = Make("from STATS select h,count($line) group by h");
  ASSERT_OK(Push(agg, {Stats("h=a|v=1")}));
  ASSERT_OK(Push(other, {Stats("h=b|v=2")}));
  EXPECT_THAT(
      agg.Merge(std::move(other)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("cannot merge a partial of a different query: 'select "
                  "h,count($line) from STATS group by h' into 'select "
                  "h,count($line),sum(v) from STATS group by h'")));
  // Both are untouched: `other` still holds its line and can finish.
  // NOLINTNEXTLINE(bugprone-use-after-move): Merge refused and kept it.
  EXPECT_EQ(other.stats().lines_read, 1u);
  ASSERT_OK(other.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable o, other.TakeResult());
  EXPECT_EQ(o.ToCsv(), "h,count($line)\nb,1\n");
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,1,1.000000\n");
}

TEST(ApiMisuseTest, MergeAfterFinishInputAndOfATakenPartial) {
  Aggregator agg = Make();
  Aggregator later = Make();
  ASSERT_OK(agg.FinishInput());
  EXPECT_THAT(agg.Merge(std::move(later)),
              StatusIs(kPrecondition, Eq("Merge called after FinishInput(); "
                                         "the aggregator is finished")));
  Aggregator open = Make();
  Aggregator taken = Make();
  ASSERT_OK(taken.FinishInput());
  ASSERT_OK(taken.TakeResult().status());
  EXPECT_THAT(open.Merge(std::move(taken)),
              StatusIs(kPrecondition,
                       Eq("Merge of an aggregator whose result was already "
                          "taken")));
  EXPECT_THAT(open.Merge(std::move(open)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("Merge of an aggregator into itself")));
}

TEST(ApiMisuseTest, ResultBeforeFinishInput) {
  Aggregator agg = Make();
  ASSERT_OK(Push(agg, {Stats("h=a|v=1")}));
  EXPECT_THAT(agg.TakeResult(),
              StatusIs(kPrecondition, Eq("TakeResult called before "
                                         "FinishInput()")));
  // The refused call did not end the input phase.
  ASSERT_OK(Push(agg, {Stats("h=a|v=2")}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,2,3.000000\n");
  EXPECT_THAT(agg.TakeResult(),
              StatusIs(kPrecondition, Eq("TakeResult called twice")));
  EXPECT_THAT(agg.Snapshot(),
              StatusIs(kPrecondition,
                       Eq("Snapshot called after the result was taken")));
  EXPECT_THAT(agg.TakeDelta(),
              StatusIs(kPrecondition,
                       Eq("TakeDelta called after the result was taken")));
}

TEST(ApiMisuseTest, MovedFromAggregatorRefusesEverything) {
  Aggregator agg = Make();
  Aggregator moved = std::move(agg);
  // NOLINTBEGIN(bugprone-use-after-move): that is the point.
  EXPECT_THAT(agg.PushBytes("x\n"),
              StatusIs(kPrecondition,
                       Eq("PushBytes called on a moved-from Aggregator")));
  EXPECT_THAT(agg.FinishInput(),
              StatusIs(kPrecondition,
                       Eq("FinishInput called on a moved-from Aggregator")));
  EXPECT_THAT(agg.TakeResult(),
              StatusIs(kPrecondition,
                       Eq("TakeResult called on a moved-from Aggregator")));
  EXPECT_THAT(moved.Merge(std::move(agg)),
              StatusIs(kPrecondition, Eq("Merge of a moved-from Aggregator")));
  // NOLINTEND(bugprone-use-after-move)
  ASSERT_OK(moved.FinishInput());
}

// ---------------------------------------------------------------- threads

#ifndef NDEBUG

constexpr std::string_view kTwoThreads =
    "aggregator used from two threads at once";

// Every call that overlaps a non-const call (held by the test hook, as if
// another thread were inside) fails and changes nothing.
TEST(ApiMisuseTest, DebugBuildsDetectACallDuringANonConstCall) {
  Aggregator agg = Make();
  ASSERT_OK(Push(agg, {Stats("h=a|v=1")}));
  ASSERT_OK(agg.PushBytes(Stats("h=a|v=10")));  // Pending, no newline.
  const std::vector<std::string> more = {Stats("h=b|v=2")};
  const std::vector<std::string_view> views(more.begin(), more.end());
  {
    ScopedAggregatorUseForTesting other_thread(agg);
    EXPECT_THAT(agg.PushLines(views), StatusIs(kPrecondition, Eq(kTwoThreads)));
    EXPECT_THAT(agg.PushBytes("\n"), StatusIs(kPrecondition, Eq(kTwoThreads)));
    EXPECT_THAT(agg.EndSource(), StatusIs(kPrecondition, Eq(kTwoThreads)));
    EXPECT_THAT(agg.Snapshot(), StatusIs(kPrecondition, Eq(kTwoThreads)));
    EXPECT_THAT(agg.TakeDelta(), StatusIs(kPrecondition, Eq(kTwoThreads)));
    EXPECT_THAT(agg.FinishInput(), StatusIs(kPrecondition, Eq(kTwoThreads)));
    EXPECT_THAT(agg.TakeResult(), StatusIs(kPrecondition, Eq(kTwoThreads)));
    Aggregator later = Make();
    ASSERT_OK(Push(later, {Stats("h=c|v=3")}));
    EXPECT_THAT(agg.Merge(std::move(later)),
                StatusIs(kPrecondition, Eq(kTwoThreads)));
    // NOLINTNEXTLINE(bugprone-use-after-move): refused, so kept.
    EXPECT_EQ(later.stats().lines_read, 1u);
  }
  // Released: the state is exactly as before (the pending line included).
  EXPECT_EQ(agg.stats().lines_read, 1u);
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,2,11.000000\n");
}

TEST(ApiMisuseTest, DebugBuildsDetectMergeOfAPartialInUse) {
  Aggregator agg = Make();
  Aggregator later = Make();
  ASSERT_OK(Push(later, {Stats("h=c|v=3")}));
  {
    ScopedAggregatorUseForTesting other_thread(later);
    EXPECT_THAT(agg.Merge(std::move(later)),
                StatusIs(kPrecondition, Eq(kTwoThreads)));
  }
  // Both untouched; the merge works once `later` is free.
  EXPECT_EQ(agg.stats().lines_read, 0u);
  // NOLINTNEXTLINE(bugprone-use-after-move): refused above, so kept.
  ASSERT_OK(agg.Merge(std::move(later)));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\nc,1,3.000000\n");
}

TEST(ApiMisuseTest, DebugBuildsAllowSnapshotsTogetherButNotWithAWrite) {
  Aggregator agg = Make();
  ASSERT_OK(Push(agg, {Stats("h=a|v=1")}));
  {
    // Another thread inside Snapshot(): a second Snapshot() may overlap
    // it (both are const), a non-const call may not.
    ScopedAggregatorUseForTesting other_snapshot(agg, /*mutating=*/false);
    ASSERT_OK_AND_ASSIGN(ResultTable snap, agg.Snapshot());
    EXPECT_EQ(snap.ToCsv(), "h,count($line),sum(v)\na,1,1.000000\n");
    EXPECT_THAT(Push(agg, {Stats("h=a|v=2")}),
                StatusIs(kPrecondition, Eq(kTwoThreads)));
    EXPECT_THAT(agg.FinishInput(), StatusIs(kPrecondition, Eq(kTwoThreads)));
  }
  ASSERT_OK(Push(agg, {Stats("h=a|v=2")}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,2,3.000000\n");
}

#else  // NDEBUG

// Release builds skip the check: the hook changes nothing.
TEST(ApiMisuseTest, ReleaseBuildsDoNotCheckForConcurrentUse) {
  Aggregator agg = Make();
  ScopedAggregatorUseForTesting other_thread(agg);
  ASSERT_OK(Push(agg, {Stats("h=a|v=1")}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,1,1.000000\n");
}

#endif  // NDEBUG

}  // namespace
}  // namespace mapr
