// Partials (mapr/partial.h, docs/partial-format.md): round trips, split
// invariance over the golden and benchmark queries, corruption, versioning,
// the golden v1 partial and the streaming form.
#include "mapr/partial.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/partial_reducer.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/partial_cases.h"
#include "tests/testing/partial_frames.h"
#include "tests/testing/sanitizers.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

using ::mapr::testing::Case;
using ::mapr::testing::Cases;
using ::mapr::testing::CompileCase;
using ::mapr::testing::JoinSections;
using ::mapr::testing::kHostname;
using ::mapr::testing::kQuery;
using ::mapr::testing::Lines;
using ::mapr::testing::Options;
using ::mapr::testing::Partial;
using ::mapr::testing::PutU64;
using ::mapr::testing::ReadFile;
using ::mapr::testing::Reseal;
using ::mapr::testing::RunLines;
using ::mapr::testing::Sections;
using ::mapr::testing::SmallLines;
using ::mapr::testing::SplitSections;
using ::mapr::testing::StatsLines;

// `earlier` and `later` (adjacent frames) as one frame; `into_later` merges
// the earlier frame into an aggregator of the later one.
absl::StatusOr<std::string> Combine(std::string_view earlier,
                                    std::string_view later, bool into_later) {
  absl::StatusOr<Aggregator> agg =
      Aggregator::FromPartial(into_later ? later : earlier, Options());
  if (!agg.ok()) return agg.status();
  absl::Status s = agg->MergeSerialized(into_later ? earlier : later);
  if (s.ok()) s = agg->FinishInput();
  if (!s.ok()) return s;
  return agg->SerializePartial();
}

std::string Tree(const std::vector<std::string>& parts, size_t lo, size_t hi) {
  if (hi - lo == 1) return parts[lo];
  const size_t mid = lo + (hi - lo) / 2;
  absl::StatusOr<std::string> r =
      Combine(Tree(parts, lo, mid), Tree(parts, mid, hi), false);
  EXPECT_OK(r);
  return r.ok() ? *r : std::string();
}

struct Final {
  std::string csv;
  LineCounters counters;
  std::vector<FieldCount> fields;
};

Final Finish(std::string_view frame) {
  absl::StatusOr<Aggregator> agg = Aggregator::FromPartial(frame, Options());
  EXPECT_OK(agg);
  if (!agg.ok()) return {};
  EXPECT_OK(agg->FinishInput());
  absl::StatusOr<ResultTable> r = agg->TakeResult();
  EXPECT_OK(r);
  if (!r.ok()) return {};
  return {r->ToCsv(), r->stats(), r->field_counts()};
}

TEST(PartialTest, SplitInvariance) {
  MAPR_SKIP_UNDER_TSAN();
  std::mt19937_64 rng(7);
  const std::vector<Case> cases = Cases();
  EXPECT_GE(cases.size(), 30u);
  EXPECT_EQ(std::count_if(cases.begin(), cases.end(),
                          [](const Case& c) { return c.bytes_vary; }),
            1);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_OK_AND_ASSIGN(Query q, CompileCase(c.query));
    const size_t n_lines = c.lines.size();
    // The one-pass result, directly and through its own partial.
    ASSERT_OK_AND_ASSIGN(Aggregator direct,
                         RunLines(q, c.lines, 0, n_lines, {}));
    ASSERT_OK_AND_ASSIGN(ResultTable one, direct.TakeResult());
    for (uint64_t n : {1, 2, 3, 7}) {
      SCOPED_TRACE(absl::StrCat("N=", n));
      ASSERT_OK_AND_ASSIGN(std::string whole,
                           Partial(q, c.lines, 0, n_lines, {0, n}));
      const Final want = Finish(whole);
      EXPECT_EQ(want.csv, one.ToCsv());
      EXPECT_EQ(want.counters, one.stats());
      EXPECT_EQ(want.fields, one.field_counts());
      EXPECT_EQ(want.counters.lines_read, n_lines);

      std::vector<size_t> cuts = {0, n_lines};
      for (uint64_t i = 1; i < n; ++i) cuts.push_back(rng() % (n_lines + 1));
      std::sort(cuts.begin(), cuts.end());
      std::vector<std::string> parts;
      uint64_t lines_read = 0;
      for (uint64_t i = 0; i < n; ++i) {
        ASSERT_OK_AND_ASSIGN(std::string p, Partial(q, c.lines, cuts[i],
                                                    cuts[i + 1], {i, i + 1}));
        ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(p));
        lines_read += info.counters.lines_read;
        parts.push_back(std::move(p));
      }
      EXPECT_EQ(lines_read, n_lines);

      // The same bytes as one pass (or, where they may vary, the same
      // results).
      auto expect_whole = [&](const std::string& frame, const char* how) {
        if (!c.bytes_vary) {
          EXPECT_EQ(frame, whole) << how;
          return;
        }
        const Final got = Finish(frame);
        EXPECT_EQ(got.csv, want.csv) << how;
        EXPECT_EQ(got.counters, want.counters) << how;
        EXPECT_EQ(got.fields, want.fields) << how;
      };
      // Folded left.
      std::string left = parts[0];
      for (size_t i = 1; i < parts.size(); ++i) {
        ASSERT_OK_AND_ASSIGN(left, Combine(left, parts[i], i % 2 == 0));
      }
      expect_whole(left, "left fold");
      // A balanced tree.
      expect_whole(Tree(parts, 0, parts.size()), "balanced tree");
      // Random adjacent pairs.
      std::vector<std::string> live = parts;
      while (live.size() > 1) {
        const size_t i = rng() % (live.size() - 1);
        ASSERT_OK_AND_ASSIGN(std::string m,
                             Combine(live[i], live[i + 1], rng() % 2 == 0));
        live[i] = std::move(m);
        live.erase(live.begin() + static_cast<ptrdiff_t>(i) + 1);
      }
      expect_whole(live[0], "random pairs");
      // The fold through one open aggregator, as a reducer does it.
      ASSERT_OK_AND_ASSIGN(Aggregator reducer,
                           Aggregator::FromPartial(parts[0], Options()));
      for (size_t i = 1; i < parts.size(); ++i) {
        ASSERT_OK(reducer.MergeSerialized(parts[i]));
      }
      ASSERT_OK(reducer.FinishInput());
      ASSERT_OK_AND_ASSIGN(ResultTable reduced, reducer.TakeResult());
      EXPECT_EQ(reduced.ToCsv(), one.ToCsv());
      EXPECT_EQ(reduced.stats(), one.stats());
      EXPECT_EQ(reduced.field_counts(), one.field_counts());
    }
  }
}

