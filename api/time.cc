#include "mapr/time.h"

#include <optional>
#include <string_view>

#include "runtime/time_functions.h"

namespace mapr {

std::optional<TimeInstant> ReadTime(std::string_view text) {
  runtime::TimeReader reader;
  runtime::Timestamp t;
  if (!reader.Read(text, &t)) return std::nullopt;
  return TimeInstant{t.seconds, t.nanos};
}

}  // namespace mapr
