// absl::Mutex made visible to ThreadSanitizer. Compiled only into
// -fsanitize=thread builds (the tsan preset; see util/CMakeLists.txt).
//
// Debian builds Abseil without ThreadSanitizer, so the lock operations of
// absl::Mutex, which run inside libabsl_synchronization.so, are invisible to
// TSan: it sees no happens-before edge from one thread's Unlock() to the next
// thread's Lock() and reports every access to guarded state as a race.
// Abseil built with TSan annotates these operations itself
// (ABSL_TSAN_MUTEX_PRE_LOCK and friends in its mutex.cc). This file makes the
// same annotations from outside: it defines the absl::Mutex and
// absl::CondVar members that mapr calls, so the calls in mapr's objects (and
// in whatever links them) bind here; each definition tells TSan about the
// acquire or release and runs the library's own definition, found with
// dlsym(RTLD_NEXT). The definitions are hidden (mapr builds with
// -fvisibility=hidden), so Abseil's calls among its own functions still go
// straight to Abseil, and a thread-local depth keeps the annotations to the
// outermost call in any case.
//
// Covered: Lock, Unlock, TryLock, ReaderLock, ReaderUnlock, ReaderTryLock
// (MutexLock, ReaderMutexLock, WriterLock and WriterUnlock call these) and
// CondVar::Wait, WaitWithTimeout and WaitWithDeadline with the mutex held
// exclusively. The members that evaluate a Condition (Await, LockWhen, ...)
// are not: using one on a mutex also used through the covered members would
// confuse TSan (it would report an unlock of an unlocked mutex), so add it
// here first.
//
// If Abseil itself is ever built with TSan, drop this file: its own
// annotations and these would count every lock twice.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

#if !ABSL_OPTION_USE_INLINE_NAMESPACE
#error "util/absl_mutex_tsan.cc expects Abseil's inline namespace (Debian's)"
#endif

#define MAPR_TSAN_STRINGIFY_INNER(x) #x
#define MAPR_TSAN_STRINGIFY(x) MAPR_TSAN_STRINGIFY_INNER(x)

namespace {

// The mangled name of absl::<ns>::<nested>(<params>), e.g. nested
// "5Mutex4Lock" and params "v" for absl::Mutex::Lock(). In `params`, S0_ is
// absl::<ns>.
std::string Mangled(std::string_view nested, std::string_view params) {
  constexpr std::string_view kNamespace =
      MAPR_TSAN_STRINGIFY(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  return "_ZN4absl" + std::to_string(kNamespace.size()) +
         std::string(kNamespace) + std::string(nested) + "E" +
         std::string(params);
}

// The next definition of the mangled symbol after this one: Abseil's.
template <typename Fn>
Fn Real(std::string_view nested, std::string_view params) {
  const std::string name = Mangled(nested, params);
  void* f = dlsym(RTLD_NEXT, name.c_str());
  if (f == nullptr) {
    std::fprintf(stderr, "util/absl_mutex_tsan.cc: no %s in Abseil\n",
                 name.c_str());
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

// Shim calls on this thread's stack; only the outermost one annotates.
thread_local int tls_depth = 0;

class Outermost {
 public:
  Outermost() : outermost_(tls_depth++ == 0) {}
  ~Outermost() { --tls_depth; }
  Outermost(const Outermost&) = delete;
  Outermost& operator=(const Outermost&) = delete;
  bool operator()() const { return outermost_; }

 private:
  const bool outermost_;
};

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex4Lock", "v");
  Outermost annotate;
  if (annotate()) __tsan_mutex_pre_lock(this, 0);
  real(this);
  if (annotate()) __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::Unlock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex6Unlock", "v");
  Outermost annotate;
  if (annotate()) __tsan_mutex_pre_unlock(this, 0);
  real(this);
  if (annotate()) __tsan_mutex_post_unlock(this, 0);
}

bool Mutex::TryLock() {
  static const auto real = Real<bool (*)(Mutex*)>("5Mutex7TryLock", "v");
  Outermost annotate;
  if (annotate()) __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  if (annotate()) {
    __tsan_mutex_post_lock(
        this,
        __tsan_mutex_try_lock | (locked ? 0 : __tsan_mutex_try_lock_failed), 0);
  }
  return locked;
}

void Mutex::ReaderLock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex10ReaderLock", "v");
  Outermost annotate;
  if (annotate()) __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this);
  if (annotate()) __tsan_mutex_post_lock(this, __tsan_mutex_read_lock, 0);
}

void Mutex::ReaderUnlock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex12ReaderUnlock", "v");
  Outermost annotate;
  if (annotate()) __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  real(this);
  if (annotate()) __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}

bool Mutex::ReaderTryLock() {
  static const auto real = Real<bool (*)(Mutex*)>("5Mutex13ReaderTryLock", "v");
  constexpr unsigned kFlags = __tsan_mutex_read_lock | __tsan_mutex_try_lock;
  Outermost annotate;
  if (annotate()) __tsan_mutex_pre_lock(this, kFlags);
  const bool locked = real(this);
  if (annotate()) {
    __tsan_mutex_post_lock(
        this, kFlags | (locked ? 0 : __tsan_mutex_try_lock_failed), 0);
  }
  return locked;
}

// A wait releases `mu` and takes it again before returning (as Abseil's
// CondVar::WaitCommon annotates it).
void CondVar::Wait(Mutex* mu) {
  static const auto real =
      Real<void (*)(CondVar*, Mutex*)>("7CondVar4Wait", "PNS0_5MutexE");
  Outermost annotate;
  if (annotate()) {
    __tsan_mutex_pre_unlock(mu, 0);
    __tsan_mutex_post_unlock(mu, 0);
  }
  real(this, mu);
  if (annotate()) {
    __tsan_mutex_pre_lock(mu, 0);
    __tsan_mutex_post_lock(mu, 0, 0);
  }
}

bool CondVar::WaitWithTimeout(Mutex* mu, absl::Duration timeout) {
  static const auto real = Real<bool (*)(CondVar*, Mutex*, absl::Duration)>(
      "7CondVar15WaitWithTimeout", "PNS0_5MutexENS0_8DurationE");
  Outermost annotate;
  if (annotate()) {
    __tsan_mutex_pre_unlock(mu, 0);
    __tsan_mutex_post_unlock(mu, 0);
  }
  const bool timed_out = real(this, mu, timeout);
  if (annotate()) {
    __tsan_mutex_pre_lock(mu, 0);
    __tsan_mutex_post_lock(mu, 0, 0);
  }
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, absl::Time deadline) {
  static const auto real = Real<bool (*)(CondVar*, Mutex*, absl::Time)>(
      "7CondVar16WaitWithDeadline", "PNS0_5MutexENS0_4TimeE");
  Outermost annotate;
  if (annotate()) {
    __tsan_mutex_pre_unlock(mu, 0);
    __tsan_mutex_post_unlock(mu, 0);
  }
  const bool timed_out = real(this, mu, deadline);
  if (annotate()) {
    __tsan_mutex_pre_lock(mu, 0);
    __tsan_mutex_post_lock(mu, 0, 0);
  }
  return timed_out;
}

ABSL_NAMESPACE_END
}  // namespace absl
