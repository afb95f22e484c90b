// window(t, w, h) end to end: every window's count, sum, min, max, first and
// last equal a brute-force pass over the lines it covers, for random widths,
// hops and offsets, and the result is the same bytes for any split of the
// input into aggregators merged in order, and through partials.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/partial_reducer.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::mapr::testing::TestOptions;
using ::testing::HasSubstr;

struct Event {
  int64_t utc;  // epoch seconds
  int64_t ms;   // the value
  std::string line;
};

// RFC 3339 in a fixed offset of `off_min` minutes.
std::string Rfc3339(int64_t utc, int off_min) {
  const absl::CivilSecond c = absl::ToCivilSecond(
      absl::FromUnixSeconds(utc), absl::FixedTimeZone(off_min * 60));
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", c.year(),
                         c.month(), c.day(), c.hour(), c.minute(), c.second(),
                         off_min < 0 ? '-' : '+', std::abs(off_min) / 60,
                         std::abs(off_min) % 60);
}

// The expected CSV of
//   select $w, count($line), sum(ms), min(ms), max(ms), first(ms), last(ms)
//   set $w = window(t, W, H) group by $w
// computed by brute force: the window starting at s (a multiple of h from
// midnight in the offset) holds the lines with s <= t < s + w; first/last
// are the first/last line in input order of its earliest/latest hop.
std::string Expected(const std::vector<Event>& events, int64_t width,
                     int64_t hop, int off_min) {
  const int64_t off = off_min * 60;
  std::map<int64_t, std::vector<const Event*>> by_hop;  // local hop start
  for (const Event& e : events) {
    const int64_t local = e.utc + off;
    by_hop[local - ((local % hop) + hop) % hop].push_back(&e);
  }
  std::map<int64_t, bool> starts;
  for (const auto& [h, unused] : by_hop) {
    for (int64_t s = h; s > h - width; s -= hop) starts[s] = true;
  }
  std::string out =
      "$w,count($line),sum(ms),min(ms),max(ms),first(ms),last(ms)\n";
  for (const auto& [s, unused] : starts) {
    int64_t count = 0, sum = 0, lo = INT64_MAX, hi = INT64_MIN;
    const Event* first = nullptr;
    const Event* last = nullptr;
    for (auto it = by_hop.lower_bound(s);
         it != by_hop.end() && it->first < s + width; ++it) {
      for (const Event* e : it->second) {
        ++count;
        sum += e->ms;
        lo = std::min(lo, e->ms);
        hi = std::max(hi, e->ms);
        if (first == nullptr) first = e;
        last = e;
      }
    }
    absl::StrAppend(&out, Rfc3339(s - off, off_min), ",", count, ",", sum,
                    ".000000,", lo, ".000000,", hi, ".000000,", first->ms, ",",
                    last->ms, "\n");
  }
  return out;
}

std::string Query(int64_t width, int64_t hop) {
  return absl::StrCat(
      "select $w,count($line),sum(ms),min(ms),max(ms),first(ms),last(ms) ",
      "set $w = window(t, ", width, "s, ", hop,
      "s) group by $w logformat logfmt");
}

// The result of `query` over lines [cuts[i], cuts[i+1]) in aggregators of
// their own, merged in order (through a partial when `serialized`).
std::string Split(std::string_view query, const std::vector<Event>& events,
                  const std::vector<size_t>& cuts, bool serialized) {
  absl::StatusOr<mapr::Query> q = mapr::Query::Compile(query);
  EXPECT_TRUE(q.ok()) << q.status();
  std::vector<Aggregator> parts;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    AggregatorOptions options = TestOptions();
    options.splits = SplitRange{i, i + 1};
    absl::StatusOr<Aggregator> a = Aggregator::Create(*q, options);
    EXPECT_TRUE(a.ok()) << a.status();
    std::vector<std::string_view> lines;
    for (size_t k = cuts[i]; k < cuts[i + 1]; ++k) {
      lines.push_back(events[k].line);
    }
    EXPECT_TRUE(a->PushLines(lines).ok());
    parts.push_back(std::move(*a));
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    if (serialized) {
      EXPECT_TRUE(parts[i].FinishInput().ok());
      absl::StatusOr<std::string> frame = parts[i].SerializePartial();
      EXPECT_TRUE(frame.ok()) << frame.status();
      EXPECT_TRUE(parts[0].MergeSerialized(*frame).ok());
    } else {
      EXPECT_TRUE(parts[0].Merge(std::move(parts[i])).ok());
    }
  }
  EXPECT_TRUE(parts[0].FinishInput().ok());
  absl::StatusOr<ResultTable> r = parts[0].TakeResult();
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->ToCsv() : "";
}

