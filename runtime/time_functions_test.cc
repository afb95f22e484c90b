#include "runtime/time_functions.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>

#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "util/civil_time.h"
#include "util/exact_sum.h"

namespace mapr::runtime {
namespace {

constexpr std::string_view kMissing = "<missing>";

std::string Time(std::string_view in) {
  TimeReader reader;
  Timestamp t;
  if (!reader.Read(in, &t)) return std::string(kMissing);
  char out[kMaxEpochTextSize];
  return std::string(out, FormatEpoch(t, out));
}

std::string TimeWith(std::string_view layout, std::string_view in) {
  Timestamp t;
  if (!ReadWithLayout(layout, in, &t)) return std::string(kMissing);
  char out[kMaxEpochTextSize];
  return std::string(out, FormatEpoch(t, out));
}

std::string Bucket(std::string_view in, int64_t seconds) {
  TimeReader reader;
  std::string out(in.size(), '?');
  if (!BucketTime(reader, in, seconds, out.data())) {
    return std::string(kMissing);
  }
  return out;
}

std::string Bin(std::string_view in, std::string_view width) {
  BinWidth w;
  if (!ParseBinWidth(width, &w)) return "<bad width>";
  char out[kMaxBinTextSize];
  const size_t n = BucketNumber(in, w, out);
  return n == 0 ? std::string(kMissing) : std::string(out, n);
}

// timegm from libc: an independent reading of a UTC civil time.
int64_t LibcSeconds(int64_t y, int m, int d, int hh, int mm, int ss) {
  struct tm tm = {};
  tm.tm_year = static_cast<int>(y - 1900);
  tm.tm_mon = m - 1;
  tm.tm_mday = d;
  tm.tm_hour = hh;
  tm.tm_min = mm;
  tm.tm_sec = ss;
  return static_cast<int64_t>(timegm(&tm));
}

TEST(CivilTimeTest, DaysRoundTripAndMatchAbsl) {
  for (int64_t days = -800000; days <= 800000; days += 13) {
    const util::CivilDay c = util::CivilFromDays(days);
    ASSERT_EQ(util::DaysFromCivil(c.year, c.month, c.day), days);
    const absl::CivilDay a(c.year, c.month, c.day);
    ASSERT_EQ(a - absl::CivilDay(1970, 1, 1), days);
  }
  EXPECT_EQ(util::DaysInMonth(2000, 2), 29);
  EXPECT_EQ(util::DaysInMonth(1900, 2), 28);
  EXPECT_EQ(util::DaysInMonth(2024, 2), 29);
  EXPECT_EQ(util::DaysInMonth(2023, 2), 28);
}

TEST(TimeTest, ReadsDtailLayouts) {
  // MMDD-HHMMSS is read in the leap year 2000.
  EXPECT_EQ(Time("1002-071947"),
            std::to_string(LibcSeconds(2000, 10, 2, 7, 19, 47)));
  EXPECT_EQ(Time("0229-000000"),
            std::to_string(LibcSeconds(2000, 2, 29, 0, 0, 0)));
  EXPECT_EQ(Time("20261130-045959"),
            std::to_string(LibcSeconds(2026, 11, 30, 4, 59, 59)));
  EXPECT_EQ(Time("20240229-120000"),
            std::to_string(LibcSeconds(2024, 2, 29, 12, 0, 0)));
  for (std::string_view bad :
       {"1302-071947", "0230-000000", "1002-241947", "1002-076047",
        "1002-071960", "1002x071947", "20230229-120000", "2026113-0459590",
        "20261131-045959", "1002-07194a"}) {
    EXPECT_EQ(Time(bad), kMissing) << bad;
  }
}

TEST(TimeTest, ReadsRfc3339WithOffsetsAndFractions) {
  const int64_t base = LibcSeconds(2026, 12, 1, 14, 7, 31);
  EXPECT_EQ(Time("2026-12-01T14:07:31Z"), std::to_string(base));
  EXPECT_EQ(Time("2026-12-01t14:07:31z"), std::to_string(base));
  EXPECT_EQ(Time("2026-12-01 14:07:31"), std::to_string(base));  // UTC
  EXPECT_EQ(Time("2026-12-01T14:07:31+01:00"), std::to_string(base - 3600));
  EXPECT_EQ(Time("2026-12-01T14:07:31+0100"), std::to_string(base - 3600));
  EXPECT_EQ(Time("2026-12-01T14:07:31+01"), std::to_string(base - 3600));
  EXPECT_EQ(Time("2026-12-01T14:07:31-05:30"),
            std::to_string(base + 5 * 3600 + 1800));
  EXPECT_EQ(Time("2026-12-01T14:07:31.123+01:00"),
            std::to_string(base - 3600) + ".123");
  EXPECT_EQ(Time("2026-12-01T14:07:31.5Z"), std::to_string(base) + ".5");
  EXPECT_EQ(Time("2026-12-01T14:07:31.000Z"), std::to_string(base) + ".000");
  EXPECT_EQ(Time("2026-12-01T14:07:31.123456789Z"),
            std::to_string(base) + ".123456789");
  // ISO 8601's other decimal sign, as log4j and Python's logging write it;
  // bucket() keeps the comma.
  EXPECT_EQ(Time("2015-07-29 17:41:44,747"),
            std::to_string(LibcSeconds(2015, 7, 29, 17, 41, 44)) + ".747");
  EXPECT_EQ(Time("2026-12-01T14:07:31,5Z"), std::to_string(base) + ".5");
  EXPECT_EQ(Bucket("2015-07-29 17:41:44,747", 60), "2015-07-29 17:41:00,000");
  EXPECT_EQ(Time("2026-12-01T14:07:31,Z"), std::string(kMissing));
  EXPECT_EQ(Time("2026-12-01T14:07:31,"), std::string(kMissing));
  // A comma is no fraction of an epoch.
  EXPECT_EQ(Time("1700000000,5"), std::string(kMissing));
  // More than nine digits: the first nine count.
  EXPECT_EQ(Time("2026-12-01T14:07:31.1234567891Z"),
            std::to_string(base) + ".123456789");
  // A negative offset crossing into the next UTC day, and a positive one
  // into the previous day.
  EXPECT_EQ(Time("2026-12-31T23:30:00-02:00"),
            std::to_string(LibcSeconds(2027, 1, 1, 1, 30, 0)));
  EXPECT_EQ(Time("2027-01-01T00:30:00+02:00"),
            std::to_string(LibcSeconds(2026, 12, 31, 22, 30, 0)));
  // Before 1970: a negative result, fraction included.
  EXPECT_EQ(Time("1969-12-31T23:59:59.5Z"), "-0.5");
  EXPECT_EQ(Time("1969-12-31T23:59:59Z"), "-1");
  EXPECT_EQ(Time("1900-03-01T00:00:00Z"),
            std::to_string(LibcSeconds(1900, 3, 1, 0, 0, 0)));
  // Ends of months, leap days.
  EXPECT_EQ(Time("2000-02-29T00:00:00Z"), "951782400");
  EXPECT_EQ(Time("2024-04-30T23:59:59Z"),
            std::to_string(LibcSeconds(2024, 4, 30, 23, 59, 59)));
  for (std::string_view bad :
       {"2026-12-01T14:07:31+", "2026-12-01T14:07:31+1",
        "2026-12-01T14:07:31+01:0", "2026-12-01T14:07:31+24:00",
        "2026-12-01T14:07:31+01:60", "2026-12-01T14:07:31.",
        "2026-12-01T14:07:31.Z", "2026-12-01T14:07:31Zx", "2026-12-01X14:07:31",
        "2026-12-01T14:07", "2026-12-01T14-07-31", "2026-13-01T14:07:31",
        "2026-04-31T14:07:31", "2100-02-29T00:00:00", "1900-02-29T00:00:00",
        "2026-12-01T14:07:60Z", "2026-12-01T14:07:31 ", " 2026-12-01T14:07:31",
        "2026-12-01T14:07:31+01:00:00"}) {
    EXPECT_EQ(Time(bad), kMissing) << bad;
  }
}

TEST(TimeTest, ReadsCommonLogFormat) {
  const int64_t t = LibcSeconds(2000, 10, 10, 13, 55, 36) + 7 * 3600;
  EXPECT_EQ(Time("10/Oct/2000:13:55:36 -0700"), std::to_string(t));
  EXPECT_EQ(Time("[10/Oct/2000:13:55:36 -0700]"), std::to_string(t));
  EXPECT_EQ(Time("10/oct/2000:13:55:36 +0000"),
            std::to_string(LibcSeconds(2000, 10, 10, 13, 55, 36)));
  EXPECT_EQ(Time("29/Feb/2024:00:00:00 +0100"),
            std::to_string(LibcSeconds(2024, 2, 28, 23, 0, 0)));
  for (std::string_view bad :
       {"10/Oct/2000:13:55:36", "[10/Oct/2000:13:55:36 -0700",
        "10/Oct/2000:13:55:36 -07:00", "10/Okt/2000:13:55:36 -0700",
        "31/Sep/2000:13:55:36 -0700", "10/Oct/2000 13:55:36 -0700",
        "29/Feb/2023:00:00:00 +0100"}) {
    EXPECT_EQ(Time(bad), kMissing) << bad;
  }
}

TEST(TimeTest, ReadsSyslogInTheYear2000) {
  EXPECT_EQ(Time("Oct 11 22:14:15"),
            std::to_string(LibcSeconds(2000, 10, 11, 22, 14, 15)));
  EXPECT_EQ(Time("Oct  1 22:14:15"),
            std::to_string(LibcSeconds(2000, 10, 1, 22, 14, 15)));
  EXPECT_EQ(Time("Oct 1 22:14:15"),
            std::to_string(LibcSeconds(2000, 10, 1, 22, 14, 15)));
  EXPECT_EQ(Time("Feb 29 00:00:00"),
            std::to_string(LibcSeconds(2000, 2, 29, 0, 0, 0)));
  EXPECT_EQ(Time("DEC 31 23:59:59"),
            std::to_string(LibcSeconds(2000, 12, 31, 23, 59, 59)));
  for (std::string_view bad :
       {"Oct 32 22:14:15", "Foo 11 22:14:15", "Oct 11 22:14",
        "Oct 11  22:14:15", "Feb 30 00:00:00", "Oct  x 22:14:15"}) {
    EXPECT_EQ(Time(bad), kMissing) << bad;
  }
}

// One byte of a valid timestamp of each layout turned into '#' (which no
// layout has anywhere) makes it unreadable, wherever the byte is; the valid
// one reads again after all of them on the same reader (its date memos).
TEST(TimeTest, AnyByteReplacedMakesATimestampUnreadable) {
  for (std::string_view valid :
       {"1002-071947", "20261130-045959", "2026-12-01T14:07:31.123+01:00",
        "2026-12-01 14:07:31,5Z", "2026-12-01T14:07:31-0530",
        "2026-12-01T14:07:31+01", "10/Oct/2000:13:55:36 -0700",
        "[10/Oct/2000:13:55:36 +0100]", "Oct 11 22:14:15", "Oct  1 22:14:15",
        "Oct 1 22:14:15", "1700000000.5", "1700000000123"}) {
    TimeReader reader;
    Timestamp first;
    ASSERT_TRUE(reader.Read(valid, &first)) << valid;
    for (size_t i = 0; i < valid.size(); ++i) {
      std::string bad(valid);
      bad[i] = '#';
      Timestamp t;
      EXPECT_FALSE(reader.Read(bad, &t)) << bad;
    }
    Timestamp again;
    ASSERT_TRUE(reader.Read(valid, &again)) << valid;
    EXPECT_EQ(again.seconds, first.seconds) << valid;
    EXPECT_EQ(again.nanos, first.nanos) << valid;
  }
}

TEST(TimeTest, ReadsEpochsByDigitCount) {
  EXPECT_EQ(Time("0"), "0");
  EXPECT_EQ(Time("1700000000"), "1700000000");
  EXPECT_EQ(Time("1700000000.5"), "1700000000.5");
  EXPECT_EQ(Time("1700000000.250"), "1700000000.250");
  EXPECT_EQ(Time("1700000000123"), "1700000000.123");              // ms
  EXPECT_EQ(Time("1700000000123456"), "1700000000.123456");        // us
  EXPECT_EQ(Time("1700000000123456789"), "1700000000.123456789");  // ns
  EXPECT_EQ(Time("17000000001"), "17000000.001");  // 11 digits: ms
  for (std::string_view bad :
       {"", "-1700000000", "+1700000000", "17000000001234567890",
        "1700000000123.5", "1700000000.", "1700000000.5x", "1e9", "abc",
        "1700000000 "}) {
    EXPECT_EQ(Time(bad), kMissing) << bad;
  }
}

TEST(TimeTest, MatchesLibcOnRandomCivilTimes) {
  std::mt19937_64 rng(16);
  TimeReader reader;  // One reader: the memo must never change an answer.
  for (int i = 0; i < 20000; ++i) {
    const int64_t y = 1900 + static_cast<int64_t>(rng() % 300);
    const int m = 1 + static_cast<int>(rng() % 12);
    // Often the same day as before, to exercise the memo.
    const int d = 1 + static_cast<int>(rng() % util::DaysInMonth(y, m));
    const int hh = static_cast<int>(rng() % 24);
    const int mm = static_cast<int>(rng() % 60);
    const int ss = static_cast<int>(rng() % 60);
    const int off_min = static_cast<int>(rng() % (2 * 1440 - 1)) - 1439;
    const int64_t utc = LibcSeconds(y, m, d, hh, mm, ss);
    const int64_t expect = utc - off_min * 60;
    const char sign = off_min < 0 ? '-' : '+';
    const int aoff = off_min < 0 ? -off_min : off_min;
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr",
                                              "May", "Jun", "Jul", "Aug",
                                              "Sep", "Oct", "Nov", "Dec"};
    const std::string inputs[] = {
        absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", y, m, d, hh,
                        mm, ss, sign, aoff / 60, aoff % 60),
        absl::StrFormat("%02d/%s/%04d:%02d:%02d:%02d %c%02d%02d", d,
                        kMonths[m - 1], y, hh, mm, ss, sign, aoff / 60,
                        aoff % 60),
    };
    for (const std::string& in : inputs) {
      Timestamp t;
      ASSERT_TRUE(reader.Read(in, &t)) << in;
      ASSERT_EQ(t.seconds, expect) << in;
      // absl, a third opinion.
      ASSERT_EQ(t.seconds, absl::ToUnixSeconds(absl::FromCivil(
                               absl::CivilSecond(y, m, d, hh, mm, ss),
                               absl::FixedTimeZone(off_min * 60))))
          << in;
    }
    Timestamp t;
    const std::string dtail =
        absl::StrFormat("%04d%02d%02d-%02d%02d%02d", y, m, d, hh, mm, ss);
    ASSERT_TRUE(reader.Read(dtail, &t)) << dtail;
    ASSERT_EQ(t.seconds, utc) << dtail;
  }
}

