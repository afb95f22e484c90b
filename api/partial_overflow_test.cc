// Hostile partials: frames with a valid checksum whose values are each
// readable but overflow when merged (counts, exact sums, line counters),
// partitions other than the first that carry counters, and states this
// mapr must refuse to write because its own reader would refuse them.
// docs/partial-format.md, "What a reader refuses".
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/partial.h"
#include "mapr/partial_reducer.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/partial_frames.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::GetU32;
using ::mapr::testing::JoinSections;
using ::mapr::testing::PutU64;
using ::mapr::testing::Sections;
using ::mapr::testing::SetCounter;
using ::mapr::testing::SplitSections;
using ::mapr::testing::StatusIs;
using ::testing::HasSubstr;

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kI64Max = std::numeric_limits<int64_t>::max();

// Section kinds (docs/partial-format.md).
constexpr uint32_t kCounters = 2;
constexpr uint32_t kFieldCounts = 4;
constexpr uint32_t kGroups = 5;
constexpr uint32_t kQuantileStates = 7;
constexpr uint32_t kDistinctStates = 8;
constexpr uint32_t kMomentsStates = 9;
constexpr uint32_t kNotNumeric = 10;

AggregatorOptions Options(SplitRange splits = {0, 1}) {
  AggregatorOptions o;
  o.hostname = "test";
  o.splits = splits;
  return o;
}

// The partial of `query` over `lines`, covering `splits`.
std::string Frame(std::string_view query,
                  const std::vector<std::string_view>& lines,
                  SplitRange splits) {
  absl::StatusOr<Query> q = Query::Compile(query);
  EXPECT_TRUE(q.ok()) << q.status();
  absl::StatusOr<Aggregator> a = Aggregator::Create(*q, Options(splits));
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->PushLines(lines).ok());
  EXPECT_TRUE(a->FinishInput().ok());
  absl::StatusOr<std::string> frame = a->SerializePartial();
  EXPECT_TRUE(frame.ok()) << frame.status();
  return frame.ok() ? *frame : std::string();
}

// `frame` with the u64 at byte `at` of the payload of section `kind` set
// to `value`, sealed again.
std::string WithU64(const std::string& frame, uint32_t kind, size_t at,
                    uint64_t value) {
  Sections s = SplitSections(frame);
  PutU64(&s.Of(kind), at, value);
  return JoinSections(s);
}

// How a merge of the frames `earlier` and `later` (adjacent) goes, every
// way this mapr merges frames: into an aggregator of either, and in a
// reducer. Each must give the same status; that status is returned.
absl::Status MergeEveryWay(const std::string& earlier,
                           const std::string& later) {
  absl::Status statuses[3];
  {
    absl::StatusOr<Aggregator> a = Aggregator::FromPartial(earlier, Options());
    EXPECT_TRUE(a.ok()) << a.status();
    statuses[0] = a->MergeSerialized(later);
    if (statuses[0].ok()) {
      // Merged: it must write a frame its own reader reads.
      EXPECT_TRUE(a->FinishInput().ok());
      absl::StatusOr<std::string> frame = a->SerializePartial();
      EXPECT_TRUE(frame.ok()) << frame.status();
      if (frame.ok()) {
        EXPECT_TRUE(Aggregator::FromPartial(*frame, Options()).ok());
      }
    }
  }
  {
    absl::StatusOr<Aggregator> a = Aggregator::FromPartial(later, Options());
    EXPECT_TRUE(a.ok()) << a.status();
    statuses[1] = a->MergeSerialized(earlier);
  }
  {
    PartialReducer reducer(Options());
    statuses[2] = reducer.Add(earlier);
    if (statuses[2].ok()) statuses[2] = reducer.Add(later);
    if (statuses[2].ok()) statuses[2] = reducer.TakeResult().status();
  }
  EXPECT_EQ(statuses[0], statuses[1]);
  EXPECT_EQ(statuses[0], statuses[2]);
  return statuses[0];
}

// ------------------------------------------------ counts and sums (merge)

// One group, "a", of one aggregate of x.
std::string OneGroupQuery(const std::string& aggregate) {
  return absl::StrCat("select h,", aggregate, " group by h logformat logfmt");
}

struct OverflowCase {
  std::string aggregate;  // as selected: count($line), avg(x), ...
  std::string named;      // as its error names it (its state's slot)
  std::string line;       // the one line of each frame
  uint32_t section;       // the section of its state
  // The hostile state: the payload of `section` from its real one (one
  // group, "a").
  std::string (*forge)(const std::string& payload);
};

