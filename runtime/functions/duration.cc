// duration(x): seconds of a duration (1.5s, 18ms, 250us, 1h2m; exact); missing
// and counted if unreadable.
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "runtime/unit_functions.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "duration",
    "seconds of a duration (1.5s, 18ms, 250us, 1h2m; exact); missing and "
    "counted if unreadable",
    "duration(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t* unreadable, FunctionContext& ctx) {
  ReadEach<kMaxUnitTextSize>(values, unreadable, ctx.arena, ReadDuration);
}

}  // namespace

extern const ScalarFunction kDurationFunction = {kInfo, Apply};

}  // namespace mapr::runtime
