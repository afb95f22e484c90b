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
#include <span>
#include <string_view>
#include <vector>

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

// ReadTime of each of `texts` (a result's time-bucket column, say), with
// times without a year placed across New Year: when every time read lacks
// a year (syslog `Dec 31 23:59:59`, DTail `1231-235959`) and two of them
// next in calendar order lie more than half a year apart, the column spans
// New Year: the times before that gap move to the next year (2001), so
// December 31 orders before January 1. A pure function of the set of
// texts.
//   std::vector<std::optional<mapr::TimeInstant>> t = mapr::ReadTimes(cells);
MAPR_EXPORT std::vector<std::optional<TimeInstant>> ReadTimes(
    std::span<const std::string_view> texts);

}  // namespace mapr

#endif  // MAPR_MAPR_TIME_H_
