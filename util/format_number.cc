#include "util/format_number.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace mapr::util {
namespace {

// Appends Go's spelling of a NaN or an infinity and returns true, or returns
// false for a finite `v`.
bool AppendSpecial(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
    return true;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "+Inf" : "-Inf");
    return true;
  }
  return false;
}

}  // namespace

void AppendGoFloat(double v, std::string* out) {
  if (AppendSpecial(v, out)) return;
  // Whole numbers (sums and extremes of integer fields, counts) below 2^53
  // print exactly as their integer digits and ".000000"; the general path
  // costs several times more.
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) {
    const int64_t whole = static_cast<int64_t>(v);
    char buf[32];
    char* p = buf;
    if (whole == 0 && std::signbit(v)) *p++ = '-';
    p = std::to_chars(p, buf + sizeof(buf), whole).ptr;
    std::memcpy(p, ".000000", 7);
    out->append(buf, p + 7);
    return;
  }
  // The longest output is DBL_MAX: sign + 309 integer digits + '.' + 6.
  char buf[352];
  const std::to_chars_result result = std::to_chars(
      buf, buf + sizeof(buf), v, std::chars_format::fixed, /*precision=*/6);
  out->append(buf, result.ptr);
}

std::string FormatGoFloat(double v) {
  std::string out;
  AppendGoFloat(v, &out);
  return out;
}

int64_t GoInt64FromDouble(double v) noexcept {
  // 2^63 is exact as a double; NaN fails both comparisons.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (v >= -kTwo63 && v < kTwo63) return static_cast<int64_t>(v);
  return std::numeric_limits<int64_t>::min();
}

void AppendGoInt(double v, std::string* out) {
  char buf[24];  // "-9223372036854775808" is 20 bytes
  const std::to_chars_result result =
      std::to_chars(buf, buf + sizeof(buf), GoInt64FromDouble(v));
  out->append(buf, result.ptr);
}

std::string FormatGoInt(double v) {
  std::string out;
  AppendGoInt(v, &out);
  return out;
}

void AppendShortestFloat(double v, std::string* out) {
  if (AppendSpecial(v, out)) return;
  // std::to_chars in fixed shortest mode prints large whole numbers with all
  // their exact digits (1e23 as "99999999999999991611392"), unlike Go. So take
  // the shortest digits from scientific mode, "-d.ddde+XX", and lay them out
  // in fixed notation ourselves.
  char buf[40];
  const std::to_chars_result result =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const char* p = buf;
  if (*p == '-') {
    out->push_back('-');
    ++p;
  }
  char digits[20];  // at most 17 significant digits
  int num_digits = 0;
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits[num_digits++] = *p;
  }
  int exponent = 0;
  std::from_chars(p + 1 + (p[1] == '+'), result.ptr, exponent);
  const std::string_view all(digits, num_digits);

  // The value is 0.<digits> * 10^point, i.e. `point` digits before the '.'.
  const int point = exponent + 1;
  if (point <= 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-point), '0');
    out->append(all);
  } else if (point >= num_digits) {
    out->append(all);
    out->append(static_cast<size_t>(point - num_digits), '0');
  } else {
    out->append(all.substr(0, point));
    out->push_back('.');
    out->append(all.substr(point));
  }
}

std::string FormatShortestFloat(double v) {
  std::string out;
  AppendShortestFloat(v, &out);
  return out;
}

}  // namespace mapr::util
