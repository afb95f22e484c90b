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
  runtime::TimeReader reader;
  std::vector<std::optional<TimeInstant>> out(texts.size());
  std::vector<int64_t> seconds;
  bool all_yearless = true;
  for (size_t i = 0; i < texts.size(); ++i) {
    runtime::Timestamp t;
    if (!reader.Read(texts[i], &t)) continue;
    out[i] = TimeInstant{t.seconds, t.nanos};
    all_yearless &= runtime::IsYearless(t.layout);
    seconds.push_back(t.seconds);
  }
  if (!all_yearless || seconds.empty()) return out;
  runtime::PlaceAcrossNewYear(seconds);
  size_t k = 0;
  for (std::optional<TimeInstant>& t : out) {
    if (t) t->seconds = seconds[k++];
  }
  return out;
}

}  // namespace mapr
