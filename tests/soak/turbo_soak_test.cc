// Soak test of mapr::TurboAggregate: producer threads push generated lines,
// the reporter calls back every interval, FinishInput() comes from another
// thread while the producers still push, and every round is repeated under
// a watchdog. Each round must complete, and every pushed line must be
// accounted for: the counters are exact, and the interval deltas plus the
// final delta add up to the lines pushed (cumulative rounds: the final
// report equals the expectation, last() included).
//
// The lines are generated while they are pushed (never all in memory) and
// fall into every counter: too long, another table, WARN (ignored), a token
// without '=' (malformed), `where` false (filtered), no value for any
// select item, and aggregated.
//
// Parameters (environment), defaulting to the quick variant of the default
// test run; CTest's soak_turbo_full_test sets the full one (8 x 1M lines,
// 1 s intervals):
//   MAPR_SOAK_PRODUCERS    producer threads (default 8)
//   MAPR_SOAK_LINES        lines per producer and round (default 20000)
//   MAPR_SOAK_REPEATS      rounds (default 6)
//   MAPR_SOAK_INTERVAL_MS  interval of the reports (default 10)
//   MAPR_SOAK_ROUND_TIMEOUT_S  watchdog per round (default 600)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "mapr/turbo_aggregate.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kQuery =
    "from STATS select host,count(x),sum(x),last(x) group by host "
    "where kind eq \"ok\"";
constexpr size_t kMaxLineBytes = 200;
constexpr int kHosts = 5;
// Lines per PushLines call.
constexpr int kPushLines = 500;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoll(v, nullptr, 10);
}

struct SoakConfig {
  int producers = static_cast<int>(EnvInt("MAPR_SOAK_PRODUCERS", 8));
  int64_t lines = EnvInt("MAPR_SOAK_LINES", 20000);
  int repeats = static_cast<int>(EnvInt("MAPR_SOAK_REPEATS", 6));
  int64_t interval_ms = EnvInt("MAPR_SOAK_INTERVAL_MS", 10);
  int64_t round_timeout_s = EnvInt("MAPR_SOAK_ROUND_TIMEOUT_S", 600);
};

// Per host: count(x), sum(x) and last(x) (with the producer it came from).
struct HostTotals {
  uint64_t count = 0;
  double sum = 0;
  std::string last;
  int last_producer = -1;
};

// What a producer's lines must add up to.
struct Expected {
  LineCounters counters;
  std::map<std::string, HostTotals> hosts;

  void Add(const Expected& o) {
    counters += o.counters;
    for (const auto& [host, t] : o.hosts) {
      HostTotals& mine = hosts[host];
      mine.count += t.count;
      mine.sum += t.sum;
      if (t.last_producer > mine.last_producer) {
        mine.last = t.last;
        mine.last_producer = t.last_producer;
      }
    }
  }
};

// Appends line `i` of `producer` to `out` and counts it in `expected`.
void AppendLine(int producer, int64_t i, std::string* out, Expected* expected) {
  static constexpr char kPrefix[] =
      "|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|";
  LineCounters& c = expected->counters;
  ++c.lines_read;
  const std::string host = absl::StrCat("h", (producer + i) % kHosts);
  const int64_t x = (producer * 7 + i) % 100;
  if (i % 101 == 100) {
    ++c.lines_too_long;
    absl::StrAppend(out, "INFO", kPrefix, "kind=ok|host=", host, "|x=", x,
                    "|pad=", std::string(kMaxLineBytes, 'z'));
  } else if (i % 97 == 96) {
    ++c.lines_table_mismatch;
    absl::StrAppend(out, "garbage line ", producer, " ", i);
  } else if (i % 89 == 88) {
    ++c.lines_ignored;
    absl::StrAppend(out, "WARN", kPrefix, "kind=ok|host=", host, "|x=", x);
  } else if (i % 83 == 82) {
    ++c.lines_malformed;
    absl::StrAppend(out, "INFO", kPrefix, "kind=ok|oops|host=", host, "|x=", x);
  } else if (i % 79 == 78) {
    ++c.lines_filtered;
    absl::StrAppend(out, "INFO", kPrefix, "kind=skip|host=", host, "|x=", x);
  } else if (i % 73 == 72) {
    ++c.lines_without_value;  // No select item has a value.
    absl::StrAppend(out, "INFO", kPrefix, "kind=ok|other=", x);
  } else {
    ++c.lines_aggregated;
    absl::StrAppend(out, "INFO", kPrefix, "kind=ok|host=", host, "|x=", x);
    HostTotals& t = expected->hosts[host];
    ++t.count;
    t.sum += static_cast<double>(x);
    t.last = absl::StrCat(x);
    t.last_producer = producer;
  }
}

