// time() and bucket(): reading timestamps and binning values
// (docs/query-language.md, "Time and bins").
//
//   time(x)            epoch seconds of a timestamp in a fixed layout
//   time(x, 'layout')  epoch seconds of a timestamp in a strftime layout
//   bucket(x, 5m)      the start of x's 5-minute bucket, in x's own layout
//   bucket(x, 100)     the start of x's numeric bin: floor(x / 100) * 100
//
// The fixed layouts are read by hand (absl::ParseTime costs 1-5 us a value,
// far too slow for GB/s): DTail's MMDD-HHMMSS and YYYYMMDD-HHMMSS, RFC 3339 /
// ISO 8601, Common Log Format, syslog (RFC 3164) and epoch s/ms/us/ns. A
// TimeReader remembers the last date it read per layout, so the common case,
// consecutive lines of the same day, skips the date entirely. Every result is
// a pure function of the value: layouts without a year read in the leap year
// 2000, and nothing reads the clock or the local time zone.
//
// Example:
//   TimeReader reader;  // One per worker: not thread-safe.
//   Timestamp t;
//   if (reader.Read("2026-12-01T14:07:31.123+01:00", &t)) {
//     char text[kMaxEpochTextSize];
//     std::string_view s(text, FormatEpoch(t, text));  // "1796130451.123"
//   }
//
// Nothing here allocates, except ReadWithLayout (absl::ParseTime).
#ifndef MAPR_RUNTIME_TIME_FUNCTIONS_H_
#define MAPR_RUNTIME_TIME_FUNCTIONS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace mapr::runtime {

// The fixed layouts time() and bucket() read.
enum class TimeLayout : uint8_t {
  kDtailShort,  // 1002-071947 (MMDD-HHMMSS, read in the year 2000)
  kDtailLong,   // 20261002-071947 (YYYYMMDD-HHMMSS)
  kRfc3339,     // 2026-12-01T14:07:31.123+01:00, 'T' or ' ', Z/offset/none
  kClf,         // 10/Oct/2000:13:55:36 -0700, with or without [ ]
  kSyslog,      // Oct 11 22:14:15, Oct  1 22:14:15 (read in the year 2000)
  kEpoch,       // 1700000000, 1700000000.5, ms, us, ns (by digit count)
  kOther,       // time(x, 'layout'): absl::ParseTime
};
inline constexpr int kNumFixedLayouts = 6;

// A timestamp that was read, with where its parts are in the text (for
// bucket(), which rewrites the clock in place).
struct Timestamp {
  int64_t seconds = 0;  // Epoch seconds, rounded down.
  uint32_t nanos = 0;   // [0, 1e9): the fraction.
  // Digits time() renders after the '.': 0 for none.
  uint8_t fraction_digits = 0;
  TimeLayout layout = TimeLayout::kEpoch;
  // Civil layouts: offset of the clock's hour digits; `compact_clock` for
  // HHMMSS (DTail) instead of HH:MM:SS; the fraction digits to zero.
  uint8_t clock_at = 0;
  bool compact_clock = false;
  uint8_t fraction_at = 0;
  uint8_t fraction_size = 0;
  // Civil layouts: the second of the day as written (in the written offset),
  // and that offset east of UTC in seconds.
  int32_t local_second = 0;
  int32_t offset = 0;
  // kEpoch: the integer as written, its digit count and its unit
  // (10^unit_exponent per second: 0, 3, 6 or 9).
  uint64_t epoch_value = 0;
  uint8_t epoch_digits = 0;
  uint8_t unit_exponent = 0;
};

// Reads timestamps in the fixed layouts, remembering the last date of each.
// Thread-compatible: one per worker.
class TimeReader {
 public:
  // Reads `in` in one of the fixed layouts (the whole value, nothing around
  // it). Returns false if none fits or a part is out of range (month 13,
  // Feb 30, hour 24, second 60, offset beyond ±23:59).
  bool Read(std::string_view in, Timestamp* out) noexcept;

 private:
  // The last date read in each civil layout: its bytes and day number.
  struct DateMemo {
    char key[12] = {};
    uint8_t size = 0;
    int64_t days = 0;
  };
  template <int kKeySize, typename ParseDate>
  bool Days(const char* key, ParseDate parse, int slot, int64_t* days);

  bool ReadDtail(std::string_view in, bool long_form, Timestamp* out);
  bool ReadRfc3339(std::string_view in, Timestamp* out);
  bool ReadClf(std::string_view in, Timestamp* out);
  bool ReadSyslog(std::string_view in, Timestamp* out);

  DateMemo memo_[kNumFixedLayouts];
};

// Reads `in` with a strftime `layout` through absl::ParseTime (UTC unless
// the layout reads an offset; fields it lacks default as in absl: 1970-01-01
// 00:00:00). Renders a fraction only when there is one. The slow path: it
// allocates.
bool ReadWithLayout(std::string_view layout, std::string_view in,
                    Timestamp* out) noexcept;

