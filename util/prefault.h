// Prefaulting memory that is about to be written.
#ifndef MAPR_UTIL_PREFAULT_H_
#define MAPR_UTIL_PREFAULT_H_

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace mapr::util {

// Asks the kernel to map the whole pages inside [p, p + n) writable now
// (madvise MADV_POPULATE_WRITE, Linux 5.14+), for memory the caller is about
// to write: one call instead of a page fault per 4 KiB page. A fault is
// cheap on bare metal but costs ~16 us in some VMs (a Firecracker guest
// here: 16.5 us a page by faults, 1.3 us by this call, plus what the host
// takes either way to back a page it has not backed yet). The contents do
// not change. A hint only: spans under kMinPrefaultBytes, an older kernel
// and any error leave the memory to be faulted in by the writes.
void PrefaultForWrite(void* p, size_t n);

inline constexpr size_t kMinPrefaultBytes = size_t{64} << 10;

// The step in which ResizePrefaulted prefaults a growing vector ahead of
// its size: what it may make resident beyond what is written.
inline constexpr size_t kPrefaultStepBytes = size_t{256} << 10;

// v.resize(n, value), for a vector of a trivially copyable type that grows
// a little at a time (a column of per-group state), with the memory it
// writes prefaulted: when the vector outgrows its capacity, the new buffer
// (twice the capacity, as libstdc++ grows) is prefaulted over the elements
// copied and appended; and each time the size crosses a multiple of
// kPrefaultStepBytes, the rest of that step is prefaulted. So a million
// groups take a madvise call per 256 KiB rather than a fault per page, and
// at most one step past the size becomes resident before it is written.
template <typename T>
void ResizePrefaulted(std::vector<T>& v, size_t n, const T& value = T()) {
  static_assert(std::is_trivially_copyable_v<T>);
  const size_t old_size = v.size();
  if (n <= old_size) {
    v.resize(n);
    return;
  }
  auto step_end = [&](size_t elements, size_t capacity) {
    const size_t bytes = elements * sizeof(T);
    const size_t end = (bytes / kPrefaultStepBytes + 1) * kPrefaultStepBytes;
    return std::min(end, capacity * sizeof(T));
  };
  if (n > v.capacity()) {
    std::vector<T> grown;
    grown.reserve(std::max(n, 2 * v.capacity()));
    PrefaultForWrite(grown.data(), step_end(n, grown.capacity()));
    grown.assign(v.begin(), v.end());
    v.swap(grown);
  } else if (old_size * sizeof(T) / kPrefaultStepBytes !=
             n * sizeof(T) / kPrefaultStepBytes) {
    char* base = reinterpret_cast<char*>(v.data());
    const size_t from = old_size * sizeof(T);
    PrefaultForWrite(base + from, step_end(n, v.capacity()) - from);
  }
  v.resize(n, value);
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_PREFAULT_H_
