// Counts calls of the global operator new (every non-aligned form), for
// tests that check that code never allocates. Link
// tests/testing/allocation_counter.cc into the test binary (it replaces the
// global operator new and delete).
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

// The bytes those calls asked for, in total (frees are not subtracted): a
// measure of work, for tests that check that a cost grows linearly.
size_t AllocatedBytes();

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_ALLOCATION_COUNTER_H_