// Hash-partitioned partials: every query of the corpus, cut into 3 splits
// and R partitions, each partition folded over its splits apart (as a
// reducer per partition does), then joined: the one-pass result, counters
// and field counts included; and each partition re-serializes to the bytes
// a fold of the same splits gives.
TEST(PartialTest, PartitionInvariance) {
  MAPR_SKIP_UNDER_TSAN();
  std::mt19937_64 rng(29);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_OK_AND_ASSIGN(Query q, CompileCase(c.query));
    const size_t n_lines = c.lines.size();
    ASSERT_OK_AND_ASSIGN(Aggregator direct,
                         RunLines(q, c.lines, 0, n_lines, {}));
    ASSERT_OK_AND_ASSIGN(ResultTable one, direct.TakeResult());
    std::vector<size_t> cuts = {0, n_lines, rng() % (n_lines + 1),
                                rng() % (n_lines + 1)};
    std::sort(cuts.begin(), cuts.end());
    for (uint32_t count : {1u, 2u, 7u, 64u}) {
      SCOPED_TRACE(absl::StrCat("R=", count));
      // frames[split][partition]
      std::vector<std::vector<std::string>> frames;
      for (uint64_t i = 0; i < 3; ++i) {
        ASSERT_OK_AND_ASSIGN(Aggregator agg, RunLines(q, c.lines, cuts[i],
                                                      cuts[i + 1], {i, i + 1}));
        ASSERT_OK_AND_ASSIGN(std::vector<std::string> f,
                             agg.SerializePartitions(count));
        frames.push_back(std::move(f));
      }
      std::optional<Aggregator> all;
      for (uint32_t p = 0; p < count; ++p) {
        ASSERT_OK_AND_ASSIGN(Aggregator part,
                             Aggregator::FromPartial(frames[0][p], Options()));
        ASSERT_OK(part.MergeSerialized(frames[1][p]));
        ASSERT_OK(part.MergeSerialized(frames[2][p]));
        if (!all.has_value()) {
          all.emplace(std::move(part));
        } else {
          ASSERT_OK(all->Merge(std::move(part)));
        }
      }
      ASSERT_OK(all->FinishInput());
      ASSERT_OK_AND_ASSIGN(ResultTable joined, all->TakeResult());
      EXPECT_EQ(joined.ToCsv(), one.ToCsv());
      EXPECT_EQ(joined.stats(), one.stats());
      EXPECT_EQ(joined.field_counts(), one.field_counts());
      EXPECT_EQ(joined.total_groups(), one.total_groups());
      // A PartialReducer fed one partition at a time, each ended (and cut
      // down to the shown groups) before the next; Result() midway too.
      PartialReducer reducer(Options());
      for (uint32_t p = 0; p < count; ++p) {
        for (uint64_t i = 0; i < 3; ++i) ASSERT_OK(reducer.Add(frames[i][p]));
        ASSERT_OK(reducer.EndPartition(p));
        if (p == count / 2) {
          ASSERT_OK(reducer.Result().status());
        }
      }
      ASSERT_OK_AND_ASSIGN(ResultTable viewed, reducer.Result());
      ASSERT_OK_AND_ASSIGN(ResultTable ended, reducer.TakeResult());
      // Each partition folded into one frame first (`mapr combine
      // --partition P`), then streamed in by AddLastOfPartition.
      PartialReducer folded(Options());
      for (uint32_t p = 0; p < count; ++p) {
        ASSERT_OK_AND_ASSIGN(
            std::string one_frame,
            Combine(*Combine(frames[0][p], frames[1][p], false), frames[2][p],
                    false));
        ASSERT_OK(folded.AddLastOfPartition(one_frame));
      }
      ASSERT_OK_AND_ASSIGN(ResultTable streamed, folded.TakeResult());
      for (const ResultTable* t : {&viewed, &ended, &streamed}) {
        EXPECT_EQ(t->ToCsv(), one.ToCsv());
        EXPECT_EQ(t->stats(), one.stats());
        EXPECT_EQ(t->field_counts(), one.field_counts());
        EXPECT_EQ(t->total_groups(), one.total_groups());
      }
    }
  }
}

// ------------------------------------------------------------ Basics

std::string RealPartial(SplitRange splits = {0, 1}) {
  absl::StatusOr<std::string> p = ::mapr::testing::SmallPartial(splits);
  EXPECT_OK(p);
  return p.ok() ? *p : std::string();
}

TEST(PartialTest, RoundTripKeepsBytesAndResult) {
  const std::string p = RealPartial();
  ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(p));
  EXPECT_EQ(info.major, kPartialMajorVersion);
  // No section a later minor added: written as v1.1.
  EXPECT_EQ(info.minor, 1);
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  EXPECT_EQ(info.query, q.ToString());
  EXPECT_EQ(info.log_format, "default");
  EXPECT_EQ(info.splits, (SplitRange{0, 1}));
  EXPECT_EQ(info.groups, 5u);
  EXPECT_EQ(info.frame_bytes, p.size());
  EXPECT_EQ(info.counters.lines_read, 41u);
  EXPECT_EQ(info.counters.lines_table_mismatch, 1u);

  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::FromPartial(p, Options()));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string again, agg.SerializePartial());
  EXPECT_EQ(again, p);
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  const std::vector<std::string> lines = SmallLines();
  ASSERT_OK_AND_ASSIGN(ResultTable want, RunQuery(kQuery, lines, Options()));
  EXPECT_EQ(r.ToCsv(), want.ToCsv());
  EXPECT_EQ(r.stats(), want.stats());
}

TEST(PartialTest, FramesConcatenate) {
  const std::string a = RealPartial({0, 1});
  const std::string b = RealPartial({1, 2});
  const std::string both = a + b;
  ASSERT_OK_AND_ASSIGN(std::vector<std::string_view> frames,
                       SplitPartialFrames(both));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0], a);
  EXPECT_EQ(frames[1], b);
  EXPECT_THAT(SplitPartialFrames(a + b.substr(0, 30)),
              testing::StatusIs(
                  absl::StatusCode::kDataLoss,
                  absl::StrCat("frame 2 (at byte ", a.size(),
                               "): truncated partial: 30 bytes of a frame "
                               "that needs ",
                               kPartialFrameHeaderBytes)));
  // Garbage after a frame is named as that frame, where it starts.
  EXPECT_THAT(SplitPartialFrames(a + "garbage after the frame"),
              testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  absl::StrCat("frame 2 (at byte ", a.size(),
                               "): not a mapr partial: the input does not "
                               "start with MAPRPART")));
  // The first frame's problems are the input's.
  EXPECT_THAT(SplitPartialFrames(a.substr(0, 30)),
              testing::StatusIs(absl::StatusCode::kDataLoss,
                                absl::StrCat("truncated partial: 30 bytes of a "
                                             "frame that needs ",
                                             kPartialFrameHeaderBytes)));
  EXPECT_THAT(InspectPartial(a + b),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("SplitPartialFrames")));
}

TEST(PartialTest, ThisMaprNamesTheNewestMinorItWrites) {
  // topk states are the newest section (v1.7): messages about versions
  // ("this mapr reads 1.7") must name it.
  ASSERT_OK_AND_ASSIGN(
      Query q,
      Query::Compile("select k, topk(v, 2) group by k logformat generickv"));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q, Options()));
  const std::vector<std::string> lines = {"k=a|v=x", "k=a|v=y", "k=b|v=x"};
  ASSERT_OK(agg.PushLines(lines));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string p, agg.SerializePartial());
  ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(p));
  EXPECT_EQ(info.minor, kPartialMinorVersion);
  std::string newer = p;
  newer[8] = 2;  // major 2 (little-endian u16 after the magic)
  EXPECT_THAT(InspectPartial(newer),
              testing::StatusIs(
                  absl::StatusCode::kFailedPrecondition,
                  absl::StrCat("partial format version 2.", info.minor,
                               "; this mapr reads 1.", info.minor,
                               " (the partial was written by a newer mapr)")));
}

