// substr(x, start) or substr(x, start, len): the bytes of the value from
// `start` (1-based; negative counts from the end), `len` of them or to the
// end; clamped to the value (never missing).
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

struct SubstrBinding : plan::FunctionBinding {
  int64_t start = 0;
  int64_t length = -1;  // -1: to the end.
  std::string ArgsText() const override {
    return length >= 0 ? absl::StrCat(", ", start, ", ", length)
                       : absl::StrCat(", ", start);
  }
};

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  auto b = std::make_shared<SubstrBinding>();
  if (!IntegerArg(args[0], "substr", /*nonzero=*/true, ctx, &b->start)) {
    return false;
  }
  if (args.size() > 1) {
    if (!IntegerArg(args[1], "substr", /*nonzero=*/false, ctx, &b->length)) {
      return false;
    }
    if (b->length < 0) {
      ctx.Error(args[1].span, "the length of substr() cannot be negative",
                "write: substr(x, start, length)");
      return false;
    }
  }
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "substr",
    "the bytes of the value from start (1-based; negative: from the end), "
    "len of them or to the end",
    "substr(x, start) or substr(x, start, len)",
    1,
    1,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t*, FunctionContext&) {
  const SubstrBinding& b = BindingAs<SubstrBinding>(binding);
  // Parts of the value: no copy.
  MapPresent(values,
             [&](std::string_view v) { return Substr(v, b.start, b.length); });
}

}  // namespace

extern const ScalarFunction kSubstrFunction = {kInfo, Apply};

}  // namespace mapr::runtime