// The groups section of one group "a" with one stored slot: u32 parts,
// u32 1 "a", presence bits, then the state (its u64 count first for count,
// avg).
constexpr size_t kGroupsStateAt = 4 + 4 + 1 + 1;
// A later state section's: u32 n, the presence bits, the state.
constexpr size_t kLaterStateAt = 4 + 1;

std::string MaxCount(const std::string& payload) {
  std::string out = payload;
  PutU64(&out, kGroupsStateAt, kI64Max);
  return out;
}

std::vector<OverflowCase> OverflowCases() {
  return {
      {"count($line)", "count($line)", "h=a", kGroups, MaxCount},
      {"avg(x)", "avg(x)", "h=a x=1", kGroups, MaxCount},
      {"stddev(x)", "stddev(x)", "h=a x=1", kMomentsStates,
       [](const std::string& payload) {
         std::string out = payload;
         PutU64(&out, kLaterStateAt, kI64Max);
         return out;
       }},
      {"median(x)", "median(x)", "h=a x=0", kQuantileStates,
       [](const std::string& payload) {
         // Settings (u32, u64) and n, the presence bits, then a sketch of
         // 2^64 - 1 zeros: u8 1, u64 count, min and max bits, u64 zeros,
         // two empty stores.
         std::string out = payload.substr(0, 4 + 8 + 4 + 1);
         out.push_back(1);
         for (uint64_t v : {kU64Max, uint64_t{0}, uint64_t{0}, kU64Max}) {
           out.append(8, '\0');
           PutU64(&out, out.size() - 8, v);
         }
         out.append(8, '\0');
         return out;
       }},
      {"topk(x, 3)", "topk(x)", "h=a x=v", kDistinctStates,
       [](const std::string& payload) {
         // u8 form 0, u32 1, u32 1 "v", u64 count.
         std::string out = payload;
         PutU64(&out, kLaterStateAt + 1 + 4 + 4 + 1, kU64Max);
         return out;
       }},
      {"histogram(x, 10)", "histogram(x, 10)", "h=a x=1", kDistinctStates,
       [](const std::string& payload) {
         // u8 form 0, u32 1, u32 1 "0", u64 count.
         std::string out = payload;
         PutU64(&out, kLaterStateAt + 1 + 4 + 4 + 1, kU64Max);
         return out;
       }},
      {"sum(x)", "sum(x)", "h=a x=1", kGroups,
       [](const std::string& payload) {
         // Its flags, then form 1: an exact sum just below 2^1086, the
         // largest a reader takes (tag 1, word 67 of 68, 0x3fffffff).
         std::string out = payload.substr(0, kGroupsStateAt + 1);
         out += std::string("\x01\x01\x43\x01\xff\xff\xff\x3f", 8);
         return out;
       }},
  };
}

TEST(HostilePartialTest, EveryMergedCountAndSumIsChecked) {
  for (const OverflowCase& c : OverflowCases()) {
    SCOPED_TRACE(c.aggregate);
    const std::string query = OneGroupQuery(c.aggregate);
    std::string frames[2];
    for (uint64_t i = 0; i < 2; ++i) {
      Sections s = SplitSections(Frame(query, {c.line}, {i, i + 1}));
      s.Of(c.section) = c.forge(s.Of(c.section));
      frames[i] = JoinSections(s);
      // Each alone is a partial this mapr reads.
      ASSERT_OK_AND_ASSIGN(Aggregator alone,
                           Aggregator::FromPartial(frames[i], Options()));
    }
    const bool sum = c.aggregate == "sum(x)";
    EXPECT_THAT(
        MergeEveryWay(frames[0], frames[1]),
        StatusIs(absl::StatusCode::kDataLoss,
                 absl::StrCat(c.named, " overflows when merged: ",
                              sum ? "a group's exact sum reaches 2^1086"
                                  : "a group's counts pass 64 bits",
                              " (the partials cannot be of real input)")));
  }
}

TEST(HostilePartialTest, CountsJustBelowTheLimitMergeAndReadBack) {
  const std::string query = OneGroupQuery("count($line)");
  std::string frames[2];
  for (uint64_t i = 0; i < 2; ++i) {
    frames[i] = WithU64(Frame(query, {"h=a"}, {i, i + 1}), kGroups,
                        kGroupsStateAt, i == 0 ? kI64Max - 1 : 1);
  }
  EXPECT_OK(MergeEveryWay(frames[0], frames[1]));
}

