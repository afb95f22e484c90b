// Test helpers shared by the engine tests: DTail STATS lines and the
// aggregator options the golden data assumes.
#ifndef MAPR_TESTS_TESTING_STATS_LINES_H_
#define MAPR_TESTS_TESTING_STATS_LINES_H_

#include <string>
#include <string_view>

#include "mapr/options.h"

namespace mapr::testing {

// The nine positional fields and the table of a DTail STATS line; the
// key=value pairs follow.
inline constexpr std::string_view kStatsPrefix =
    "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS";

// A STATS line ending in `kv` (e.g. "x=1|h=a").
inline std::string Stats(std::string_view kv) {
  std::string line(kStatsPrefix);
  line.push_back('|');
  line.append(kv);
  return line;
}

// $hostname = "integrationtest", as in DTail's integration tests.
inline AggregatorOptions TestOptions() {
  AggregatorOptions options;
  options.hostname = "integrationtest";
  return options;
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_STATS_LINES_H_
