// The machine's host name, the one helper every layer uses for it.
#ifndef MAPR_UTIL_HOST_NAME_H_
#define MAPR_UTIL_HOST_NAME_H_

#include <string>

namespace mapr::util {

// gethostname(2); "localhost" if it fails.
std::string HostName();

}  // namespace mapr::util

#endif  // MAPR_UTIL_HOST_NAME_H_
