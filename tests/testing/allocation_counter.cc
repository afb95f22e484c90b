#include "tests/testing/allocation_counter.h"

#include <cstdlib>
#include <new>

namespace {
size_t allocation_count = 0;
size_t allocated_bytes = 0;
}  // namespace

// GCC flags free() of operator new memory once both are inlined here; the
// pair below is consistent (malloc/free), so silence that false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  ++allocation_count;
  allocated_bytes += size;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace mapr::testing {

size_t AllocationCount() { return allocation_count; }
size_t AllocatedBytes() { return allocated_bytes; }

}  // namespace mapr::testing
