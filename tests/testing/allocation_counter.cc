#include "tests/testing/allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
// Atomic: a test may allocate on several threads (TurboAggregate workers).
std::atomic<size_t> allocation_count{0};
std::atomic<size_t> allocated_bytes{0};
}  // namespace

// GCC flags free() of operator new memory once both are inlined here; the
// pair below is consistent (malloc/free), so silence that false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Every non-aligned form is replaced, so that no memory from a sanitizer's
// own operator new (the nothrow form std::stable_sort's buffer uses, say)
// reaches the free() below, which ASan reports as a mismatch.
namespace {
void* Allocate(std::size_t size) noexcept {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  allocated_bytes.fetch_add(size, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
}  // namespace

void* operator new(std::size_t size) {
  if (void* p = Allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = Allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace mapr::testing {

size_t AllocationCount() { return allocation_count.load(); }
size_t AllocatedBytes() { return allocated_bytes.load(); }

}  // namespace mapr::testing
