// Civil dates (proleptic Gregorian, UTC) as day counts since 1970-01-01, and
// back. Dependency-free and constexpr: runtime/time_functions.cc reads
// timestamps by hand with these instead of libc's timegm or absl::ParseTime
// (1-5 us a call), and the tests check them against both.
//
// The algorithms are Howard Hinnant's "days_from_civil" and
// "civil_from_days" (http://howardhinnant.github.io/date_algorithms.html):
// exact for every year an int64_t day count can hold, with no table and no
// loop.
//
// Example:
//   int64_t days = util::DaysFromCivil(2000, 3, 1);   // 11017
//   int64_t epoch = days * 86400 + 13 * 3600;        // 2000-03-01T13:00:00Z
#ifndef MAPR_UTIL_CIVIL_TIME_H_
#define MAPR_UTIL_CIVIL_TIME_H_

#include <cstdint>

namespace mapr::util {

inline constexpr int64_t kSecondsPerDay = 86400;

constexpr bool IsLeapYear(int64_t y) {
  return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

// Days in month `m` (1-12) of year `y`.
constexpr int DaysInMonth(int64_t y, int m) {
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to y-m-d (negative before it).
// REQUIRES: 1 <= m <= 12, 1 <= d <= DaysInMonth(y, m).
constexpr int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;  // [0, 399]
  const int64_t doy =
      (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;        // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;  // [0, 146096]
  return era * 146097 + doe - 719468;
}

struct CivilDay {
  int64_t year;
  int month;  // 1-12
  int day;    // 1-31
};

// The date `days` after 1970-01-01: the inverse of DaysFromCivil.
constexpr CivilDay CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return CivilDay{yoe + era * 400 + (m <= 2), m, d};
}

static_assert(DaysFromCivil(1970, 1, 1) == 0);
static_assert(DaysFromCivil(2000, 3, 1) == 11017);
static_assert(DaysFromCivil(1969, 12, 31) == -1);
static_assert(CivilFromDays(11016).month == 2 &&
              CivilFromDays(11016).day == 29);

}  // namespace mapr::util

#endif  // MAPR_UTIL_CIVIL_TIME_H_