// What a reader of a stream gets, whatever the sizes of its reads: the
// frames and the error of SplitPartialFrames over the whole.
TEST(PartialFrameReaderTest, FramesDoNotDependOnHowTheBytesArrive) {
  const std::string a = RealPartial({0, 1});
  const std::string b = RealPartial({1, 2});
  const std::string stream = a + b + a;
  for (size_t read :
       {size_t{1}, size_t{7}, size_t{72}, size_t{500}, stream.size()}) {
    PartialFrameReader reader;
    std::vector<std::string> frames;
    for (size_t at = 0; at < stream.size(); at += read) {
      reader.Append(std::string_view(stream).substr(at, read));
      std::string_view frame;
      while (reader.Next(&frame)) frames.emplace_back(frame);
      ASSERT_OK(reader.status());
    }
    EXPECT_OK(reader.Finish());
    EXPECT_EQ(frames, (std::vector<std::string>{a, b, a})) << read;
    EXPECT_EQ(reader.frames(), 3u);
    EXPECT_EQ(reader.offset(), stream.size());
  }
}

TEST(PartialFrameReaderTest, NotPartialsFailAtTheFirstBytes) {
  PartialFrameReader reader;
  reader.Append(std::string(8, '\0'));
  std::string_view frame;
  EXPECT_FALSE(reader.Next(&frame));
  EXPECT_THAT(reader.status(),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "not a mapr partial: the input does not start "
                                "with MAPRPART"));
  // The error sticks; more bytes are not taken.
  reader.Append(RealPartial({0, 1}));
  EXPECT_FALSE(reader.Next(&frame));
  EXPECT_EQ(reader.pending().size(), 8u);
  EXPECT_EQ(reader.Finish(), reader.status());
}

TEST(PartialFrameReaderTest, AFrameOverTheLimitIsRefusedAtItsHeader) {
  const std::string a = RealPartial({0, 1});
  const std::string b = RealPartial({1, 2});
  // Frame 2 claims 2^40 bytes; only its header has come.
  std::string huge = b.substr(0, kPartialFrameHeaderBytes);
  const uint64_t claim = uint64_t{1} << 40;
  std::memcpy(huge.data() + 24, &claim, sizeof(claim));
  PartialFrameReader reader(uint64_t{1} << 20);
  reader.Append(a + huge);
  std::string_view frame;
  ASSERT_TRUE(reader.Next(&frame));
  EXPECT_EQ(frame, a);
  EXPECT_FALSE(reader.Next(&frame));
  EXPECT_THAT(
      reader.status(),
      testing::StatusIs(
          absl::StatusCode::kResourceExhausted,
          absl::StrCat("frame 2 (at byte ", a.size(),
                       "): a frame of 1099511627776 bytes is over the limit "
                       "of 1048576 bytes (max_frame_bytes)")));
  // A limit of exactly the frame's size takes it.
  PartialFrameReader exact(a.size());
  exact.Append(a);
  EXPECT_TRUE(exact.Next(&frame));
  PartialFrameReader under(a.size() - 1);
  under.Append(a);
  EXPECT_FALSE(under.Next(&frame));
  EXPECT_EQ(under.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(PartialFrameReaderTest, FinishNamesAnEndInsideAFrame) {
  const std::string a = RealPartial({0, 1});
  PartialFrameReader reader;
  EXPECT_THAT(reader.Finish(),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "not a mapr partial: the input is empty"));
  reader.Append(a + a.substr(0, 100));
  std::string_view frame;
  EXPECT_TRUE(reader.Next(&frame));
  EXPECT_FALSE(reader.Next(&frame));
  EXPECT_OK(reader.status());
  EXPECT_EQ(reader.pending(), a.substr(0, 100));
  EXPECT_THAT(reader.Finish(),
              testing::StatusIs(
                  absl::StatusCode::kDataLoss,
                  absl::StrCat("frame 2 (at byte ", a.size(),
                               "): truncated partial: 100 bytes of a frame "
                               "that needs ",
                               a.size())));
}

TEST(PartialTest, FrameSizeNeedsOnlyTheHeader) {
  const std::string a = RealPartial({0, 1});
  ASSERT_GT(a.size(), kPartialFrameHeaderBytes);
  ASSERT_OK_AND_ASSIGN(uint64_t size,
                       PartialFrameSize(a.substr(0, kPartialFrameHeaderBytes)));
  EXPECT_EQ(size, a.size());
  ASSERT_OK_AND_ASSIGN(size, PartialFrameSize(a + "more"));
  EXPECT_EQ(size, a.size());
  EXPECT_THAT(PartialFrameSize(a.substr(0, 10)),
              testing::StatusIs(
                  absl::StatusCode::kDataLoss,
                  "truncated partial: 10 bytes of a frame that needs 72"));
  EXPECT_THAT(PartialFrameSize("garbage"),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "not a mapr partial: the input does not start "
                                "with MAPRPART"));
  EXPECT_THAT(PartialFrameSize(""),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "not a mapr partial: the input is empty"));
}

TEST(PartialTest, PhasesAreEnforced) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q, Options()));
  EXPECT_THAT(agg.SerializePartial(),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("before FinishInput")));
  ASSERT_OK(agg.FinishInput());
  EXPECT_OK(agg.SerializePartial());
  EXPECT_THAT(agg.MergeSerialized(RealPartial({1, 2})),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("after FinishInput")));
  EXPECT_THAT(agg.TakeDeltaPartial(),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("after FinishInput")));
  EXPECT_OK(agg.TakeResult());
  EXPECT_THAT(agg.SerializePartial(),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("after TakeResult")));
  AggregatorOptions bad = Options({3, 3});
  EXPECT_THAT(Aggregator::Create(q, bad),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("splits")));
}

// ------------------------------------------------------------ Corruption

// Every way a frame may fail: a named code, never OK, never a crash.
void ExpectRefusedEverywhere(const std::string& bytes, const std::string& what,
                             Aggregator* open = nullptr,
                             const std::string& open_csv = "") {
  SCOPED_TRACE(what);
  if (open != nullptr) {
    const absl::Status s = open->MergeSerialized(bytes);
    EXPECT_THAT(s.code(), AnyOf(absl::StatusCode::kInvalidArgument,
                                absl::StatusCode::kDataLoss,
                                absl::StatusCode::kFailedPrecondition));
    absl::StatusOr<ResultTable> r = open->Snapshot();
    ASSERT_OK(r);
    EXPECT_EQ(r->ToCsv(), open_csv);
  }
  const auto named =
      AnyOf(absl::StatusCode::kInvalidArgument, absl::StatusCode::kDataLoss,
            absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<PartialInfo> info = InspectPartial(bytes);
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.status().code(), named);
  EXPECT_FALSE(info.status().message().empty());
  absl::StatusOr<Aggregator> agg = Aggregator::FromPartial(bytes, Options());
  ASSERT_FALSE(agg.ok());
  EXPECT_THAT(agg.status().code(), named);
}

