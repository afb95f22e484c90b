// Private helper for the library boundaries that turn a caught
// std::bad_alloc into a status (the outfile writer). Not installed.
#ifndef MAPR_UTIL_OUT_OF_MEMORY_H_
#define MAPR_UTIL_OUT_OF_MEMORY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace mapr::util {

// ResourceExhausted "out of memory (std::bad_alloc) <what>[ '<name>']",
// e.g. "out of memory (std::bad_alloc) writing outfile 'r.csv'". Never
// throws, so it is safe inside a catch of std::bad_alloc: if the message
// cannot be allocated either, the status has none (an empty message
// allocates nothing).
inline absl::Status OutOfMemoryError(absl::string_view what,
                                     absl::string_view name = {}) noexcept {
  try {
    std::string message = absl::StrCat("out of memory (std::bad_alloc) ", what);
    if (!name.empty()) absl::StrAppend(&message, " '", name, "'");
    return absl::ResourceExhaustedError(message);
  } catch (...) {
    return absl::Status(absl::StatusCode::kResourceExhausted, "");
  }
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_OUT_OF_MEMORY_H_