TEST(TimeTest, ReadsStrftimeLayouts) {
  EXPECT_EQ(TimeWith("%d.%m.%Y %H:%M:%S", "01.12.2026 14:07:31"),
            std::to_string(LibcSeconds(2026, 12, 1, 14, 7, 31)));
  EXPECT_EQ(TimeWith("%Y/%m/%d %H:%M:%E*S %z", "2026/12/01 14:07:31.25 +0100"),
            std::to_string(LibcSeconds(2026, 12, 1, 13, 7, 31)) + ".25");
  EXPECT_EQ(TimeWith("%d.%m.%Y", "01.12.2026 x"), kMissing);
  EXPECT_EQ(TimeWith("%d.%m.%Y", "31.02.2026"), kMissing);
  EXPECT_EQ(TimeWith("%Y", "infinite-future"), kMissing);
}

TEST(FormatTimeTest, EpochSecondsAndFixedLayoutsInAnyLayout) {
  auto format = [](std::string_view in, std::string_view layout) {
    Timestamp t;
    TimeReader reader;
    if (!ReadEpochSeconds(in, &t) && !reader.Read(in, &t)) {
      return std::string(kMissing);
    }
    return FormatTimeLayout(layout, t);
  };
  EXPECT_EQ(format("1796130451", "%Y-%m-%d %H:%M:%S"), "2026-12-01 13:07:31");
  EXPECT_EQ(format("1796130451.123", "%H:%M:%E3S"), "13:07:31.123");
  EXPECT_EQ(format("-0.5", "%Y-%m-%d %H:%M:%E*S"), "1969-12-31 23:59:59.5");
  EXPECT_EQ(format("-1.5", "%S.%E3f"), "58.500");
  EXPECT_EQ(format("+7", "%s"), "7");
  // 13 digits are milliseconds, as time(x) reads them.
  EXPECT_EQ(format("1700000000123", "%Y-%m-%d %E3S"), "2023-11-14 20.123");
  EXPECT_EQ(format("2026-12-01T14:07:31+01:00", "%d/%m/%Y %H:%M"),
            "01/12/2026 13:07");
  EXPECT_EQ(format("2015-07-29 17:41:44,747", "%a %b %e %E3S"),
            "Wed Jul 29 44.747");
  for (std::string_view bad : {"", "-", "1.", ".5", "1e3", "12:00", "x"}) {
    EXPECT_EQ(format(bad, "%Y"), kMissing) << bad;
  }
}