TEST(PartialTest, EveryByteFlipIsANamedError) {
  const std::string p = RealPartial();
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  // An open aggregator of the next split: the frame would merge as earlier.
  ASSERT_OK_AND_ASSIGN(Aggregator open, Aggregator::Create(q, Options({1, 2})));
  const std::vector<std::string> lines = SmallLines();
  ASSERT_OK(open.PushLines(std::span<const std::string>(lines).first(3)));
  ASSERT_OK_AND_ASSIGN(ResultTable before, open.Snapshot());
  const std::string csv = before.ToCsv();
  for (size_t i = 0; i < p.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = p;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      ExpectRefusedEverywhere(bad, absl::StrCat("byte ", i, " ^ ", mask), &open,
                              csv);
    }
  }
}

TEST(PartialTest, EveryTruncationIsANamedError) {
  const std::string p = RealPartial();
  for (size_t n = 0; n < p.size(); ++n) {
    const std::string bad = p.substr(0, n);
    ExpectRefusedEverywhere(bad, absl::StrCat("first ", n, " bytes"));
    if (n > 0) {
      EXPECT_THAT(InspectPartial(bad),
                  testing::StatusIs(absl::StatusCode::kDataLoss,
                                    HasSubstr("truncated")))
          << n;
    }
  }
}

// Slots of the states added in v1.2 travel in sections of their own, behind
// a header flag that v1.0 and v1.1 readers refuse ("unknown flags 0x1");
// frames without them stay v1.1, readable by every older mapr.
TEST(PartialTest, LaterStatesHaveTheirOwnSectionsBehindAFlag) {
  const std::vector<std::string> lines = SmallLines();
  ASSERT_OK_AND_ASSIGN(
      Query q, Query::Compile("from STATS select y,p99(x),median(x),dcount(x),"
                              "stddev(x),count($line) group by y"));
  ASSERT_OK_AND_ASSIGN(std::string p,
                       Partial(q, lines, 0, lines.size(), {0, 1}));
  EXPECT_EQ(p[10], 2);  // minor
  EXPECT_EQ(p[16], 1);  // flags
  ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(p));
  EXPECT_EQ(info.groups, 5u);
  EXPECT_EQ(Finish(p).csv, [&] {
    absl::StatusOr<Aggregator> a = RunLines(q, lines, 0, lines.size(), {});
    EXPECT_OK(a);
    absl::StatusOr<ResultTable> r = a->TakeResult();
    EXPECT_OK(r);
    return r->ToCsv();
  }());
  // The older queries' frames are unchanged: v1.1, no flag.
  const std::string old = RealPartial();
  EXPECT_EQ(old[10], 1);
  EXPECT_EQ(old[16], 0);
  // Without its flag the sections are malformed.
  std::string unflagged = p;
  unflagged[16] = 0;
  Reseal(&unflagged);
  EXPECT_THAT(InspectPartial(unflagged),
              testing::StatusIs(absl::StatusCode::kDataLoss,
                                HasSubstr("quantile states section without "
                                          "the state sections flag")));
  // Other percentile settings make another fingerprint.
  CompileOptions exact;
  exact.percentile_exact_values = 10;
  ASSERT_OK_AND_ASSIGN(
      Query q10,
      Query::Compile("from STATS select y,p99(x),median(x),dcount(x),"
                     "stddev(x),count($line) group by y",
                     exact));
  ASSERT_OK_AND_ASSIGN(std::string p10,
                       Partial(q10, lines, 0, lines.size(), {1, 2}));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::FromPartial(p, Options()));
  EXPECT_THAT(agg.MergeSerialized(p10),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("other percentile settings")));
  // The frame carries its settings: a reducer rebuilds the same query.
  ASSERT_OK_AND_ASSIGN(Aggregator direct10,
                       RunLines(q10, lines, 0, lines.size(), {}));
  ASSERT_OK_AND_ASSIGN(ResultTable r10, direct10.TakeResult());
  EXPECT_EQ(Finish(p10).csv, r10.ToCsv());
}

TEST(PartialTest, NamedErrors) {
  const std::string p = RealPartial();
  using testing::StatusIs;
  EXPECT_THAT(InspectPartial(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  EXPECT_THAT(InspectPartial("INFO|1002-071143|1|stats.go:56|8|13\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not a mapr partial")));
  {
    std::string newer = p;
    newer[8] = 2;
    newer[10] = 3;
    EXPECT_THAT(InspectPartial(newer),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr("2.3"),
                               HasSubstr(absl::StrCat("this mapr reads 1.",
                                                      kPartialMinorVersion)))));
  }
  {
    std::string flagged = p;
    flagged[16] = 4;
    Reseal(&flagged);
    EXPECT_THAT(InspectPartial(flagged),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("unknown flags 0x4")));
  }
  for (bool reseal : {false, true}) {
    std::string huge = p;
    PutU64(&huge, 64, uint64_t{1} << 60);
    if (reseal) Reseal(&huge);
    EXPECT_THAT(InspectPartial(huge),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("group count 1152921504606846976")));
    EXPECT_THAT(
        Aggregator::FromPartial(huge, Options()),
        StatusIs(absl::StatusCode::kDataLoss, HasSubstr("group count")));
  }
  {
    // One group more than the body holds, sealed: refused by the reader.
    std::string more = p;
    PutU64(&more, 64, 6);
    Reseal(&more);
    EXPECT_OK(InspectPartial(more));
    EXPECT_THAT(Aggregator::FromPartial(more, Options()),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("malformed")));
  }
  {
    std::string sum = p;
    sum[sum.size() - 1] ^= 1;
    EXPECT_THAT(InspectPartial(sum),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("checksum")));
  }
}

