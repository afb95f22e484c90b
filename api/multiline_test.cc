// Multi-line events (`multiline`) end to end: events read from lines equal
// the same events pushed whole, for any batching, byte chunking, split of a
// file into ranges, thread count, producer layout and merge; pending events
// are completed exactly when the docs say; events over max_line_bytes are
// counted too long.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/files.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "mapr/turbo_aggregate.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"
#include "util/status_macros.h"

namespace mapr {
namespace {

using ::mapr::testing::TestOptions;

constexpr std::string_view kQuery =
    "select user, count($line), sum(ms), max(ms), last(ms), last($line) "
    "group by user order by user logformat logfmt multiline '^\\d{4}-'";
// The same query over whole events, one per pushed line.
constexpr std::string_view kWholeQuery =
    "select user, count($line), sum(ms), max(ms), last(ms), last($line) "
    "group by user order by user logformat logfmt";

struct Events {
  std::vector<std::vector<std::string>> events;  // Each event's lines.
  std::map<std::string, int> count_by_user;      // Counted by the test.

  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const auto& e : events) out.insert(out.end(), e.begin(), e.end());
    return out;
  }
  std::vector<std::string> Joined() const {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(absl::StrJoin(e, "\n"));
    return out;
  }
  std::string Text() const {
    std::string out;
    for (const std::string& line : Lines()) absl::StrAppend(&out, line, "\n");
    return out;
  }
};

// `n` events, a third of them with a stack trace (1 to 8 continuation
// lines: frames, causes, "... N more", blank lines); the input starts with
// continuation lines, which make an event of their own.
Events Generate(uint32_t seed, int n) {
  std::mt19937 rng(seed);
  const char* users[] = {"ann", "bob", "cy", "dee"};
  Events out;
  out.events.push_back({"\tat orphan.Frame.run(Frame.java:1)", "\t... 2 more"});
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> e;
    const std::string user = users[rng() % 4];
    e.push_back(absl::StrCat("2024-05-01T12:", 10 + i % 50,
                             ":00Z level=", rng() % 3 == 0 ? "error" : "info",
                             " user=", user, " ms=", rng() % 1000));
    if (rng() % 3 == 0) {
      const int more = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < more; ++k) {
        switch (rng() % 5) {
          case 0:
            e.push_back(absl::StrCat("Caused by: java.io.IOException: n", k));
            break;
          case 1:
            e.push_back(absl::StrCat("\t... ", rng() % 40, " more"));
            break;
          case 2:
            e.push_back("");
            break;
          default:
            e.push_back(absl::StrCat("\tat com.example.C", rng() % 100,
                                     ".f(C.java:", rng() % 500, ")"));
        }
      }
    }
    ++out.count_by_user[user];
    out.events.push_back(std::move(e));
  }
  return out;
}

std::string WholeCsv(const Events& ev, const AggregatorOptions& options) {
  const std::vector<std::string> joined = ev.Joined();
  absl::StatusOr<ResultTable> r = RunQuery(kWholeQuery, joined, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->ToCsv() : "";
}

absl::StatusOr<ResultTable> PushInBatches(const Query& q,
                                          const std::vector<std::string>& lines,
                                          std::mt19937& rng,
                                          const AggregatorOptions& options) {
  MAPR_ASSIGN_OR_RETURN(Aggregator agg, Aggregator::Create(q, options));
  std::vector<std::string_view> views(lines.begin(), lines.end());
  std::span<const std::string_view> rest(views);
  while (!rest.empty()) {
    const size_t n = std::min<size_t>(rest.size(), 1 + rng() % 7);
    MAPR_RETURN_IF_ERROR(agg.PushLines(rest.first(n)));
    rest = rest.subspan(n);
  }
  MAPR_RETURN_IF_ERROR(agg.FinishInput());
  return agg.TakeResult();
}

absl::StatusOr<ResultTable> PushInChunks(const Query& q, std::string_view text,
                                         std::mt19937& rng,
                                         const AggregatorOptions& options) {
  MAPR_ASSIGN_OR_RETURN(Aggregator agg, Aggregator::Create(q, options));
  while (!text.empty()) {
    const size_t n = std::min<size_t>(text.size(), 1 + rng() % 90);
    MAPR_RETURN_IF_ERROR(agg.PushBytes(text.substr(0, n)));
    text.remove_prefix(n);
  }
  MAPR_RETURN_IF_ERROR(agg.FinishInput());
  return agg.TakeResult();
}

TEST(MultilineTest, EventsFromLinesEqualWholeEvents) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  EXPECT_EQ(q.multiline(), "^\\d{4}-");
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    const Events ev = Generate(seed, 300);
    const std::string expected = WholeCsv(ev, TestOptions());
    std::mt19937 rng(seed);
    ASSERT_OK_AND_ASSIGN(ResultTable one,
                         RunQuery(kQuery, ev.Lines(), TestOptions()));
    EXPECT_EQ(one.ToCsv(), expected);
    // 301 events, the orphan continuation lines at the start one of them.
    EXPECT_EQ(one.stats().lines_read, ev.events.size());
    for (size_t row = 0; row < one.num_rows(); ++row) {
      const std::string user(one.cell(row, 0));
      if (user.empty()) {
        EXPECT_EQ(one.cell(row, 1), "1");  // The orphan event has no user.
      } else {
        EXPECT_EQ(one.cell(row, 1), absl::StrCat(ev.count_by_user.at(user)));
      }
    }
    ASSERT_OK_AND_ASSIGN(ResultTable batches,
                         PushInBatches(q, ev.Lines(), rng, TestOptions()));
    EXPECT_EQ(batches.ToCsv(), expected);
    EXPECT_EQ(batches.stats(), one.stats());
    ASSERT_OK_AND_ASSIGN(ResultTable chunks,
                         PushInChunks(q, ev.Text(), rng, TestOptions()));
    EXPECT_EQ(chunks.ToCsv(), expected);
    EXPECT_EQ(chunks.stats(), one.stats());
  }
}