TEST(BucketTest, WeeksStartOnMonday) {
  constexpr int64_t kWeek = kWeekSecondsBucket;
  EXPECT_EQ(Bucket("2026-12-03T14:07:31.5+01:00", kWeek),
            "2026-11-30T00:00:00.0+01:00");
  EXPECT_EQ(Bucket("2026-11-29T23:59:59Z", kWeek), "2026-11-23T00:00:00Z");
  EXPECT_EQ(Bucket("2026-11-30 00:00:00", kWeek), "2026-11-30 00:00:00");
  EXPECT_EQ(Bucket("2027-01-02T10:00:00Z", kWeek), "2026-12-28T00:00:00Z");
  EXPECT_EQ(Bucket("20261203-140731", kWeek), "20261130-000000");
  EXPECT_EQ(Bucket("[03/Dec/2026:14:07:31 -0700]", kWeek),
            "[30/Nov/2026:00:00:00 -0700]");
  EXPECT_EQ(Bucket("01/Mar/2024:01:00:00 +0000", kWeek),
            "26/Feb/2024:00:00:00 +0000");
  // Epochs: Monday 1969-12-29 is where weeks count from.
  EXPECT_EQ(Bucket("1796130451", kWeek), "1795996800");
  EXPECT_EQ(Bucket("1796130451123", kWeek), "1795996800000");
  EXPECT_EQ(Bucket("1796130451.75", kWeek), "1795996800.00");
  EXPECT_EQ(Bucket("345600", kWeek), "345600");  // 1970-01-05, a Monday.
  EXPECT_EQ(Bucket("86400", kWeek), kMissing);   // Before the first Monday.
  // No year, no weekday.
  EXPECT_EQ(Bucket("1002-071947", kWeek), kMissing);
  EXPECT_EQ(Bucket("Oct  1 22:14:15", kWeek), kMissing);
}