// A run id travels in the frame; partials of different runs refuse to
// merge, naming both, and leave the aggregator as it was.
TEST(PartialTest, PartialsOfDifferentRunsRefuseToMerge) {
  using testing::StatusIs;
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  const std::vector<std::string> lines = SmallLines();
  auto partial = [&](size_t lo, size_t hi, SplitRange splits,
                     const std::string& run) {
    AggregatorOptions o = Options(splits);
    o.run_id = run;
    absl::StatusOr<Aggregator> agg = Aggregator::Create(q, o);
    EXPECT_OK(agg);
    std::vector<std::string_view> views(lines.begin() + lo, lines.begin() + hi);
    EXPECT_OK(agg->PushLines(views));
    EXPECT_OK(agg->FinishInput());
    absl::StatusOr<std::string> p = agg->SerializePartial();
    EXPECT_OK(p);
    return p.ok() ? *p : std::string();
  };
  const std::string a0 = partial(0, 5, {0, 1}, "run-a");
  const std::string a1 = partial(5, 10, {1, 2}, "run-a");
  const std::string b1 = partial(5, 10, {1, 2}, "run-b");
  const std::string none1 = partial(5, 10, {1, 2}, "");
  ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(a0));
  EXPECT_EQ(info.run_id, "run-a");
  EXPECT_EQ(info.minor, 3);
  ASSERT_OK_AND_ASSIGN(info, InspectPartial(none1));
  EXPECT_EQ(info.run_id, "");

  ASSERT_OK_AND_ASSIGN(Aggregator open, Aggregator::FromPartial(a0, Options()));
  EXPECT_THAT(open.MergeSerialized(b1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("partial of another run: run 'run-b' cannot "
                                 "merge with run 'run-a'")));
  EXPECT_THAT(open.MergeSerialized(none1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no run id cannot merge with run 'run-a'")));
  ASSERT_OK(open.MergeSerialized(a1));
  ASSERT_OK(open.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, open.TakeResult());
  EXPECT_EQ(r.stats().lines_read, 10u);
  // The merged partial keeps the run.
  ASSERT_OK_AND_ASSIGN(Aggregator again,
                       Aggregator::FromPartial(a0, Options()));
  ASSERT_OK(again.MergeSerialized(a1));
  ASSERT_OK(again.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string both, again.SerializePartial());
  ASSERT_OK_AND_ASSIGN(info, InspectPartial(both));
  EXPECT_EQ(info.run_id, "run-a");
}

TEST(PartialTest, MergeChecksQueryAndCoverageAndLeavesAggregatorUntouched) {
  using testing::StatusIs;
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  const std::vector<std::string> lines = SmallLines();
  ASSERT_OK_AND_ASSIGN(Aggregator agg, RunLines(q, lines, 0, 10, {2, 4}));
  // Run() finished it; an open one is needed for merging.
  ASSERT_OK_AND_ASSIGN(std::string mine, agg.SerializePartial());
  ASSERT_OK_AND_ASSIGN(Aggregator open,
                       Aggregator::FromPartial(mine, Options()));
  ASSERT_OK_AND_ASSIGN(ResultTable before, open.Snapshot());

  ASSERT_OK_AND_ASSIGN(
      Query other, Query::Compile("select count($line) group by $hostname"));
  ASSERT_OK_AND_ASSIGN(std::string foreign,
                       Partial(other, lines, 0, 5, {4, 5}));
  EXPECT_THAT(
      open.MergeSerialized(foreign),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(other.ToString()), HasSubstr(q.ToString()))));
  ASSERT_OK_AND_ASSIGN(std::string overlap, Partial(q, lines, 0, 5, {3, 5}));
  EXPECT_THAT(open.MergeSerialized(overlap),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("split 3 would be counted twice")));
  ASSERT_OK_AND_ASSIGN(std::string gap, Partial(q, lines, 0, 5, {6, 8}));
  EXPECT_THAT(
      open.MergeSerialized(gap),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("missing splits 4-5")));
  ASSERT_OK_AND_ASSIGN(std::string gap1, Partial(q, lines, 0, 5, {0, 1}));
  EXPECT_THAT(
      open.MergeSerialized(gap1),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("missing split 1 ")));
  AggregatorOptions shorter = Options({4, 5});
  shorter.max_line_bytes = 100;
  ASSERT_OK_AND_ASSIGN(Aggregator short_agg, Aggregator::Create(q, shorter));
  ASSERT_OK(short_agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string short_lines, short_agg.SerializePartial());
  EXPECT_THAT(open.MergeSerialized(short_lines),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_line_bytes 100")));
  std::string corrupt = RealPartial({4, 5});
  corrupt[corrupt.size() - 20] ^= 1;
  EXPECT_THAT(open.MergeSerialized(corrupt),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("checksum")));

  ASSERT_OK_AND_ASSIGN(ResultTable after, open.Snapshot());
  EXPECT_EQ(after.ToCsv(), before.ToCsv());
  EXPECT_EQ(after.stats(), before.stats());

  // Adjacent on either side works.
  ASSERT_OK_AND_ASSIGN(std::string next, Partial(q, lines, 10, 20, {4, 5}));
  ASSERT_OK_AND_ASSIGN(std::string prev, Partial(q, lines, 20, 30, {1, 2}));
  EXPECT_OK(open.MergeSerialized(next));
  EXPECT_OK(open.MergeSerialized(prev));
  EXPECT_EQ(open.stats().lines_read, 30u);
}

TEST(PartialTest, MaxGroupsIsEnforcedWhileMerging) {
  using testing::StatusIs;
  const std::string p = RealPartial();  // 5 groups
  AggregatorOptions small = Options();
  small.max_groups = 4;
  EXPECT_THAT(
      Aggregator::FromPartial(p, small),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("max_groups")));
  small.max_groups = 5;
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  ASSERT_OK_AND_ASSIGN(Aggregator open, Aggregator::FromPartial(p, small));
  ASSERT_OK_AND_ASSIGN(Query q2, Query::Compile(kQuery));
  std::vector<std::string> lines = {
      "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
      "x=1|y=new"};
  ASSERT_OK_AND_ASSIGN(std::string more, Partial(q2, lines, 0, 1, {1, 2}));
  EXPECT_THAT(
      open.MergeSerialized(more),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("max_groups")));
  // The aggregator has failed, as with Merge.
  EXPECT_THAT(open.Snapshot(),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("")));
}

