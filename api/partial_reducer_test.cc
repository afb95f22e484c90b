// mapr::PartialReducer (mapr/partial_reducer.h) and the stream section of
// partials (v1.4): sources, final marks and input positions.
#include "mapr/partial_reducer.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/partial.h"
#include "mapr/query.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kQuery[] =
    "select host,count($line),sum(n),first(n),last(n),min(n),max(n) "
    "group by host logformat generickv";

// `n` lines of a host: "host=h<i%3>|n=<base+i>".
std::vector<std::string> HostLines(int base, int n) {
  std::vector<std::string> lines;
  for (int i = 0; i < n; ++i) {
    lines.push_back(absl::StrCat("host=h", i % 3, "|n=", base + i));
  }
  return lines;
}

// The delta partials of `lines` pushed by a daemon of `source` in chunks of
// `chunk` lines (an empty delta after the last chunk too), the last marked
// final.
std::vector<std::string> Deltas(const std::string& source,
                                const std::vector<std::string>& lines,
                                size_t chunk) {
  const Query q = *Query::Compile(kQuery);
  AggregatorOptions o;
  o.hostname = "test";
  o.source = source;
  Aggregator agg = *Aggregator::Create(q, o);
  std::vector<std::string> deltas;
  for (size_t lo = 0; lo < lines.size(); lo += chunk) {
    const size_t hi = std::min(lines.size(), lo + chunk);
    EXPECT_OK(agg.PushLines(
        std::span<const std::string>(lines.data() + lo, hi - lo)));
    StreamMark mark;
    mark.positions = {{"app.log", hi * 10}};
    deltas.push_back(*agg.TakeDeltaPartial(mark));
  }
  StreamMark last;
  last.final = true;
  deltas.push_back(*agg.TakeDeltaPartial(last));
  return deltas;
}

std::string OnePass(const std::vector<std::string>& lines) {
  AggregatorOptions o;
  o.hostname = "test";
  return RunQuery(kQuery, lines, o)->ToCsv();
}

TEST(PartialStreamTest, SourceMarkAndPositionsRoundTrip) {
  const std::vector<std::string> d = Deltas("web-1", HostLines(0, 10), 4);
  ASSERT_EQ(d.size(), 4u);
  ASSERT_OK_AND_ASSIGN(PartialInfo first, InspectPartial(d[0]));
  EXPECT_EQ(first.minor, 4);
  EXPECT_EQ(first.source, "web-1");
  EXPECT_FALSE(first.mark.final);
  ASSERT_EQ(first.mark.positions.size(), 1u);
  EXPECT_EQ(first.mark.positions[0].input, "app.log");
  EXPECT_EQ(first.mark.positions[0].offset, 40u);
  ASSERT_OK_AND_ASSIGN(PartialInfo last, InspectPartial(d[3]));
  EXPECT_TRUE(last.mark.final);
  EXPECT_EQ(last.splits, (SplitRange{3, 4}));
  EXPECT_EQ(last.counters.lines_read, 0u);
  // Merged in order, the aggregator keeps the latest mark and re-serializes
  // it with its source.
  AggregatorOptions o;
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::FromPartial(d[0], o));
  for (size_t i = 1; i < d.size(); ++i) ASSERT_OK(agg.MergeSerialized(d[i]));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string merged, agg.SerializePartial());
  ASSERT_OK_AND_ASSIGN(PartialInfo m, InspectPartial(merged));
  EXPECT_EQ(m.source, "web-1");
  EXPECT_TRUE(m.mark.final);
  EXPECT_EQ(m.splits, (SplitRange{0, 4}));
  EXPECT_EQ(m.counters.lines_read, 10u);
}