TEST(BucketTest, KeepsTheLayout) {
  EXPECT_EQ(Bucket("2026-12-01T14:07:31.123+01:00", 300),
            "2026-12-01T14:05:00.000+01:00");
  EXPECT_EQ(Bucket("2026-12-01 14:07:31", 3600), "2026-12-01 14:00:00");
  EXPECT_EQ(Bucket("2026-12-01T14:07:31Z", 86400), "2026-12-01T00:00:00Z");
  EXPECT_EQ(Bucket("2026-12-01T14:07:31Z", 1), "2026-12-01T14:07:31Z");
  EXPECT_EQ(Bucket("1002-071947", 60), "1002-071900");
  EXPECT_EQ(Bucket("20261130-045959", 300), "20261130-045500");
  EXPECT_EQ(Bucket("[10/Oct/2000:13:55:36 -0700]", 600),
            "[10/Oct/2000:13:50:00 -0700]");
  EXPECT_EQ(Bucket("10/Oct/2000:13:55:36 -0700", 3600),
            "10/Oct/2000:13:00:00 -0700");
  EXPECT_EQ(Bucket("Oct  1 22:14:15", 300), "Oct  1 22:10:00");
  EXPECT_EQ(Bucket("Oct 11 22:14:15", 86400), "Oct 11 00:00:00");
  // Epochs keep their unit (and digit count).
  EXPECT_EQ(Bucket("1700000123", 60), "1700000100");
  EXPECT_EQ(Bucket("1700000123.75", 60), "1700000100.00");
  EXPECT_EQ(Bucket("1700000123456", 300), "1700000100000");
  EXPECT_EQ(Bucket("1700000123456789", 1), "1700000123000000");
  EXPECT_EQ(Bucket("1700000123456789012", 3600), "1699999200000000000");
  EXPECT_EQ(Bucket("10000000001", 60), "09999960000");  // ms, padded
  EXPECT_EQ(Bucket("not a time", 60), kMissing);
  EXPECT_EQ(Bucket("2026-02-30T00:00:00Z", 60), kMissing);
}

