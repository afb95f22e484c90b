// Resource bound: a PartialReducer's memory per source. A reducer holds an
// aggregator per source; one that only merges partials needs no batch
// buffers, and its group keys' arena starts small. With one-group partials
// from many sources, the peak RSS must grow by little per source (it was
// about 268 KiB each: 2,000 one-line sources took 542 MB).
//
// Each scenario runs in a forked child, so the peak RSS the parent reads
// (wait4's rusage) is that scenario's alone; the difference between two
// source counts cancels what the process and the sanitizers hold anyway.
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/partial_reducer.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/sanitizers.h"

namespace mapr {
namespace {

// Bytes a source may add to the reducer's peak (the old cost was 268 KiB).
constexpr int64_t kMaxKiBPerSource = 32;

// In the child: a reducer over `sources` one-line partials, each of its own
// source; exits 0 if the result is right.
void ReduceSources(int sources) {
  absl::StatusOr<Query> q = Query::Compile(
      "select k, count($line), sum(v) group by k logformat generickv");
  if (!q.ok()) _exit(2);
  PartialReducer reducer{AggregatorOptions()};
  for (int i = 0; i < sources; ++i) {
    AggregatorOptions options;
    options.source = absl::StrCat("host", i);
    absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, options);
    if (!agg.ok()) _exit(3);
    const std::vector<std::string> lines = {
        absl::StrCat("k=", i % 10, "|v=", i)};
    if (!agg->PushLines(lines).ok() || !agg->FinishInput().ok()) _exit(4);
    absl::StatusOr<std::string> part = agg->SerializePartial();
    if (!part.ok() || !reducer.Add(*part).ok()) _exit(5);
  }
  absl::StatusOr<ResultTable> r = reducer.TakeResult();
  if (!r.ok() || r->num_rows() != static_cast<size_t>(std::min(sources, 10))) {
    _exit(6);
  }
  uint64_t count = 0;
  for (size_t row = 0; row < r->num_rows(); ++row) {
    count += static_cast<uint64_t>(r->value(row, 1));
  }
  _exit(count == static_cast<uint64_t>(sources) ? 0 : 7);
}

// The peak RSS (KiB) of ReduceSources(sources) in a child; fails the test
// if the child does.
int64_t PeakKiB(int sources) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) ReduceSources(sources);
  EXPECT_GT(pid, 0) << "fork failed";
  struct rusage usage = {};
  int status = 0;
  pid_t waited;
  do {
    waited = wait4(pid, &status, 0, &usage);
  } while (waited < 0 && errno == EINTR);
  EXPECT_EQ(waited, pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << sources << " sources: child status " << status;
  return usage.ru_maxrss;
}

TEST(ReducerSourcesBoundTest, ASourceCostsItsGroupsNotABatch) {
  MAPR_SKIP_UNDER_TSAN();
  const int64_t few = PeakKiB(20);
  const int64_t many = PeakKiB(2020);
  std::printf("peak RSS: 20 sources %lld KiB, 2020 sources %lld KiB\n",
              static_cast<long long>(few), static_cast<long long>(many));
  // Under ASan the reduce still runs (and is checked), but its RSS is
  // mostly the quarantine of freed blocks: the dev and release runs check
  // the bound.
  if (::mapr::testing::kAddressSanitizer) return;
  EXPECT_LT(many - few, 2000 * kMaxKiBPerSource);
}

}  // namespace
}  // namespace mapr
