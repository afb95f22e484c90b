// len(x): the length of the value in bytes.
#include <charconv>

#include "runtime/function.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {"len", "the length of the value in bytes",
                                      "len(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext& ctx) {
  MapPresent(values, [&](std::string_view v) {
    char buffer[24];
    const char* end =
        std::to_chars(buffer, buffer + sizeof(buffer), v.size()).ptr;
    return ctx.arena.Copy(
        std::string_view(buffer, static_cast<size_t>(end - buffer)));
  });
}

}  // namespace

extern const ScalarFunction kLenFunction = {kInfo, Apply};

}  // namespace mapr::runtime
