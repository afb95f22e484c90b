#include "mapr/turbo_aggregate.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::_;
using namespace std::chrono_literals;  // NOLINT(build/namespaces)

constexpr char kQuery[] =
    "from STATS select host,count($line),sum(x),last(x) group by host";

// Runs `body` on another thread and kills the process if it does not
// return within `limit`, so a hang fails the test run instead of blocking
// CI (a std::future of std::async would block in its destructor).
void RunBounded(const std::function<void()>& body,
                std::chrono::seconds limit = 60s) {
  std::future<void> done = std::async(std::launch::async, body);
  if (done.wait_for(limit) != std::future_status::ready) {
    const ::testing::TestInfo* info =
        ::testing::UnitTest::GetInstance()->current_test_info();
    std::fprintf(stderr, "WATCHDOG: %s.%s did not finish within %llds\n",
                 info != nullptr ? info->test_suite_name() : "?",
                 info != nullptr ? info->name() : "?",
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(3);
  }
  done.get();
}

Query CompileOrDie(std::string_view text) {
  absl::StatusOr<Query> q = Query::Compile(text);
  EXPECT_TRUE(q.ok()) << q.status();
  return *std::move(q);
}

// A default-format line. Every 97th line is of another table and every
// 89th is a WARN line, so several counters move.
std::string Line(int producer, int i) {
  if (i % 97 == 96) return absl::StrCat("garbage line ", producer, " ", i);
  const char* level = i % 89 == 88 ? "WARN" : "INFO";
  return absl::StrCat(level, "|1002-071143|1|mapr.go:1|8|15|7|0.21|1h|",
                      "MAPREDUCE:STATS|x=", (producer * 7 + i) % 100, "|host=h",
                      (producer + i) % 5);
}

std::vector<std::vector<std::string>> MakeInput(int producers, int lines_each) {
  std::vector<std::vector<std::string>> input(producers);
  for (int p = 0; p < producers; ++p) {
    input[p].reserve(lines_each);
    for (int i = 0; i < lines_each; ++i) input[p].push_back(Line(p, i));
  }
  return input;
}

// What one Aggregator returns for producer 0's lines, then producer 1's...
ResultTable SingleAggregatorResult(
    const Query& query, const std::vector<std::vector<std::string>>& input) {
  absl::StatusOr<Aggregator> agg = Aggregator::Create(query);
  EXPECT_TRUE(agg.ok()) << agg.status();
  for (size_t p = 0; p < input.size(); ++p) {
    std::vector<std::string_view> views(input[p].begin(), input[p].end());
    EXPECT_OK(agg->PushLines(views, p));
  }
  EXPECT_OK(agg->FinishInput());
  absl::StatusOr<ResultTable> r = agg->TakeResult();
  EXPECT_TRUE(r.ok()) << r.status();
  return *std::move(r);
}

// Records every callback and checks that none overlap.
class Collector {
 public:
  ResultCallback Callback(std::function<void(bool is_final)> hook = nullptr) {
    return [this, hook = std::move(hook)](const ResultTable& r, bool is_final) {
      if (active_.fetch_add(1) != 0) overlapped_.store(true);
      std::this_thread::sleep_for(1ms);  // Widen any overlap window.
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (is_final) {
          ++finals_;
          final_ = r;
          final_promise_.set_value();
        } else {
          intervals_.push_back(r);
        }
      }
      if (hook) hook(is_final);
      active_.fetch_sub(1);
    };
  }

  // Waits for the final callback; false on timeout.
  bool WaitFinal(std::chrono::seconds limit = 30s) {
    return final_future_.wait_for(limit) == std::future_status::ready;
  }

  int finals() {
    std::lock_guard<std::mutex> lock(mu_);
    return finals_;
  }
  std::optional<ResultTable> final_result() {
    std::lock_guard<std::mutex> lock(mu_);
    return final_;
  }
  std::vector<ResultTable> intervals() {
    std::lock_guard<std::mutex> lock(mu_);
    return intervals_;
  }
  size_t interval_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return intervals_.size();
  }
  bool overlapped() const { return overlapped_.load(); }

 private:
  std::mutex mu_;
  int finals_ = 0;
  std::optional<ResultTable> final_;
  std::vector<ResultTable> intervals_;
  std::promise<void> final_promise_;
  std::future<void> final_future_ = final_promise_.get_future();
  std::atomic<int> active_{0};
  std::atomic<bool> overlapped_{false};
};

