#include "util/errno_text.h"

#include <string.h>

namespace mapr::util {
namespace {

// strerror_r is the XSI variant (returns int) or the GNU one (returns char*)
// depending on feature macros; overloading on the result handles both.
[[maybe_unused]] std::string StrerrorResult(int rc, const char* buf,
                                            int error_number) {
  if (rc == 0 && buf[0] != '\0') return buf;
  return "Unknown error " + std::to_string(error_number);
}
[[maybe_unused]] std::string StrerrorResult(const char* text,
                                            const char* /*buf*/,
                                            int error_number) {
  if (text != nullptr && text[0] != '\0') return text;
  return "Unknown error " + std::to_string(error_number);
}

}  // namespace

std::string ErrnoText(int error_number) {
  char buf[256];
  buf[0] = '\0';
  return StrerrorResult(strerror_r(error_number, buf, sizeof(buf)), buf,
                        error_number);
}

}  // namespace mapr::util