// A random RFC 3339 time from 1970 to 2096 in a random offset (minutes,
// within ±11:59): the text, its epoch seconds and the offset.
std::string RandomRfc3339(std::mt19937_64& rng, int64_t* utc, int* off_min) {
  *utc = static_cast<int64_t>(rng() % 4000000000ULL);
  *off_min = static_cast<int>(rng() % 1439) - 719;
  const absl::CivilSecond c = absl::ToCivilSecond(
      absl::FromUnixSeconds(*utc), absl::FixedTimeZone(*off_min * 60));
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", c.year(),
                         c.month(), c.day(), c.hour(), c.minute(), c.second(),
                         *off_min < 0 ? '-' : '+', std::abs(*off_min) / 60,
                         std::abs(*off_min) % 60);
}

TEST(BucketTest, AlignsToTheWrittenDayAndAgreesWithTime) {
  // Every bucket is a multiple of the width from midnight in the written
  // offset, at most width - 1 seconds earlier.
  std::mt19937_64 rng(5);
  TimeReader reader;
  for (int64_t width : {1, 30, 60, 300, 900, 3600, 7200, 86400}) {
    for (int i = 0; i < 2000; ++i) {
      int64_t utc;
      int off_min;
      const std::string in = RandomRfc3339(rng, &utc, &off_min);
      std::string out(in.size(), '?');
      ASSERT_TRUE(BucketTime(reader, in, width, out.data())) << in;
      Timestamp b;
      ASSERT_TRUE(reader.Read(out, &b)) << out;
      const int64_t local = utc + off_min * 60;
      EXPECT_EQ(b.seconds + off_min * 60,
                local - ((local % width) + width) % width)
          << in << " -> " << out;
      // The same through epoch seconds when the offset is 0.
      std::string epoch = std::to_string(utc);
      std::string eout(epoch.size(), '?');
      ASSERT_TRUE(BucketTime(reader, epoch, width, eout.data()));
      EXPECT_EQ(std::stoll(eout), utc - utc % width) << epoch;
    }
  }
}