// MergeSerialized reads a later frame's groups a chunk at a time (65,536
// groups), merging each before the next: frames of several chunks, with
// states in the later sections too, give one pass's result, as the later
// or the earlier split. Past the first chunk, states malformed behind a
// valid checksum fail the aggregator (earlier chunks are merged already).
TEST(PartialTest, LargeFramesMergeChunkByChunk) {
  MAPR_SKIP_UNDER_TSAN();
  using testing::StatusIs;
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select k,count($line),sum(n),last(n),"
                                      "dcount(n),stddev(n) group by k "
                                      "logformat generickv"));
  std::vector<std::string> lines;
  // Split 0: keys 0-29,999; split 1: keys 20,000-89,999 (70,000 groups:
  // a whole chunk and part of another, most of them new).
  for (int i = 0; i < 30000; ++i) {
    lines.push_back(absl::StrCat("k=", i, "|n=", i % 977));
  }
  for (int i = 20000; i < 90000; ++i) {
    lines.push_back(absl::StrCat("k=", i, "|n=", i % 613));
  }
  ASSERT_OK_AND_ASSIGN(Aggregator direct,
                       RunLines(q, lines, 0, lines.size(), {}));
  ASSERT_OK_AND_ASSIGN(ResultTable one, direct.TakeResult());
  ASSERT_OK_AND_ASSIGN(std::string a, Partial(q, lines, 0, 30000, {0, 1}));
  ASSERT_OK_AND_ASSIGN(std::string b,
                       Partial(q, lines, 30000, lines.size(), {1, 2}));
  {
    // WritePartial gives SerializePartial's bytes in pieces of about 1 MiB
    // (this frame takes several); WritePartitions, SerializePartitions'.
    ASSERT_OK_AND_ASSIGN(Aggregator agg,
                         RunLines(q, lines, 30000, lines.size(), {1, 2}));
    std::string streamed;
    size_t pieces = 0;
    ASSERT_OK_AND_ASSIGN(const uint64_t groups,
                         agg.WritePartial([&](std::string_view piece) {
                           streamed += piece;
                           ++pieces;
                           EXPECT_LE(piece.size(), size_t{2} << 20);
                           return absl::OkStatus();
                         }));
    EXPECT_EQ(groups, 70000u);
    EXPECT_GT(pieces, 2u);
    EXPECT_EQ(streamed, b);
    std::vector<std::string> parts(5);
    ASSERT_OK_AND_ASSIGN(
        const uint64_t all,
        agg.WritePartitions(5, [&](uint32_t i, std::string_view piece) {
          parts[i] += piece;
          return absl::OkStatus();
        }));
    EXPECT_EQ(all, 70000u);
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> want_parts,
                         agg.SerializePartitions(5));
    EXPECT_EQ(parts, want_parts);
    // The writer's error stops it.
    int calls = 0;
    EXPECT_THAT(agg.WritePartial([&](std::string_view) {
      ++calls;
      return absl::DataLossError("disk full");
    }),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("disk full")));
    EXPECT_EQ(calls, 1);
  }
  {
    // A whole partition of several chunks joined by AddLastOfPartition:
    // each chunk is cut down to its shown groups as it is read.
    ASSERT_OK_AND_ASSIGN(
        Query top, Query::Compile("select k,count($line),sum(n),last(n),"
                                  "dcount(n),stddev(n) group by k order by "
                                  "sum(n) desc limit 7 logformat generickv"));
    ASSERT_OK_AND_ASSIGN(Aggregator direct_top,
                         RunLines(top, lines, 0, lines.size(), {}));
    ASSERT_OK_AND_ASSIGN(ResultTable want, direct_top.TakeResult());
    ASSERT_OK_AND_ASSIGN(Aggregator whole,
                         RunLines(top, lines, 0, lines.size(), {0, 1}));
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> parts,
                         whole.SerializePartitions(1));
    PartialReducer reducer(Options());
    ASSERT_OK(reducer.AddLastOfPartition(parts[0]));
    ASSERT_OK_AND_ASSIGN(ResultTable got, reducer.TakeResult());
    EXPECT_EQ(got.ToCsv(), want.ToCsv());
    EXPECT_EQ(got.total_groups(), 90000u);
  }
  for (const bool into_later : {false, true}) {
    SCOPED_TRACE(into_later);
    ASSERT_OK_AND_ASSIGN(std::string both, Combine(a, b, into_later));
    const Final f = Finish(both);
    EXPECT_EQ(f.csv, one.ToCsv());
    EXPECT_EQ(f.counters, one.stats());
  }

  // b with an unused presence bit set in group `key`'s bits (after its
  // length-prefixed key), resealed behind a valid checksum.
  auto broken = [&b](const std::string& key) {
    std::string bad = b;
    const std::string encoded = std::string(1, static_cast<char>(key.size())) +
                                std::string(3, '\0') + key;
    const size_t at = bad.find(encoded);
    EXPECT_NE(at, std::string::npos);
    bad[at + encoded.size()] |= static_cast<char>(0x80);
    Reseal(&bad);
    return bad;
  };
  // "20000" is b's group 0, "86000" its group 66,000 (the second chunk).
  ASSERT_OK_AND_ASSIGN(Aggregator first, Aggregator::FromPartial(a, Options()));
  EXPECT_THAT(first.MergeSerialized(broken("20000")),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("unused presence bits set")));
  EXPECT_OK(first.Snapshot().status());  // Nothing was merged: untouched.
  ASSERT_OK_AND_ASSIGN(Aggregator second,
                       Aggregator::FromPartial(a, Options()));
  EXPECT_THAT(second.MergeSerialized(broken("86000")),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("unused presence bits set")));
  EXPECT_THAT(second.Snapshot().status(),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("unused presence bits set")));
}

TEST(PartialTest, UnknownSectionsAndLongerHeadersOfAMinorAreSkipped) {
  const std::string p = RealPartial();
  // A later minor: 8 more header bytes and an unknown section at the end.
  std::string later = p.substr(0, 72) + std::string(8, '\x5a') +
                      p.substr(72, p.size() - 72 - 8);
  std::string section;
  for (uint32_t v : {99u}) {
    for (int i = 0; i < 4; ++i)
      section.push_back(static_cast<char>(v >> (8 * i)));
  }
  const std::string payload = "future data";
  for (int i = 0; i < 8; ++i) {
    section.push_back(static_cast<char>(uint64_t{payload.size()} >> (8 * i)));
  }
  section += payload;
  later += section;
  later += std::string(8, '\0');
  later[10] = 1;  // minor 1
  later[12] = 80;
  PutU64(&later, 24, later.size());
  Reseal(&later);
  ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(later));
  EXPECT_EQ(info.minor, 1);
  ASSERT_OK_AND_ASSIGN(Aggregator agg,
                       Aggregator::FromPartial(later, Options()));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string again, agg.SerializePartial());
  EXPECT_EQ(again, p);
}

TEST(PartialTest, DeltaPartialsCoverSuccessiveSplits) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  const std::vector<std::string> lines = SmallLines();
  ASSERT_OK_AND_ASSIGN(Aggregator daemon,
                       Aggregator::Create(q, Options({10, 11})));
  std::vector<std::string> deltas;
  for (size_t lo = 0; lo < lines.size(); lo += 15) {
    const size_t hi = std::min(lines.size(), lo + 15);
    ASSERT_OK(daemon.PushLines(
        std::span<const std::string>(lines.data() + lo, hi - lo)));
    ASSERT_OK_AND_ASSIGN(std::string d, daemon.TakeDeltaPartial());
    deltas.push_back(std::move(d));
  }
  ASSERT_EQ(deltas.size(), 3u);
  ASSERT_OK_AND_ASSIGN(Aggregator reducer,
                       Aggregator::FromPartial(deltas[0], Options()));
  for (size_t i = 0; i < deltas.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(deltas[i]));
    EXPECT_EQ(info.splits, (SplitRange{10 + i, 11 + i}));
    if (i > 0) {
      ASSERT_OK(reducer.MergeSerialized(deltas[i]));
    }
  }
  ASSERT_OK(reducer.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, reducer.TakeResult());
  ASSERT_OK_AND_ASSIGN(ResultTable want, RunQuery(kQuery, lines, Options()));
  EXPECT_EQ(r.ToCsv(), want.ToCsv());
  EXPECT_EQ(r.stats(), want.stats());
}

// ------------------------------------------------------------ Sections

// Sections of every kind this mapr writes: the query, the counters (both
// sets), slots, field counts, groups, the three later state sections,
// values not numeric and a run id.
constexpr char kAllSectionsQuery[] =
    "from STATS select y,count($line),sum(x),min(x),last(x),p99(x),"
    "median(x),dcount(x),stddev(x) group by y";

std::vector<std::string> AllSectionsLines() {
  std::vector<std::string> lines = SmallLines();
  lines.push_back(
      "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
      "x=abc|y=v1");
  return lines;
}

std::string AllSectionsPartial() {
  absl::StatusOr<Query> q = Query::Compile(kAllSectionsQuery);
  EXPECT_OK(q);
  AggregatorOptions o = Options({0, 1});
  o.run_id = "run-1";
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, o);
  EXPECT_OK(agg);
  const std::vector<std::string> lines = AllSectionsLines();
  EXPECT_OK(agg->PushLines(lines));
  EXPECT_OK(agg->FinishInput());
  absl::StatusOr<std::string> p = agg->SerializePartial();
  EXPECT_OK(p);
  return *p;
}

