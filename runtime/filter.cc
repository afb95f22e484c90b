#include "runtime/filter.h"

#include <algorithm>
#include <string_view>

#include "runtime/compare_ops.h"
#include "util/scan.h"

namespace mapr::runtime {
namespace {

using plan::Condition;
using plan::Operand;

// out[i] = rows[i]'s values compare true under `Op`: a missing or
// non-numeric value (ok == 0) compares false. A null column stands for the
// constant `k`. One loop per operator, so the loop has no switch and no
// branch on the data.
template <typename Op>
void CompareNumberColumns(const uint32_t* rows, size_t n, const double* ln,
                          const uint8_t* lok, double lk, const double* rn,
                          const uint8_t* rok, double rk, uint8_t* out, Op op) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = rows[i];
    const bool ok = (lok == nullptr || lok[r]) && (rok == nullptr || rok[r]);
    const double a = ln != nullptr ? ln[r] : lk;
    const double b = rn != nullptr ? rn[r] : rk;
    out[i] = static_cast<uint8_t>(ok & op(a, b));
  }
}

template <typename Op>
void CompareStringColumns(const uint32_t* rows, size_t n,
                          const std::string_view* lcol, std::string_view lk,
                          const std::string_view* rcol, std::string_view rk,
                          uint8_t* out, Op op) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = rows[i];
    const std::string_view a = lcol != nullptr ? lcol[r] : lk;
    const std::string_view b = rcol != nullptr ? rcol[r] : rk;
    out[i] = a.data() != nullptr && b.data() != nullptr && op(a, b);
  }
}

// Compares numbers (==, <, ...) for rows[0..n) into out.
void CompareNumbers(const Condition& c, BatchColumns& batch,
                    const uint32_t* rows, size_t n, uint8_t* out) {
  const double* ln = nullptr;
  const uint8_t* lok = nullptr;
  const double* rn = nullptr;
  const uint8_t* rok = nullptr;
  if (c.lhs.kind == Operand::Kind::kField) {
    batch.EnsureNumeric(c.lhs.field);
    ln = batch.numbers_of(c.lhs.field);
    lok = batch.numeric_of(c.lhs.field);
  }
  if (c.rhs.kind == Operand::Kind::kField) {
    batch.EnsureNumeric(c.rhs.field);
    rn = batch.numbers_of(c.rhs.field);
    rok = batch.numeric_of(c.rhs.field);
  }
  auto run = [&](auto op) {
    CompareNumberColumns(rows, n, ln, lok, c.lhs.number, rn, rok, c.rhs.number,
                         out, op);
  };
  VisitNumberOp(c.op, run);
}

// Compares text (eq, contains, ...) for rows[0..n) into out.
void CompareStrings(const Condition& c, BatchColumns& batch,
                    const uint32_t* rows, size_t n, uint8_t* out) {
  const std::string_view* lcol =
      c.lhs.kind == Operand::Kind::kField ? batch.column(c.lhs.field) : nullptr;
  const std::string_view* rcol =
      c.rhs.kind == Operand::Kind::kField ? batch.column(c.rhs.field) : nullptr;
  auto run = [&](auto op) {
    CompareStringColumns(rows, n, lcol, c.lhs.text, rcol, c.rhs.text, out, op);
  };
  VisitTextOp(c, run);
}

}  // namespace

void RowFilter::Evaluate(const Condition& c, BatchColumns& batch,
                         const uint32_t* rows, size_t n, uint8_t* out,
                         size_t depth) {
  switch (c.kind) {
    case Condition::Kind::kCompare: {
      if (plan::IsFloatOp(c.op)) {
        return CompareNumbers(c, batch, rows, n, out);
      }
      return CompareStrings(c, batch, rows, n, out);
    }
    case Condition::Kind::kNot:
      Evaluate(c.children[0], batch, rows, n, out, depth + 1);
      for (size_t i = 0; i < n; ++i) out[i] = !out[i];
      return;
    case Condition::Kind::kAnd:
    case Condition::Kind::kOr: {
      if (masks_.size() <= depth) masks_.resize(depth + 1);
      masks_[depth].resize(kMaxBatchRows);
      // The mask's buffer stays put, but a nested and/or may grow masks_
      // and move the vector that owns it: keep the pointer, not a reference
      // to the element.
      uint8_t* tmp = masks_[depth].data();
      bool is_and = c.kind == Condition::Kind::kAnd;
      Evaluate(c.children[0], batch, rows, n, out, depth + 1);
      for (size_t k = 1; k < c.children.size(); ++k) {
        Evaluate(c.children[k], batch, rows, n, tmp, depth + 1);
        if (is_and) {
          for (size_t i = 0; i < n; ++i) out[i] &= tmp[i];
        } else {
          for (size_t i = 0; i < n; ++i) out[i] |= tmp[i];
        }
      }
      return;
    }
  }
}

void RowFilter::Filter(const Condition& c, BatchColumns& batch) {
  // The conjuncts of an `and` narrow the selection one after another, so
  // each later one is evaluated only on the rows still selected (the
  // conditions have no side effects, so the result is the same).
  if (c.kind == Condition::Kind::kAnd) {
    for (const Condition& child : c.children) {
      Filter(child, batch);
      if (batch.sel_size == 0) return;
    }
    return;
  }
  if (result_.size() < kMaxBatchRows) result_.resize(kMaxBatchRows);
  Evaluate(c, batch, batch.sel.data(), batch.sel_size, result_.data(), 0);
  size_t kept = 0;
  for (size_t i = 0; i < batch.sel_size; ++i) {
    batch.sel[kept] = batch.sel[i];
    kept += result_[i];
  }
  batch.sel_size = kept;
}

}  // namespace mapr::runtime