TEST(WindowTest, MatchesBruteForceForAnySplit) {
  std::mt19937_64 rng(31);
  const int64_t kHops[] = {1, 30, 60, 300, 900, 3600};
  for (int round = 0; round < 40; ++round) {
    const int64_t hop = kHops[rng() % std::size(kHops)];
    const int64_t width = hop * static_cast<int64_t>(1 + rng() % 6);
    const int off_min = static_cast<int>(rng() % 1439) - 719;
    // Lines over about 40 hops, out of time order, from a random day.
    const int64_t base = 1500000000 + static_cast<int64_t>(rng() % 400000000);
    std::vector<Event> events(1 + rng() % 300);
    for (Event& e : events) {
      e.utc = base + static_cast<int64_t>(rng() % (40 * hop));
      e.ms = static_cast<int64_t>(rng() % 1000);
      e.line = absl::StrCat("t=", Rfc3339(e.utc, off_min), " ms=", e.ms);
    }
    const std::string query = Query(width, hop);
    const std::string expected = Expected(events, width, hop, off_min);
    std::vector<std::string_view> lines;
    for (const Event& e : events) lines.push_back(e.line);
    ASSERT_OK_AND_ASSIGN(ResultTable one,
                         RunQuery(query, lines, TestOptions()));
    ASSERT_EQ(one.ToCsv(), expected) << query;
    // Random cuts, merged in memory and through partials.
    std::vector<size_t> cuts = {0, events.size()};
    for (int c = static_cast<int>(rng() % 5); c > 0; --c) {
      cuts.push_back(rng() % (events.size() + 1));
    }
    std::sort(cuts.begin(), cuts.end());
    EXPECT_EQ(Split(query, events, cuts, false), expected) << query;
    EXPECT_EQ(Split(query, events, cuts, true), expected) << query;
  }
}

TEST(WindowTest, AGroupFieldBesideTheWindowKeepsItsWindowsApart) {
  // Two hosts, a window of 2 hops: each host's windows hold only its lines,
  // and the line without a readable time is one group of its own.
  const std::vector<std::string_view> lines = {
      "t=2024-05-01T12:00:10Z h=a", "t=2024-05-01T12:01:10Z h=a",
      "t=2024-05-01T12:01:20Z h=b", "t=yesterday h=b"};
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunQuery("select h,$w,count($line) set $w = window(t, 2m, 1m) "
               "group by h,$w logformat logfmt",
               lines, TestOptions()));
  EXPECT_EQ(r.ToCsv(),
            "h,$w,count($line)\n"
            "a,2024-05-01T11:59:00Z,1\n"
            "a,2024-05-01T12:00:00Z,2\n"
            "a,2024-05-01T12:01:00Z,1\n"
            "b,,1\n"
            "b,2024-05-01T12:00:00Z,1\n"
            "b,2024-05-01T12:01:00Z,1\n");
  EXPECT_EQ(r.stats().values_unparsed, 1u);
}

