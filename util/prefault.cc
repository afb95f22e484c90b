#include "util/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace mapr::util {

void PrefaultForWrite(void* p, size_t n) {
#ifdef MADV_POPULATE_WRITE
  if (p == nullptr || n < kMinPrefaultBytes) return;
  static const long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return;
  const auto page = static_cast<uintptr_t>(page_size);
  const uintptr_t begin =
      (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) & ~(page - 1);
  if (end <= begin) return;
  // EINVAL (an older kernel), ENOMEM, EFAULT: the writes fault pages in.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin,
                MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace mapr::util
