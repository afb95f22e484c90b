// api/aggregator_testing.h: test hooks for mapr::Aggregator. Not
// installed (cmake/mapr_install.cmake skips mapr/*_testing.h); for mapr's
// own tests only.
#ifndef MAPR_MAPR_AGGREGATOR_TESTING_H_
#define MAPR_MAPR_AGGREGATOR_TESTING_H_

#include "mapr/aggregator.h"

namespace mapr {

// While it lives, `aggregator` behaves as if another thread were inside a
// non-const call (`mutating`) or inside Snapshot(), so that a test can
// check the debug builds' concurrent-use detector without a timing race.
// REQUIRES: `aggregator` is not moved from, no call is inside it, and it
// outlives this object.
class ScopedAggregatorUseForTesting {
 public:
  explicit ScopedAggregatorUseForTesting(Aggregator& aggregator,
                                         bool mutating = true);
  ~ScopedAggregatorUseForTesting();
  ScopedAggregatorUseForTesting(const ScopedAggregatorUseForTesting&) = delete;
  ScopedAggregatorUseForTesting& operator=(
      const ScopedAggregatorUseForTesting&) = delete;

 private:
  Aggregator& aggregator_;
  bool mutating_;
};

}  // namespace mapr

#endif  // MAPR_MAPR_AGGREGATOR_TESTING_H_
