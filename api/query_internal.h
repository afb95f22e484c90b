// api/query_internal.h: the engine's access to a Query's compiled plan.
// Not installed (cmake/mapr_install.cmake skips mapr/*_internal.h): the plan
// is mapr's internal representation, for the mapr/ facades, the `mapr`
// command and tests.
#ifndef MAPR_MAPR_QUERY_INTERNAL_H_
#define MAPR_MAPR_QUERY_INTERNAL_H_

#include <memory>

#include "mapr/query.h"
#include "parser/plan.h"

namespace mapr {

class QueryInternal {
 public:
  // The compiled plan; valid as long as `query` or a copy of it lives.
  static const plan::Plan& GetPlan(const Query& query) { return *query.plan_; }
  // The plan, shared: it stays valid as long as the returned pointer lives.
  static const std::shared_ptr<const plan::Plan>& SharedPlan(
      const Query& query) {
    return query.plan_;
  }
};

}  // namespace mapr

#endif  // MAPR_MAPR_QUERY_INTERNAL_H_
