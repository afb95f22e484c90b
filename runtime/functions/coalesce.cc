// coalesce(a, b, ...): the first of its values that is not missing. It is
// written as a call but its values may be expressions, so the expression
// evaluator computes it (plan::ExprOp::Kind::kCoalesce): an entry without
// a bind hook or an apply.
#include "runtime/function.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "coalesce",
    "the first of its values that is not missing",
    "coalesce(a, b, ...)",
    0,
    0,
    nullptr,
    /*expression_only=*/true};

}  // namespace

extern const ScalarFunction kCoalesceFunction = {kInfo, nullptr};

}  // namespace mapr::runtime