TEST(WindowTest, PartitionsKeepEveryHopOfAWindowTogether) {
  // Hash partitions of a window query leave the window out of the hash:
  // joining the partitions gives the one-pass result.
  std::vector<std::string> lines;
  for (int i = 0; i < 400; ++i) {
    lines.push_back(absl::StrFormat("t=2024-05-01T12:%02d:%02dZ h=h%d",
                                    (i * 7) % 60, (i * 13) % 60, i % 9));
  }
  const std::string query =
      "select h,$w,count($line) set $w = window(t, 10m, 2m) group by h,$w "
      "logformat logfmt";
  std::vector<std::string_view> views(lines.begin(), lines.end());
  ASSERT_OK_AND_ASSIGN(ResultTable one, RunQuery(query, views, TestOptions()));
  ASSERT_OK_AND_ASSIGN(mapr::Query q, mapr::Query::Compile(query));
  ASSERT_OK_AND_ASSIGN(Aggregator a, Aggregator::Create(q, TestOptions()));
  ASSERT_OK(a.PushLines(views));
  ASSERT_OK(a.FinishInput());
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> frames,
                       a.SerializePartitions(5));
  // Each partition alone holds whole windows: its rows are rows of the
  // one-pass result.
  const std::string all_rows = one.ToCsv();
  size_t rows = 0;
  for (const std::string& frame : frames) {
    ASSERT_OK_AND_ASSIGN(Aggregator part,
                         Aggregator::FromPartial(frame, TestOptions()));
    ASSERT_OK(part.FinishInput());
    ASSERT_OK_AND_ASSIGN(ResultTable r, part.TakeResult());
    const std::string csv = r.ToCsv();
    for (size_t at = csv.find('\n') + 1; at < csv.size();) {
      const size_t end = csv.find('\n', at) + 1;
      EXPECT_NE(all_rows.find(csv.substr(at, end - at)), std::string::npos)
          << csv.substr(at, end - at);
      at = end;
      ++rows;
    }
  }
  EXPECT_EQ(rows, one.num_rows());
  // A reducer that ends each partition before the next.
  PartialReducer reducer(TestOptions());
  for (uint32_t p = 0; p < frames.size(); ++p) {
    ASSERT_OK(reducer.Add(frames[p]));
    ASSERT_OK(reducer.EndPartition(p));
  }
  ASSERT_OK_AND_ASSIGN(ResultTable joined, reducer.TakeResult());
  EXPECT_EQ(joined.ToCsv(), one.ToCsv());
}

// ------------------------------------------------- windows and max_groups

// A line counts in w / h windows: the windows are the groups of the result,
// and they count against max_groups as the hops do.
constexpr std::string_view kTenMinuteWindows =
    "select $w,count($line) set $w = window(t, 10m, 1m) group by $w "
    "logformat logfmt";

// The refusal of a result of more than `n` windows.
auto TooManyWindows(uint64_t n) {
  return StatusIs(
      absl::StatusCode::kResourceExhausted,
      absl::StrCat("more than ", n,
                   " groups (max_groups) once hops are joined into windows; "
                   "raise the limit or give window() fewer hops per window"));
}

// Hops a day apart: each is in 10 windows of its own, 10 * days in all.
std::vector<std::string> DaysApart(int days) {
  std::vector<std::string> lines;
  for (int d = 0; d < days; ++d) {
    lines.push_back(absl::StrFormat("t=2024-05-%02dT12:00:10Z", 1 + d));
  }
  return lines;
}

TEST(WindowTest, WindowsCountAgainstMaxGroups) {
  const std::vector<std::string> lines = DaysApart(3);
  AggregatorOptions options = TestOptions();
  options.max_groups = 29;  // 3 hops fit, 30 windows do not
  EXPECT_THAT(RunQuery(kTenMinuteWindows, lines, options).status(),
              TooManyWindows(29));
  options.max_groups = 30;
  ASSERT_OK_AND_ASSIGN(ResultTable r,
                       RunQuery(kTenMinuteWindows, lines, options));
  EXPECT_EQ(r.num_rows(), 30u);
}