TEST(HostilePartialTest, WindowsOfHopsWhoseCountsOverflowAreRefused) {
  // Two hops of 2^63 - 1 lines each: a window of both overflows when the
  // result joins them.
  const std::string query =
      "select $w,count($line) set $w = window(t, 2m, 1m) group by $w "
      "logformat logfmt";
  Sections s = SplitSections(Frame(
      query, {"t=2024-05-01T12:00:10Z", "t=2024-05-01T12:01:10Z"}, {0, 1}));
  std::string& groups = s.Of(kGroups);
  size_t at = 4;
  for (int g = 0; g < 2; ++g) {
    at += 4 + GetU32(groups, at) + 1;  // the key, the presence bits
    PutU64(&groups, at, kI64Max);
    at += 8;
  }
  ASSERT_OK_AND_ASSIGN(Aggregator a,
                       Aggregator::FromPartial(JoinSections(s), Options()));
  ASSERT_OK(a.FinishInput());
  EXPECT_THAT(a.TakeResult(),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("count($line) overflows when merged")));
}

// ------------------------------------------- line counters and field counts

TEST(HostilePartialTest, LineCountersThatOverflowAreRefused) {
  const std::string query = OneGroupQuery("count($line)");
  std::string frames[2];
  for (uint64_t i = 0; i < 2; ++i) {
    Sections s = SplitSections(Frame(query, {"h=a"}, {i, i + 1}));
    SetCounter(&s.Of(kCounters), "lines_read", kU64Max);
    SetCounter(&s.Of(kCounters), "lines_aggregated", kU64Max);
    frames[i] = JoinSections(s);
    ASSERT_OK(InspectPartial(frames[i]).status());
  }
  EXPECT_THAT(
      MergeEveryWay(frames[0], frames[1]),
      StatusIs(absl::StatusCode::kDataLoss,
               "lines_read overflows when merged: the partials' counts pass "
               "64 bits (the partials cannot be of real input)"));
}

TEST(HostilePartialTest, FieldCountsThatOverflowAreRefused) {
  // The field counts (u32 n, then per field u32 length, name, u64) and the
  // values that were not numbers (u32 n, then per field u64 count, u32
  // length, example) of x.
  const std::string query = OneGroupQuery("sum(x)");
  std::string frames[2];
  for (const bool not_numeric : {false, true}) {
    SCOPED_TRACE(not_numeric);
    for (uint64_t i = 0; i < 2; ++i) {
      Sections s = SplitSections(Frame(query, {"h=a x=abc"}, {i, i + 1}));
      if (not_numeric) {
        // h's entry (0, no example), then x's.
        std::string& values = s.Of(kNotNumeric);
        ASSERT_EQ(GetU32(values, 0), 2u);
        PutU64(&values, 4 + 8 + 4, kU64Max);
      } else {
        std::string& counts = s.Of(kFieldCounts);
        ASSERT_EQ(GetU32(counts, 0), 2u);  // h, x
        const size_t x = 4 + 4 + 1 + 8;
        ASSERT_EQ(counts.substr(x + 4, 1), "x");
        PutU64(&counts, x + 4 + 1, kU64Max);
      }
      frames[i] = JoinSections(s);
      ASSERT_OK(InspectPartial(frames[i]).status());
    }
    EXPECT_THAT(
        MergeEveryWay(frames[0], frames[1]),
        StatusIs(absl::StatusCode::kDataLoss,
                 absl::StrCat(not_numeric ? "the count of values of field 'x' "
                                            "that were not numbers"
                                          : "the count of lines with field 'x'",
                              " overflows when merged: the partials' "
                              "counts pass 64 bits (the partials "
                              "cannot be of real input)")));
  }
}

// ------------------------------------------------------------ partitions

// The partials of `query` over `lines` cut into 4 partitions.
std::vector<std::string> Partitions(std::string_view query,
                                    const std::vector<std::string>& lines) {
  absl::StatusOr<Query> q = Query::Compile(query);
  EXPECT_TRUE(q.ok()) << q.status();
  absl::StatusOr<Aggregator> a = Aggregator::Create(*q, Options());
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->PushLines(lines).ok());
  EXPECT_TRUE(a->FinishInput().ok());
  absl::StatusOr<std::vector<std::string>> frames = a->SerializePartitions(4);
  EXPECT_TRUE(frames.ok()) << frames.status();
  return frames.ok() ? *frames : std::vector<std::string>();
}