// Pushes `lines` through `producer`, alternating PushLine and PushLines.
void PushAll(TurboAggregate::Producer& producer,
             const std::vector<std::string>& lines, bool one_by_one) {
  if (one_by_one) {
    for (const std::string& line : lines) {
      ASSERT_OK(producer.PushLine(line));
    }
    return;
  }
  std::vector<std::string_view> views(lines.begin(), lines.end());
  std::span<const std::string_view> rest(views);
  while (!rest.empty()) {
    size_t n = std::min<size_t>(rest.size(), 333);
    ASSERT_OK(producer.PushLines(rest.first(n)));
    rest = rest.subspan(n);
  }
}

// `input.size()` producer threads push their lines; the final result must
// equal the single aggregator's and every line must be accounted for.
void RunProducersAndCheck(const Query& query,
                          const std::vector<std::vector<std::string>>& input,
                          const ResultTable& expected,
                          const TurboOptions& options) {
  Collector collector;
  absl::StatusOr<std::unique_ptr<TurboAggregate>> turbo =
      TurboAggregate::Create(query, options, collector.Callback());
  ASSERT_TRUE(turbo.ok()) << turbo.status();

  std::vector<std::unique_ptr<TurboAggregate::Producer>> producers;
  for (size_t p = 0; p < input.size(); ++p) {
    ASSERT_OK_AND_ASSIGN(auto producer, (*turbo)->AddProducer(p));
    EXPECT_EQ(producer->index(), p);
    producers.push_back(std::move(producer));
  }
  std::vector<std::thread> threads;
  for (size_t p = 0; p < input.size(); ++p) {
    threads.emplace_back([&, p] {
      PushAll(*producers[p], input[p], p % 2 == 0);
      EXPECT_OK(producers[p]->Finish());
    });
  }
  EXPECT_OK((*turbo)->FinishInput());
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(collector.finals(), 1);
  std::optional<ResultTable> final_result = collector.final_result();
  ASSERT_TRUE(final_result.has_value());
  EXPECT_EQ(*final_result, expected) << final_result->ToCsv() << "\nvs\n"
                                     << expected.ToCsv();
  EXPECT_EQ(final_result->stats(), expected.stats());
  EXPECT_EQ((*turbo)->stats(), expected.stats());
  uint64_t total = 0;
  for (const auto& lines : input) total += lines.size();
  EXPECT_EQ((*turbo)->stats().lines_read, total);

  // Cumulative interval snapshots only grow and never exceed the total.
  uint64_t previous = 0;
  for (const ResultTable& r : collector.intervals()) {
    EXPECT_GT(r.stats().lines_read, previous);
    EXPECT_LE(r.stats().lines_read, total);
    previous = r.stats().lines_read;
  }
  EXPECT_FALSE(collector.overlapped());
}

// Sums column `col` per group key (column 0) over `tables`.
std::map<std::string, double> SumByKey(const std::vector<ResultTable>& tables,
                                       size_t col) {
  std::map<std::string, double> sums;
  for (const ResultTable& t : tables) {
    for (size_t r = 0; r < t.num_rows(); ++r) {
      sums[std::string(t.cell(r, 0))] += t.value(r, col);
    }
  }
  return sums;
}

TEST(TurboAggregateTest, ZeroProducersCompletesAtOnce) {
  RunBounded([] {
    Collector collector;
    ASSERT_OK_AND_ASSIGN(
        auto turbo,
        TurboAggregate::Create(CompileOrDie(kQuery), {}, collector.Callback()));
    // Completes (RunBounded's deadline is the liveness check) and has
    // delivered the final result when it returns.
    EXPECT_OK(turbo->FinishInput());
    EXPECT_EQ(collector.finals(), 1);
    ASSERT_TRUE(collector.final_result().has_value());
    EXPECT_EQ(collector.final_result()->num_rows(), 0u);
    EXPECT_EQ(collector.final_result()->stats(), LineCounters());
    // Later calls are no-ops returning the same status.
    EXPECT_OK(turbo->FinishInput());
    EXPECT_OK(turbo->FinishInputWithin(absl::Milliseconds(1)));
    EXPECT_EQ(collector.finals(), 1);
    EXPECT_THAT(turbo->AddProducer(1),
                StatusIs(absl::StatusCode::kFailedPrecondition, _));
  });
}

