// lower(x): the value with ASCII letters in lower case.
#include "runtime/function.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "lower", "the value with ASCII letters in lower case", "lower(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext& ctx) {
  MapPresent(values, [&](std::string_view v) {
    char* out = ctx.arena.Allocate(v.empty() ? 1 : v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const char c = v[i];
      out[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
    }
    return std::string_view(out, v.size());
  });
}

}  // namespace

extern const ScalarFunction kLowerFunction = {kInfo, Apply};

}  // namespace mapr::runtime
