// delta_shipper: the host side of the daemon streaming pattern
// (docs/distributed.md, "A daemon on every host"). It aggregates the log
// lines on standard input and, every interval, ships the partial of the
// lines since the last one (Aggregator::TakeDeltaPartial) to a central
// reducer. Here "shipping" writes OUTBOX/<seq>.part atomically (write, then
// rename), which rsync, a message queue or an HTTP POST would carry; the
// reducer is `mapr reduce OUTBOX/*.part` or a host that keeps one
// Aggregator::FromPartial per shipping host and MergeSerialized()s each
// delta as it arrives (delta k covers split k, so a lost one is DataLoss,
// "missing split k").
//
//   tail -F app.log | delta_shipper 'from STATS select count($line) group by
//   $hostname' /var/spool/mapr 10000
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mapr/mapr.h"

namespace {

bool Ship(mapr::Aggregator& agg, const std::string& outbox, int seq) {
  absl::StatusOr<std::string> part = agg.TakeDeltaPartial();
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
    std::fprintf(stderr, "usage: delta_shipper QUERY OUTBOX [INTERVAL_MS]\n");
    return 2;
  }
  const auto interval =
      std::chrono::milliseconds(argc > 3 ? std::atoll(argv[3]) : 5000);
  absl::StatusOr<mapr::Query> query = mapr::Query::Compile(argv[1]);
  if (!query.ok()) {
    std::fprintf(stderr, "%s\n", std::string(query.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(*query);
  if (!agg.ok()) return 1;
  int seq = 0;
  auto last = std::chrono::steady_clock::now();
  char buf[1 << 16];
  size_t n;
  // A real daemon would also ship on a timer while no input arrives.
  while ((n = std::fread(buf, 1, sizeof(buf), stdin)) > 0) {
    if (!agg->PushBytes(std::string_view(buf, n)).ok()) return 1;
    if (std::chrono::steady_clock::now() - last >= interval) {
      // Lines are shipped whole: the unfinished last line waits for the
      // next delta.
      if (!Ship(*agg, argv[2], seq++)) return 1;
      last = std::chrono::steady_clock::now();
    }
  }
  if (!agg->EndSource().ok() || !Ship(*agg, argv[2], seq++)) return 1;
  std::fprintf(stderr, "delta_shipper: shipped %d partials\n", seq);
  return 0;
}