TEST(TurboAggregateTest, ManyProducersMatchSingleAggregator) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    auto input = MakeInput(8, 20000);
    ResultTable expected = SingleAggregatorResult(query, input);
    ASSERT_EQ(expected.num_rows(), 5u);
    TurboOptions options;
    options.worker_threads = 4;
    options.interval_ms = 5;  // Interleave many snapshots.
    RunProducersAndCheck(query, input, expected, options);
  });
}

TEST(TurboAggregateTest, PushBytesSplitsLikeAggregatorPushBytes) {
  RunBounded([] {
    // Two producers push the same bytes in odd-sized chunks; one line is too
    // long and the last line has no newline.
    AggregatorOptions agg_options;
    agg_options.max_line_bytes = 200;
    std::string bytes;
    for (int i = 0; i < 3000; ++i) absl::StrAppend(&bytes, Line(1, i), "\n");
    absl::StrAppend(&bytes, std::string(500, 'z'), "\n", Line(2, 7));
    Query query = CompileOrDie(
        "from STATS select $file,host,count($line),sum(x) group by $file,host");

    absl::StatusOr<Aggregator> agg = Aggregator::Create(query, agg_options);
    ASSERT_TRUE(agg.ok()) << agg.status();
    for (SourceId s : {SourceId{1}, SourceId{2}}) {
      ASSERT_OK(agg->SetSourceName(s, absl::StrCat("f", s)));
      ASSERT_OK(agg->PushBytes(bytes, s));
      ASSERT_OK(agg->EndSource(s));
    }
    ASSERT_OK(agg->FinishInput());
    ASSERT_OK_AND_ASSIGN(ResultTable expected, agg->TakeResult());
    EXPECT_EQ(expected.stats().lines_too_long, 2u);
    EXPECT_EQ(expected.stats().lines_read, 2u * 3002);

    Collector collector;
    TurboOptions options;
    options.worker_threads = 2;
    options.batch_lines = 100;
    options.aggregator = agg_options;
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<TurboAggregate> turbo,
        TurboAggregate::Create(query, options, collector.Callback()));
    for (SourceId s : {SourceId{1}, SourceId{2}}) {
      ASSERT_OK_AND_ASSIGN(auto producer,
                           turbo->AddProducer(s, absl::StrCat("f", s)));
      for (size_t at = 0; at < bytes.size(); at += 97 + s) {
        ASSERT_OK(
            producer->PushBytes(std::string_view(bytes).substr(at, 97 + s)));
      }
      if (s == 1) {
        ASSERT_OK(producer->Finish());
      }  // Producer 2 is finished by its destructor.
    }
    ASSERT_OK(turbo->FinishInput());
    std::optional<ResultTable> final_result = collector.final_result();
    ASSERT_TRUE(final_result.has_value());
    EXPECT_EQ(final_result->ToCsv(), expected.ToCsv());
    EXPECT_EQ(final_result->stats(), expected.stats());
  });
}

TEST(TurboAggregateTest, TinyQueueAndBatchesStillMatch) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    auto input = MakeInput(4, 2000);
    ResultTable expected = SingleAggregatorResult(query, input);
    TurboOptions options;
    options.worker_threads = 1;
    options.batch_lines = 1;
    options.max_queued_batches = 1;
    options.interval_ms = 1;
    RunProducersAndCheck(query, input, expected, options);
  });
}

