// dcount(x): the number of distinct values of x, compared byte for byte.
//
// A group keeps the exact set of its values' 64-bit XXH3 hashes while it
// holds at most kExactLimit of them, then a HyperLogLog sketch (p = 14,
// 16 KiB of one-byte registers, Ertl's improved estimator;
// util/sketch_math.h). Both are pure functions of the set of values: a
// merge is a union of sets or a register-wise max, and a set becomes a
// sketch exactly when it passes the limit, whichever way it got there. So
// the count is exact up to 4096 distinct values (barring a 64-bit hash
// collision) and within about 0.8 % (one standard error) past it.
//
// Memory per group: the set's table (at most 8192 slots, 64 KiB, at a load
// of at most 1/2) or the sketch's 16 KiB.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/aggregate.h"
#include "util/bytes.h"
#include "util/sketch_math.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mapr::runtime {
namespace {

constexpr plan::AggregateInfo kInfo = {
    "dcount", "distinct", plan::ArgumentKind::kAnyValue, ValueType::kInteger,
    "the number of distinct values (exact up to 4096, then HyperLogLog, "
    "about 0.8 % error)"};

constexpr uint32_t kExactLimit = 4096;

// One group's distinct hashes.
struct DistinctGroup {
  // The exact set: an open-addressing table of the nonzero hashes (0 marks
  // an empty slot; the hash 0 itself is `has_zero`).
  std::vector<uint64_t> table;
  uint32_t size = 0;  // Hashes in the set, has_zero included.
  bool has_zero = false;
  // The sketch, once the set passed kExactLimit.
  std::unique_ptr<uint8_t[]> registers;
};

class DistinctState : public AggregateState {
 public:
  void Resize(size_t groups) override { groups_.resize(groups); }
  void Clear() override { groups_.clear(); }
  void Update(const FieldRows& f, const uint32_t* sel, const uint32_t* gids,
              size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const std::string_view v = f.values[sel[i]];
      if (v.data() == nullptr) continue;
      Add(groups_[gids[i]], XXH3_64bits(v.data(), v.size()));
    }
  }
  CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                        size_t n) override {
    const auto& o = static_cast<const DistinctState&>(later);
    for (uint32_t from = 0; from < n; ++from) {
      const DistinctGroup& src = o.groups_[from];
      DistinctGroup& dst = groups_[to[from]];
      if (src.registers != nullptr) {
        if (dst.registers == nullptr) ToSketch(dst);
        for (size_t k = 0; k < util::kHllRegisters; ++k) {
          dst.registers[k] = std::max(dst.registers[k], src.registers[k]);
        }
        continue;
      }
      if (src.has_zero) Add(dst, 0);
      for (uint64_t h : src.table) {
        if (h != 0) Add(dst, h);
      }
    }
    return CombineStatus::kOk;
  }
  // Layout: u8 form; form 0, the set: u32 n, then the n hashes in
  // increasing order (u64 each); form 1, the sketch: kHllRegisters bytes.
  void Serialize(uint32_t g, std::string* out) const override {
    const DistinctGroup& d = groups_[g];
    if (d.registers != nullptr) {
      util::AppendU8(out, 1);
      out->append(reinterpret_cast<const char*>(d.registers.get()),
                  util::kHllRegisters);
      return;
    }
    util::AppendU8(out, 0);
    std::vector<uint64_t> sorted = Hashes(d);
    util::AppendU32(out, static_cast<uint32_t>(sorted.size()));
    for (uint64_t h : sorted) util::AppendU64(out, h);
  }
  bool Deserialize(std::string_view* in, uint32_t g) override {
    DistinctGroup& d = groups_[g];
    uint8_t form;
    if (!util::ReadU8(in, &form)) return false;
    if (form == 1) {
      if (in->size() < util::kHllRegisters) return false;
      d.registers = std::make_unique<uint8_t[]>(util::kHllRegisters);
      for (size_t k = 0; k < util::kHllRegisters; ++k) {
        const uint8_t r = static_cast<uint8_t>((*in)[k]);
        if (r > 64 - util::kHllPrecision + 1) return false;
        d.registers[k] = r;
      }
      in->remove_prefix(util::kHllRegisters);
      return true;
    }
    uint32_t n;
    if (form != 0 || !util::ReadU32(in, &n) || n > kExactLimit ||
        in->size() / 8 < n) {
      return false;
    }
    uint64_t previous = 0;
    for (uint32_t i = 0; i < n; ++i) {
      uint64_t h = 0;
      util::ReadU64(in, &h);
      if (i > 0 && h <= previous) return false;
      previous = h;
      Add(d, h);
    }
    return true;
  }

  uint64_t Value(uint32_t g) const {
    const DistinctGroup& d = groups_[g];
    if (d.registers == nullptr) return d.size;
    return static_cast<uint64_t>(
        std::llround(util::HllEstimate(d.registers.get())));
  }

 private:
  static void Add(DistinctGroup& d, uint64_t h) {
    if (d.registers != nullptr) {
      AddToSketch(d.registers.get(), h);
      return;
    }
    if (h == 0) {
      if (d.has_zero) return;
      d.has_zero = true;
      ++d.size;
    } else {
      if (d.table.empty()) d.table.resize(4, 0);
      size_t mask = d.table.size() - 1;
      size_t k = static_cast<size_t>(h) & mask;
      while (d.table[k] != 0) {
        if (d.table[k] == h) return;
        k = (k + 1) & mask;
      }
      d.table[k] = h;
      ++d.size;
      if (d.size * 2 > d.table.size() && d.size <= kExactLimit) Grow(d);
    }
    if (d.size > kExactLimit) ToSketch(d);
  }
  static void AddToSketch(uint8_t* registers, uint64_t h) {
    size_t index;
    uint8_t value;
    util::HllSlot(h, &index, &value);
    if (value > registers[index]) registers[index] = value;
  }
  static void Grow(DistinctGroup& d) {
    std::vector<uint64_t> old = std::move(d.table);
    d.table.assign(old.size() * 2, 0);
    const size_t mask = d.table.size() - 1;
    for (uint64_t h : old) {
      if (h == 0) continue;
      size_t k = static_cast<size_t>(h) & mask;
      while (d.table[k] != 0) k = (k + 1) & mask;
      d.table[k] = h;
    }
  }
  static void ToSketch(DistinctGroup& d) {
    d.registers = std::make_unique<uint8_t[]>(util::kHllRegisters);
    std::memset(d.registers.get(), 0, util::kHllRegisters);
    if (d.has_zero) AddToSketch(d.registers.get(), 0);
    for (uint64_t h : d.table) {
      if (h != 0) AddToSketch(d.registers.get(), h);
    }
    d.table = std::vector<uint64_t>();
    d.size = 0;
    d.has_zero = false;
  }
  static std::vector<uint64_t> Hashes(const DistinctGroup& d) {
    std::vector<uint64_t> out;
    out.reserve(d.size);
    if (d.has_zero) out.push_back(0);
    for (uint64_t h : d.table) {
      if (h != 0) out.push_back(h);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<DistinctGroup> groups_;
};

}  // namespace

extern const AggregateFunction kDcountAggregate = {
    kInfo, NewStateOf<DistinctState>, FinalizeValues<DistinctState>,
    PartialSection::kDistinctStates};

}  // namespace mapr::runtime
