// lower(x): the value with ASCII letters in lower case.
#include "runtime/function.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "lower", "the value with ASCII letters in lower case", "lower(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext& ctx) {
  MapBytes(values, ctx.arena, [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  });
}

}  // namespace

extern const ScalarFunction kLowerFunction = {kInfo, Apply};

}  // namespace mapr::runtime