TEST(TurboAggregateTest, ProducersThatNeverPushDoNotBlockCompletion) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    Collector collector;
    ASSERT_OK_AND_ASSIGN(
        auto turbo, TurboAggregate::Create(query, {}, collector.Callback()));
    ASSERT_OK_AND_ASSIGN(auto pushes, turbo->AddProducer(0));
    ASSERT_OK_AND_ASSIGN(auto finishes_at_once, turbo->AddProducer(1));
    ASSERT_OK_AND_ASSIGN(auto destroyed, turbo->AddProducer(2));

    EXPECT_OK(finishes_at_once->Finish());
    EXPECT_THAT(finishes_at_once->Finish(),
                StatusIs(absl::StatusCode::kFailedPrecondition, _));
    EXPECT_THAT(finishes_at_once->PushLine(Line(1, 0)),
                StatusIs(absl::StatusCode::kFailedPrecondition, _));
    destroyed.reset();  // Finishes it.

    EXPECT_OK(pushes->PushLine(Line(0, 0)));
    EXPECT_OK(pushes->PushLine(Line(0, 1)));
    EXPECT_OK(pushes->Finish());

    EXPECT_OK(turbo->FinishInput());
    ASSERT_EQ(collector.finals(), 1);
    EXPECT_EQ(collector.final_result()->stats().lines_read, 2u);
    EXPECT_EQ(turbo->stats().lines_aggregated, 2u);
  });
}

TEST(TurboAggregateTest, FinishInputFromAnotherThreadWhileProducersPush) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    auto input = MakeInput(4, 5000);
    ResultTable expected = SingleAggregatorResult(query, input);
    Collector collector;
    TurboOptions options;
    options.worker_threads = 2;
    options.batch_lines = 64;
    ASSERT_OK_AND_ASSIGN(auto turbo, TurboAggregate::Create(
                                         query, options, collector.Callback()));
    std::vector<std::unique_ptr<TurboAggregate::Producer>> producers;
    for (size_t p = 0; p < input.size(); ++p) {
      ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(p));
      producers.push_back(std::move(producer));
    }
    std::atomic<int> finished_producers{0};
    std::vector<std::thread> threads;
    for (size_t p = 0; p < input.size(); ++p) {
      threads.emplace_back([&, p] {
        for (size_t i = 0; i < input[p].size(); ++i) {
          ASSERT_OK(producers[p]->PushLine(input[p][i]));
          if (i % 1000 == 0) std::this_thread::sleep_for(1ms);
        }
        finished_producers.fetch_add(1);
        EXPECT_OK(producers[p]->Finish());
      });
    }
    absl::Status finish_status = absl::UnknownError("not called");
    std::thread finisher([&] {
      finish_status = turbo->FinishInput();
      // It returned only after every producer finished.
      EXPECT_EQ(finished_producers.load(), 4);
    });
    finisher.join();
    for (std::thread& t : threads) t.join();
    EXPECT_OK(finish_status);
    EXPECT_THAT(turbo->AddProducer(9),
                StatusIs(absl::StatusCode::kFailedPrecondition, _));
    ASSERT_EQ(collector.finals(), 1);
    EXPECT_EQ(*collector.final_result(), expected);
    EXPECT_EQ(turbo->stats(), expected.stats());
  });
}

TEST(TurboAggregateTest, FinishInputFromInsideTheCallbackDoesNotDeadlock) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    TurboOptions options;
    options.interval_ms = 10;
    TurboAggregate* raw = nullptr;
    std::promise<absl::Status> in_callback;
    std::atomic<bool> called{false};
    Collector collector;
    ASSERT_OK_AND_ASSIGN(
        auto turbo,
        TurboAggregate::Create(query, options, collector.Callback([&](bool) {
          if (called.exchange(true)) return;
          // Returns rather than waits for this callback (a deadlock would
          // leave `sealed` below unready).
          in_callback.set_value(raw->FinishInput());
        })));
    raw = turbo.get();
    ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(0));
    // A line in a partly filled batch: the reporter flushes it, reports,
    // and the callback seals the aggregate.
    ASSERT_OK(producer->PushLine(Line(0, 0)));
    std::future<absl::Status> sealed = in_callback.get_future();
    ASSERT_EQ(sealed.wait_for(30s), std::future_status::ready);
    EXPECT_OK(sealed.get());
    EXPECT_THAT(turbo->AddProducer(1),
                StatusIs(absl::StatusCode::kFailedPrecondition, _));
    // The open producer may still push; the final report waits for it.
    ASSERT_OK(producer->PushLine(Line(0, 1)));
    EXPECT_EQ(collector.finals(), 0);
    ASSERT_OK(producer->Finish());
    ASSERT_TRUE(collector.WaitFinal());
    EXPECT_EQ(collector.final_result()->stats().lines_read, 2u);
    EXPECT_OK(turbo->FinishInput());
    EXPECT_EQ(collector.finals(), 1);
  });
}

