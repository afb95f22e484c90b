// format_time(t, 'layout'): a time (epoch seconds as time() writes them,
// or a fixed layout) written in a strftime layout, in UTC; missing and
// counted if unreadable.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

struct FormatTimeBinding : plan::FunctionBinding {
  std::string layout;
  std::string ArgsText() const override {
    return absl::StrCat(", '", layout, "'");
  }
};

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  auto b = std::make_shared<FormatTimeBinding>();
  if (!TimeLayoutArg(args[0], /*writes=*/true, ctx, &b->layout)) return false;
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "format_time",
    "a time (epoch seconds as time() gives, or a fixed layout) written in "
    "a strftime layout, in UTC; missing and counted if unreadable",
    "format_time(t, '%Y-%m-%d %H:%M')",
    1,
    0,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t* unreadable,
           FunctionContext& ctx) {
  const std::string& layout = BindingAs<FormatTimeBinding>(binding).layout;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view& v = values[i];
    if (v.data() == nullptr) continue;
    Timestamp t;
    std::string text;
    if (ReadEpochSeconds(v, &t) || ctx.time_reader.Read(v, &t)) {
      text = FormatTimeLayout(layout, t);
    }
    if (text.empty()) {
      v = std::string_view();
      unreadable[i] = 1;
    } else {
      v = ctx.arena.Copy(text);
    }
  }
}

}  // namespace

extern const ScalarFunction kFormatTimeFunction = {kInfo, Apply};

}  // namespace mapr::runtime