absl::Status Load(const std::string& frame) {
  return Aggregator::FromPartial(frame, Options()).status();
}

TEST(PartialSectionsTest, SplitAndJoinRoundTrip) {
  const std::string p = AllSectionsPartial();
  const Sections s = SplitSections(p);
  std::vector<uint32_t> kinds;
  for (const auto& section : s.list) kinds.push_back(section.first);
  std::sort(kinds.begin(), kinds.end());
  EXPECT_THAT(kinds, ::testing::ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  EXPECT_EQ(JoinSections(s), p);
  EXPECT_OK(Load(p));
}

// Every section cut short, sealed again, is refused (no section is read
// past its end or left with bytes unread); the frame names the damage.
TEST(PartialSectionsTest, EveryTruncatedSectionIsRefused) {
  MAPR_SKIP_UNDER_TSAN();
  const Sections whole = SplitSections(AllSectionsPartial());
  for (size_t i = 0; i < whole.list.size(); ++i) {
    const size_t length = whole.list[i].second.size();
    for (size_t cut = 0; cut < length; ++cut) {
      SCOPED_TRACE(absl::StrCat("section ", whole.list[i].first, " cut to ",
                                cut, " of ", length));
      Sections s = whole;
      s.list[i].second.resize(cut);
      const absl::Status status = Load(JoinSections(s));
      EXPECT_THAT(status.code(), AnyOf(absl::StatusCode::kDataLoss,
                                       absl::StatusCode::kInvalidArgument));
      EXPECT_FALSE(status.message().empty());
    }
  }
}

// A byte changed inside a section, sealed again: refused with a named code
// or read as some valid state that serializes and reads back.
TEST(PartialSectionsTest, EveryFlippedSectionByteIsRefusedOrReadBack) {
  MAPR_SKIP_UNDER_TSAN();
  const Sections whole = SplitSections(AllSectionsPartial());
  for (size_t i = 0; i < whole.list.size(); ++i) {
    for (size_t at = 0; at < whole.list[i].second.size(); ++at) {
      for (uint8_t mask : {0x01, 0x80}) {
        SCOPED_TRACE(absl::StrCat("section ", whole.list[i].first, " byte ", at,
                                  " ^ ", mask));
        Sections s = whole;
        s.list[i].second[at] = static_cast<char>(s.list[i].second[at] ^ mask);
        absl::StatusOr<Aggregator> agg =
            Aggregator::FromPartial(JoinSections(s), Options());
        if (!agg.ok()) {
          EXPECT_THAT(agg.status().code(),
                      AnyOf(absl::StatusCode::kDataLoss,
                            absl::StatusCode::kInvalidArgument,
                            absl::StatusCode::kResourceExhausted));
          continue;
        }
        ASSERT_OK(agg->FinishInput());
        ASSERT_OK_AND_ASSIGN(std::string bytes, agg->SerializePartial());
        EXPECT_OK(Load(bytes));
      }
    }
  }
}

TEST(PartialSectionsTest, MissingAndDuplicateSections) {
  using testing::StatusIs;
  const Sections whole = SplitSections(AllSectionsPartial());
  const std::map<uint32_t, std::string> kNames = {{1, "query"},
                                                  {2, "counters"},
                                                  {3, "slots"},
                                                  {4, "field counts"},
                                                  {5, "groups"},
                                                  {6, "more counters"},
                                                  {7, "quantile states"},
                                                  {8, "distinct states"},
                                                  {9, "moments states"},
                                                  {10, "values not numeric"},
                                                  {11, "run"}};
  for (size_t i = 0; i < whole.list.size(); ++i) {
    const uint32_t kind = whole.list[i].first;
    const std::string& name = kNames.at(kind);
    SCOPED_TRACE(name);
    Sections twice = whole;
    twice.list.push_back(whole.list[i]);
    EXPECT_THAT(
        Load(JoinSections(twice)),
        StatusIs(absl::StatusCode::kDataLoss,
                 HasSubstr(absl::StrCat("duplicate ", name, " section"))));
    Sections without = whole;
    without.list.erase(without.list.begin() + static_cast<ptrdiff_t>(i));
    const absl::Status status = Load(JoinSections(without));
    if (kind <= 5 || (kind >= 7 && kind <= 9)) {
      // The five of v1.0, and the states this query keeps.
      EXPECT_THAT(status,
                  StatusIs(absl::StatusCode::kDataLoss,
                           HasSubstr(absl::StrCat("no ", name, " section"))));
    } else if (kind == 11) {
      // A frame without a run id is one of no run.
      EXPECT_OK(status);
    }
  }
  // A state section of a query that keeps no such state.
  const Sections plain = SplitSections(RealPartial());
  for (const auto& [kind, payload] : whole.list) {
    if (kind < 7 || kind > 9) continue;
    Sections s = plain;
    s.list.emplace_back(kind, payload);
    s.header[16] = 1;  // the state sections flag
    EXPECT_THAT(Load(JoinSections(s)),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr(absl::StrCat("unexpected ", kNames.at(kind),
                                                " section"))));
  }
}

// Damage behind a valid checksum, each refused with its own message.
TEST(PartialSectionsTest, NamedErrorsBehindAValidChecksum) {
  using testing::StatusIs;
  const std::string p = AllSectionsPartial();
  const Sections whole = SplitSections(p);
  auto find = [](Sections& s, uint32_t kind) -> std::string& {
    return s.Of(kind);
  };
  {
    // Coverage [1, 1) is empty.
    std::string empty = p;
    PutU64(&empty, 48, 1);
    Reseal(&empty);
    EXPECT_THAT(Load(empty), StatusIs(absl::StatusCode::kDataLoss,
                                      HasSubstr("empty coverage [1, 1)")));
  }
  {
    std::string small = p;
    small[12] = 71;
    EXPECT_THAT(Load(small), StatusIs(absl::StatusCode::kDataLoss,
                                      HasSubstr("header size 71 < 72")));
  }
  {
    std::string small = p;
    PutU64(&small, 24, 79);
    EXPECT_THAT(Load(small),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("frame size 79 is smaller than its header "
                                   "and trailer")));
  }
  {
    // A section longer than the rest of the frame.
    std::string framing = p;
    PutU64(&framing, 72 + 4, p.size());
    Reseal(&framing);
    EXPECT_THAT(Load(framing), StatusIs(absl::StatusCode::kDataLoss,
                                        HasSubstr("section framing")));
  }
  {
    // lines_read, the counters section's first value, one more than the
    // outcomes add up to.
    Sections s = whole;
    std::string& counters = find(s, 2);
    const size_t name_length = static_cast<uint8_t>(counters[4]);
    ASSERT_EQ(counters.substr(8, name_length), "lines_read");
    counters[8 + name_length] =
        static_cast<char>(counters[8 + name_length] + 1);
    EXPECT_THAT(Load(JoinSections(s)),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("line counters do not add up")));
  }
  {
    Sections s = whole;
    find(s, 11) = std::string(4, '\0');  // an empty run id
    EXPECT_THAT(Load(JoinSections(s)), StatusIs(absl::StatusCode::kDataLoss,
                                                HasSubstr("run section")));
  }
  {
    // The quantile section opens with the exact-value limit (u32, at most
    // 2^20) and the accuracy (a double in [0.0001, 0.2]).
    Sections s = whole;
    PutU64(&find(s, 7), 4, std::bit_cast<uint64_t>(0.5));
    EXPECT_THAT(Load(JoinSections(s)),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("quantile states section (settings)")));
    s = whole;
    find(s, 7)[2] = 0x20;  // 2^21 exact values
    EXPECT_THAT(Load(JoinSections(s)),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr("quantile states section (settings)")));
  }
  {
    // Another query's slots, field counts, key parts or not-numeric list.
    const Sections plain = SplitSections(RealPartial());
    for (uint32_t kind : {3u, 4u, 5u, 10u}) {
      Sections s = whole;
      find(s, kind) = [&] {
        for (const auto& section : plain.list) {
          if (section.first == kind) return section.second;
        }
        return std::string("\x7f\0\0\0", 4);
      }();
      const absl::Status status = Load(JoinSections(s));
      EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << kind;
      EXPECT_THAT(status.message(),
                  AnyOf(HasSubstr("do not match the query"),
                        HasSubstr("does not match the query")))
          << kind;
    }
  }
}

