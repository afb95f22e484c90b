// bytes(x): bytes of a size (512, 10KB, 1.5MiB; K=1000, Ki=1024; exact); missing and counted if unreadable.
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "runtime/unit_functions.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "bytes",
    "bytes of a size (512, 10KB, 1.5MiB; K=1000, Ki=1024; exact); missing and counted if unreadable",
    "bytes(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t* unreadable, FunctionContext& ctx) {
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view& v = values[i];
    if (v.data() == nullptr) continue;
    char buffer[kMaxUnitTextSize];
    const size_t size = ReadByteSize(v, buffer);
    if (size > 0) {
      v = ctx.arena.Copy(std::string_view(buffer, size));
    } else {
      v = std::string_view();
      unreadable[i] = 1;
    }
  }
}

}  // namespace

extern const ScalarFunction kBytesFunction = {kInfo, Apply};

}  // namespace mapr::runtime