TEST(MultilineTest, CarriageReturnsAreNotPartOfTheEvent) {
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunQuery("select last($line), count($line) multiline indented",
               std::vector<std::string>{"a\r", " b\r\n", "\tc", "d\r"},
               TestOptions()));
  // (No group by: DTail groups by $line.)
  EXPECT_EQ(r.ToCsv(), "last($line),count($line)\n\"a\n b\n\tc\",1\nd,1\n");
  ASSERT_OK_AND_ASSIGN(
      ResultTable first,
      RunQuery("select first($line) multiline indented",
               std::vector<std::string>{"a\r", " b\r\n", "\tc", "d\r"},
               TestOptions()));
  EXPECT_EQ(first.ToCsv(), "first($line)\n\"a\n b\n\tc\"\nd\n");
}

// The format parses an event's first line only: a field on a continuation
// line is not the event's.
TEST(MultilineTest, FieldsComeFromTheFirstLine) {
  const std::vector<std::string> lines = {
      "2024-05-01 user=ann ms=5", "  user=mallory ms=900",
      "2024-05-01 user=bob ms=7", "2024-05-01 ms=1", "  user=eve"};
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunQuery("select user, sum(ms), count($line) group by user order by user "
               "logformat logfmt multiline '^2024'",
               lines, TestOptions()));
  EXPECT_EQ(r.ToCsv(),
            "user,sum(ms),count($line)\n,1.000000,1\nann,5.000000,1\n"
            "bob,7.000000,1\n");
}

TEST(MultilineTest, PendingEventIsCompletedByTheNextStartOrTheEnd) {
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line), last($line), "
                                      "sum(n) group by $hostname logformat "
                                      "logfmt multiline indented"));
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q, TestOptions()));
  ASSERT_OK(agg.PushLines(std::vector<std::string>{"n=1", " x", "n=2"}));
  // "n=2" may go on: only the first event is complete.
  ASSERT_OK_AND_ASSIGN(ResultTable snap, agg.Snapshot());
  EXPECT_EQ(snap.ToCsv(),
            "count($line),last($line),sum(n)\n1,\"n=1\n x\",1.000000\n");
  ASSERT_OK(agg.PushLines(std::vector<std::string>{" y"}));
  // The delta leaves the pending event for the next one.
  ASSERT_OK_AND_ASSIGN(ResultTable delta, agg.TakeDelta());
  EXPECT_EQ(delta.ToCsv(),
            "count($line),last($line),sum(n)\n1,\"n=1\n x\",1.000000\n");
  // Ending the source completes it; a line after that starts a new event,
  // even one that would continue.
  ASSERT_OK(agg.EndSource());
  ASSERT_OK(agg.PushLines(std::vector<std::string>{" n=4", "  z"}));
  // Source 1's lines are events of their own, apart from source 0's.
  ASSERT_OK(agg.PushLines(std::vector<std::string>{"n=8"}, 1));
  ASSERT_OK(agg.PushLines(std::vector<std::string>{" w"}, 0));
  ASSERT_OK(agg.PushLines(std::vector<std::string>{" v"}, 1));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable rest, agg.TakeResult());
  EXPECT_EQ(rest.ToCsv(),
            "count($line),last($line),sum(n)\n3,\"n=8\n v\",14.000000\n");
  EXPECT_EQ(rest.stats().lines_read, 3u);
}