std::string Back(std::string_view in, int64_t seconds) {
  TimeReader reader;
  std::string out;
  if (!ShiftBack(reader, in, seconds, &out)) return std::string(kMissing);
  return out;
}

TEST(ShiftBackTest, KeepsTheLayoutAcrossDaysMonthsAndYears) {
  EXPECT_EQ(Back("2026-12-01T14:05:00.000+01:00", 0),
            "2026-12-01T14:05:00.000+01:00");
  EXPECT_EQ(Back("2026-12-01T14:05:00.000+01:00", 600),
            "2026-12-01T13:55:00.000+01:00");
  EXPECT_EQ(Back("2025-01-01T00:00:00+01:00", 60), "2024-12-31T23:59:00+01:00");
  EXPECT_EQ(Back("2024-03-01 00:00:00", 86400), "2024-02-29 00:00:00");
  EXPECT_EQ(Back("20260101-000000", 1), "20251231-235959");
  // Year-less layouts count back within the year 2000.
  EXPECT_EQ(Back("0101-000000", 300), "1231-235500");
  EXPECT_EQ(Back("0301-000100", 120), "0229-235900");
  EXPECT_EQ(Back("[01/Mar/2023:00:00:00 -0700]", 60),
            "[28/Feb/2023:23:59:00 -0700]");
  EXPECT_EQ(Back("01/Jan/2024:00:00:00 +0000", 60),
            "31/Dec/2023:23:59:00 +0000");
  // syslog keeps the day's padding: a space, a zero, or none.
  EXPECT_EQ(Back("Mar  1 00:00:00", 60), "Feb 29 23:59:00");
  EXPECT_EQ(Back("Oct 10 00:00:00", 60), "Oct  9 23:59:00");
  EXPECT_EQ(Back("Oct 01 00:00:00", 86400), "Sep 30 00:00:00");
  EXPECT_EQ(Back("Oct 10 00:00:00", 86400 * 9), "Oct  1 00:00:00");
  EXPECT_EQ(Back("Oct 1 00:00:00", 60), "Sep 30 23:59:00");
  EXPECT_EQ(Back("Oct 2 00:00:00", 86400), "Oct 1 00:00:00");
  EXPECT_EQ(Back("Jan  1 00:00:00", 1), "Dec 31 23:59:59");
  // Epochs keep their unit and digit count; none before 0.
  EXPECT_EQ(Back("1700000100", 100), "1700000000");
  EXPECT_EQ(Back("1700000100000", 100), "1700000000000");
  EXPECT_EQ(Back("1700000100.000", 100), "1700000000.000");
  EXPECT_EQ(Back("0000000060", 60), "0000000000");
  EXPECT_EQ(Back("0000000060", 120), kMissing);
  EXPECT_EQ(Back("0000-01-01T00:00:00Z", 1), kMissing);
  EXPECT_EQ(Back("not a time", 60), kMissing);
  EXPECT_EQ(Back("2026-12-01T14:05:00Z", -1), kMissing);
}

TEST(ShiftBackTest, AgreesWithTimeOnRandomBuckets) {
  // The shifted text reads back as the bucket's instant minus the shift,
  // in the same offset and the same size.
  std::mt19937_64 rng(8);
  TimeReader reader;
  for (int i = 0; i < 20000; ++i) {
    int64_t utc;
    int off_min;
    const std::string in = RandomRfc3339(rng, &utc, &off_min);
    const int64_t back = static_cast<int64_t>(rng() % (8 * 86400));
    std::string out;
    ASSERT_TRUE(ShiftBack(reader, in, back, &out)) << in;
    ASSERT_EQ(out.size(), in.size()) << in << " -> " << out;
    EXPECT_EQ(out.substr(19), in.substr(19)) << "the offset stays";
    Timestamp t;
    ASSERT_TRUE(reader.Read(out, &t)) << out;
    EXPECT_EQ(t.seconds, utc - back) << in << " -> " << out;
    const std::string epoch = std::to_string(utc);
    if (utc < back) {  // Before the epoch: no such window.
      EXPECT_FALSE(ShiftBack(reader, epoch, back, &out)) << epoch;
      continue;
    }
    ASSERT_TRUE(ShiftBack(reader, epoch, back, &out)) << epoch;
    EXPECT_EQ(out.size(), epoch.size());
    EXPECT_EQ(std::stoll(out), utc - back) << epoch;
  }
}

