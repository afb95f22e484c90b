// The planner's view of what the runtime offers: the registered log formats
// (with the variables each provides) and every aggregate's and function's
// catalog entry.
#ifndef MAPR_RUNTIME_PLANNER_CONTEXT_H_
#define MAPR_RUNTIME_PLANNER_CONTEXT_H_

#include "parser/planner.h"

namespace mapr::runtime {

// A context that reads the log format registry (mapr/log_format.h) at lookup
// time and lists runtime::Aggregates() and runtime::ScalarFunctions().
parser::PlannerContext RegistryPlannerContext();

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_PLANNER_CONTEXT_H_
