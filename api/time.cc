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

std::vector<std::optional<TimeInstant>> ReadTimes(
    std::span<const std::string_view> texts) {
  const std::vector<runtime::ColumnTime> column =
      runtime::ReadTimeColumn(texts.size(), [&](size_t i) { return texts[i]; });
  std::vector<std::optional<TimeInstant>> out(texts.size());
  for (size_t i = 0; i < column.size(); ++i) {
    if (column[i].ok) out[i] = TimeInstant{column[i].seconds, column[i].nanos};
  }
  return out;
}

}  // namespace mapr