TEST(BinTest, FloorsTowardMinusInfinity) {
  EXPECT_EQ(Bin("250", "100"), "200");
  EXPECT_EQ(Bin("200", "100"), "200");
  EXPECT_EQ(Bin("-1", "100"), "-100");
  EXPECT_EQ(Bin("-100", "100"), "-100");
  EXPECT_EQ(Bin("-101", "100"), "-200");
  EXPECT_EQ(Bin("0", "100"), "0");
  EXPECT_EQ(Bin("99.9", "100"), "0");
  EXPECT_EQ(Bin("-0.5", "1"), "-1");
  EXPECT_EQ(Bin("3.75", "0.5"), "3.5");
  EXPECT_EQ(Bin("0.3", "0.1"), "0.3");  // exact, not 0.2
  EXPECT_EQ(Bin("-0.05", "0.1"), "-0.1");
  EXPECT_EQ(Bin("12.345", "0.25"), "12.25");
  EXPECT_EQ(Bin("7", "2.50"), "5.0");  // 2.50 bins like 2.5
  EXPECT_EQ(Bin("1e3", "300"), "900");
  // A bin past the largest double is no bin.
  EXPECT_EQ(Bin("1e308", "0.001"), kMissing);
  EXPECT_EQ(Bin("-1e308", "1e-9"), kMissing);
  EXPECT_EQ(Bin("1234", "1e2"), "1200");
  // 17 and 18 digits: exact in 128-bit integers, whatever the width.
  EXPECT_EQ(Bin("12345678901234567", "0.001"), "12345678901234567.000");
  EXPECT_EQ(Bin("99999999999999999", "0.25"), "99999999999999999.00");
  EXPECT_EQ(Bin("999999999999999999", "0.000000000000000001"),
            "999999999999999999.000000000000000000");
  EXPECT_EQ(Bin("-999999999999999999", "7"), "-999999999999999999");
  EXPECT_EQ(Bin("-999999999999999999", "10"), "-1000000000000000000");
  EXPECT_EQ(Bin("-999999999999999998", "7"), "-999999999999999999");
  EXPECT_EQ(Bin("-99999999999999999.9", "0.25"), "-100000000000000000.00");
  EXPECT_EQ(Bin("0.000000000000000001", "0.000000000000000001"),
            "0.000000000000000001");
  EXPECT_EQ(Bin("-0.000000000000000001", "1"), "-1");
  EXPECT_EQ(Bin("123456789012345678", "100000000000000000"),
            "100000000000000000");
  // Beyond 18 digits: doubles.
  EXPECT_EQ(Bin("1234567890123456789012", "1"), "1234567890123456774144");
  for (std::string_view bad : {"abc", "", "inf", "nan", "-inf", "1,5"}) {
    EXPECT_EQ(Bin(bad, "100"), kMissing) << bad;
  }
  EXPECT_EQ(Bin("1", "0"), "<bad width>");
  EXPECT_EQ(Bin("1", "-5"), "<bad width>");
  EXPECT_EQ(Bin("1", "inf"), "<bad width>");
}

TEST(BinTest, MatchesFloorOnRandomIntegers) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const int64_t x = static_cast<int64_t>(rng() % 2000001) - 1000000;
    const int64_t w = 1 + static_cast<int64_t>(rng() % 1000);
    int64_t q = x / w;
    if (x % w != 0 && x < 0) --q;
    ASSERT_EQ(Bin(std::to_string(x), std::to_string(w)), std::to_string(q * w))
        << x << " " << w;
  }
}

