// Private status helpers (Debian's Abseil 20220623 has no status macros).
// Not installed.
#ifndef MAPR_UTIL_STATUS_MACROS_H_
#define MAPR_UTIL_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define MAPR_INTERNAL_CONCAT_IMPL(a, b) a##b
#define MAPR_INTERNAL_CONCAT(a, b) MAPR_INTERNAL_CONCAT_IMPL(a, b)

// Returns the status of `expr` from the current function if it is not OK.
#define MAPR_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status mapr_status_ = (expr);        \
    if (!mapr_status_.ok()) return mapr_status_; \
  } while (false)

// MAPR_ASSIGN_OR_RETURN(lhs, expr): evaluates `expr` (a StatusOr<T>); on error
// returns its status, otherwise moves the value into `lhs`.
// `lhs` is a declaration or an lvalue, `statusor` a name: neither can be
// parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define MAPR_ASSIGN_OR_RETURN(lhs, expr) \
  MAPR_INTERNAL_ASSIGN_OR_RETURN(        \
      MAPR_INTERNAL_CONCAT(mapr_statusor_, __LINE__), lhs, expr)
#define MAPR_INTERNAL_ASSIGN_OR_RETURN(statusor, lhs, expr) \
  auto statusor = (expr);                                   \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // MAPR_UTIL_STATUS_MACROS_H_
