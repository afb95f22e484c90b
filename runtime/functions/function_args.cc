#include "runtime/functions/function_args.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "util/strings.h"

namespace mapr::runtime {

namespace {

// The seconds of a duration unit, or 0.
int64_t UnitSeconds(std::string_view unit) {
  return unit == "s"   ? 1
         : unit == "m" ? 60
         : unit == "h" ? 3600
         : unit == "d" ? 86400
                       : 0;
}

// The number of leading digits of `s`.
size_t LeadingDigits(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  return n;
}

}  // namespace

bool BucketTimeValue(std::string_view* v, int64_t seconds,
                     FunctionContext& ctx) {
  char* out = ctx.arena.Allocate(v->empty() ? 1 : v->size());
  if (!BucketTime(ctx.time_reader, *v, seconds, out)) return false;
  *v = std::string_view(out, v->size());
  return true;
}

int64_t DurationSeconds(std::string_view text) {
  const size_t digits = LeadingDigits(text);
  const int64_t scale = UnitSeconds(text.substr(digits));
  if (digits == 0 || digits > 6 || scale == 0) return 0;
  int64_t n = 0;
  for (size_t i = 0; i < digits; ++i) n = n * 10 + (text[i] - '0');
  return n * scale;
}

bool DividesDay(const ast::Token& t, std::string_view what, int64_t seconds,
                plan::BindContext& ctx) {
  constexpr int64_t kDay = 86400;
  if (seconds > 0 && seconds <= kDay && kDay % seconds == 0) return true;
  // The widths of the same unit on either side that divide a day.
  const std::string_view text = t.text;
  const size_t digits = LeadingDigits(text);
  const std::string_view unit = text.substr(digits);
  const int64_t scale = std::max<int64_t>(UnitSeconds(unit), 1);
  const int64_t n = seconds / scale;
  std::vector<std::string> near;
  for (int64_t k = std::min(n - 1, kDay / scale); k >= 1; --k) {
    if (kDay % (k * scale) == 0) {
      near.push_back(absl::StrCat(k, util::ToAbsl(unit)));
      break;
    }
  }
  for (int64_t k = n + 1; k * scale <= kDay; ++k) {
    if (kDay % (k * scale) == 0) {
      near.push_back(absl::StrCat(k, util::ToAbsl(unit)));
      break;
    }
  }
  ctx.Error(
      t.span,
      absl::StrCat(util::ToAbsl(what), " ", t.text, " does not divide a day"),
      absl::StrCat(
          "time buckets start at midnight, so the width "
          "must divide 24h",
          near.empty() ? "" : "; nearest: ", absl::StrJoin(near, " or ")));
  return false;
}

bool IntegerArg(const ast::Token& t, std::string_view fn, bool nonzero,
                plan::BindContext& ctx, int64_t* out) {
  int64_t v;
  if (t.kind != ast::TokenKind::kBareword ||
      !absl::SimpleAtoi(util::ToAbsl(t.text), &v) || (nonzero && v == 0) ||
      v > (int64_t{1} << 40) || v < -(int64_t{1} << 40)) {
    ctx.Error(
        t.span,
        absl::StrCat("expected a whole number", nonzero ? " other than 0" : "",
                     " as an argument of ", util::ToAbsl(fn), "(), found '",
                     t.text, "'"),
        "positions count from 1; negative ones from the end: "
        "substr(x, -3) is the last three bytes");
    return false;
  }
  *out = v;
  return true;
}

bool TimeLayoutArg(const ast::Token& t, bool writes, plan::BindContext& ctx,
                   std::string* layout) {
  const std::string_view fn = writes ? "format_time()" : "time()";
  if (t.kind != ast::TokenKind::kString) {
    ctx.Error(t.span,
              absl::StrCat("the layout of ", util::ToAbsl(fn),
                           " must be a 'quoted' string"),
              writes ? "for example: format_time($t, '%Y-%m-%d %H:%M')"
                     : "for example: time($when, '%d.%m.%Y %H:%M:%S')");
    return false;
  }
  const std::string& text = t.text;
  bool any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    size_t j = i + 1;
    // %Ez, %E*z, %E*S, %E4S, %E*f, %E4f, %E4Y, and %O variants.
    if (j < text.size() && (text[j] == 'E' || text[j] == 'O')) {
      ++j;
      if (j < text.size() && text[j] == '*') {
        ++j;
      } else {
        while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
      }
    }
    constexpr std::string_view kConversions =
        "YmdeHMSzZsaAbBhpIjyCDFTRnt%fEuUVwWgGcxXr";
    const bool known = j < text.size() &&
                       kConversions.find(text[j]) != std::string_view::npos &&
                       text[j] != 'E';
    if (!known) {
      // Columns inside the quotes: the token span covers them too.
      const uint32_t at = t.span.offset + 1 + static_cast<uint32_t>(i);
      const uint32_t length =
          static_cast<uint32_t>(std::min(j + 1, text.size()) - i);
      ctx.Error(ast::Span{at, length},
                absl::StrCat("unknown conversion '", text.substr(i, length),
                             "' in the layout of ", util::ToAbsl(fn)),
                "layouts use strftime conversions such as %Y %m %d %H %M %S "
                "%z %b %e %s %E*S (write %% for a '%')");
      return false;
    }
    any |= text[j] != '%' && text[j] != 'n' && text[j] != 't';
    i = j;
  }
  if (writes) {
    *layout = text;
    return true;
  }
  // Read back a formatted time: catches layouts such as "%Y%Y".
  const absl::Time probe = absl::FromUnixSeconds(1764598051);
  absl::Time back;
  std::string err;
  if (!any || !absl::ParseTime(util::ToAbsl(text),
                               absl::FormatTime(util::ToAbsl(text), probe,
                                                absl::UTCTimeZone()),
                               &back, &err)) {
    ctx.Error(
        t.span,
        absl::StrCat("the layout of time() cannot read a time: '", text, "'"),
        any ? absl::StrCat("it does not read back its own output (", err, ")")
            : "a layout needs conversions such as %Y-%m-%d %H:%M:%S");
    return false;
  }
  *layout = text;
  return true;
}

}  // namespace mapr::runtime