// Lines of n keys, and one whose x is not a number.
std::vector<std::string> KeyLines(int n) {
  std::vector<std::string> lines;
  for (int i = 0; i < n; ++i) lines.push_back(absl::StrCat("h=k", i, " x=", i));
  lines.push_back("h=k0 x=abc");
  return lines;
}

TEST(HostilePartialTest, OnlyTheFirstPartitionCarriesCounters) {
  // Partition 0's line counters, field counts or values not numeric
  // grafted onto partition 2: a reducer would count them twice.
  const std::vector<std::string> frames =
      Partitions(OneGroupQuery("sum(x)"), KeyLines(40));
  ASSERT_EQ(frames.size(), 4u);
  Sections first = SplitSections(frames[0]);
  struct Graft {
    uint32_t kind;
    std::string what;
  };
  for (const Graft& g : {Graft{kCounters, "line counters (lines_read 41)"},
                         Graft{kFieldCounts, "field counts (h 41)"},
                         Graft{kNotNumeric, "values not numeric (x 1)"}}) {
    SCOPED_TRACE(g.kind);
    Sections s = SplitSections(frames[2]);
    bool replaced = false;
    for (auto& [kind, payload] : s.list) {
      if (kind != g.kind) continue;
      payload = first.Of(g.kind);
      replaced = true;
    }
    // Partition 2 has no values-not-numeric section: it gets one.
    if (!replaced) s.list.emplace_back(g.kind, first.Of(g.kind));
    const std::string bad = JoinSections(s);
    const auto refused =
        StatusIs(absl::StatusCode::kDataLoss,
                 absl::StrCat("malformed partial: partition 2 of 4 carries ",
                              g.what, "; only partition 0 does"));
    EXPECT_THAT(InspectPartial(bad), refused);
    EXPECT_THAT(Aggregator::FromPartial(bad, Options()), refused);
    PartialReducer reducer(Options());
    EXPECT_THAT(reducer.Add(bad), refused);
  }
  // The frames as written join to the one-pass counters.
  PartialReducer reducer(Options());
  for (const std::string& frame : frames) ASSERT_OK(reducer.Add(frame));
  ASSERT_OK_AND_ASSIGN(ResultTable r, reducer.TakeResult());
  EXPECT_EQ(r.stats().lines_read, 41u);
}

TEST(HostilePartialTest, APartitionStateWithOtherGroupsIsNotWritten) {
  // A state read from partition 1 that then holds groups of other
  // partitions (lines pushed into it, or another partition merged) or
  // counters would write a frame its reader refuses: writing it fails.
  const std::string query = OneGroupQuery("count($line)");
  const std::vector<std::string> frames = Partitions(query, KeyLines(40));
  {
    ASSERT_OK_AND_ASSIGN(Aggregator a,
                         Aggregator::FromPartial(frames[1], Options()));
    ASSERT_OK(a.PushLines(KeyLines(40)));
    ASSERT_OK(a.FinishInput());
    EXPECT_THAT(a.SerializePartial(),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         HasSubstr("cannot be written as partition 1 of 4")));
    EXPECT_THAT(
        a.WritePartial([](std::string_view) { return absl::OkStatus(); }),
        StatusIs(absl::StatusCode::kFailedPrecondition,
                 HasSubstr("cannot be written as partition 1 of 4")));
  }
  {
    ASSERT_OK_AND_ASSIGN(Aggregator a,
                         Aggregator::FromPartial(frames[1], Options()));
    ASSERT_OK_AND_ASSIGN(Aggregator other,
                         Aggregator::FromPartial(frames[3], Options()));
    ASSERT_OK(a.Merge(std::move(other)));
    ASSERT_OK(a.FinishInput());
    EXPECT_THAT(a.SerializePartial(),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         HasSubstr("cannot be written as partition 1 of 4")));
  }
  {
    // Its own partition's frames merged: written, and read back.
    ASSERT_OK_AND_ASSIGN(Aggregator a,
                         Aggregator::FromPartial(frames[1], Options()));
    ASSERT_OK(a.FinishInput());
    ASSERT_OK_AND_ASSIGN(std::string again, a.SerializePartial());
    EXPECT_EQ(again, frames[1]);
  }
}

// ------------------------------------------------------ states and splits

