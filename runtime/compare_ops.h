// What each comparison operator does, written once for `where`
// (runtime/filter.cc, over batch columns) and `having`
// (runtime/result_builder.cc, over a group's final values).
//
// VisitNumberOp / VisitTextOp call `visit` with a function object for the
// operator (`bool(double, double)` or `bool(string_view, string_view)`),
// so a caller can run it in a loop of its own with no switch per row, or
// once. An operator of the other family gets `Never` (always false).
// Missing values are the caller's business: they compare false everywhere.
#ifndef MAPR_RUNTIME_COMPARE_OPS_H_
#define MAPR_RUNTIME_COMPARE_OPS_H_

#include <string_view>

#include "parser/plan.h"
#include "re2/re2.h"
#include "util/scan.h"

namespace mapr::runtime {

inline bool HasPrefix(std::string_view a, std::string_view b) {
  return a.size() >= b.size() && util::BytesEqual(a.data(), b.data(), b.size());
}

inline bool HasSuffix(std::string_view a, std::string_view b) {
  return a.size() >= b.size() &&
         util::BytesEqual(a.data() + a.size() - b.size(), b.data(), b.size());
}

// The function object of an operator that never holds.
struct Never {
  template <typename A, typename B>
  bool operator()(const A&, const B&) const {
    return false;
  }
};

// ==, !=, <, <=, >, >= on numbers.
template <typename Visit>
decltype(auto) VisitNumberOp(plan::CompareOp op, Visit&& visit) {
  using plan::CompareOp;
  switch (op) {
    case CompareOp::kFloatEq:
      return visit([](double a, double b) { return a == b; });
    case CompareOp::kFloatNe:
      return visit([](double a, double b) { return a != b; });
    case CompareOp::kFloatLt:
      return visit([](double a, double b) { return a < b; });
    case CompareOp::kFloatLe:
      return visit([](double a, double b) { return a <= b; });
    case CompareOp::kFloatGt:
      return visit([](double a, double b) { return a > b; });
    case CompareOp::kFloatGe:
      return visit([](double a, double b) { return a >= b; });
    default:
      return visit(Never());
  }
}

// eq, ne, contains, hasprefix, hassuffix (and their negations), =~ and !~
// on texts. `regex` is the condition's compiled pattern (=~ and !~ only; it
// matches the left text, unanchored).
template <typename Visit>
decltype(auto) VisitTextOp(plan::CompareOp op, const RE2* regex,
                           Visit&& visit) {
  using plan::CompareOp;
  using SV = std::string_view;
  switch (op) {
    case CompareOp::kStrEq:
      return visit([](SV a, SV b) { return a == b; });
    case CompareOp::kStrNe:
      return visit([](SV a, SV b) { return a != b; });
    case CompareOp::kContains:
      return visit([](SV a, SV b) { return util::Contains(a, b); });
    case CompareOp::kNotContains:
      return visit([](SV a, SV b) { return !util::Contains(a, b); });
    case CompareOp::kHasPrefix:
      return visit([](SV a, SV b) { return HasPrefix(a, b); });
    case CompareOp::kNotHasPrefix:
      return visit([](SV a, SV b) { return !HasPrefix(a, b); });
    case CompareOp::kHasSuffix:
      return visit([](SV a, SV b) { return HasSuffix(a, b); });
    case CompareOp::kNotHasSuffix:
      return visit([](SV a, SV b) { return !HasSuffix(a, b); });
    case CompareOp::kRegexMatch:
      return visit([regex](SV a, SV) {
        return RE2::PartialMatch(re2::StringPiece(a.data(), a.size()), *regex);
      });
    case CompareOp::kRegexNotMatch:
      return visit([regex](SV a, SV) {
        return !RE2::PartialMatch(re2::StringPiece(a.data(), a.size()), *regex);
      });
    default:
      return visit(Never());
  }
}

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_COMPARE_OPS_H_
