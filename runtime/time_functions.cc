#include "runtime/time_functions.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/time/time.h"
#include "util/civil_time.h"
#include "util/decimal.h"
#include "util/exact_sum.h"
#include "util/number.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

using util::DaysFromCivil;
using util::DaysInMonth;
using util::kSecondsPerDay;

constexpr uint64_t kPow10[20] = {1ULL,
                                 10ULL,
                                 100ULL,
                                 1000ULL,
                                 10000ULL,
                                 100000ULL,
                                 1000000ULL,
                                 10000000ULL,
                                 100000000ULL,
                                 1000000000ULL,
                                 10000000000ULL,
                                 100000000000ULL,
                                 1000000000000ULL,
                                 10000000000000ULL,
                                 100000000000000ULL,
                                 1000000000000000ULL,
                                 10000000000000000ULL,
                                 100000000000000000ULL,
                                 1000000000000000000ULL,
                                 10000000000000000000ULL};

inline bool IsDigit(char c) {
  return static_cast<unsigned char>(c) - unsigned{'0'} <= 9;
}

// Two decimal digits at p, or -1.
inline int Two(const char* p) {
  const unsigned a = static_cast<unsigned char>(p[0]) - unsigned{'0'};
  const unsigned b = static_cast<unsigned char>(p[1]) - unsigned{'0'};
  return a <= 9 && b <= 9 ? static_cast<int>(a * 10 + b) : -1;
}

// Four decimal digits at p, or -1.
inline int Four(const char* p) {
  const int hi = Two(p);
  const int lo = Two(p + 2);
  return hi >= 0 && lo >= 0 ? hi * 100 + lo : -1;
}

inline void PutTwo(char* p, int v) {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
}

// A date's day number, or false if the date does not exist.
inline bool CivilDays(int64_t y, int m, int d, int64_t* days) {
  if (y < 0 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, m, d);
  return true;
}

// HH:MM:SS (or HHMMSS when `compact`) at p: the second of the day, or -1.
// Second 60 (a leap second) is refused: its bucket would be the next day's.
inline int Clock(const char* p, bool compact) {
  const int step = compact ? 2 : 3;
  if (!compact && (p[2] != ':' || p[5] != ':')) return -1;
  const int h = Two(p);
  const int m = Two(p + step);
  const int s = Two(p + 2 * step);
  if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59) return -1;
  return h * 3600 + m * 60 + s;
}

// An English month abbreviation (any case) at p: 1-12, or 0.
inline int MonthName(const char* p) {
  const uint32_t key = (static_cast<uint32_t>(p[0] | 0x20) << 16) |
                       (static_cast<uint32_t>(p[1] | 0x20) << 8) |
                       static_cast<uint32_t>(p[2] | 0x20);
  constexpr auto K = [](const char* s) {
    return (static_cast<uint32_t>(s[0]) << 16) |
           (static_cast<uint32_t>(s[1]) << 8) | static_cast<uint32_t>(s[2]);
  };
  switch (key) {
    case K("jan"):
      return 1;
    case K("feb"):
      return 2;
    case K("mar"):
      return 3;
    case K("apr"):
      return 4;
    case K("may"):
      return 5;
    case K("jun"):
      return 6;
    case K("jul"):
      return 7;
    case K("aug"):
      return 8;
    case K("sep"):
      return 9;
    case K("oct"):
      return 10;
    case K("nov"):
      return 11;
    case K("dec"):
      return 12;
    default:
      return 0;
  }
}

// A fraction ".ddd" at in[*i] (or ",ddd" with kComma: ISO 8601's other
// decimal sign, which log4j and Python's logging write): up to nine digits
// count, more are read and dropped. Returns false for a separator without
// digits.
template <bool kComma = false>
inline bool Fraction(std::string_view in, size_t* i, Timestamp* t) {
  if (*i >= in.size() || (in[*i] != '.' && (!kComma || in[*i] != ','))) {
    return true;
  }
  size_t j = *i + 1;
  uint32_t nanos = 0;
  size_t digits = 0;
  while (j < in.size() && IsDigit(in[j])) {
    if (digits < 9) nanos = nanos * 10 + static_cast<uint32_t>(in[j] - '0');
    ++digits;
    ++j;
  }
  if (digits == 0) return false;
  const size_t kept = digits < 9 ? digits : 9;
  t->nanos = nanos * static_cast<uint32_t>(kPow10[9 - kept]);
  t->fraction_digits = static_cast<uint8_t>(kept);
  t->fraction_at = static_cast<uint8_t>(*i + 1);
  t->fraction_size = static_cast<uint8_t>(digits);
  *i = j;
  return true;
}