TEST(TurboAggregateTest, FinishInputFromInsideTheFinalCallbackReturnsOk) {
  RunBounded([] {
    TurboAggregate* raw = nullptr;
    absl::Status inner = absl::UnknownError("not called");
    Collector collector;
    ASSERT_OK_AND_ASSIGN(auto turbo,
                         TurboAggregate::Create(CompileOrDie(kQuery), {},
                                                collector.Callback([&](bool) {
                                                  inner = raw->FinishInput();
                                                })));
    raw = turbo.get();
    EXPECT_OK(turbo->FinishInput());
    EXPECT_OK(inner);
  });
}

TEST(TurboAggregateTest, FinishInputWithinReportsUnfinishedProducers) {
  RunBounded([] {
    Collector collector;
    ASSERT_OK_AND_ASSIGN(
        auto turbo,
        TurboAggregate::Create(CompileOrDie(kQuery), {}, collector.Callback()));
    ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(0));
    ASSERT_OK(producer->PushLine(Line(0, 0)));
    EXPECT_THAT(turbo->FinishInputWithin(absl::Milliseconds(50)),
                StatusIs(absl::StatusCode::kDeadlineExceeded,
                         ::testing::HasSubstr("1 of 1 producers")));
    EXPECT_EQ(collector.finals(), 0);
    ASSERT_OK(producer->PushLine(Line(0, 1)));
    ASSERT_OK(producer->Finish());
    EXPECT_OK(turbo->FinishInputWithin(absl::Seconds(30)));
    EXPECT_EQ(collector.finals(), 1);
    EXPECT_EQ(collector.final_result()->stats().lines_read, 2u);
  });
}

TEST(TurboAggregateTest, DestructionWithoutFinishInputNeverHangs) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    {  // No producers at all.
      Collector collector;
      ASSERT_OK_AND_ASSIGN(
          auto turbo, TurboAggregate::Create(query, {}, collector.Callback()));
    }
    {  // An unfinished producer outlives the aggregate.
      Collector collector;
      ASSERT_OK_AND_ASSIGN(
          auto turbo, TurboAggregate::Create(query, {}, collector.Callback()));
      ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(0));
      ASSERT_OK(producer->PushLine(Line(0, 0)));
      turbo.reset();
      EXPECT_THAT(producer->PushLine(Line(0, 1)),
                  StatusIs(absl::StatusCode::kCancelled, _));
      EXPECT_THAT(producer->Finish(),
                  StatusIs(absl::StatusCode::kCancelled, _));
      EXPECT_EQ(collector.finals(), 0);
    }
    {  // Producers blocked on backpressure while the aggregate goes away.
      Collector collector;
      TurboOptions options;
      options.worker_threads = 1;
      options.batch_lines = 4;
      options.max_queued_batches = 1;
      ASSERT_OK_AND_ASSIGN(
          auto turbo,
          TurboAggregate::Create(query, options, collector.Callback()));
      std::vector<std::unique_ptr<TurboAggregate::Producer>> producers;
      for (int p = 0; p < 4; ++p) {
        ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(p));
        producers.push_back(std::move(producer));
      }
      std::array<std::atomic<int>, 4> pushed{};
      std::vector<std::thread> threads;
      threads.reserve(4);
      for (int p = 0; p < 4; ++p) {
        threads.emplace_back([&, p] {
          for (int i = 0;; ++i) {
            absl::Status s = producers[p]->PushLine(Line(p, i));
            if (!s.ok()) {
              EXPECT_THAT(s, StatusIs(absl::StatusCode::kCancelled, _));
              return;
            }
            pushed[p].fetch_add(1);
          }
        });
      }
      // Every producer has gone through the one-batch queue many times (64
      // lines are 16 batches of 4), so each is pushing or blocked on it.
      auto all_under_way = [&] {
        for (const std::atomic<int>& n : pushed) {
          if (n.load() < 64) return false;
        }
        return true;
      };
      while (!all_under_way()) std::this_thread::sleep_for(1ms);
      turbo.reset();
      for (std::thread& t : threads) t.join();
      producers.clear();
      EXPECT_EQ(collector.finals(), 0);
    }
  });
}