TEST(PartialStreamTest, PartialsWithoutStreamFactsKeepTheirOldMinor) {
  AggregatorOptions o;
  o.hostname = "test";
  Aggregator agg = *Aggregator::Create(*Query::Compile(kQuery), o);
  ASSERT_OK(agg.PushLines({"host=a|n=1"}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(PartialInfo info,
                       InspectPartial(*agg.SerializePartial()));
  EXPECT_LT(info.minor, 4);
  EXPECT_EQ(info.source, "");
  EXPECT_EQ(info.mark, StreamMark());
}

TEST(PartialStreamTest, MergeSerializedRefusesAnotherSource) {
  const std::vector<std::string> a = Deltas("a", HostLines(0, 5), 5);
  const std::vector<std::string> b = Deltas("b", HostLines(0, 5), 5);
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::FromPartial(a[0]));
  EXPECT_THAT(agg.MergeSerialized(b[1]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("partial of another source: source 'b' "
                                 "cannot merge with source 'a'")));
}

TEST(PartialReducerTest, SourcesAddUpInSourceOrderWhateverTheArrivalOrder) {
  const std::vector<std::string> a_lines = HostLines(0, 40);
  const std::vector<std::string> b_lines = HostLines(1000, 25);
  const std::vector<std::string> c_lines = HostLines(5000, 7);
  const std::vector<std::string> a = Deltas("a", a_lines, 6);
  const std::vector<std::string> b = Deltas("b", b_lines, 4);
  const std::vector<std::string> c = Deltas("c", c_lines, 3);
  std::vector<std::string> all_lines = a_lines;
  all_lines.insert(all_lines.end(), b_lines.begin(), b_lines.end());
  all_lines.insert(all_lines.end(), c_lines.begin(), c_lines.end());
  const std::string want = OnePass(all_lines);

  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    // Each source's deltas in order, the sources interleaved at random.
    std::vector<const std::vector<std::string>*> streams = {&a, &b, &c};
    std::vector<size_t> next(3, 0);
    PartialReducer reducer;
    for (const char* s : {"a", "b", "c"}) reducer.DeclareSource(s);
    size_t left = a.size() + b.size() + c.size();
    while (left > 0) {
      const size_t k = rng() % 3;
      if (next[k] == streams[k]->size()) continue;
      ASSERT_OK(reducer.Add((*streams[k])[next[k]++]));
      --left;
      // A report on the way never changes what comes later.
      if (rng() % 4 == 0) {
        ASSERT_OK(reducer.Result().status());
      }
    }
    ASSERT_OK_AND_ASSIGN(ResultTable r, reducer.Result());
    EXPECT_EQ(r.ToCsv(), want) << "round " << round;
    ASSERT_OK_AND_ASSIGN(ResultTable taken, reducer.TakeResult());
    EXPECT_EQ(taken.ToCsv(), want);
    EXPECT_EQ(taken.stats().lines_read, all_lines.size());
    EXPECT_THAT(reducer.Result().status(),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         HasSubstr("before any partial")));
  }
}

TEST(PartialReducerTest, UndeclaredSourcesFollowInTheOrderMet) {
  const std::vector<std::string> a = Deltas("a", HostLines(0, 9), 9);
  const std::vector<std::string> b = Deltas("b", HostLines(100, 9), 9);
  PartialReducer reducer;
  ASSERT_OK(reducer.Add(b[0]));
  ASSERT_OK(reducer.Add(a[0]));
  std::vector<std::string> want_lines = HostLines(100, 9);
  for (const std::string& l : HostLines(0, 9)) want_lines.push_back(l);
  EXPECT_EQ(reducer.Result()->ToCsv(), OnePass(want_lines));
  const std::vector<PartialReducer::Source> sources = reducer.sources();
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0].name, "b");
  EXPECT_EQ(sources[1].name, "a");
  EXPECT_EQ(sources[1].splits, (SplitRange{0, 1}));
  EXPECT_EQ(sources[1].counters.lines_read, 9u);
  EXPECT_FALSE(sources[1].mark.final);
}

