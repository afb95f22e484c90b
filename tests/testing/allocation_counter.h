// Counts calls of the global operator new, for tests that check that code
// never allocates. Link tests/testing/allocation_counter.cc into the test
// binary (it replaces the global operator new and delete).
//
//   const size_t before = mapr::testing::AllocationCount();
//   ParseNumber("12.5", &v);
//   EXPECT_EQ(mapr::testing::AllocationCount(), before);
#ifndef MAPR_TESTS_TESTING_ALLOCATION_COUNTER_H_
#define MAPR_TESTS_TESTING_ALLOCATION_COUNTER_H_

#include <cstddef>

namespace mapr::testing {

// The number of global operator new calls so far in this process.
size_t AllocationCount();

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_ALLOCATION_COUNTER_H_
