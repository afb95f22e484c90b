// delta_shipper: the host side of the daemon streaming pattern
// (docs/distributed.md, "A daemon on every host"). It aggregates the log
// lines on standard input and, every interval, ships the partial of the
// lines since the last one (Aggregator::TakeDeltaPartial) to a central
// reducer. Here "shipping" writes OUTBOX/<seq>.part atomically (write, then
// rename), which rsync, a message queue or an HTTP POST would carry; the
// reducer is `mapr reduce OUTBOX/*.part` or a host that keeps one
// Aggregator::FromPartial per shipping host and MergeSerialized()s each
// delta as it arrives (delta k covers split k, so a lost one is DataLoss,
// "missing split k"). It ships on the interval's timer, also while the log
// is idle (an empty delta says "alive, nothing new"), and marks its last
// delta final at the end of its input. With SOURCE (say the host name) the
// deltas carry it, so the outboxes of several hosts reduce together
// (`mapr reduce` merges sources; each numbers its deltas from 0).
// `mapr map --follow` is the same as a command, with files and rotation.
//
//   tail -F app.log | delta_shipper 'from STATS select count($line) group by
//   $hostname' /var/spool/mapr 10000 "$(hostname)"
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mapr/mapr.h"

namespace {

bool Ship(mapr::Aggregator& agg, const std::string& outbox, int seq,
          bool final = false) {
  mapr::StreamMark mark;
  mark.final = final;
  absl::StatusOr<std::string> part = agg.TakeDeltaPartial(mark);
  if (!part.ok()) {
    std::fprintf(stderr, "delta_shipper: %s\n",
                 std::string(part.status().message()).c_str());
    return false;
  }
  const std::string name = outbox + "/" + std::to_string(seq) + ".part";
  const std::string tmp = name + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr ||
      std::fwrite(part->data(), 1, part->size(), f) != part->size() ||
      std::fclose(f) != 0 || std::rename(tmp.c_str(), name.c_str()) != 0) {
    std::perror(name.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: delta_shipper QUERY OUTBOX [INTERVAL_MS [SOURCE]]\n");
    return 2;
  }
  const auto interval =
      std::chrono::milliseconds(argc > 3 ? std::atoll(argv[3]) : 5000);
  absl::StatusOr<mapr::Query> query = mapr::Query::Compile(argv[1]);
  if (!query.ok()) {
    std::fprintf(stderr, "%s\n", std::string(query.status().message()).c_str());
    return 2;
  }
  mapr::AggregatorOptions options;
  if (argc > 4) options.source = argv[4];
  absl::StatusOr<mapr::Aggregator> agg =
      mapr::Aggregator::Create(*query, options);
  if (!agg.ok()) return 1;
  int seq = 0;
  auto next = std::chrono::steady_clock::now() + interval;
  char buf[1 << 16];
  for (;;) {
    // Wait for input, at most until the next delta is due.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        next - std::chrono::steady_clock::now());
    pollfd in = {STDIN_FILENO, POLLIN, 0};
    const int ready =
        poll(&in, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (ready < 0 && errno != EINTR) return 1;
    if (ready > 0) {
      const ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
      if (n < 0 && errno != EINTR) return 1;
      if (n == 0) break;  // The end of the input.
      if (n > 0 &&
          !agg->PushBytes(std::string_view(buf, static_cast<size_t>(n))).ok()) {
        return 1;
      }
    }
    if (std::chrono::steady_clock::now() >= next) {
      // Lines are shipped whole: the unfinished last line waits for the
      // next delta. Idle intervals ship empty deltas.
      if (!Ship(*agg, argv[2], seq++)) return 1;
      next = std::chrono::steady_clock::now() + interval;
    }
  }
  if (!agg->EndSource().ok() || !Ship(*agg, argv[2], seq++, /*final=*/true)) {
    return 1;
  }
  std::fprintf(stderr, "delta_shipper: shipped %d partials\n", seq);
  return 0;
}