TEST(MultilineTest, MergeCompletesTheLaterAggregatorsEvents) {
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line), last($line) "
                                      "group by $hostname multiline indented"));
  ASSERT_OK_AND_ASSIGN(Aggregator a, Aggregator::Create(q, TestOptions()));
  ASSERT_OK_AND_ASSIGN(Aggregator b, Aggregator::Create(q, TestOptions()));
  ASSERT_OK(a.PushLines(std::vector<std::string>{"a", " a2"}));
  ASSERT_OK(b.PushLines(std::vector<std::string>{"b", " b2"}));
  // A merge completes the events pending on both sides, this one's first.
  ASSERT_OK(a.Merge(std::move(b)));
  ASSERT_OK_AND_ASSIGN(ResultTable snap, a.Snapshot());
  EXPECT_EQ(snap.ToCsv(), "count($line),last($line)\n2,\"b\n b2\"\n");
  ASSERT_OK(a.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, a.TakeResult());
  EXPECT_EQ(r.ToCsv(), "count($line),last($line)\n2,\"b\n b2\"\n");
}

TEST(MultilineTest, EventsOverMaxLineBytesAreCountedTooLong) {
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(seed);
    const Events ev = Generate(seed, 200);
    AggregatorOptions options = TestOptions();
    options.max_line_bytes = 120;
    // The same events pushed whole are dropped the same way.
    const std::string expected = WholeCsv(ev, options);
    uint64_t too_long = 0;
    for (const std::string& e : ev.Joined()) too_long += e.size() > 120;
    ASSERT_GT(too_long, 0u);
    ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
    std::mt19937 rng(seed);
    ASSERT_OK_AND_ASSIGN(ResultTable r,
                         PushInBatches(q, ev.Lines(), rng, options));
    EXPECT_EQ(r.ToCsv(), expected);
    EXPECT_EQ(r.stats().lines_too_long, too_long);
    EXPECT_EQ(r.stats().lines_read, ev.events.size());
    ASSERT_OK_AND_ASSIGN(ResultTable c,
                         PushInChunks(q, ev.Text(), rng, options));
    EXPECT_EQ(c.ToCsv(), expected);
    EXPECT_EQ(c.stats(), r.stats());
  }
}

// A line longer than max_line_bytes is dropped by itself, whether the host
// pushes it (PushLines) or a LineSplitter drops it first (PushBytes): the
// event around it goes on, the same either way.
TEST(MultilineTest, ALineTooLongIsDroppedByItself) {
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line), last($line) "
                                      "group by $hostname multiline '^S'"));
  AggregatorOptions options = TestOptions();
  options.max_line_bytes = 50;
  const std::string long_line(80, 'x');
  const std::vector<std::string> lines = {long_line, " c0", "S1", " c1",
                                          long_line, " c2", "S2", long_line};
  ASSERT_OK_AND_ASSIGN(Aggregator pushed, Aggregator::Create(q, options));
  ASSERT_OK(pushed.PushLines(lines));
  ASSERT_OK(pushed.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable a, pushed.TakeResult());
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  ASSERT_OK_AND_ASSIGN(Aggregator bytes, Aggregator::Create(q, options));
  ASSERT_OK(bytes.PushBytes(text));
  ASSERT_OK(bytes.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable b, bytes.TakeResult());
  EXPECT_EQ(a.ToCsv(), "count($line),last($line)\n3,S2\n");
  EXPECT_EQ(b.ToCsv(), a.ToCsv());
  EXPECT_EQ(a.stats().lines_too_long, 3u);
  EXPECT_EQ(a.stats().lines_read, 6u);  // 3 events, 3 lines too long.
  EXPECT_EQ(b.stats(), a.stats());
  // " c0" (the source's first line once the long one is gone) is an event
  // of its own; "S1\n c1\n c2" is one.
  ASSERT_OK_AND_ASSIGN(
      ResultTable first,
      RunQuery("select first($line), count($line) group by $line "
               "order by $line multiline '^S'",  // (descending)
               lines, options));
  EXPECT_EQ(first.ToCsv(),
            "first($line),count($line)\nc0,1\nS2,1\n\"S1\n c1\n c2\",1\n");
}

class MultilineFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("mapr_multiline_test_", getpid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& data) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << data;
    return path;
  }
  std::filesystem::path dir_;
};

