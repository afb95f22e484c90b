// The list of functions: adding one is its own file plus one line here.
#include <span>

#include "runtime/function.h"

namespace mapr::runtime {

// X(name): each function file defines `const ScalarFunction name`. The
// order is the order of `mapr --help` and the planner's hints.
#define MAPR_FUNCTIONS(X) \
  X(kMd5sumFunction)      \
  X(kMaskdigitsFunction)  \
  X(kRegexFunction)       \
  X(kTimeFunction)        \
  X(kBucketFunction)      \
  X(kWindowFunction)      \
  X(kDurationFunction)    \
  X(kBytesFunction)       \
  X(kLowerFunction)       \
  X(kUpperFunction)       \
  X(kLenFunction)         \
  X(kSubstrFunction)      \
  X(kSplitFunction)       \
  X(kFormatTimeFunction)  \
  X(kTemplateFunction)    \
  X(kCidrFunction)        \
  X(kIpInFunction)        \
  X(kLookupFunction)      \
  X(kCoalesceFunction)    \
  X(kIsnullFunction)

#define MAPR_DECLARE_FUNCTION(name) extern const ScalarFunction name;
MAPR_FUNCTIONS(MAPR_DECLARE_FUNCTION)
#undef MAPR_DECLARE_FUNCTION

namespace {

#define MAPR_LIST_FUNCTION(name) &(name),
constexpr const ScalarFunction* kAll[] = {MAPR_FUNCTIONS(MAPR_LIST_FUNCTION)};
#undef MAPR_LIST_FUNCTION

}  // namespace

std::span<const ScalarFunction* const> ScalarFunctions() { return kAll; }

const ScalarFunction& FunctionOf(const plan::FunctionInfo& info) {
  for (const ScalarFunction* f : kAll) {
    if (&f->info == &info) return *f;
  }
  return *kAll[0];  // Unreachable for an entry of ScalarFunctions().
}

}  // namespace mapr::runtime
