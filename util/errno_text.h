// The text of an errno value ("No such file or directory"), thread-safe.
#ifndef MAPR_UTIL_ERRNO_TEXT_H_
#define MAPR_UTIL_ERRNO_TEXT_H_

#include <string>

namespace mapr::util {

// strerror_r's message for `error_number`, or "Unknown error N".
std::string ErrnoText(int error_number);

}  // namespace mapr::util

#endif  // MAPR_UTIL_ERRNO_TEXT_H_
