// Which sanitizer a test binary was built with, for the tests that TSan
// (10-20x slower) skips: those that start no thread, so that TSan has
// nothing to check in them, and that the dev and ASan runs cover.
#ifndef MAPR_TESTS_TESTING_SANITIZERS_H_
#define MAPR_TESTS_TESTING_SANITIZERS_H_

namespace mapr::testing {

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

// AddressSanitizer: freed memory waits in its quarantine (256 MiB by
// default) and every block has red zones, so a process's RSS says little of
// what the code holds.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace mapr::testing

// The first statement of a test that starts no thread.
#define MAPR_SKIP_UNDER_TSAN()                                        \
  if (::mapr::testing::kThreadSanitizer) {                            \
    GTEST_SKIP() << "one thread: TSan has nothing to check; the dev " \
                    "and ASan runs cover it";                         \
  }

#endif  // MAPR_TESTS_TESTING_SANITIZERS_H_