// "+hh:mm", "+hhmm", "+hh" (or '-') at in[i, end): the offset east of UTC in
// seconds, or false.
inline bool Offset(std::string_view in, size_t i, int32_t* offset) {
  const size_t n = in.size() - i;
  if (n < 3 || (in[i] != '+' && in[i] != '-')) return false;
  const int h = Two(in.data() + i + 1);
  int m = 0;
  if (n == 6 && in[i + 3] == ':') {
    m = Two(in.data() + i + 4);
  } else if (n == 5) {
    m = Two(in.data() + i + 3);
  } else if (n != 3) {
    return false;
  }
  if (h < 0 || h > 23 || m < 0 || m > 59) return false;
  *offset = (in[i] == '-' ? -1 : 1) * (h * 3600 + m * 60);
  return true;
}

inline void Finish(int64_t days, int local_second, int32_t offset,
                   Timestamp* t) {
  t->local_second = local_second;
  t->offset = offset;
  t->seconds = days * kSecondsPerDay + local_second - offset;
}

bool ReadEpoch(std::string_view in, Timestamp* t) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < in.size() && IsDigit(in[i])) {
    if (i == 19) return false;
    v = v * 10 + static_cast<uint64_t>(in[i] - '0');
    ++i;
  }
  if (i == 0) return false;
  // 1-10 digits: seconds (until 2286-11-20); 11-13 ms; 14-16 us; 17-19 ns.
  const int unit = i <= 10 ? 0 : i <= 13 ? 3 : i <= 16 ? 6 : 9;
  t->layout = TimeLayout::kEpoch;
  t->epoch_value = v;
  t->epoch_digits = static_cast<uint8_t>(i);
  t->unit_exponent = static_cast<uint8_t>(unit);
  // Constant divisors: multiplications, not divisions.
  switch (unit) {
    case 0:
      t->seconds = static_cast<int64_t>(v);
      break;
    case 3:
      t->seconds = static_cast<int64_t>(v / 1000);
      t->nanos = static_cast<uint32_t>(v % 1000 * 1000000);
      break;
    case 6:
      t->seconds = static_cast<int64_t>(v / 1000000);
      t->nanos = static_cast<uint32_t>(v % 1000000 * 1000);
      break;
    default:
      t->seconds = static_cast<int64_t>(v / 1000000000);
      t->nanos = static_cast<uint32_t>(v % 1000000000);
      break;
  }
  t->fraction_digits = static_cast<uint8_t>(unit);
  if (i == in.size()) return true;
  // A fraction only after whole seconds: 1700000000.5.
  if (unit != 0 || !Fraction(in, &i, t)) return false;
  return i == in.size();
}

// a[0, k) == b[0, k) with two overlapping loads (k is 4 to 16): no call to
// memcmp.
template <int k>
inline bool SameBytes(const char* a, const char* b) {
  static_assert(k >= 4 && k <= 16);
  using Word = std::conditional_t<(k >= 8), uint64_t, uint32_t>;
  constexpr int w = sizeof(Word);
  Word a0, b0, a1, b1;
  std::memcpy(&a0, a, w);
  std::memcpy(&b0, b, w);
  std::memcpy(&a1, a + k - w, w);
  std::memcpy(&b1, b + k - w, w);
  return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

}  // namespace

// The memo: a date's bytes are compared as they were written, so a hit
// skips parsing and validating the date. kKeySize is a constant at each
// call, so the compare is one or two loads.
template <int kKeySize, typename ParseDate>
inline bool TimeReader::Days(const char* key, ParseDate parse, int slot,
                             int64_t* days) {
  DateMemo& m = memo_[slot];
  if (m.size == kKeySize && SameBytes<kKeySize>(m.key, key)) {
    *days = m.days;
    return true;
  }
  if (!parse(days)) return false;
  std::memcpy(m.key, key, kKeySize);
  m.size = kKeySize;
  m.days = *days;
  return true;
}

