// Deterministic generator of DTail default-format STATS logs for the
// whole-process benchmark (tests/bench/run.sh).
//
//   gen_stats_log BYTES > stats.log
//
// Lines are ~215 bytes with 18 fields: the 9 positional fields,
// MAPREDUCE:STATS, hostname (50 values, skewed), currentConnections (0-499),
// lifetimeConnections, bytes (0-999999), latency_ms (3 decimals), status (10
// values), path (~1000 values, Zipf-like), session (~1M distinct values).
// About 5 % of the lines do not match: WARN/ERROR lines with the marker, INFO
// lines without it, and lines of another table.
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/bench/rng.h"

namespace {

using mapr::bench::Rng;

const char* const kStatus[] = {"200", "201", "204", "301", "302",
                               "400", "403", "404", "500", "503"};
const char* const kSegments[] = {"api",    "orders", "users",  "cart", "items",
                                 "search", "login",  "static", "v1",   "v2"};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gen_stats_log BYTES\n");
    return 2;
  }
  const uint64_t target = std::strtoull(argv[1], nullptr, 10);
  Rng rng{42};
  std::string line;
  uint64_t written = 0;
  uint64_t n = 0;
  char buf[512];
  while (written < target) {
    ++n;
    uint64_t kind = rng.Modulo(100);
    // Skewed hostname: squares favour low numbers.
    double u = rng.Unit();
    int host = static_cast<int>(u * u * 50);
    // Zipf-like path rank.
    int path = static_cast<int>(std::pow(1000.0, rng.Unit())) - 1;
    const char* severity = "INFO";
    const char* table = "STATS";
    bool marker = true;
    if (kind == 0) severity = "WARN";
    if (kind == 1) severity = "ERROR";
    if (kind == 2 || kind == 3) marker = false;
    if (kind == 4) table = "OTHER";
    int sec = static_cast<int>(n / 1000 % 60);
    int min = static_cast<int>(n / 60000 % 60);
    int len = std::snprintf(
        buf, sizeof(buf),
        "%s|20261130-04%02d%02d|%" PRIu64
        "|stats.go:%d|8|%d|%d|%.2f|%dh|%s%s|"
        "hostname=server%02d|currentConnections=%" PRIu64
        "|lifetimeConnections=%" PRIu64 "|bytes=%" PRIu64 "|latency_ms=%" PRIu64
        ".%03" PRIu64 "|status=%s|path=/%s/%s/%d|session=%016" PRIx64 "\n",
        severity, min, sec, 1000 + rng.Modulo(9000),
        static_cast<int>(100 + rng.Modulo(900)),
        static_cast<int>(10 + rng.Modulo(90)),
        static_cast<int>(rng.Modulo(1000)), rng.Unit() * 4,
        static_cast<int>(rng.Modulo(100)),
        marker ? "MAPREDUCE:" : "STATS:", marker ? table : "", host,
        rng.Modulo(500), 1000 + rng.Modulo(100000), rng.Modulo(1000000),
        rng.Modulo(1000), rng.Modulo(1000), kStatus[rng.Modulo(10)],
        kSegments[path % 10], kSegments[(path / 10) % 10], path,
        rng.Modulo(1000000) * 2654435761ULL);
    std::fwrite(buf, 1, static_cast<size_t>(len), stdout);
    written += static_cast<uint64_t>(len);
  }
  return 0;
}
