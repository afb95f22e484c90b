#include "util/host_name.h"

#include <unistd.h>

#include <string>

namespace mapr::util {

std::string HostName() {
  // POSIX allows a truncated name without a terminating NUL: the last byte
  // stays 0.
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

}  // namespace mapr::util