// Kills the process if a round does not finish in time, so a hang fails
// the run with a message instead of blocking until CTest's timeout.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, std::string what)
      : thread_([this, limit, what = std::move(what)] {
          std::unique_lock<std::mutex> lock(mu_);
          if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "WATCHDOG: %s did not finish within %llds\n",
                         what.c_str(), static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::_Exit(3);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// One report as the callback saw it.
struct Report {
  LineCounters stats;
  std::map<std::string, HostTotals> hosts;
  bool is_final = false;
};

// Records the reports; checks that callbacks never overlap.
class Recorder {
 public:
  ResultCallback Callback() {
    return [this](const ResultTable& r, bool is_final) {
      if (active_.fetch_add(1) != 0) overlapped_.store(true);
      Report report;
      report.stats = r.stats();
      report.is_final = is_final;
      for (size_t row = 0; row < r.num_rows(); ++row) {
        HostTotals& t = report.hosts[std::string(r.cell(row, 0))];
        t.count = static_cast<uint64_t>(r.value(row, 1));
        t.sum = r.value(row, 2);
        t.last = std::string(r.cell(row, 3));
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        reports_.push_back(std::move(report));
      }
      active_.fetch_sub(1);
    };
  }
  std::vector<Report> reports() {
    std::lock_guard<std::mutex> lock(mu_);
    return reports_;
  }
  bool overlapped() const { return overlapped_.load(); }

 private:
  std::mutex mu_;
  std::vector<Report> reports_;
  std::atomic<int> active_{0};
  std::atomic<bool> overlapped_{false};
};

struct RoundOutcome {
  double seconds = 0;
  size_t interval_reports = 0;
};

// One round: `config.producers` threads push their lines; a finisher thread
// calls FinishInput() while they push.
RoundOutcome RunRound(const Query& query, const SoakConfig& config, int round) {
  const auto start = Clock::now();
  RoundOutcome outcome;
  TurboOptions options;
  options.mode = round % 2 == 0 ? ReportMode::kDelta : ReportMode::kCumulative;
  options.interval_ms = config.interval_ms;
  options.worker_threads = 1 + round % 4;
  options.batch_lines = round % 3 == 0 ? 2048 : 97 + 13 * round;
  options.aggregator.hostname = "soak";
  options.aggregator.max_line_bytes = kMaxLineBytes;
  SCOPED_TRACE(absl::StrCat(
      "round ", round, ": ",
      options.mode == ReportMode::kDelta ? "delta" : "cumulative", ", ",
      options.worker_threads, " workers, batches of ", options.batch_lines));

  Recorder recorder;
  absl::StatusOr<std::unique_ptr<TurboAggregate>> turbo =
      TurboAggregate::Create(query, options, recorder.Callback());
  EXPECT_OK(turbo.status());
  if (!turbo.ok()) return outcome;

  std::vector<std::unique_ptr<TurboAggregate::Producer>> producers;
  for (int p = 0; p < config.producers; ++p) {
    absl::StatusOr<std::unique_ptr<TurboAggregate::Producer>> producer =
        (*turbo)->AddProducer(static_cast<SourceId>(p));
    EXPECT_OK(producer.status());
    if (!producer.ok()) return outcome;
    producers.push_back(*std::move(producer));
  }

  std::vector<Expected> expected(config.producers);
  std::atomic<int> finished{0};
  std::vector<std::thread> threads;
  threads.reserve(config.producers);
  for (int p = 0; p < config.producers; ++p) {
    threads.emplace_back([&, p] {
      std::string buffer;
      std::vector<size_t> ends;
      std::vector<std::string_view> views;
      for (int64_t first = 0; first < config.lines; first += kPushLines) {
        const int64_t n = std::min<int64_t>(kPushLines, config.lines - first);
        buffer.clear();
        ends.clear();
        for (int64_t i = first; i < first + n; ++i) {
          AppendLine(p, i, &buffer, &expected[p]);
          ends.push_back(buffer.size());
        }
        views.clear();
        size_t begin = 0;
        for (size_t end : ends) {
          views.emplace_back(buffer.data() + begin, end - begin);
          begin = end;
        }
        // Alternate PushLines and PushLine.
        if ((first / kPushLines + p) % 4 == 0) {
          for (std::string_view line : views) {
            absl::Status s = producers[p]->PushLine(line);
            if (!s.ok()) {
              ADD_FAILURE() << "producer " << p << ": " << s;
              break;
            }
          }
        } else {
          EXPECT_OK(producers[p]->PushLines(views)) << "producer " << p;
        }
      }
      finished.fetch_add(1);
      EXPECT_OK(producers[p]->Finish()) << "producer " << p;
    });
  }

  // FinishInput() from another thread, early (round % 3 == 0: at once),
  // while the producers push: it must wait for all of them.
  absl::Status finish_status = absl::UnknownError("FinishInput not called");
  size_t reports_at_finish = 0;
  std::thread finisher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 3 * 5));
    finish_status = (*turbo)->FinishInput();
    EXPECT_EQ(finished.load(), config.producers)
        << "FinishInput returned before every producer finished";
    reports_at_finish = recorder.reports().size();
  });
  finisher.join();
  for (std::thread& t : threads) t.join();
  EXPECT_OK(finish_status);
  // Later calls return the same status at once.
  EXPECT_OK((*turbo)->FinishInputWithin(absl::Milliseconds(1)));

  Expected total;
  for (const Expected& e : expected) total.Add(e);
  const uint64_t pushed =
      static_cast<uint64_t>(config.producers) * config.lines;
  EXPECT_EQ(total.counters.lines_read, pushed);

  // The counters, exact.
  const LineCounters stats = (*turbo)->stats();
  EXPECT_EQ(stats, total.counters);
  EXPECT_EQ(stats.lines_matched(), pushed - total.counters.lines_too_long -
                                       total.counters.lines_table_mismatch);
  EXPECT_EQ(stats.lines_parsed(), total.counters.lines_filtered +
                                      total.counters.lines_without_value +
                                      total.counters.lines_aggregated);

  turbo->reset();  // No callback after the final one.
  const std::vector<Report> reports = recorder.reports();
  EXPECT_EQ(reports.size(), reports_at_finish);
  EXPECT_FALSE(recorder.overlapped()) << "callbacks overlapped";
  EXPECT_FALSE(reports.empty());
  if (reports.empty()) return outcome;
  EXPECT_TRUE(reports.back().is_final);
  size_t finals = 0;
  for (const Report& r : reports) finals += r.is_final ? 1 : 0;
  EXPECT_EQ(finals, 1u);
  outcome.interval_reports = reports.size() - 1;

  if (options.mode == ReportMode::kDelta) {
    // Every line is in exactly one report.
    LineCounters sum;
    std::map<std::string, HostTotals> hosts;
    for (const Report& r : reports) {
      if (!r.is_final) {
        EXPECT_GT(r.stats.lines_read, 0u) << "an empty interval report";
      }
      sum += r.stats;
      for (const auto& [host, t] : r.hosts) {
        hosts[host].count += t.count;
        hosts[host].sum += t.sum;
      }
    }
    EXPECT_EQ(sum, total.counters);
    EXPECT_EQ(sum.lines_read, pushed);
    EXPECT_EQ(hosts.size(), total.hosts.size());
    for (const auto& [host, t] : total.hosts) {
      EXPECT_EQ(hosts[host].count, t.count) << host;
      EXPECT_EQ(hosts[host].sum, t.sum) << host;
    }
  } else {
    // Snapshots only grow; the final one is the whole input, in
    // registration order (last() from the last producer with the host).
    uint64_t previous = 0;
    for (const Report& r : reports) {
      if (r.is_final) break;
      EXPECT_GT(r.stats.lines_read, previous);
      EXPECT_LE(r.stats.lines_read, pushed);
      previous = r.stats.lines_read;
    }
    const Report& final_report = reports.back();
    EXPECT_EQ(final_report.stats, total.counters);
    EXPECT_EQ(final_report.hosts.size(), total.hosts.size());
    for (const auto& [host, t] : total.hosts) {
      auto it = final_report.hosts.find(host);
      if (it == final_report.hosts.end()) {
        ADD_FAILURE() << "no row for " << host;
        continue;
      }
      EXPECT_EQ(it->second.count, t.count) << host;
      EXPECT_EQ(it->second.sum, t.sum) << host;
      EXPECT_EQ(it->second.last, t.last) << host;
    }
  }
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return outcome;
}

