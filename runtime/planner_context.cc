#include "runtime/planner_context.h"

#include <memory>
#include <optional>
#include <string_view>

#include "mapr/log_format.h"
#include "runtime/aggregate.h"
#include "runtime/function.h"

namespace mapr::runtime {

parser::PlannerContext RegistryPlannerContext() {
  parser::PlannerContext ctx;
  ctx.format_names = LogFormatNames();
  ctx.lookup_format =
      [](std::string_view name) -> std::optional<parser::FormatInfo> {
    std::shared_ptr<const LogFormat> f = FindLogFormat(name);
    if (f == nullptr) return std::nullopt;
    return parser::FormatInfo{f->name(), f->variables(), f};
  };
  for (const AggregateFunction* a : Aggregates()) {
    ctx.aggregates.push_back(&a->info);
  }
  for (const ScalarFunction* f : ScalarFunctions()) {
    ctx.functions.push_back(&f->info);
  }
  return ctx;
}

}  // namespace mapr::runtime