// Reads `in` as epoch seconds with an optional sign and fraction
// ("1700000000", "-0.5", "1700000000.123456789"), as time() writes them:
// at most 10 digits before the fraction (more are milliseconds and finer,
// which TimeReader reads). False for anything else.
bool ReadEpochSeconds(std::string_view in, Timestamp* out) noexcept;

// format_time(t, layout): `t` written with the strftime `layout` in UTC
// (absl::FormatTime, which allocates); empty if it cannot be.
std::string FormatTimeLayout(std::string_view layout, const Timestamp& t);

// True for the layouts without a year, read in the year 2000.
inline bool IsYearless(TimeLayout layout) {
  return layout == TimeLayout::kDtailShort || layout == TimeLayout::kSyslog;
}

// Orders times without a year across New Year. `seconds` are instants read
// from such layouts (in the year 2000, see above), of a result's column:
// when two consecutive ones (in calendar order) lie more than half a year
// apart, the times fit in less than half a year across New Year (a log from
// December into January leaves most of the year between January and
// December), so those before that gap move one year on (+366 days) and
// December sorts before January; otherwise nothing changes. A pure function
// of the set of values (any order, any split). Updates `seconds` in place.
void PlaceAcrossNewYear(std::span<int64_t> seconds);

// A time of a column of texts (ReadTimeColumn); `ok` false where the text
// is missing or not a time.
struct ColumnTime {
  int64_t seconds = 0;
  uint32_t nanos = 0;
  bool ok = false;
};

// Reads text(i) for i < n in the fixed layouts, with times without a year
// placed across New Year (PlaceAcrossNewYear) when every time read lacks
// one: the order of a result's time-bucket column and of mapr::ReadTimes.
std::vector<ColumnTime> ReadTimeColumn(
    size_t n, absl::FunctionRef<std::string_view(size_t)> text);

// Longest text FormatEpoch writes.
inline constexpr size_t kMaxEpochTextSize = 32;

// Writes time()'s result for `t`: the epoch seconds as an integer, followed
// by '.' and `t.fraction_digits` digits when the value had a fraction.
// Returns the size written.
size_t FormatEpoch(const Timestamp& t, char out[kMaxEpochTextSize]) noexcept;

// Weeks (width kWeekSecondsBucket) start on Monday at 00:00 in the written
// offset, and are written in layouts with a year only (RFC 3339, DTail's
// YYYYMMDD-HHMMSS, CLF, epochs): a year-less layout (MMDD-HHMMSS, syslog) is
// not bucketed into weeks (false), its weekday being unknown.
inline constexpr int64_t kWeekSecondsBucket = 7 * 86400;

// bucket(in, width) for a time width (seconds; it divides a day): writes the
// start of `in`'s bucket to out[0, in.size()), in `in`'s own layout. Buckets
// align to midnight in the timestamp's written offset (UTC for epochs); an
// epoch keeps its unit and digit count (padded with zeros on the left).
// Returns false, writing nothing, if `in` is not a timestamp.
bool BucketTime(TimeReader& reader, std::string_view in, int64_t width_seconds,
                char* out) noexcept;

// window(t, w, h)'s labels: the start of the window that begins
// `back_seconds` before the bucket `in` (a text BucketTime wrote),
// written in `in`'s layout to `*out`: an epoch in its unit and digit
// count, a civil time with its date moved too when the window starts on an
// earlier day (year-less layouts count back within the year 2000, as they
// are read: from 0101 to 1231). The clock of `in` is on a bucket boundary,
// so nothing but date and clock changes. False if `in` is not a timestamp
// in a fixed layout, or the start cannot be written in it (an epoch before
// 0, a year before 0). Allocates (a result is being built).
bool ShiftBack(TimeReader& reader, std::string_view in, int64_t back_seconds,
               std::string* out);

// A numeric bin width, as the planner read it.
struct BinWidth {
  double value = 0;  // > 0, finite
  // value == mantissa / 10^scale exactly, when the written width is a plain
  // decimal; scale is the number of decimals the bins render with.
  int64_t mantissa = 0;
  uint8_t scale = 0;
  bool exact = false;  // mantissa/scale hold the width
};

// Returns the width `text` gives numeric bins, or false if it is not a
// positive finite number.
bool ParseBinWidth(std::string_view text, BinWidth* out) noexcept;

// Longest text BucketNumber writes.
inline constexpr size_t kMaxBinTextSize = 400;

// bucket(in, width) for numeric bins: floor(in / width) * width, with as
// many decimals as the width has (bucket(x, 100) gives integers, bucket(x,
// 0.25) two decimals). Plain decimals are binned exactly in integers; other
// numbers (exponents, 19+ digits) in doubles. Returns the size written to
// `out`, or 0 if `in` is not a finite number.
size_t BucketNumber(std::string_view in, const BinWidth& width,
                    char out[kMaxBinTextSize]) noexcept;

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_TIME_FUNCTIONS_H_
