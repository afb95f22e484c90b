// time(x) or time(x, 'layout'): epoch seconds of a timestamp in a fixed
// layout (runtime/time_functions.h) or a strftime layout; missing and
// counted if unreadable.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

struct TimeBinding : plan::FunctionBinding {
  std::string layout;
  std::string ArgsText() const override {
    return absl::StrCat(", '", layout, "'");
  }
};

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  if (args.empty()) return true;  // The fixed layouts.
  auto b = std::make_shared<TimeBinding>();
  if (!TimeLayoutArg(args[0], /*writes=*/false, ctx, &b->layout)) return false;
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "time",
    "epoch seconds of a timestamp (DTail, RFC 3339, CLF, syslog, epoch "
    "s/ms/us/ns; or a strftime layout); missing and counted if unreadable",
    "time(x) or time(x, '%d.%m.%Y %H:%M:%S')",
    0,
    1,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t* unreadable,
           FunctionContext& ctx) {
  const std::string* layout =
      binding != nullptr ? &BindingAs<TimeBinding>(binding).layout : nullptr;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view& v = values[i];
    if (v.data() == nullptr) continue;
    Timestamp t;
    if (layout == nullptr ? ctx.time_reader.Read(v, &t)
                          : ReadWithLayout(*layout, v, &t)) {
      char buffer[kMaxEpochTextSize];
      v = ctx.arena.Copy(std::string_view(buffer, FormatEpoch(t, buffer)));
    } else {
      v = std::string_view();
      unreadable[i] = 1;
    }
  }
}

}  // namespace

extern const ScalarFunction kTimeFunction = {kInfo, Apply};

}  // namespace mapr::runtime