bool TimeReader::ReadDtail(std::string_view in, bool long_form, Timestamp* t) {
  const char* p = in.data();
  int64_t days;
  bool ok;
  if (long_form) {
    ok = Days<8>(
        p,
        [p](int64_t* d) {
          const int y = Four(p);
          return y >= 0 && CivilDays(y, Two(p + 4), Two(p + 6), d);
        },
        static_cast<int>(TimeLayout::kDtailLong), &days);
  } else {
    ok = Days<4>(
        p, [p](int64_t* d) { return CivilDays(2000, Two(p), Two(p + 2), d); },
        static_cast<int>(TimeLayout::kDtailShort), &days);
  }
  const size_t clock_at = long_form ? 9 : 5;
  const int sec = ok ? Clock(p + clock_at, true) : -1;
  if (sec < 0) return false;
  t->layout = long_form ? TimeLayout::kDtailLong : TimeLayout::kDtailShort;
  t->clock_at = static_cast<uint8_t>(clock_at);
  t->compact_clock = true;
  Finish(days, sec, 0, t);
  return true;
}

bool TimeReader::ReadRfc3339(std::string_view in, Timestamp* t) {
  const char* p = in.data();
  if (p[7] != '-' || (p[10] != 'T' && p[10] != 't' && p[10] != ' ')) {
    return false;
  }
  int64_t days;
  if (!Days<10>(
          p,
          [p](int64_t* d) {
            const int y = Four(p);
            return y >= 0 && CivilDays(y, Two(p + 5), Two(p + 8), d);
          },
          static_cast<int>(TimeLayout::kRfc3339), &days)) {
    return false;
  }
  const int sec = Clock(p + 11, false);
  if (sec < 0) return false;
  size_t i = 19;
  if (!Fraction<true>(in, &i, t)) return false;
  int32_t offset = 0;
  if (i < in.size()) {
    if (in[i] == 'Z' || in[i] == 'z') {
      if (i + 1 != in.size()) return false;
    } else if (!Offset(in, i, &offset)) {
      return false;
    }
  }
  t->layout = TimeLayout::kRfc3339;
  t->clock_at = 11;
  Finish(days, sec, offset, t);
  return true;
}

bool TimeReader::ReadClf(std::string_view in, Timestamp* t) {
  // dd/Mon/yyyy:HH:MM:SS +hhmm, 26 bytes, or 28 inside [ ].
  const size_t b = in[0] == '[' ? 1 : 0;
  if (in.size() != 26 + 2 * b || (b == 1 && in.back() != ']')) return false;
  const char* p = in.data() + b;
  if (p[2] != '/' || p[6] != '/' || p[11] != ':' || p[20] != ' ') return false;
  int64_t days;
  if (!Days<11>(
          p,
          [p](int64_t* d) {
            const int y = Four(p + 7);
            return y >= 0 && CivilDays(y, MonthName(p + 3), Two(p), d);
          },
          static_cast<int>(TimeLayout::kClf), &days)) {
    return false;
  }
  const int sec = Clock(p + 12, false);
  int32_t offset;
  if (sec < 0 || !Offset(in.substr(0, 26 + b), 21 + b, &offset)) {
    return false;
  }
  t->layout = TimeLayout::kClf;
  t->clock_at = static_cast<uint8_t>(12 + b);
  Finish(days, sec, offset, t);
  return true;
}

bool TimeReader::ReadSyslog(std::string_view in, Timestamp* t) {
  // "Mmm dd HH:MM:SS", "Mmm  d HH:MM:SS" (15 bytes) or "Mmm d HH:MM:SS".
  const char* p = in.data();
  if (p[3] != ' ' || p[in.size() - 9] != ' ') return false;
  const size_t date_size = in.size() - 9;  // "Mmm dd" or "Mmm d"
  int64_t days;
  bool ok;
  if (date_size == 6) {
    ok = Days<6>(
        p,
        [p](int64_t* d) {
          const int day =
              p[4] == ' ' ? (IsDigit(p[5]) ? p[5] - '0' : -1) : Two(p + 4);
          return CivilDays(2000, MonthName(p), day, d);
        },
        static_cast<int>(TimeLayout::kSyslog), &days);
  } else {
    ok = Days<5>(
        p,
        [p](int64_t* d) {
          return IsDigit(p[4]) && CivilDays(2000, MonthName(p), p[4] - '0', d);
        },
        static_cast<int>(TimeLayout::kSyslog), &days);
  }
  const int sec = ok ? Clock(p + date_size + 1, false) : -1;
  if (sec < 0) return false;
  t->layout = TimeLayout::kSyslog;
  t->clock_at = static_cast<uint8_t>(date_size + 1);
  Finish(days, sec, 0, t);
  return true;
}