// Random ranges that tile the file each begin at an event start, and their
// partials, merged in order, give the one-pass result.
TEST_F(MultilineFileTest, RangesHoldWholeEvents) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  for (uint32_t seed = 1; seed <= 15; ++seed) {
    SCOPED_TRACE(seed);
    const Events ev = Generate(seed, 400);
    const std::string text = ev.Text();
    const std::string path = Write("log", text);
    std::set<uint64_t> starts = {0, text.size()};
    {
      uint64_t at = 0;
      for (const auto& e : ev.events) {
        starts.insert(at);
        for (const std::string& line : e) at += line.size() + 1;
      }
    }
    const std::string expected = WholeCsv(ev, TestOptions());
    std::mt19937 rng(seed);
    const int pieces = 2 + static_cast<int>(rng() % 9);
    std::vector<uint64_t> cuts = {0, text.size()};
    for (int i = 1; i < pieces; ++i) cuts.push_back(rng() % text.size());
    std::sort(cuts.begin(), cuts.end());
    std::string merged_frames;
    std::optional<Aggregator> all;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(LineRange range,
                           LineAlignedRange(path, cuts[i], cuts[i + 1], q));
      EXPECT_TRUE(starts.count(range.begin)) << range.begin;
      EXPECT_TRUE(starts.count(range.end)) << range.end;
      AggregatorOptions options = TestOptions();
      options.splits = {i, i + 1};
      ASSERT_OK_AND_ASSIGN(Aggregator part, Aggregator::Create(q, options));
      ASSERT_OK(part.PushBytes(
          std::string_view(text).substr(range.begin, range.end - range.begin)));
      ASSERT_OK(part.FinishInput());
      ASSERT_OK_AND_ASSIGN(std::string frame, part.SerializePartial());
      if (!all.has_value()) {
        ASSERT_OK_AND_ASSIGN(Aggregator first, Aggregator::FromPartial(frame));
        all.emplace(std::move(first));
      } else {
        ASSERT_OK(all->MergeSerialized(frame));
      }
    }
    ASSERT_OK(all->FinishInput());
    ASSERT_OK_AND_ASSIGN(ResultTable r, all->TakeResult());
    EXPECT_EQ(r.ToCsv(), expected);
    EXPECT_EQ(r.stats().lines_read, ev.events.size());

    // The command's own cutting: many threads, small pieces.
    for (int threads : {1, 3, 8}) {
      FilesOptions files;
      files.threads = threads;
      files.min_chunk_bytes = 512;
      files.aggregator = TestOptions();
      ASSERT_OK_AND_ASSIGN(ResultTable f, QueryFiles(q, {path}, files));
      EXPECT_EQ(f.ToCsv(), expected) << threads;
      EXPECT_EQ(f.stats().lines_read, ev.events.size()) << threads;
    }
  }
}

// A range end never falls on a line the reader drops as too long.
TEST_F(MultilineFileTest, TooLongLinesAreNoCut) {
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line) multiline '^S'"));
  const std::string text = "S1\n" + std::string(300, 'x') + "\nS" +
                           std::string(300, 'y') + "\n c\nS3\n";
  const std::string path = Write("long", text);
  ASSERT_OK_AND_ASSIGN(LineRange range, LineAlignedRange(path, 1, 10, q, 100));
  EXPECT_EQ(range.begin, text.find("S3"));
  ASSERT_OK_AND_ASSIGN(LineRange lines, LineAlignedRange(path, 1, 10, q, 1000));
  EXPECT_EQ(lines.begin, text.find("Sy"));
}

TEST(MultilineTest, ProducersEqualOneAggregator) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(kQuery));
  std::vector<Events> inputs = {Generate(7, 500), Generate(8, 400),
                                Generate(9, 300)};
  ASSERT_OK_AND_ASSIGN(Aggregator one, Aggregator::Create(q, TestOptions()));
  for (size_t p = 0; p < inputs.size(); ++p) {
    ASSERT_OK(one.PushLines(inputs[p].Lines(), p));
    ASSERT_OK(one.EndSource(p));
  }
  ASSERT_OK(one.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable expected, one.TakeResult());

  std::optional<ResultTable> final_result;
  int finals = 0;
  TurboOptions options;
  options.aggregator = TestOptions();
  options.interval_ms = 1;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<TurboAggregate> turbo,
      TurboAggregate::Create(q, options,
                             [&](const ResultTable& r, bool is_final) {
                               if (!is_final) return;
                               ++finals;
                               final_result = r;
                             }));
  std::vector<std::unique_ptr<TurboAggregate::Producer>> producers;
  for (size_t p = 0; p < inputs.size(); ++p) {
    ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(p));
    producers.push_back(std::move(producer));
  }
  std::vector<std::thread> threads;
  for (size_t p = 0; p < inputs.size(); ++p) {
    threads.emplace_back([&, p] {
      for (const std::string& line : inputs[p].Lines()) {
        EXPECT_OK(producers[p]->PushLine(line));
      }
      EXPECT_OK(producers[p]->Finish());
    });
  }
  EXPECT_OK(turbo->FinishInput());
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(finals, 1);
  EXPECT_EQ(final_result->ToCsv(), expected.ToCsv());
  EXPECT_EQ(final_result->stats(), expected.stats());
}

}  // namespace
}  // namespace mapr
