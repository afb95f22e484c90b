// md5sum(x): the lowercase hex MD5 digest of the value (32 characters).
#include "runtime/function.h"
#include "runtime/functions.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "md5sum", "the lowercase hex MD5 digest of the value (32 characters)",
    "md5sum(x)"};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext& ctx) {
  MapPresent(values, [&](std::string_view v) {
    char* out = ctx.arena.Allocate(kMd5HexSize);
    Md5Hex(v, out);
    return std::string_view(out, kMd5HexSize);
  });
}

}  // namespace

extern const ScalarFunction kMd5sumFunction = {kInfo, Apply};

}  // namespace mapr::runtime
