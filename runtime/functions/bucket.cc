// bucket(x, w): the start of the value's time bucket in its own layout
// (w a duration that divides a day, or 1w from Monday), or its numeric bin
// floor(x / w) * w (runtime/time_functions.h); missing and counted if
// unreadable.
#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "util/number.h"

namespace mapr::runtime {
namespace {

struct BucketBinding : plan::FunctionBinding {
  // A time bucket's width in seconds, or 0 for numeric bins of `bins`
  // (written `width`).
  int64_t seconds = 0;
  std::string width;
  BinWidth bins;
  std::string ArgsText() const override {
    return seconds > 0 ? absl::StrCat(", ", seconds, "s")
                       : absl::StrCat(", ", width);
  }
  bool IsBucket() const override { return true; }
  bool IsTimeBucket() const override { return seconds > 0; }
  int64_t BucketSeconds() const override { return seconds; }
};

constexpr std::string_view kHint =
    "give a duration that divides a day (30s, 5m, 1h, 1d) or 1w for "
    "time buckets, or a positive number (100, 0.5) for numeric bins";

bool Invalid(const ast::Token& t, plan::BindContext& ctx) {
  ctx.Error(t.span, absl::StrCat("invalid bucket width '", t.text, "'"),
            std::string(kHint));
  return false;
}

// A time width: digits and a unit (s, m, h, d) dividing a day, or 1w.
bool BindDuration(const ast::Token& t, plan::BindContext& ctx,
                  BucketBinding* b) {
  if (t.text == "1w") {
    // Weeks from Monday 00:00 (ISO 8601), in the timestamp's offset.
    b->seconds = kWeekSecondsBucket;
    return true;
  }
  const int64_t seconds = DurationSeconds(t.text);
  if (seconds == 0) return Invalid(t, ctx);
  if (!DividesDay(t, "bucket width", seconds, ctx)) return false;
  b->seconds = seconds;
  return true;
}

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  const ast::Token& t = args[0];
  if (t.kind == ast::TokenKind::kString) {
    ctx.Error(t.span, "the width of bucket() is written bare, not quoted",
              "write: bucket(x, 5m) or bucket(x, 100)");
    return false;
  }
  auto b = std::make_shared<BucketBinding>();
  double number;
  if (util::ParseNumber(t.text, &number)) {
    if (!(number > 0) || !std::isfinite(number) ||
        !ParseBinWidth(t.text, &b->bins)) {
      return Invalid(t, ctx);
    }
    b->width = t.text;
  } else if (!BindDuration(t, ctx, b.get())) {
    return false;
  }
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "bucket",
    "the start of the value's time bucket in its own layout (width 30s, 5m, "
    "1h, 1d dividing a day, or 1w from Monday), or its numeric bin "
    "floor(x/w)*w",
    "bucket(x, 5m) or bucket(x, 100)",
    1,
    0,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t* unreadable,
           FunctionContext& ctx) {
  const BucketBinding& b = BindingAs<BucketBinding>(binding);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view& v = values[i];
    if (v.data() == nullptr) continue;
    if (b.seconds > 0) {
      if (BucketTimeValue(&v, b.seconds, ctx)) continue;
    } else {
      char buffer[kMaxBinTextSize];
      const size_t size = BucketNumber(v, b.bins, buffer);
      if (size > 0) {
        v = ctx.arena.Copy(std::string_view(buffer, size));
        continue;
      }
    }
    v = std::string_view();
    unreadable[i] = 1;
  }
}

}  // namespace

extern const ScalarFunction kBucketFunction = {kInfo, Apply};

}  // namespace mapr::runtime