bool TimeReader::Read(std::string_view in, Timestamp* t) noexcept {
  *t = Timestamp();
  const size_t n = in.size();
  if (n == 0 || n > 64) return false;
  const char c = in[0];
  if (IsDigit(c)) {
    if (n == 11 && in[4] == '-') return ReadDtail(in, false, t);
    if (n == 15 && in[8] == '-') return ReadDtail(in, true, t);
    if (n >= 19 && in[4] == '-') return ReadRfc3339(in, t);
    if (n == 26 && in[2] == '/') return ReadClf(in, t);
    return ReadEpoch(in, t);
  }
  if (c == '[') return n == 28 && ReadClf(in, t);
  if ((n == 14 || n == 15) && (c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
    return ReadSyslog(in, t);
  }
  return false;
}

bool ReadEpochSeconds(std::string_view in, Timestamp* t) noexcept {
  *t = Timestamp();
  size_t i = 0;
  const bool negative = !in.empty() && in[0] == '-';
  if (negative || (!in.empty() && in[0] == '+')) ++i;
  int64_t whole = 0;
  const size_t start = i;
  while (i < in.size() && IsDigit(in[i])) {
    // More digits are milliseconds and finer, as time(x) reads them.
    if (i - start == 10) return false;
    whole = whole * 10 + (in[i] - '0');
    ++i;
  }
  if (i == start) return false;
  if (!Fraction(in, &i, t) || i != in.size()) return false;
  t->layout = TimeLayout::kEpoch;
  t->seconds = negative ? -whole : whole;
  if (negative && t->nanos > 0) {  // -0.5: -1 s + 0.5 s.
    t->seconds -= 1;
    t->nanos = 1000000000 - t->nanos;
  }
  return true;
}

std::string FormatTimeLayout(std::string_view layout, const Timestamp& t) {
  const absl::Time time =
      absl::FromUnixSeconds(t.seconds) + absl::Nanoseconds(t.nanos);
  return absl::FormatTime(util::ToAbsl(layout), time, absl::UTCTimeZone());
}

bool ReadWithLayout(std::string_view layout, std::string_view in,
                    Timestamp* t) noexcept {
  *t = Timestamp();
  absl::Time time;
  std::string err;
  if (!absl::ParseTime(util::ToAbsl(layout), util::ToAbsl(in), &time, &err) ||
      time == absl::InfiniteFuture() || time == absl::InfinitePast()) {
    return false;
  }
  const absl::Time whole = absl::FromUnixSeconds(absl::ToUnixSeconds(time));
  int64_t seconds = absl::ToUnixSeconds(time);
  int64_t nanos = absl::ToInt64Nanoseconds(time - whole);
  if (nanos < 0) {  // ToUnixSeconds rounds toward negative infinity already.
    nanos += 1000000000;
    seconds -= 1;
  }
  t->layout = TimeLayout::kOther;
  t->seconds = seconds;
  t->nanos = static_cast<uint32_t>(nanos);
  uint8_t digits = 0;
  if (nanos != 0) {
    digits = 9;
    while (nanos % 10 == 0) {
      nanos /= 10;
      --digits;
    }
  }
  t->fraction_digits = digits;
  return true;
}

size_t FormatEpoch(const Timestamp& t, char out[kMaxEpochTextSize]) noexcept {
  char* p = out;
  int64_t whole = t.seconds;
  uint32_t frac = t.nanos;
  if (t.fraction_digits > 0 && whole < 0 && frac > 0) {
    // -0.5 is seconds -1 plus 0.5.
    *p++ = '-';
    whole = -(whole + 1);
    frac = 1000000000 - frac;
  }
  p = std::to_chars(p, out + kMaxEpochTextSize, whole).ptr;
  if (t.fraction_digits > 0) {
    *p++ = '.';
    uint32_t scaled =
        frac / static_cast<uint32_t>(kPow10[9 - t.fraction_digits]);
    for (int i = t.fraction_digits - 1; i >= 0; --i) {
      p[i] = static_cast<char>('0' + scaled % 10);
      scaled /= 10;
    }
    p += t.fraction_digits;
  }
  return static_cast<size_t>(p - out);
}

namespace {

constexpr std::string_view kMonthNames = "JanFebMarAprMayJunJulAugSepOctNovDec";

// Writes the local date `local_days` (days since 1970-01-01 in t's written
// offset) over the date in `out`, a copy of t's text, in t's layout (the
// clock is the caller's). Year-less layouts (MMDD-HHMMSS) write the month
// and day only; syslog's is the caller's (its size may change). False for
// a year before 0 or past 9999 in a layout with a year.
bool WriteDate(const Timestamp& t, int64_t local_days, char* out) {
  const util::CivilDay d = util::CivilFromDays(local_days);
  if (!IsYearless(t.layout) && (d.year < 0 || d.year > 9999)) return false;
  const int year = static_cast<int>(d.year);
  switch (t.layout) {
    case TimeLayout::kRfc3339:  // YYYY-MM-DD
      PutTwo(out, year / 100);
      PutTwo(out + 2, year % 100);
      PutTwo(out + 5, d.month);
      PutTwo(out + 8, d.day);
      return true;
    case TimeLayout::kDtailLong:  // YYYYMMDD-
      PutTwo(out, year / 100);
      PutTwo(out + 2, year % 100);
      PutTwo(out + 4, d.month);
      PutTwo(out + 6, d.day);
      return true;
    case TimeLayout::kDtailShort:  // MMDD-
      PutTwo(out, d.month);
      PutTwo(out + 2, d.day);
      return true;
    case TimeLayout::kClf: {  // [dd/Mon/yyyy:
      char* p = out + (out[0] == '[' ? 1 : 0);
      PutTwo(p, d.day);
      std::memcpy(p + 3, kMonthNames.data() + 3 * (d.month - 1), 3);
      PutTwo(p + 7, year / 100);
      PutTwo(p + 9, year % 100);
      return true;
    }
    default:
      return false;
  }
}

// The days since 1970-01-01 of t's date, as written (in its offset).
int64_t LocalDays(const Timestamp& t) {
  // A whole number of days: local midnight in the written offset.
  return (t.seconds + t.offset - t.local_second) / kSecondsPerDay;
}

// Writes the date of the Monday that starts t's week over the date in
// `out`, a copy of t's text (the clock is the caller's). False for a layout
// without a year or a year past 9999.
bool WeekStartDate(const Timestamp& t, char* out) {
  if (IsYearless(t.layout)) return false;  // No year, so no weekday.
  const int64_t local_days = LocalDays(t);
  // 1970-01-01 was a Thursday: Monday is 3 days earlier.
  const int64_t monday = local_days - (((local_days + 3) % 7) + 7) % 7;
  return WriteDate(t, monday, out);
}

// Writes the clock `second` (of the day) over t's clock in `out`, and
// zeros over its fraction.
void WriteClock(const Timestamp& t, int64_t second, char* out) {
  char* clock = out + t.clock_at;
  const int step = t.compact_clock ? 2 : 3;
  PutTwo(clock, static_cast<int>(second / 3600));
  PutTwo(clock + step, static_cast<int>(second / 60 % 60));
  PutTwo(clock + 2 * step, static_cast<int>(second % 60));
  if (t.fraction_size > 0) {
    std::memset(out + t.fraction_at, '0', t.fraction_size);
  }
}

}  // namespace

bool BucketTime(TimeReader& reader, std::string_view in, int64_t width_seconds,
                char* out) noexcept {
  Timestamp t;
  if (!reader.Read(in, &t)) return false;
  std::memcpy(out, in.data(), in.size());
  const bool week = width_seconds == kWeekSecondsBucket;
  if (t.layout == TimeLayout::kEpoch) {
    // Whole units, floored to the width in the same unit; the fraction of
    // whole seconds (1700000000.5) becomes zeros. Weeks count from Monday
    // 1969-12-29, three days before the epoch.
    const uint64_t unit = kPow10[t.unit_exponent];
    const uint64_t w = static_cast<uint64_t>(width_seconds) * unit;
    const uint64_t shift = week ? 3 * kSecondsPerDay * unit : 0;
    uint64_t v = t.epoch_value - (t.epoch_value + shift) % w;
    if (v > t.epoch_value) return false;  // Before the first week.
    for (int i = t.epoch_digits - 1; i >= 0; --i) {
      out[i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    for (size_t i = t.epoch_digits + 1; i < in.size(); ++i) out[i] = '0';
    return true;
  }
  if (week && !WeekStartDate(t, out)) return false;
  WriteClock(t, week ? 0 : t.local_second - t.local_second % width_seconds,
             out);
  return true;
}

bool ShiftBack(TimeReader& reader, std::string_view in, int64_t back_seconds,
               std::string* out) {
  Timestamp t;
  if (back_seconds < 0 || !reader.Read(in, &t)) return false;
  out->assign(in.data(), in.size());
  if (t.layout == TimeLayout::kEpoch) {
    // Whole units, in the same unit and digit count; not before 0.
    const uint64_t unit = kPow10[t.unit_exponent];
    const uint64_t d = static_cast<uint64_t>(back_seconds) * unit;
    if (d > t.epoch_value) return false;
    uint64_t v = t.epoch_value - d;
    for (int i = t.epoch_digits - 1; i >= 0; --i) {
      (*out)[i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    return v == 0;
  }
  const int64_t days = LocalDays(t);
  const int64_t local = days * kSecondsPerDay + t.local_second - back_seconds;
  int64_t new_days = local / kSecondsPerDay;
  if (local % kSecondsPerDay < 0) --new_days;
  const int64_t second = local - new_days * kSecondsPerDay;
  if (new_days != days) {
    if (t.layout == TimeLayout::kSyslog) {
      // "Mmm dd": a day below 10 padded as the text pads it (a space, as
      // RFC 3164 writes, a zero, or nothing: "Mmm d"), so the size may
      // change; the clock follows the date.
      const util::CivilDay d = util::CivilFromDays(new_days);
      const std::string_view clock = in.substr(t.clock_at - 1);
      const bool unpadded = t.clock_at == 6;
      const char pad = in[4] == '0' ? '0' : ' ';
      out->assign(kMonthNames.data() + 3 * (d.month - 1), 3);
      out->push_back(' ');
      if (d.day >= 10) {
        out->push_back(static_cast<char>('0' + d.day / 10));
      } else if (!unpadded) {
        out->push_back(pad);
      }
      out->push_back(static_cast<char>('0' + d.day % 10));
      t.clock_at = static_cast<uint8_t>(out->size() + 1);
      out->append(clock.data(), clock.size());
    } else if (!WriteDate(t, new_days, out->data())) {
      return false;
    }
  }
  WriteClock(t, second, out->data());
  return true;
}

namespace {

// A plain decimal "-12.345": its digits as an integer and the number of
// decimals; false for anything else, more than 18 significant digits
// (leading zeros do not count) or more than 18 decimals.
bool PlainDecimal(std::string_view s, int64_t* mantissa, int* scale) {
  util::int128 m;
  if (!util::ReadPlainDecimal(s, 18, &m, scale)) return false;
  *mantissa = static_cast<int64_t>(m);
  return true;
}

}  // namespace

bool ParseBinWidth(std::string_view text, BinWidth* out) noexcept {
  *out = BinWidth();
  double v;
  if (!util::ParseNumber(text, &v) || !std::isfinite(v) || v <= 0) {
    return false;
  }
  out->value = v;
  int64_t mantissa;
  int scale;
  if (PlainDecimal(text, &mantissa, &scale)) {
    // Drop trailing zero decimals: 0.50 bins like 0.5.
    while (scale > 0 && mantissa % 10 == 0) {
      mantissa /= 10;
      --scale;
    }
    out->mantissa = mantissa;
    out->scale = static_cast<uint8_t>(scale);
    out->exact = mantissa > 0;
    return true;
  }
  // 1e2, 2.5e-1: the fewest decimals (up to 9) that hold the width.
  for (int k = 0; k <= 9; ++k) {
    const double scaled = v * static_cast<double>(kPow10[k]);
    if (scaled == std::floor(scaled)) {
      out->scale = static_cast<uint8_t>(k);
      if (scaled < 9e17) {
        out->mantissa = static_cast<int64_t>(scaled);
        out->exact = true;
      }
      return true;
    }
  }
  out->scale = 9;
  return true;
}

size_t BucketNumber(std::string_view in, const BinWidth& width,
                    char out[kMaxBinTextSize]) noexcept {
  int64_t x;
  int x_scale;
  if (width.exact && PlainDecimal(in, &x, &x_scale)) {
    // Both as 128-bit integers in units of 10^-m: exact for every plain
    // decimal of up to 18 digits (|xs|, ws < 10^36 < 2^127 / 2).
    const int m = x_scale > width.scale ? x_scale : width.scale;
    const util::int128 xs = static_cast<util::int128>(x) * kPow10[m - x_scale];
    const util::int128 ws =
        static_cast<util::int128>(width.mantissa) * kPow10[m - width.scale];
    const util::int128 q = xs / ws;
    const util::int128 bin = (q - (xs % ws != 0 && xs < 0)) * ws;
    // bin is a multiple of 10^(m - scale): render `scale` decimals.
    const util::int128 v =
        bin / static_cast<util::int128>(kPow10[m - width.scale]);  // exact
    char* p = out;
    if (v < 0) *p++ = '-';
    util::uint128 mag =
        v < 0 ? -static_cast<util::uint128>(v) : static_cast<util::uint128>(v);
    // Digits right to left, at least scale + 1 of them.
    char digits[48];
    int nd = 0;
    do {
      digits[nd++] = static_cast<char>('0' + static_cast<int>(mag % 10));
      mag /= 10;
    } while (mag != 0);
    while (nd <= width.scale) digits[nd++] = '0';
    for (int i = nd - 1; i >= 0; --i) {
      if (i == width.scale - 1) *p++ = '.';
      *p++ = digits[i];
    }
    return static_cast<size_t>(p - out);
  }
  double v;
  if (!util::ParseNumber(in, &v) || !std::isfinite(v)) return 0;
  double bin = std::floor(v / width.value) * width.value;
  if (!std::isfinite(bin)) return 0;  // 1e308 in bins of 0.001
  if (bin == 0) bin = 0;              // No "-0".
  const auto r = std::to_chars(out, out + kMaxBinTextSize, bin,
                               std::chars_format::fixed, width.scale);
  if (r.ec != std::errc()) return 0;
  return static_cast<size_t>(r.ptr - out);
}

void PlaceAcrossNewYear(std::span<int64_t> seconds) {
  constexpr int64_t kYear = 366 * int64_t{86400};  // The year 2000.
  std::vector<int64_t> sorted(seconds.begin(), seconds.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (sorted.size() < 2) return;
  // A gap inside the year of more than half a year: the times fit in less
  // than half a year across New Year. (Two such gaps cannot be.)
  int64_t last_before_gap = 0;
  bool inside = false;
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i] - sorted[i - 1] > kYear / 2) {
      last_before_gap = sorted[i - 1];
      inside = true;
    }
  }
  if (!inside) return;
  for (int64_t& s : seconds) {
    if (s <= last_before_gap) s += kYear;
  }
}

std::vector<ColumnTime> ReadTimeColumn(
    size_t n, absl::FunctionRef<std::string_view(size_t)> text) {
  TimeReader reader;
  std::vector<ColumnTime> out(n);
  bool all_yearless = true;
  std::vector<int64_t> seconds;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view v = text(i);
    Timestamp t;
    if (v.data() == nullptr || !reader.Read(v, &t)) continue;
    out[i] = ColumnTime{t.seconds, t.nanos, true};
    all_yearless &= IsYearless(t.layout);
    seconds.push_back(t.seconds);
  }
  if (!all_yearless || seconds.empty()) return out;
  PlaceAcrossNewYear(seconds);
  size_t k = 0;
  for (ColumnTime& c : out) {
    if (c.ok) c.seconds = seconds[k++];
  }
  return out;
}

}  // namespace mapr::runtime
