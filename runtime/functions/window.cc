// window(t, 5m, 1m): overlapping (hopping, or sliding) time windows. A line
// is binned into the start of its hop, exactly as bucket(t, 1m) bins it;
// the result joins each hop's groups into every window that covers the hop
// (BatchAggregator's windowed result, runtime/window.h), so the windows are
// merges of tumbling hops and come out the same for any split. Only a
// `group by` field may hold a window (the planner checks it).
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

// At most this many hops per window: the result combines each hop's state
// this many times.
constexpr int64_t kMaxHopsPerWindow = 1440;

struct WindowBinding : plan::FunctionBinding {
  int64_t width = 0;  // seconds, a multiple of hop
  int64_t hop = 0;    // seconds, dividing a day
  std::string ArgsText() const override {
    return absl::StrCat(", ", width, "s, ", hop, "s");
  }
  bool IsBucket() const override { return true; }
  bool IsTimeBucket() const override { return true; }
  int64_t BucketSeconds() const override { return width; }
  int64_t HopSeconds() const override { return hop; }
};

constexpr std::string_view kUsage = "window(t, 5m, 1m)";

// A duration argument, bare.
bool Duration(const ast::Token& t, std::string_view what,
              plan::BindContext& ctx, int64_t* seconds) {
  *seconds = t.kind == ast::TokenKind::kString ? 0 : DurationSeconds(t.text);
  if (*seconds > 0) return true;
  ctx.Error(
      t.span,
      absl::StrCat("invalid window ", util::ToAbsl(what), " '", t.text, "'"),
      "give a bare duration: 30s, 5m, 1h or 1d (window(t, 5m, 1m): "
      "windows of 5 minutes starting every minute)");
  return false;
}

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  auto b = std::make_shared<WindowBinding>();
  if (!Duration(args[0], "width", ctx, &b->width) ||
      !Duration(args[1], "hop", ctx, &b->hop) ||
      !DividesDay(args[1], "window hop", b->hop, ctx)) {
    return false;
  }
  if (b->width % b->hop != 0 || b->width / b->hop > kMaxHopsPerWindow) {
    ctx.Error(args[0].span,
              absl::StrCat("window width ", args[0].text,
                           b->width % b->hop != 0 ? " is not a multiple of"
                                                  : " is more than 1440 times",
                           " its hop ", args[1].text),
              "a window is a whole number of hops, at most 1440: "
              "window(t, 1h, 5m) joins 12");
    return false;
  }
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "window",
    "overlapping time windows: w wide, one starting every hop h (a "
    "duration dividing a day); a line counts in each of the w/h windows "
    "that hold it, labelled by their start in its own layout; a 'group by' "
    "field only",
    kUsage,
    2,
    0,
    Bind,
    /*expression_only=*/false,
    /*first_literal_may_lead=*/false,
    /*defined_on_missing=*/false,
    /*group_field_only=*/true};

// The value is the start of the line's hop; the result turns hops into
// windows.
void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t* unreadable,
           FunctionContext& ctx) {
  const WindowBinding& b = BindingAs<WindowBinding>(binding);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view& v = values[i];
    if (v.data() == nullptr || BucketTimeValue(&v, b.hop, ctx)) continue;
    v = std::string_view();
    unreadable[i] = 1;
  }
}

}  // namespace

extern const ScalarFunction kWindowFunction = {kInfo, Apply};

}  // namespace mapr::runtime