TEST(HostilePartialTest, NoDeltaPartialPastTheLastSplit) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(OneGroupQuery("count($line)")));
  ASSERT_OK_AND_ASSIGN(Aggregator a,
                       Aggregator::Create(q, Options({kU64Max - 1, kU64Max})));
  ASSERT_OK(a.PushLines({"h=a"}));
  ASSERT_OK_AND_ASSIGN(std::string last, a.TakeDeltaPartial());
  ASSERT_OK_AND_ASSIGN(PartialInfo info, InspectPartial(last));
  EXPECT_EQ(info.splits, (SplitRange{kU64Max - 1, kU64Max}));
  ASSERT_OK(a.PushLines({"h=b"}));
  EXPECT_THAT(a.TakeDeltaPartial(),
              StatusIs(absl::StatusCode::kOutOfRange,
                       "TakeDeltaPartial: no split follows split "
                       "18446744073709551614"));
}

// topk's summary (form 2): the Misra-Gries counters it holds and its error
// (what it subtracted) account for at most the values counted: held +
// 1025 * error <= n. A state that claims more would, merged, subtract past
// its bound and write an error its reader refuses (error > n / 1025).

uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The sketch column of row r of a value (docs/partial-format.md).
uint32_t Column(std::string_view value, uint32_t r) {
  constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  const uint64_t h = XXH3_64bits(value.data(), value.size());
  const uint64_t m = r < 4 ? Mix(h + kGolden) : Mix(h + 2 * kGolden);
  return static_cast<uint32_t>(m >> (13 * (r < 4 ? r : r - 4))) & 8191;
}

void AppendU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void AppendU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// A summary of n values that holds `held` values ("v0000", ...) with
// count 2 each and an error of `error`, every row's counters summing to n
// and each held value's estimate at least 2.
std::string TopkSummary(uint64_t n, uint64_t error, int held) {
  std::vector<std::string> values;
  for (int i = 0; i < held; ++i) values.push_back(absl::StrFormat("v%04d", i));
  std::string out;
  out.push_back(2);
  AppendU64(&out, n);
  AppendU64(&out, error);
  for (uint32_t r = 0; r < 6; ++r) {
    std::vector<uint64_t> row(8192, 0);
    for (const std::string& v : values) row[Column(v, r)] = 2;
    uint64_t sum = 0;
    for (uint64_t c : row) sum += c;
    EXPECT_LE(sum, n);
    row[Column(values[0], r)] += n - sum;
    for (uint64_t c : row) {
      do {  // varint
        out.push_back(static_cast<char>((c & 0x7f) | (c > 0x7f ? 0x80 : 0)));
        c >>= 7;
      } while (c != 0);
    }
  }
  AppendU32(&out, static_cast<uint32_t>(values.size()));
  for (const std::string& v : values) {  // in increasing byte order
    AppendU32(&out, static_cast<uint32_t>(v.size()));
    out += v;
    AppendU64(&out, 2);
  }
  return out;
}

TEST(HostilePartialTest, TopkSummariesThatClaimMoreThanTheyCountedAreRefused) {
  const std::string query = OneGroupQuery("topk(x, 3)");
  // The state section: u32 n (1), the presence bits, the state.
  auto with_state = [&](const std::string& state) {
    Sections s = SplitSections(Frame(query, {"h=a x=v"}, {0, 1}));
    s.Of(kDistinctStates) = std::string("\x01\0\0\0\x01", 5) + state;
    return JoinSections(s);
  };
  // 2048 held values of count 2 (4096) and an error of 4 from 4100
  // values: 4096 + 1025 * 4 > 4100. Merged with one more value, the
  // summary would drop every counter, subtract 2 more, and hold an error
  // of 6 for 4101 values, more than 4101 / 1025.
  const std::string hostile = with_state(TopkSummary(4100, 4, 2048));
  EXPECT_THAT(Aggregator::FromPartial(hostile, Options()),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("malformed partial: state 0 of the distinct "
                                 "states section in group 0")));
  // Within the bound (with an error of at least 1, 2048 values of count 2
  // need n >= 4096 + 1025): it reads, and merges into a state that reads.
  const std::string honest = with_state(TopkSummary(4096 + 1025, 1, 2048));
  EXPECT_OK(Aggregator::FromPartial(honest, Options()).status());
  EXPECT_OK(MergeEveryWay(honest, Frame(query, {"h=a x=w"}, {1, 2})));
}

}  // namespace
}  // namespace mapr
