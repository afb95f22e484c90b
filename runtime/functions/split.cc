// split(x, 'sep', i): piece i (1-based; negative counts from the end) of
// the value cut at every 'sep'; missing if there is none.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions.h"
#include "runtime/functions/function_args.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

struct SplitBinding : plan::FunctionBinding {
  std::string separator;
  int64_t piece = 1;
  std::string ArgsText() const override {
    return absl::StrCat(", '", separator, "', ", piece);
  }
};

constexpr std::string_view kUsage = "split(x, 'sep', i)";

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  if (args[0].kind != ast::TokenKind::kString || args[0].text.empty()) {
    ctx.Error(args[0].span,
              "the separator of split() must be a non-empty 'quoted' string",
              absl::StrCat("write: ", util::ToAbsl(kUsage)));
    return false;
  }
  auto b = std::make_shared<SplitBinding>();
  b->separator = args[0].text;
  if (!IntegerArg(args[1], "split", /*nonzero=*/true, ctx, &b->piece)) {
    return false;
  }
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "split",
    "piece i (1-based; negative: from the end) of the value split at "
    "'sep'; missing if there is none",
    kUsage,
    2,
    0,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t*, FunctionContext&) {
  const SplitBinding& b = BindingAs<SplitBinding>(binding);
  MapPresent(values, [&](std::string_view v) {
    return SplitPiece(v, b.separator, b.piece);
  });
}

}  // namespace

extern const ScalarFunction kSplitFunction = {kInfo, Apply};

}  // namespace mapr::runtime
