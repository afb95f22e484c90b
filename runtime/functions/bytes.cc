// bytes(x): bytes of a size (512, 10KB, 1.5MiB; K=1000, Ki=1024; exact);
// missing and counted if unreadable.
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "runtime/unit_functions.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "bytes",
    "bytes of a size (512, 10KB, 1.5MiB; K=1000, Ki=1024; exact); missing and "
    "counted if unreadable",
    "bytes(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t* unreadable, FunctionContext& ctx) {
  ReadEach<kMaxUnitTextSize>(values, unreadable, ctx.arena, ReadByteSize);
}

}  // namespace

extern const ScalarFunction kBytesFunction = {kInfo, Apply};

}  // namespace mapr::runtime
