// Private string helpers. Debian's Abseil 20220623 builds absl::string_view as
// its own class, so conversions to and from std::string_view are explicit.
#ifndef MAPR_UTIL_STRINGS_H_
#define MAPR_UTIL_STRINGS_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace mapr::util {

inline absl::string_view ToAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view ToStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_STRINGS_H_
