// regex(x, 're'): capture group 1 of the RE2 pattern's first match in the
// value (the whole match without groups); missing if none.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"
#include "runtime/function.h"
#include "runtime/functions.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

struct RegexBinding : plan::FunctionBinding {
  std::shared_ptr<const re2::RE2> re;
  std::string ArgsText() const override {
    return absl::StrCat(", '", re->pattern(), "'");
  }
};

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  auto b = std::make_shared<RegexBinding>();
  b->re = ctx.Pattern(args[0], "regex()");
  if (b->re == nullptr) return false;
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "regex",
    "capture group 1 of the RE2 pattern's first match (the whole match "
    "without groups); missing if none",
    "regex(x, 're')",
    1,
    0,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t*, FunctionContext&) {
  const re2::RE2& re = *BindingAs<RegexBinding>(binding).re;
  // Parts of the value: no copy.
  MapPresent(values, [&](std::string_view v) { return RegexExtract(re, v); });
}

}  // namespace

extern const ScalarFunction kRegexFunction = {kInfo, Apply};

}  // namespace mapr::runtime