TEST(TurboAggregateTest, DestructionFromInsideTheCallback) {
  RunBounded([] {
    struct Holder {
      std::unique_ptr<TurboAggregate> turbo;
    };
    auto holder = std::make_shared<Holder>();
    std::promise<void> destroyed;
    TurboOptions options;
    options.interval_ms = 10;
    auto turbo =
        TurboAggregate::Create(CompileOrDie(kQuery), options,
                               [holder, &destroyed](const ResultTable&, bool) {
                                 if (holder->turbo == nullptr) return;
                                 holder->turbo.reset();
                                 destroyed.set_value();
                               });
    ASSERT_TRUE(turbo.ok()) << turbo.status();
    ASSERT_OK_AND_ASSIGN(auto producer, (*turbo)->AddProducer(0));
    holder->turbo = *std::move(turbo);  // Only the callback touches it now.
    ASSERT_OK(producer->PushLine(Line(0, 0)));
    ASSERT_EQ(destroyed.get_future().wait_for(30s), std::future_status::ready);
    EXPECT_THAT(producer->PushLine(Line(0, 1)),
                StatusIs(absl::StatusCode::kCancelled, _));
  });
}

TEST(TurboAggregateTest, DeltaReportsSumToTheCumulativeTotal) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    auto input = MakeInput(4, 4000);
    ResultTable expected = SingleAggregatorResult(query, input);
    Collector collector;
    TurboOptions options;
    options.mode = ReportMode::kDelta;
    options.interval_ms = 10;
    options.batch_lines = 50;
    ASSERT_OK_AND_ASSIGN(auto turbo, TurboAggregate::Create(
                                         query, options, collector.Callback()));
    std::vector<std::unique_ptr<TurboAggregate::Producer>> producers;
    for (size_t p = 0; p < input.size(); ++p) {
      ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(p));
      producers.push_back(std::move(producer));
    }
    std::vector<std::thread> threads;
    for (size_t p = 0; p < input.size(); ++p) {
      threads.emplace_back([&, p] {
        for (size_t i = 0; i < input[p].size(); ++i) {
          ASSERT_OK(producers[p]->PushLine(input[p][i]));
          if (i % 100 == 0) std::this_thread::sleep_for(2ms);
        }
        EXPECT_OK(producers[p]->Finish());
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_OK(turbo->FinishInput());

    std::vector<ResultTable> all = collector.intervals();
    EXPECT_GE(all.size(), 2u) << "expected several deltas";
    all.push_back(*collector.final_result());
    LineCounters sum;
    for (const ResultTable& r : all) sum += r.stats();
    EXPECT_EQ(sum, expected.stats());
    EXPECT_EQ(SumByKey(all, 1), SumByKey({expected}, 1));  // count($line)
    EXPECT_EQ(SumByKey(all, 2), SumByKey({expected}, 2));  // sum(x)
    EXPECT_EQ(turbo->stats(), expected.stats());
    EXPECT_FALSE(collector.overlapped());
  });
}