TEST(PartialReducerTest, StatusPerSource) {
  const std::vector<std::string> a = Deltas("a", HostLines(0, 9), 3);
  PartialReducer reducer;
  reducer.DeclareSource("a");
  reducer.DeclareSource("quiet");
  for (const std::string& d : a) ASSERT_OK(reducer.Add(d));
  const std::vector<PartialReducer::Source> s = reducer.sources();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].partials, a.size());
  EXPECT_EQ(s[0].splits, (SplitRange{0, a.size()}));
  EXPECT_TRUE(s[0].mark.final);
  EXPECT_EQ(s[1].partials, 0u);
  EXPECT_EQ(s[1].splits, (SplitRange{0, 0}));
}

TEST(PartialReducerTest, MissingAndRepeatedDeltasAreNamedPerSource) {
  const std::vector<std::string> a = Deltas("a", HostLines(0, 9), 3);
  const std::vector<std::string> b = Deltas("b", HostLines(0, 9), 3);
  PartialReducer reducer;
  ASSERT_OK(reducer.Add(a[0]));
  ASSERT_OK(reducer.Add(b[0]));
  EXPECT_THAT(reducer.Add(b[2]),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("source 'b': missing split 1")));
  EXPECT_THAT(
      reducer.Add(a[0]),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("source 'a': split 0 would be counted twice")));
  // Nothing changed.
  ASSERT_OK(reducer.Add(b[1]));
  ASSERT_OK(reducer.Add(b[2]));
}

TEST(PartialReducerTest, RefusesAnotherQueryOrRun) {
  const std::vector<std::string> a = Deltas("a", HostLines(0, 3), 3);
  AggregatorOptions o;
  o.hostname = "test";
  o.source = "b";
  Aggregator other =
      *Aggregator::Create(*Query::Compile("select count($line) group by *"), o);
  PartialReducer reducer;
  ASSERT_OK(reducer.Add(a[0]));
  EXPECT_THAT(reducer.Add(*other.TakeDeltaPartial()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("source 'b': partial of another query")));
  o.run_id = "run-2";
  Aggregator other_run = *Aggregator::Create(*Query::Compile(kQuery), o);
  EXPECT_THAT(reducer.Add(*other_run.TakeDeltaPartial()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("source 'b': partial of another run: run "
                                 "'run-2' cannot merge with no run id")));
}

TEST(PartialReducerTest, PartialsWithoutSourceBehaveAsBefore) {
  const std::vector<std::string> lines = HostLines(0, 30);
  AggregatorOptions o;
  o.hostname = "test";
  std::vector<std::string> parts;
  for (uint64_t s = 0; s < 3; ++s) {
    o.splits = {s, s + 1};
    Aggregator agg = *Aggregator::Create(*Query::Compile(kQuery), o);
    ASSERT_OK(
        agg.PushLines(std::span<const std::string>(lines.data() + 10 * s, 10)));
    ASSERT_OK(agg.FinishInput());
    parts.push_back(*agg.SerializePartial());
  }
  PartialReducer reducer;
  for (const std::string& p : parts) ASSERT_OK(reducer.Add(p));
  EXPECT_EQ(reducer.Result()->ToCsv(), OnePass(lines));
  ASSERT_EQ(reducer.sources().size(), 1u);
  EXPECT_EQ(reducer.sources()[0].name, "");
  EXPECT_EQ(reducer.sources()[0].splits, (SplitRange{0, 3}));
}

TEST(PartialReducerTest, ResultBeforeAnyPartialIsAnError) {
  PartialReducer reducer;
  EXPECT_EQ(reducer.query(), nullptr);
  EXPECT_THAT(reducer.Result().status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("before any partial")));
  EXPECT_THAT(reducer.Add("not a partial"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not a mapr partial")));
  // A source whose first partial fails is not added.
  std::string bad = Deltas("late", HostLines(0, 3), 3)[0];
  bad[bad.size() - 1] ^= 1;  // The checksum.
  EXPECT_THAT(reducer.Add(bad), StatusIs(absl::StatusCode::kDataLoss,
                                         HasSubstr("checksum mismatch")));
  EXPECT_TRUE(reducer.sources().empty());
}

}  // namespace
}  // namespace mapr

