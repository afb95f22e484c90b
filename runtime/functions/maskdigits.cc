// maskdigits(x): the value with every ASCII digit replaced by '.'.
#include "runtime/function.h"
#include "runtime/functions.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "maskdigits", "the value with every digit 0-9 replaced by '.'",
    "maskdigits(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext& ctx) {
  MapPresent(values, [&](std::string_view v) {
    char* out = ctx.arena.Allocate(v.empty() ? 1 : v.size());
    MaskDigits(v, out);
    return std::string_view(out, v.size());
  });
}

}  // namespace

extern const ScalarFunction kMaskdigitsFunction = {kInfo, Apply};

}  // namespace mapr::runtime
