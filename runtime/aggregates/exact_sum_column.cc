#include "runtime/aggregates/exact_sum_column.h"

#include <cmath>

#include "util/bytes.h"

namespace mapr::runtime {

void ExactSumColumn::LeaveDouble(uint32_t g) {
  if (flags_[g] & (kFixed | kWide)) return;
  const double d = DoubleOf(fixed_[g]);
  util::int128 units;
  if (util::ToFixed(d, &units)) {
    fixed_[g] = units;
    flags_[g] |= kFixed;
    return;
  }
  util::WideSum wide;
  wide.Add(d);
  SetWide(g, wide);
}

util::WideSum& ExactSumColumn::SetWide(uint32_t g, const util::WideSum& wide) {
  wide_.push_back(wide);
  fixed_[g] = static_cast<util::int128>(wide_.size() - 1);
  flags_[g] = (flags_[g] & ~kFixed) | kWide;
  return wide_.back();
}

util::WideSum& ExactSumColumn::Widen(uint32_t g) {
  LeaveDouble(g);
  if (flags_[g] & kWide) return wide_[static_cast<size_t>(fixed_[g])];
  util::WideSum wide;
  wide.AddFixed(fixed_[g]);
  return SetWide(g, wide);
}

void ExactSumColumn::AddFinite(uint32_t g, double v) {
  if (AddInTier(&fixed_[g], flags_[g], v)) return;
  if (!(flags_[g] & (kFixed | kWide))) {
    // The double sum would be inexact: on to the fixed point.
    LeaveDouble(g);
    if (AddInTier(&fixed_[g], flags_[g], v)) return;
  }
  // Not representable in the fixed point, or the fixed sum would overflow.
  Widen(g).Add(v);
}

void ExactSumColumn::AddSlow(uint32_t g, double v) {
  flags_[g] = util::NoteSpecial(flags_[g] | kHas, v);
  if (std::isfinite(v)) AddFinite(g, v);
}

bool ExactSumColumn::Merge(uint32_t to, const ExactSumColumn& o,
                           uint32_t from) {
  const uint8_t of = o.flags_[from];
  if (!(of & kHas)) return true;
  if (of & kWide) {
    if (!Widen(to).MergeChecked(o.wide_[static_cast<size_t>(o.fixed_[from])])) {
      return false;
    }
  } else if ((flags_[to] & kWide) &&
             !wide_[static_cast<size_t>(fixed_[to])].FarFromLimit()) {
    // A sum near the limit (only one read from a partial gets there).
    util::WideSum add;
    if (of & kFixed) {
      add.AddFixed(o.fixed_[from]);
    } else {
      add.Add(DoubleOf(o.fixed_[from]));
    }
    if (!wide_[static_cast<size_t>(fixed_[to])].MergeChecked(add)) {
      return false;
    }
  } else if (!(of & kFixed)) {
    AddFinite(to, DoubleOf(o.fixed_[from]));
  } else {
    LeaveDouble(to);
    if ((flags_[to] & kWide) || !util::AddFixed(&fixed_[to], o.fixed_[from])) {
      Widen(to).AddFixed(o.fixed_[from]);
    }
  }
  flags_[to] |= of & (kHas | kSpecials);
  return true;
}

double ExactSumColumn::FiniteValue(uint32_t g) const {
  if (flags_[g] & kWide) return wide_[static_cast<size_t>(fixed_[g])].Round();
  if (flags_[g] & kFixed) return util::RoundFixed(fixed_[g]);
  return DoubleOf(fixed_[g]);  // Exact.
}

void ExactSumColumn::AddTo(uint32_t g, util::WideSum* w) const {
  if (flags_[g] & kWide) {
    w->Merge(wide_[static_cast<size_t>(fixed_[g])]);
  } else if (flags_[g] & kFixed) {
    w->AddFixed(fixed_[g]);
  } else {
    w->Add(DoubleOf(fixed_[g]));
  }
}

double ExactSumColumn::Value(uint32_t g) const {
  const uint8_t f = flags_[g];
  if (!(f & kHas)) return 0;
  // IEEE addition's specials; a sum of -0.0 values alone is -0.0 (DTail's
  // first value initialises its sum), any other exact zero is +0.0.
  return util::FinishSum(f & kSpecials, FiniteValue(g));
}

// Layout: u8 flags (kHas and the specials, never the tier); then u8 form: 0 =
// fixed (16 bytes, low word first), 1 = wide (util::WideSum::AppendTo). Equal
// sums are written alike: a fixed-range sum is always written fixed.
void ExactSumColumn::Serialize(uint32_t g, std::string* out) const {
  const uint8_t f = flags_[g];
  util::AppendU8(out, f & (kHas | kSpecials));
  if (!(f & kHas)) return;
  // Every tier is written through one rule, so equal sums give equal bytes:
  // fixed when the exact sum is a multiple of 2^-64 that fits an int128,
  // else wide.
  util::int128 units = 0;
  bool fixed = (f & kFixed) != 0;
  util::WideSum wide;
  if (fixed) {
    units = fixed_[g];
  } else {
    if (f & kWide) {
      wide = wide_[static_cast<size_t>(fixed_[g])];
    } else {
      wide.Add(DoubleOf(fixed_[g]));
    }
    fixed = wide.ToFixed(&units);
  }
  if (fixed) {
    util::AppendU8(out, 0);
    util::AppendU64(out, static_cast<uint64_t>(units));
    util::AppendU64(out, static_cast<uint64_t>(units >> 64));
    return;
  }
  util::AppendU8(out, 1);
  wide.AppendTo(out);
}

bool ExactSumColumn::Deserialize(std::string_view* in, uint32_t g) {
  uint8_t f, form;
  if (!util::ReadU8(in, &f) || (f & ~(kHas | kSpecials)) != 0) return false;
  if (!(f & kHas)) {
    if (f != 0) return false;
    flags_[g] = 0;
    fixed_[g] = 0;
    return true;
  }
  if (!util::ReadU8(in, &form)) return false;
  if (form == 0) {
    uint64_t lo, hi;
    if (!util::ReadU64(in, &lo) || !util::ReadU64(in, &hi)) return false;
    flags_[g] = f | kFixed;
    fixed_[g] =
        static_cast<util::int128>((static_cast<util::uint128>(hi) << 64) | lo);
    return true;
  }
  if (form != 1) return false;
  util::WideSum wide;
  if (!util::WideSum::ReadFrom(in, &wide)) return false;
  flags_[g] = f;
  SetWide(g, wide);
  return true;
}

}  // namespace mapr::runtime