TEST(BinTest, MatchesExactIntegerArithmeticAtEighteenDigits) {
  // x and w as 18-digit decimals with random decimal points: the bin
  // computed here in 128-bit integers at a common scale.
  std::mt19937_64 rng(18);
  using I = util::int128;
  auto text = [](I units, int scale) {
    const bool neg = units < 0;
    util::uint128 m = neg ? -static_cast<util::uint128>(units)
                          : static_cast<util::uint128>(units);
    std::string d;
    do {
      d.insert(d.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
      m /= 10;
    } while (m != 0);
    while (static_cast<int>(d.size()) <= scale) d.insert(d.begin(), '0');
    if (scale > 0) d.insert(d.end() - scale, '.');
    return (neg ? "-" : "") + d;
  };
  for (int i = 0; i < 20000; ++i) {
    const I x =
        static_cast<I>(rng() % 1000000000000000000ULL) * ((rng() & 1) ? -1 : 1);
    const int xs = static_cast<int>(rng() % 19);
    I w = 0;
    while (w == 0) {
      w = static_cast<I>(rng() %
                         (rng() & 1 ? 1000ULL : 1000000000000000000ULL));
    }
    int ws = static_cast<int>(rng() % 19);
    const std::string wtext = text(w, ws);
    while (ws > 0 && w % 10 == 0) {  // The width's own scale: 0.50 -> 0.5.
      w /= 10;
      --ws;
    }
    const int m = std::max(xs, ws);
    I p10 = 1;
    for (int k = 0; k < m - xs; ++k) p10 *= 10;
    const I xu = x * p10;
    p10 = 1;
    for (int k = 0; k < m - ws; ++k) p10 *= 10;
    const I wu = w * p10;
    I q = xu / wu;
    if (xu % wu != 0 && xu < 0) --q;
    ASSERT_EQ(Bin(text(x, xs), wtext), text(q * wu / p10, ws))
        << text(x, xs) << " " << wtext;
  }
}

// Seconds of `month`/`day` hh:00 in the year 2000 (where year-less
// layouts are read).
int64_t In2000(int month, int day, int hour = 0) {
  return absl::ToUnixSeconds(absl::FromCivil(
      absl::CivilHour(2000, month, day, hour), absl::UTCTimeZone()));
}

TEST(PlaceAcrossNewYearTest, MovesJanuaryAfterDecember) {
  std::vector<int64_t> s = {In2000(1, 1, 0), In2000(12, 31, 23),
                            In2000(1, 2, 8), In2000(12, 30, 12),
                            In2000(1, 1, 0)};
  PlaceAcrossNewYear(s);
  constexpr int64_t kYear = 366 * int64_t{86400};
  EXPECT_EQ(s,
            (std::vector<int64_t>{In2000(1, 1, 0) + kYear, In2000(12, 31, 23),
                                  In2000(1, 2, 8) + kYear, In2000(12, 30, 12),
                                  In2000(1, 1, 0) + kYear}));
}

TEST(PlaceAcrossNewYearTest, KeepsALogWithinTheYear) {
  // March to October: no gap of half a year (the largest, June to
  // October, is 137 days).
  const std::vector<int64_t> in = {In2000(3, 1), In2000(10, 20), In2000(6, 5),
                                   In2000(3, 1)};
  std::vector<int64_t> s = in;
  PlaceAcrossNewYear(s);
  EXPECT_EQ(s, in);
  // One value, none, and a gap of exactly half a year (kept as read).
  std::vector<int64_t> one = {In2000(1, 1)};
  PlaceAcrossNewYear(one);
  EXPECT_EQ(one, std::vector<int64_t>{In2000(1, 1)});
  std::vector<int64_t> none;
  PlaceAcrossNewYear(none);
  EXPECT_TRUE(none.empty());
  // 2000-01-01 and 2000-07-02 00:00: 183 days apart both ways.
  const std::vector<int64_t> tie = {In2000(7, 2), In2000(1, 1)};
  std::vector<int64_t> t = tie;
  PlaceAcrossNewYear(t);
  EXPECT_EQ(t, tie);
}

TEST(PlaceAcrossNewYearTest, DependsOnlyOnTheSetOfValues) {
  std::vector<int64_t> values = {In2000(12, 1), In2000(12, 24), In2000(1, 3),
                                 In2000(2, 14), In2000(11, 20)};
  std::vector<int64_t> placed = values;
  PlaceAcrossNewYear(placed);
  // November to February: January and February move on a year.
  constexpr int64_t kYear = 366 * int64_t{86400};
  EXPECT_EQ(placed,
            (std::vector<int64_t>{values[0], values[1], values[2] + kYear,
                                  values[3] + kYear, values[4]}));
  std::sort(values.begin(), values.end());
  do {
    std::vector<int64_t> s = values;
    PlaceAcrossNewYear(s);
    for (size_t i = 0; i < s.size(); ++i) {
      EXPECT_EQ(s[i], values[i] < In2000(6, 1) ? values[i] + kYear : values[i]);
    }
  } while (std::next_permutation(values.begin(), values.end()));
}

}  // namespace
}  // namespace mapr::runtime
