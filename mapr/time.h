// mapr/time.h: reading a time as the query language's time() reads it.
//
// ReadTime accepts the layouts time() recognizes by itself (RFC 3339 with
// any fraction and offset, `YYYYMMDD-HHMMSS`, Apache CLF
// `10/Oct/2000:13:55:36 -0700`, Unix epochs in s/ms/us/ns, ...) and gives
// the instant, so a host can order or plot a result's time-bucket column
// (ResultColumn::is_time_bucket) by time rather than by text.
//
// Example:
//   std::optional<mapr::TimeInstant> t = mapr::ReadTime(r.cell(row, col));
//   if (t) points.push_back({t->seconds, r.value(row, value_col)});
//
// Thread safety: ReadTime may be called from any thread.
#ifndef MAPR_MAPR_TIME_H_
#define MAPR_MAPR_TIME_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

#include "mapr/export.h"

namespace mapr {

// An instant: seconds since the Unix epoch (UTC) and nanoseconds past them.
struct MAPR_EXPORT TimeInstant {
  int64_t seconds = 0;
  uint32_t nanos = 0;  // 0 .. 999,999,999.
  friend auto operator<=>(const TimeInstant&, const TimeInstant&) = default;
};

// The instant `text` names, or nullopt if it is in none of time()'s layouts.
// A syslog time without a year (`Oct 11 22:14:15`) is read in the year 2000,
// as time() reads it: such instants order within one year only.
MAPR_EXPORT std::optional<TimeInstant> ReadTime(std::string_view text);

}  // namespace mapr

#endif  // MAPR_MAPR_TIME_H_