TEST(WindowTest, WindowsOfEveryGroupAndTheEmptyWindowCount) {
  // Two hosts with two hops each (a's a minute apart are in 11 windows,
  // b's three minutes apart in 13) and a line without a time (one group).
  const std::vector<std::string_view> lines = {
      "t=2024-05-01T12:00:10Z h=a", "t=2024-05-01T12:01:10Z h=a",
      "t=2024-05-01T12:00:10Z h=b", "t=2024-05-01T12:03:10Z h=b",
      "t=never h=a"};
  const std::string query =
      "select h,$w,count($line) set $w = window(t, 10m, 1m) group by h,$w "
      "logformat logfmt";
  AggregatorOptions options = TestOptions();
  options.max_groups = 24;
  EXPECT_THAT(RunQuery(query, lines, options).status(), TooManyWindows(24));
  options.max_groups = 25;
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunQuery(query, lines, options));
  EXPECT_EQ(r.num_rows(), 11u + 13u + 1u);
}

TEST(WindowTest, TheWindowLimitHoldsForEverySplitAndEveryResult) {
  // Each of three aggregators holds one hop (10 windows); merged, in
  // memory or through a partial, their result holds 30.
  const std::vector<std::string> lines = DaysApart(3);
  ASSERT_OK_AND_ASSIGN(mapr::Query q, mapr::Query::Compile(kTenMinuteWindows));
  AggregatorOptions options = TestOptions();
  options.max_groups = 29;
  std::vector<Aggregator> parts;
  std::vector<std::string> frames;
  for (size_t i = 0; i < lines.size(); ++i) {
    options.splits = SplitRange{i, i + 1};
    for (int copy = 0; copy < 2; ++copy) {
      ASSERT_OK_AND_ASSIGN(Aggregator a, Aggregator::Create(q, options));
      ASSERT_OK(a.PushLines(std::vector<std::string_view>{lines[i]}));
      ASSERT_OK_AND_ASSIGN(ResultTable alone, a.Snapshot());
      EXPECT_EQ(alone.num_rows(), 10u);
      if (copy == 0) {
        parts.push_back(std::move(a));
        continue;
      }
      ASSERT_OK(a.FinishInput());
      ASSERT_OK_AND_ASSIGN(std::string frame, a.SerializePartial());
      frames.push_back(std::move(frame));
    }
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    ASSERT_OK(parts[0].Merge(std::move(parts[i])));
  }
  // Snapshot and TakeDelta refuse the result and leave the state as it
  // was: its partial holds the 3 hops, within the limit.
  EXPECT_THAT(parts[0].Snapshot().status(), TooManyWindows(29));
  EXPECT_THAT(parts[0].TakeDelta().status(), TooManyWindows(29));
  EXPECT_EQ(parts[0].stats().lines_read, 3u);
  ASSERT_OK(parts[0].FinishInput());
  ASSERT_OK_AND_ASSIGN(std::string merged, parts[0].SerializePartial());
  EXPECT_THAT(parts[0].TakeResult().status(), TooManyWindows(29));
  // Through partials: a reducer with the limit refuses; one with room
  // for the windows shows them.
  options.splits = SplitRange{};
  PartialReducer reducer(options);
  for (const std::string& frame : frames) ASSERT_OK(reducer.Add(frame));
  EXPECT_THAT(reducer.Result().status(), TooManyWindows(29));
  EXPECT_THAT(reducer.TakeResult().status(), TooManyWindows(29));
  options.max_groups = 30;
  ASSERT_OK_AND_ASSIGN(Aggregator whole,
                       Aggregator::FromPartial(merged, options));
  ASSERT_OK(whole.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, whole.TakeResult());
  EXPECT_EQ(r.num_rows(), 30u);
}

TEST(WindowTest, ManyWindowsPerHopStopAtTheLimit) {
  // 100 hops a day apart in windows of a day that hop every minute: 1440
  // windows each, 144000 in all, from 100 lines. The result stops at the
  // limit instead of building them.
  std::vector<std::string> lines;
  for (int d = 0; d < 100; ++d) {
    lines.push_back(absl::StrCat("t=", Rfc3339(1700000000 + d * 86400, 0)));
  }
  AggregatorOptions options = TestOptions();
  options.max_groups = 100000;
  EXPECT_THAT(RunQuery("select $w,count($line) set $w = window(t, 1d, 1m) "
                       "group by $w logformat logfmt",
                       lines, options)
                  .status(),
              TooManyWindows(100000));
}

}  // namespace
}  // namespace mapr
