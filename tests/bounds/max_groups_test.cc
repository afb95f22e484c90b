// Resource bound: AggregatorOptions::max_groups under a stream of distinct
// group keys. With max_groups = 100000 and 10M lines that each carry a new
// key, the run must end with a clear ResourceExhausted at group 100001, the
// aggregator must stay consistent afterwards (see "Failure is sticky" in
// mapr/aggregator.h), and the process must stay below 1 GiB peak RSS.
//
// The scenario runs in a forked child, so the peak RSS measured by the
// parent (wait4's rusage) is the scenario's alone. The child reports gtest
// failures on its output and through its exit status.
//
// MAPR_BOUNDS_LINES overrides the number of lines (default 10M).
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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

using ::mapr::testing::StatusIs;

constexpr uint64_t kMaxGroups = 100000;
constexpr uint64_t kDefaultLines = 10'000'000;
// Lines per Push; a multiple of it is exactly kMaxGroups, so the push that
// fails is the one starting at line kMaxGroups.
constexpr uint64_t kBatchLines = 10000;
static_assert(kMaxGroups % kBatchLines == 0);
constexpr int64_t kRssLimitKiB = 1024 * 1024;  // 1 GiB

constexpr std::string_view kQuery =
    "from STATS select key,count($line),sum(value) group by key";
constexpr std::string_view kExhausted =
    "more than 100000 groups (max_groups); raise the limit "
    "or group by fewer distinct values";

uint64_t LinesToStream() {
  const char* env = std::getenv("MAPR_BOUNDS_LINES");
  if (env == nullptr || *env == '\0') return kDefaultLines;
  return std::strtoull(env, nullptr, 10);
}

uint64_t SumOfBuckets(const LineCounters& c) {
  return c.lines_too_long + c.lines_table_mismatch + c.lines_ignored +
         c.lines_malformed + c.lines_unmatched + c.lines_header +
         c.lines_filtered + c.lines_without_value + c.lines_aggregated;
}

// Lines [first, first + n) of the stream: STATS lines whose key is unique
// per line ("k" and 8 digits), all of the same length, so a batch lives in
// one reused buffer and only the digits are rewritten: one batch is in
// memory at a time.
class LineStream {
 public:
  static constexpr size_t kKeyDigits = 8;

  LineStream() {
    const std::string line = ::mapr::testing::Stats(
        absl::StrCat("key=k", std::string(kKeyDigits, '0'), "|value=0"));
    line_size_ = line.size();
    key_offset_ = line.find("key=k") + 5;
    value_offset_ = line_size_ - 1;
    buffer_.reserve(line_size_ * kBatchLines);
    for (uint64_t i = 0; i < kBatchLines; ++i) buffer_.append(line);
    for (uint64_t i = 0; i < kBatchLines; ++i) {
      views_.emplace_back(buffer_.data() + i * line_size_, line_size_);
    }
  }

  // The views stay valid until the next call.
  std::span<const std::string_view> Batch(uint64_t first, uint64_t n) {
    for (uint64_t k = 0; k < n; ++k) {
      char* line = buffer_.data() + k * line_size_;
      uint64_t v = first + k;
      line[value_offset_] = static_cast<char>('0' + v % 7);
      for (size_t d = kKeyDigits; d-- > 0; v /= 10) {
        line[key_offset_ + d] = static_cast<char>('0' + v % 10);
      }
    }
    return std::span<const std::string_view>(views_).first(n);
  }

 private:
  std::string buffer_;
  std::vector<std::string_view> views_;
  size_t line_size_ = 0;
  size_t key_offset_ = 0;
  size_t value_offset_ = 0;
};

