// Runs a function on several threads at once, for the engine's parallel
// phases (sorting and rendering a result, looking up a merge's groups).
#ifndef MAPR_UTIL_RUN_ON_THREADS_H_
#define MAPR_UTIL_RUN_ON_THREADS_H_

#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace mapr::util {

// The threads worth starting for `items` items: one per `min_per_thread`
// of them, at least 1 and at most `max_threads`.
inline size_t ThreadsFor(size_t items, size_t max_threads,
                         size_t min_per_thread) {
  return std::clamp<size_t>(items / std::max<size_t>(min_per_thread, 1), 1,
                            std::max<size_t>(max_threads, 1));
}

// Runs fn(0), ..., fn(n - 1) at once: fn(0) on the calling thread, the
// others on threads of their own. If a thread cannot be started (the
// system's limit), its share runs on the calling thread afterwards.
template <typename Fn>
void RunOnThreads(size_t n, const Fn& fn) {
  std::vector<std::thread> threads;
  std::vector<size_t> left;
  threads.reserve(n);
  left.reserve(n);
  for (size_t i = 1; i < n; ++i) {
    try {
      threads.emplace_back([&fn, i] { fn(i); });
    } catch (const std::system_error&) {
      left.push_back(i);
    }
  }
  fn(0);
  for (size_t i : left) fn(i);
  for (std::thread& t : threads) t.join();
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_RUN_ON_THREADS_H_
