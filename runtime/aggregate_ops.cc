#include "runtime/aggregate_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mapr::runtime {
namespace {

using plan::StateKind;

// The templated loops: one per kind, no per-row dispatch.
struct CountOp {
  static void Update(SlotState& s, const FieldRows& f, const uint32_t* sel,
                     const uint32_t* gids, size_t n) {
    int64_t* count = s.count.data();
    for (size_t i = 0; i < n; ++i) {
      count[gids[i]] += f.values[sel[i]].data() != nullptr;
    }
  }
};

struct SumOp {
  static void Update(SlotState& s, const FieldRows& f, const uint32_t* sel,
                     const uint32_t* gids, size_t n) {
    double* value = s.value.data();
    uint8_t* has = s.has.data();
    for (size_t i = 0; i < n; ++i) {
      uint32_t r = sel[i];
      if (!f.numeric[r]) continue;
      value[gids[i]] += f.numbers[r];
      has[gids[i]] = 1;
    }
  }
};

// min/max as DTail computes them: the first value initialises the state and
// later values replace it only if they compare smaller (larger). A NaN
// therefore sticks when it comes first and is ignored when it comes later.
// To stay mergeable whatever the split, the state keeps the extreme of the
// non-NaN values plus whether the group's first value was NaN.
template <bool kMin>
struct ExtremeOp {
  static void Update(SlotState& s, const FieldRows& f, const uint32_t* sel,
                     const uint32_t* gids, size_t n) {
    double* value = s.value.data();
    uint8_t* has = s.has.data();
    for (size_t i = 0; i < n; ++i) {
      uint32_t r = sel[i];
      if (!f.numeric[r]) continue;
      const uint32_t g = gids[i];
      const double v = f.numbers[r];
      uint8_t h = has[g];
      if (h & SlotState::kNumber) {
        // The common case. A NaN compares false and is ignored.
        if (kMin ? v < value[g] : v > value[g]) value[g] = v;
        continue;
      }
      const bool nan = std::isnan(v);
      if (h == 0) {
        h = nan ? SlotState::kAny | SlotState::kFirstNan : SlotState::kAny;
      }
      if (!nan) {
        value[g] = v;
        h |= SlotState::kNumber;
      }
      has[g] = h;
    }
  }
};

struct AvgOp {
  static void Update(SlotState& s, const FieldRows& f, const uint32_t* sel,
                     const uint32_t* gids, size_t n) {
    double* value = s.value.data();
    int64_t* count = s.count.data();
    for (size_t i = 0; i < n; ++i) {
      uint32_t r = sel[i];
      if (!f.numeric[r]) continue;
      value[gids[i]] += f.numbers[r];
      count[gids[i]] += 1;
    }
  }
};

struct LenOp {
  static void Update(SlotState& s, const FieldRows& f, const uint32_t* sel,
                     const uint32_t* gids, size_t n) {
    double* value = s.value.data();
    uint8_t* has = s.has.data();
    for (size_t i = 0; i < n; ++i) {
      std::string_view v = f.values[sel[i]];
      if (v.data() == nullptr) continue;
      value[gids[i]] = static_cast<double>(v.size());
      has[gids[i]] = 1;
    }
  }
};

// last(): only the last row of each group in the batch matters, so find it
// first and copy each group's string once per batch.
void UpdateLast(SlotState& s, const FieldRows& f, const uint32_t* sel,
                const uint32_t* gids, size_t n,
                std::vector<int32_t>& last_row) {
  if (last_row.size() < s.has.size()) last_row.resize(s.has.size(), -1);
  for (size_t i = 0; i < n; ++i) {
    if (f.values[sel[i]].data() != nullptr) {
      last_row[gids[i]] = static_cast<int32_t>(i);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    uint32_t g = gids[i];
    int32_t row = last_row[g];
    if (row < 0) continue;
    last_row[g] = -1;
    std::string_view v = f.values[sel[row]];
    s.text[g].assign(v.data(), v.size());
    s.has[g] = 1;
  }
}

}  // namespace

void SlotState::Resize(size_t groups) {
  switch (kind) {
    case StateKind::kCount:
      count.resize(groups, 0);
      break;
    case StateKind::kAvg:
      count.resize(groups, 0);
      // Sums start at -0.0, the identity of +, so a sum of -0 values stays
      // -0 as in DTail, where the first value initialises the sum.
      value.resize(groups, -0.0);
      break;
    case StateKind::kLast:
      text.resize(groups);
      has.resize(groups, 0);
      break;
    case StateKind::kSum:
      value.resize(groups, -0.0);
      has.resize(groups, 0);
      break;
    case StateKind::kMin:
    case StateKind::kMax:
    case StateKind::kLen:
      value.resize(groups, 0);
      has.resize(groups, 0);
      break;
  }
}

double SlotState::Extreme(uint32_t g) const {
  if (has[g] == 0) return 0;
  if (has[g] & kFirstNan) return std::numeric_limits<double>::quiet_NaN();
  return value[g];
}

void SlotState::Clear() {
  count.clear();
  value.clear();
  has.clear();
  text.clear();
}

void SlotState::MergeGroup(uint32_t to, const SlotState& o, uint32_t from) {
  switch (kind) {
    case StateKind::kCount:
      count[to] += o.count[from];
      break;
    case StateKind::kAvg:
      count[to] += o.count[from];
      value[to] += o.value[from];
      break;
    case StateKind::kSum:
      if (o.has[from]) {
        value[to] += o.value[from];
        has[to] = 1;
      }
      break;
    case StateKind::kMin:
    case StateKind::kMax:
      if (o.has[from] == 0) break;
      // The earlier partial's first value stays the group's first value.
      if (has[to] == 0) has[to] = o.has[from] & (kAny | kFirstNan);
      if (o.has[from] & kNumber) {
        double v = o.value[from];
        bool better = kind == StateKind::kMin ? v < value[to] : v > value[to];
        if (!(has[to] & kNumber) || better) value[to] = v;
        has[to] |= kNumber;
      }
      break;
    case StateKind::kLen:
      if (o.has[from]) {
        value[to] = o.value[from];
        has[to] = 1;
      }
      break;
    case StateKind::kLast:
      if (o.has[from]) {
        text[to] = o.text[from];
        has[to] = 1;
      }
      break;
  }
}

void UpdateSlot(SlotState& state, const FieldRows& field, const uint32_t* sel,
                const uint32_t* gids, size_t n,
                std::vector<int32_t>& last_row) {
  switch (state.kind) {
    case StateKind::kCount:
      return CountOp::Update(state, field, sel, gids, n);
    case StateKind::kSum:
      return SumOp::Update(state, field, sel, gids, n);
    case StateKind::kMin:
      return ExtremeOp<true>::Update(state, field, sel, gids, n);
    case StateKind::kMax:
      return ExtremeOp<false>::Update(state, field, sel, gids, n);
    case StateKind::kAvg:
      return AvgOp::Update(state, field, sel, gids, n);
    case StateKind::kLen:
      return LenOp::Update(state, field, sel, gids, n);
    case StateKind::kLast:
      return UpdateLast(state, field, sel, gids, n, last_row);
  }
}

}  // namespace mapr::runtime