namespace mapr {
namespace {

// ---- Hash-partitioned partials

// The partials of `lines` for `query` from source `source`, cut into
// `splits` splits of `count` partitions: frames[split][partition].
std::vector<std::vector<std::string>> SourcePartitions(
    std::string_view query, const std::string& source,
    const std::vector<std::string>& lines, size_t splits, uint32_t count) {
  const Query q = *Query::Compile(query);
  std::vector<std::vector<std::string>> frames;
  for (size_t s = 0; s < splits; ++s) {
    AggregatorOptions o;
    o.hostname = "test";
    o.source = source;
    o.splits = {s, s + 1};
    Aggregator agg = *Aggregator::Create(q, o);
    const size_t lo = lines.size() * s / splits;
    const size_t hi = lines.size() * (s + 1) / splits;
    EXPECT_OK(agg.PushLines(
        std::span<const std::string>(lines.data() + lo, hi - lo)));
    EXPECT_OK(agg.FinishInput());
    frames.push_back(*agg.SerializePartitions(count));
  }
  return frames;
}

// The partials of kQuery over `lines`, without a source:
// frames[split][partition].
std::vector<std::vector<std::string>> PartitionedSplits(
    const std::vector<std::string>& lines, size_t splits, uint32_t count) {
  return SourcePartitions(kQuery, "", lines, splits, count);
}

TEST(PartitionTest, PartitionsAddUpToOnePassForAnyCountAndOrder) {
  std::vector<std::string> lines;
  for (int i = 0; i < 600; ++i) {
    lines.push_back(absl::StrCat("host=h", (i * 7919) % 97, "|n=", i));
  }
  const std::string want = OnePass(lines);
  std::mt19937 rng(11);
  for (uint32_t count : {1u, 2u, 7u, 64u}) {
    const auto frames = PartitionedSplits(lines, 3, count);
    uint64_t groups = 0;
    std::vector<uint64_t> lines_read(count, 0);
    for (size_t s = 0; s < frames.size(); ++s) {
      ASSERT_EQ(frames[s].size(), count);
      for (uint32_t i = 0; i < count; ++i) {
        ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(frames[s][i]));
        EXPECT_EQ(info.partitions, count);
        EXPECT_EQ(info.partition, i);
        EXPECT_EQ(info.minor, 5);
        lines_read[i] += info.counters.lines_read;
        if (s == 0) groups += info.groups;
      }
    }
    // Only partition 0 carries the line counters; the groups of a split are
    // spread over the partitions.
    EXPECT_EQ(lines_read[0], lines.size());
    for (uint32_t i = 1; i < count; ++i) EXPECT_EQ(lines_read[i], 0u);
    EXPECT_EQ(groups, 97u);
    // The partitions in any order, each's splits in order.
    for (int round = 0; round < 3; ++round) {
      std::vector<uint32_t> partitions(count);
      std::iota(partitions.begin(), partitions.end(), 0u);
      std::shuffle(partitions.begin(), partitions.end(), rng);
      PartialReducer reducer;
      for (uint32_t i : partitions) {
        for (size_t s = 0; s < frames.size(); ++s) {
          ASSERT_OK(reducer.Add(frames[s][i]));
        }
      }
      ASSERT_OK_AND_ASSIGN(ResultTable r, reducer.Result());
      EXPECT_EQ(r.ToCsv(), want) << count;
      EXPECT_EQ(r.stats().lines_read, lines.size());
      const std::vector<PartialReducer::Source> s = reducer.sources();
      ASSERT_EQ(s.size(), 1u);
      EXPECT_EQ(s[0].partition_count, count);
      ASSERT_EQ(s[0].partition_splits.size(), count);
      for (const SplitRange& range : s[0].partition_splits) {
        EXPECT_EQ(range, (SplitRange{0, 3}));
      }
      ASSERT_OK_AND_ASSIGN(ResultTable taken, reducer.TakeResult());
      EXPECT_EQ(taken.ToCsv(), want);
    }
  }
}

TEST(PartitionTest, PartitionsMergeOnlyWithTheirOwn) {
  std::vector<std::string> lines = HostLines(0, 60);
  const auto seven = PartitionedSplits(lines, 2, 7);
  const auto three = PartitionedSplits(lines, 2, 3);
  ASSERT_OK_AND_ASSIGN(Aggregator p0, Aggregator::FromPartial(seven[0][0]));
  EXPECT_THAT(p0.MergeSerialized(seven[1][1]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("partial of another partition: partition 1 "
                                 "of 7 cannot merge with partition 0 of 7")));
  ASSERT_OK(p0.MergeSerialized(seven[1][0]));
  // A combined partition is still that partition.
  ASSERT_OK(p0.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string combined, p0.SerializePartial());
  ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(combined));
  EXPECT_EQ(info.partitions, 7u);
  EXPECT_EQ(info.partition, 0u);
  EXPECT_EQ(info.splits, (SplitRange{0, 2}));
  EXPECT_EQ(info.counters.lines_read, lines.size());
  EXPECT_THAT(p0.SerializePartitions(2).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("partition 0 of 7 already")));

  PartialReducer reducer;
  ASSERT_OK(reducer.Add(seven[0][0]));
  EXPECT_THAT(reducer.Add(three[0][1]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("partials cut into 3 partitions cannot join "
                                 "partials cut into 7 partitions")));
  AggregatorOptions o;
  Aggregator whole = *Aggregator::Create(*Query::Compile(kQuery), o);
  ASSERT_OK(whole.FinishInput());
  EXPECT_THAT(reducer.Add(*whole.SerializePartial()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unpartitioned partials cannot join")));
  EXPECT_THAT(whole.SerializePartitions(0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the count must be 1 to 65536")));
}

TEST(PartitionTest, OnePartitionIsThatFrameOfAll) {
  AggregatorOptions o;
  o.hostname = "test";
  Aggregator agg = *Aggregator::Create(*Query::Compile(kQuery), o);
  ASSERT_OK(agg.PushLines(HostLines(0, 50)));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> all,
                       agg.SerializePartitions(5));
  for (uint32_t i = 0; i < 5; ++i) {
    ASSERT_OK_AND_ASSIGN(std::string one, agg.SerializePartition(5, i));
    EXPECT_EQ(one, all[i]) << i;
  }
  EXPECT_THAT(agg.SerializePartition(5, 5).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("index 5 of 5 partitions")));
}

// The bounded-memory check of a partitioned reduce: max_groups caps the
// groups any one state of the reducer may hold. Fed a partition at a time
// and ending each, a top-10 reduce of 2,000 groups in 8 partitions never
// holds more than one partition (~250 groups) plus the shown rows; without
// EndPartition, or for a query whose result needs every group, the join
// holds them all and fails.
TEST(PartitionTest, EndedPartitionsHoldOnlyTheShownGroups) {
  constexpr char kTop[] =
      "select host,count($line),sum(n),last(n) group by host having "
      "count($line) > 2 order by sum(n) desc limit 10 logformat generickv";
  std::vector<std::string> a, b;
  for (int i = 0; i < 5000; ++i) {
    // 2,000 hosts, in both sources; 1,000 of them have a third line, which
    // `having` needs, and whose source varies.
    const int host = (i * 7919) % 2000;
    (i % 2 == 0 ? a : b).push_back(absl::StrCat("host=h", host, "|n=", i));
  }
  std::vector<std::string> both = a;
  both.insert(both.end(), b.begin(), b.end());
  AggregatorOptions o;
  o.hostname = "test";
  ASSERT_OK_AND_ASSIGN(ResultTable want, RunQuery(kTop, both, o));
  ASSERT_EQ(want.num_rows(), 10u);
  ASSERT_EQ(want.total_groups(), 1000u);
  const auto fa = SourcePartitions(kTop, "a", a, 2, 8);
  const auto fb = SourcePartitions(kTop, "b", b, 3, 8);

  AggregatorOptions capped = o;
  capped.max_groups = 400;  // One partition holds ~250 of the 2,000.
  PartialReducer reducer(capped);
  reducer.DeclareSource("a");
  reducer.DeclareSource("b");
  for (uint32_t p = 0; p < 8; ++p) {
    for (const auto* frames : {&fb, &fa}) {  // b's first: order is by source
      for (const auto& split : *frames) ASSERT_OK(reducer.Add(split[p]));
    }
    ASSERT_OK(reducer.EndPartition(p));
  }
  const std::vector<PartialReducer::Source> sources = reducer.sources();
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0].partition_splits, std::vector<SplitRange>(8, {0, 2}));
  EXPECT_EQ(sources[1].partition_splits, std::vector<SplitRange>(8, {0, 3}));
  EXPECT_EQ(sources[0].counters.lines_read, a.size());
  ASSERT_OK_AND_ASSIGN(ResultTable got, reducer.TakeResult());
  EXPECT_EQ(got.ToCsv(), want.ToCsv());
  EXPECT_EQ(got.total_groups(), want.total_groups());
  EXPECT_EQ(got.stats(), want.stats());

  // Without EndPartition the same reducer holds every group.
  PartialReducer whole(capped);
  for (uint32_t p = 0; p < 8; ++p) {
    for (const auto& split : fa) ASSERT_OK(whole.Add(split[p]));
  }
  EXPECT_THAT(
      whole.TakeResult().status(),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("max_groups")));
  // percentage() reads every group: the ended partitions keep them all.
  const std::string pct = absl::StrCat(
      "select host,percentage(n) group by host order by percentage(n) "
      "limit 3 logformat generickv");
  const auto fp = SourcePartitions(pct, "", both, 1, 8);
  PartialReducer every(capped);
  absl::Status failed;
  for (uint32_t p = 0; p < 8 && failed.ok(); ++p) {
    ASSERT_OK(every.Add(fp[0][p]));
    failed = every.EndPartition(p);
  }
  EXPECT_THAT(failed, StatusIs(absl::StatusCode::kResourceExhausted,
                               HasSubstr("max_groups")));
  AggregatorOptions uncapped = o;
  PartialReducer exact(uncapped);
  for (uint32_t p = 0; p < 8; ++p) {
    ASSERT_OK(exact.Add(fp[0][p]));
    ASSERT_OK(exact.EndPartition(p));
  }
  ASSERT_OK_AND_ASSIGN(ResultTable pct_got, exact.TakeResult());
  EXPECT_EQ(pct_got.ToCsv(), RunQuery(pct, both, o)->ToCsv());
}