TEST(TurboSoakTest, EveryRoundCompletesAndAccountsForEveryLine) {
  const SoakConfig config;
  ASSERT_GE(config.producers, 1);
  ASSERT_GE(config.lines, 1);
  ASSERT_GE(config.repeats, 1);
  std::printf("soak: %d producers x %lld lines, %d rounds, interval %lld ms\n",
              config.producers, static_cast<long long>(config.lines),
              config.repeats, static_cast<long long>(config.interval_ms));
  absl::StatusOr<Query> query = Query::Compile(kQuery);
  ASSERT_OK(query.status());

  const auto start = Clock::now();
  size_t interval_reports = 0;
  for (int round = 0; round < config.repeats; ++round) {
    RoundOutcome outcome;
    {
      Watchdog watchdog(std::chrono::seconds(config.round_timeout_s),
                        absl::StrCat("soak round ", round));
      outcome = RunRound(*query, config, round);
    }
    interval_reports += outcome.interval_reports;
    std::printf("round %d: %.2f s, %zu interval reports\n", round,
                outcome.seconds, outcome.interval_reports);
    std::fflush(stdout);
    if (::testing::Test::HasFailure()) break;
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("soak: %d rounds in %.2f s, %zu interval reports\n",
              config.repeats, seconds, interval_reports);
  // Runs much longer than the interval report in between (a report is
  // skipped only when no line arrived since the previous one).
  if (seconds * 1000 > 10.0 * config.interval_ms * config.repeats) {
    EXPECT_GT(interval_reports, 0u);
  }
}

}  // namespace
}  // namespace mapr
