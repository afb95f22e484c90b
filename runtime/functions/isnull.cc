// isnull(x): 1 where the value is missing (a field the line does not have,
// a function that found nothing), else 0. The one function whose result
// is never missing.
#include "runtime/function.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "isnull",
    "1 where the value is missing, else 0 (never missing itself)",
    "isnull(x)",
    0,
    0,
    nullptr,
    /*expression_only=*/false,
    /*first_literal_may_lead=*/false,
    /*defined_on_missing=*/true};

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext&) {
  for (std::string_view& v : values) {
    v = v.data() == nullptr ? std::string_view("1") : std::string_view("0");
  }
}

}  // namespace

extern const ScalarFunction kIsnullFunction = {kInfo, Apply};

}  // namespace mapr::runtime