// partial_fuzzer's findings (tests/fuzz/corpus/partial/regress_*): the
// input's first byte is the fuzzer's mode (bit 0: reseal the frame).
TEST(PartialTest, FuzzerFindingsAreRefused) {
  const fs::path dir =
      fs::path(MAPR_GOLDEN_DIR) / ".." / "fuzz" / "corpus" / "partial";
  int found = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("regress_", 0) != 0) continue;
    ++found;
    SCOPED_TRACE(entry.path().filename().string());
    const std::string input = ReadFile(entry.path());
    ASSERT_FALSE(input.empty());
    std::string frame = input.substr(1);
    if ((input[0] & 1) != 0 && frame.size() >= 80) {
      PutU64(&frame, 24, frame.size());
      Reseal(&frame);
    }
    // Refused with a named code, or loaded and re-serialized to itself.
    absl::StatusOr<Aggregator> agg = Aggregator::FromPartial(frame, Options());
    if (!agg.ok()) {
      EXPECT_THAT(
          agg.status().code(),
          AnyOf(absl::StatusCode::kInvalidArgument, absl::StatusCode::kDataLoss,
                absl::StatusCode::kFailedPrecondition));
      continue;
    }
    ASSERT_OK(agg->FinishInput());
    ASSERT_OK_AND_ASSIGN(std::string bytes, agg->SerializePartial());
    ASSERT_OK_AND_ASSIGN(Aggregator again,
                         Aggregator::FromPartial(bytes, Options()));
    ASSERT_OK(again.FinishInput());
    EXPECT_EQ(*again.SerializePartial(), bytes);
  }
  EXPECT_GE(found, 1);
}

// ------------------------------------------------------------ Golden v1

// tests/golden/partial/v1.mpart: kQuery over SmallLines(), splits [0, 1),
// as mapr wrote it in format 1.0; v1.1.mpart: the same, as this mapr writes
// it (1.1 adds the "more counters" section). Every later version must keep
// reading both. The test never writes a golden file: on a change of the
// format's version, mapr_write_partial_goldens
// (tests/golden/write_partial_goldens.cc) rewrites v1.1.mpart and the
// partitions below; v1.mpart and v1.csv are never rewritten. Golden v1.5
// frames: the partial of RealPartial()'s state cut into 3 partitions
// (tests/golden/partial/v1.5-partition-P-of-3.mpart). Each must load, write
// back its own bytes, and the three must join to v1.csv; this mapr must still
// cut the state into the same bytes (rewritten only on a format change, by
// mapr_write_partial_goldens).
TEST(PartialTest, GoldenPartitionedPartialsStillRead) {
  const fs::path dir = fs::path(MAPR_GOLDEN_DIR) / "partial";
  ASSERT_OK_AND_ASSIGN(Aggregator whole,
                       Aggregator::FromPartial(RealPartial(), Options()));
  ASSERT_OK(whole.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> cut,
                       whole.SerializePartitions(3));
  auto path = [&](uint32_t p) {
    return dir / absl::StrCat("v1.5-partition-", p, "-of-3.mpart");
  };
  std::optional<Aggregator> joined;
  for (uint32_t p = 0; p < 3; ++p) {
    const std::string bytes = ReadFile(path(p));
    ASSERT_FALSE(bytes.empty()) << path(p);
    EXPECT_EQ(bytes, cut[p]) << path(p);
    ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(bytes));
    EXPECT_EQ(info.minor, 5);
    EXPECT_EQ(info.partitions, 3u);
    EXPECT_EQ(info.partition, p);
    EXPECT_EQ(info.counters.lines_read, p == 0 ? 41u : 0u);
    ASSERT_OK_AND_ASSIGN(Aggregator agg,
                         Aggregator::FromPartial(bytes, Options()));
    ASSERT_OK(agg.FinishInput());
    ASSERT_OK_AND_ASSIGN(std::string again, agg.SerializePartial());
    EXPECT_EQ(again, bytes);
    ASSERT_OK_AND_ASSIGN(Aggregator open,
                         Aggregator::FromPartial(bytes, Options()));
    if (!joined.has_value()) {
      joined.emplace(std::move(open));
    } else {
      ASSERT_OK(joined->Merge(std::move(open)));
    }
  }
  ASSERT_OK(joined->FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, joined->TakeResult());
  EXPECT_EQ(r.ToCsv(), ReadFile(dir / "v1.csv"));
}

TEST(PartialTest, GoldenV1PartialStillReads) {
  const fs::path dir = fs::path(MAPR_GOLDEN_DIR) / "partial";
  const fs::path file = dir / "v1.mpart";
  const fs::path current = dir / "v1.1.mpart";
  const fs::path csv = dir / "v1.csv";
  const std::string golden = ReadFile(current);
  ASSERT_FALSE(golden.empty()) << current;
  for (const fs::path& path : {file, current}) {
    const std::string bytes = ReadFile(path);
    ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(bytes));
    EXPECT_EQ(info.major, 1);
    EXPECT_EQ(info.minor, path == file ? 0 : 1);
    EXPECT_EQ(info.groups, 5u);
    EXPECT_EQ(info.counters.lines_read, 41u);
    EXPECT_EQ(info.counters.lines_unmatched, 0u);
    ASSERT_OK_AND_ASSIGN(Aggregator agg,
                         Aggregator::FromPartial(bytes, Options()));
    ASSERT_OK(agg.FinishInput());
    // A 1.0 partial is written back as this mapr writes the same state.
    ASSERT_OK_AND_ASSIGN(std::string again, agg.SerializePartial());
    EXPECT_EQ(again, golden) << path;
    ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
    EXPECT_EQ(r.ToCsv(), ReadFile(csv)) << path;
  }
  // And this mapr still writes the same bytes for the same input.
  EXPECT_EQ(RealPartial(), golden);
}

}  // namespace
}  // namespace mapr