// The scenario; runs in the child. Uses gtest assertions.
void StreamDistinctKeys(uint64_t total_lines) {
  ASSERT_GT(total_lines, kMaxGroups);
  ASSERT_LE(total_lines, uint64_t{100'000'000});  // 8 key digits
  absl::StatusOr<Query> query = Query::Compile(kQuery);
  ASSERT_OK(query.status());
  AggregatorOptions options = ::mapr::testing::TestOptions();
  options.max_groups = kMaxGroups;
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*query, options);
  ASSERT_OK(agg.status());

  LineStream stream;
  uint64_t first_failure = UINT64_MAX;  // First line of the failing push.
  absl::Status failure;
  LineCounters at_limit;
  uint64_t failed_pushes = 0;
  for (uint64_t first = 0; first < total_lines; first += kBatchLines) {
    const uint64_t n = std::min(kBatchLines, total_lines - first);
    std::span<const std::string_view> views = stream.Batch(first, n);
    if (first == kMaxGroups) {
      // Exactly kMaxGroups groups so far, all of them complete.
      absl::StatusOr<ResultTable> full = agg->Snapshot();
      ASSERT_OK(full.status());
      EXPECT_EQ(full->total_groups(), kMaxGroups);
      EXPECT_EQ(full->num_rows(), kMaxGroups);
      uint64_t counted = 0;
      for (size_t r = 0; r < full->num_rows(); ++r) {
        counted += static_cast<uint64_t>(full->value(r, 1));
      }
      EXPECT_EQ(counted, kMaxGroups);
      at_limit = agg->stats();
      EXPECT_EQ(full->stats(), at_limit);
      EXPECT_EQ(at_limit.lines_read, kMaxGroups);
      EXPECT_EQ(at_limit.lines_aggregated, kMaxGroups);
      EXPECT_EQ(SumOfBuckets(at_limit), at_limit.lines_read);
    }
    absl::Status s = agg->PushLines(views);
    if (s.ok()) {
      ASSERT_EQ(first_failure, UINT64_MAX) << "a push succeeded after failing";
      continue;
    }
    ++failed_pushes;
    if (first_failure == UINT64_MAX) {
      first_failure = first;
      failure = s;
    } else if (s != failure) {
      ADD_FAILURE() << "push at line " << first << " returned " << s
                    << ", not the sticky " << failure;
      return;
    }
  }

  // The push holding line kMaxGroups (key k100000, group 100001) failed,
  // with the exact message; every later push returned the same error.
  EXPECT_EQ(first_failure, kMaxGroups);
  EXPECT_THAT(failure,
              StatusIs(absl::StatusCode::kResourceExhausted, kExhausted));
  EXPECT_EQ(failed_pushes,
            (total_lines - kMaxGroups + kBatchLines - 1) / kBatchLines);

  // Afterwards: the counters are those of the calls that returned OK, and
  // they still add up; no partial result is offered.
  const LineCounters after = agg->stats();
  EXPECT_EQ(after, at_limit);
  EXPECT_EQ(SumOfBuckets(after), after.lines_read);
  const auto exhausted =
      StatusIs(absl::StatusCode::kResourceExhausted, kExhausted);
  EXPECT_THAT(agg->Snapshot(), exhausted);
  EXPECT_THAT(agg->TakeDelta(), exhausted);
  EXPECT_THAT(agg->PushBytes("more\n"), exhausted);
  EXPECT_THAT(agg->EndSource(0), exhausted);
  EXPECT_THAT(agg->FinishInput(), exhausted);
  EXPECT_THAT(agg->TakeResult(), exhausted);
  // Call order is still checked first.
  EXPECT_THAT(agg->PushLines(stream.Batch(0, 1)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::HasSubstr("after FinishInput()")));
  EXPECT_EQ(agg->stats(), at_limit);
}

// Runs `body` in a forked child; returns the child's exit status and its
// peak RSS in KiB (ru_maxrss of wait4).
struct ChildOutcome {
  int wait_status = 0;
  int64_t max_rss_kib = 0;
};

ChildOutcome RunInChild(void (*body)(uint64_t), uint64_t arg) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    body(arg);
    const bool failed = ::testing::Test::HasFailure();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(failed ? 1 : 0);
  }
  ChildOutcome out;
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return out;
  }
  struct rusage usage = {};
  pid_t waited;
  do {
    waited = wait4(pid, &out.wait_status, 0, &usage);
  } while (waited < 0 && errno == EINTR);
  EXPECT_EQ(waited, pid);
  out.max_rss_kib = usage.ru_maxrss;
  return out;
}

TEST(MaxGroupsBoundTest, TenMillionDistinctKeysEndInResourceExhausted) {
  const uint64_t lines = LinesToStream();
  ChildOutcome child = RunInChild(&StreamDistinctKeys, lines);
  ASSERT_TRUE(WIFEXITED(child.wait_status))
      << "the child died: status " << child.wait_status;
  EXPECT_EQ(WEXITSTATUS(child.wait_status), 0)
      << "the scenario failed in the child (see its output above)";
  std::printf("streamed %llu lines: peak RSS %lld KiB\n",
              static_cast<unsigned long long>(lines),
              static_cast<long long>(child.max_rss_kib));
  EXPECT_GT(child.max_rss_kib, 0);
  EXPECT_LT(child.max_rss_kib, kRssLimitKiB);
}

}  // namespace
}  // namespace mapr
