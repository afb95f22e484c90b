// The random numbers of the benchmark's data generators (gen_stats_log.cc,
// gen_format_logs.cc): SplitMix64 from a fixed seed and integer arithmetic
// (Unit() aside), so the same arguments always give the same file on any
// machine, with no libm or std distribution in the draws.
#ifndef MAPR_TESTS_BENCH_RNG_H_
#define MAPR_TESTS_BENCH_RNG_H_

#include <cstddef>
#include <cstdint>

namespace mapr::bench {

struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // An integer in [0, n) by multiply-shift (gen_format_logs).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >>
                                 64);
  }
  // Next() % n: the STATS log's draw (gen_stats_log), kept so that its
  // bytes, and the figures measured on them, stay as they were.
  uint64_t Modulo(uint64_t n) { return Next() % n; }
  // A double in [0, 1) from the top 53 bits.
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // An index into a table of weights (in any unit).
  template <size_t N>
  size_t Weighted(const unsigned (&w)[N]) {
    unsigned total = 0;
    for (unsigned x : w) total += x;
    uint64_t r = Below(total);
    for (size_t i = 0; i < N; ++i) {
      if (r < w[i]) return i;
      r -= w[i];
    }
    return N - 1;
  }
};

}  // namespace mapr::bench

#endif  // MAPR_TESTS_BENCH_RNG_H_