TEST(PartitionTest, EndPartitionErrors) {
  PartialReducer reducer;
  EXPECT_THAT(reducer.EndPartition(0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("before any partial")));
  const auto frames = PartitionedSplits(HostLines(0, 30), 2, 3);
  ASSERT_OK(reducer.Add(frames[0][1]));
  EXPECT_THAT(reducer.EndPartition(3),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cut into 3 partitions")));
  ASSERT_OK(reducer.EndPartition(1));
  EXPECT_THAT(reducer.EndPartition(1),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("partition 1 has ended already")));
  EXPECT_THAT(reducer.Add(frames[1][1]),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("partial of partition 1, which has ended")));
  // A partition ended with no partial holds nothing.
  ASSERT_OK(reducer.EndPartition(2));
  for (uint32_t p : {0u}) {
    for (const auto& split : frames) ASSERT_OK(reducer.Add(split[p]));
  }
  EXPECT_OK(reducer.Result().status());

  PartialReducer plain;
  Aggregator whole = *Aggregator::Create(*Query::Compile(kQuery), {});
  ASSERT_OK(whole.FinishInput());
  ASSERT_OK(plain.Add(*whole.SerializePartial()));
  EXPECT_THAT(plain.EndPartition(0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not partitioned")));
}

TEST(PartitionTest, PartitionedFramesCarryTheirFlag) {
  const auto frames = PartitionedSplits(HostLines(0, 10), 1, 2);
  for (const std::string& f : frames[0]) {
    EXPECT_EQ(static_cast<uint8_t>(f[16]) & 2, 2);  // kPartialFlagPartitioned
  }
}

}  // namespace
}  // namespace mapr