TEST(TurboAggregateTest, IntervalCallbacksHappenAndNeverOverlap) {
  RunBounded([] {
    Query query = CompileOrDie(kQuery);
    Collector collector;
    TurboOptions options;
    options.interval_ms = 50;
    options.worker_threads = 2;
    ASSERT_OK_AND_ASSIGN(auto turbo, TurboAggregate::Create(
                                         query, options, collector.Callback()));
    // Producers push until three intervals were reported (and 400 lines
    // each at the least): a condition, not a span of time.
    std::atomic<uint64_t> pushed{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < 3; ++p) {
      ASSERT_OK_AND_ASSIGN(std::shared_ptr<TurboAggregate::Producer> producer,
                           turbo->AddProducer(p));
      threads.emplace_back([producer, p, &collector, &pushed] {
        for (int i = 0; i < 400 || collector.interval_count() < 3; ++i) {
          ASSERT_OK(producer->PushLine(Line(p, i)));
          pushed.fetch_add(1);
          std::this_thread::sleep_for(1ms);
        }
        EXPECT_OK(producer->Finish());
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_OK(turbo->FinishInput());
    std::vector<ResultTable> intervals = collector.intervals();
    EXPECT_GE(intervals.size(), 3u);
    uint64_t previous = 0;
    for (const ResultTable& r : intervals) {
      EXPECT_GT(r.stats().lines_read, previous);
      previous = r.stats().lines_read;
    }
    EXPECT_EQ(collector.final_result()->stats().lines_read, pushed.load());
    EXPECT_FALSE(collector.overlapped());
  });
}

TEST(TurboAggregateTest, QueryIntervalIsUsedByDefault) {
  RunBounded([] {
    Query query =
        CompileOrDie("from STATS select count($line) group by host interval 1");
    Collector collector;
    ASSERT_OK_AND_ASSIGN(
        auto turbo, TurboAggregate::Create(query, {}, collector.Callback()));
    ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(0));
    ASSERT_OK(producer->PushLine(Line(0, 0)));
    // The first report comes after the query's 1 s (polled up to 30 s, a
    // liveness bound for loaded sanitizer runs).
    for (int i = 0; i < 3000 && collector.interval_count() == 0; ++i) {
      std::this_thread::sleep_for(10ms);
    }
    ASSERT_GE(collector.intervals().size(), 1u);
    EXPECT_EQ(collector.intervals()[0].stats().lines_read, 1u);
    ASSERT_OK(producer->Finish());
    EXPECT_OK(turbo->FinishInput());
  });
}

TEST(TurboAggregateTest, StickyErrorFailsFinishInputWithoutFinalReport) {
  RunBounded([] {
    Collector collector;
    TurboOptions options;
    options.aggregator.max_groups = 2;
    options.batch_lines = 10;
    ASSERT_OK_AND_ASSIGN(auto turbo,
                         TurboAggregate::Create(CompileOrDie(kQuery), options,
                                                collector.Callback()));
    ASSERT_OK_AND_ASSIGN(auto producer, turbo->AddProducer(0));
    absl::Status push_status;
    for (int i = 0; i < 10000 && push_status.ok(); ++i) {
      push_status = producer->PushLine(Line(0, i));
    }
    EXPECT_THAT(push_status, StatusIs(absl::StatusCode::kResourceExhausted, _));
    EXPECT_THAT(producer->Finish(),
                StatusIs(absl::StatusCode::kResourceExhausted, _));
    EXPECT_THAT(turbo->FinishInput(),
                StatusIs(absl::StatusCode::kResourceExhausted, _));
    EXPECT_EQ(collector.finals(), 0);
  });
}

TEST(TurboAggregateTest, RejectsInvalidOptions) {
  Query query = CompileOrDie(kQuery);
  auto noop = [](const ResultTable&, bool) {};
  EXPECT_THAT(TurboAggregate::Create(query, {}, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  TurboOptions options;
  options.batch_lines = 0;
  EXPECT_THAT(TurboAggregate::Create(query, options, noop),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  options = TurboOptions();
  options.worker_threads = -1;
  EXPECT_THAT(TurboAggregate::Create(query, options, noop),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
}

TEST(TurboAggregateTest, SoakEightProducers) {
  Query query = CompileOrDie(kQuery);
  auto input = MakeInput(8, 20000);
  ResultTable expected = SingleAggregatorResult(query, input);
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    TurboOptions options;
    options.worker_threads = 1 + round % 4;
    options.batch_lines = round % 3 == 0 ? 2048 : 97 + round;
    options.interval_ms = round % 2 == 0 ? 3 : -1;
    RunBounded([&] { RunProducersAndCheck(query, input, expected, options); });
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace mapr
