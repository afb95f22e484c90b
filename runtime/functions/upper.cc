// upper(x): the value with ASCII letters in upper case.
#include "runtime/function.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "upper", "the value with ASCII letters in upper case", "upper(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext& ctx) {
  MapBytes(values, ctx.arena, [](char c) {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c;
  });
}

}  // namespace

extern const ScalarFunction kUpperFunction = {kInfo, Apply};

}  // namespace mapr::runtime
