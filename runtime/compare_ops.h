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

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
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

// ASCII lower case of one byte (other bytes unchanged).
inline char AsciiLower(char c) {
  return absl::ascii_tolower(static_cast<unsigned char>(c));
}

// ieq: equal but for ASCII case.
inline bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// icontains: `b` occurs in `a`, but for ASCII case.
inline bool ContainsIgnoringCase(std::string_view a, std::string_view b) {
  if (b.empty()) return true;
  if (a.size() < b.size()) return false;
  const char first = AsciiLower(b[0]);
  for (size_t i = 0; i + b.size() <= a.size(); ++i) {
    if (AsciiLower(a[i]) == first &&
        EqualsIgnoringCase(a.substr(i + 1, b.size() - 1), b.substr(1))) {
      return true;
    }
  }
  return false;
}

// in (...): `a` is one of the sorted `values`.
inline bool InSortedValues(const std::vector<std::string>& values,
                           std::string_view a) {
  return std::binary_search(
      values.begin(), values.end(), a,
      [](std::string_view x, std::string_view y) { return x < y; });
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

// eq, ne, contains, hasprefix, hassuffix (and their negations), their
// case-blind forms (ieq, ine, icontains, nicontains), =~ and !~, and in, on
// texts: `c.op` with what it needs of `c` (the compiled pattern of =~ and
// !~, matching the left text unanchored; the values of in).
template <typename Visit>
decltype(auto) VisitTextOp(const plan::Condition& c, Visit&& visit) {
  using plan::CompareOp;
  using SV = std::string_view;
  const RE2* regex = c.regex.get();
  switch (c.op) {
    case CompareOp::kStrIEq:
      return visit([](SV a, SV b) { return EqualsIgnoringCase(a, b); });
    case CompareOp::kStrINe:
      return visit([](SV a, SV b) { return !EqualsIgnoringCase(a, b); });
    case CompareOp::kIContains:
      return visit([](SV a, SV b) { return ContainsIgnoringCase(a, b); });
    case CompareOp::kNotIContains:
      return visit([](SV a, SV b) { return !ContainsIgnoringCase(a, b); });
    case CompareOp::kIn:
      return visit([values = c.in_values.get()](SV a, SV) {
        return values != nullptr && InSortedValues(*values, a);
      });
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
