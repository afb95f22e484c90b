#include "runtime/result_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "util/format_number.h"
#include "util/number.h"

namespace mapr::runtime {
namespace {

// The group ids in key-tuple order (DTail sorts groups by key before the
// `order by` sort, whose stability then breaks ties by key).
std::vector<uint32_t> KeyOrder(const GroupTable& groups, size_t nkeys) {
  const size_t ngroups = groups.size();
  // Keys are compared part by part as they are decoded, so no decoded copy
  // of every key is kept.
  std::vector<uint32_t> order(ngroups);
  std::iota(order.begin(), order.end(), 0);
  if (nkeys <= 1) {
    // Sorted on the first 16 bytes packed big-endian (so integer order is
    // byte order), falling back to the whole key only on a tie: most
    // comparisons touch neither the keys nor memcmp.
    struct Prefixed {
      uint64_t hi, lo;
      uint32_t id;
    };
    std::vector<Prefixed> prefixed(ngroups);
    for (uint32_t g = 0; g < ngroups; ++g) {
      const std::string_view k = groups.key(g);
      unsigned char b[16] = {};
      std::memcpy(b, k.data(), std::min<size_t>(k.size(), 16));
      uint64_t hi = 0, lo = 0;
      for (int i = 0; i < 8; ++i) hi = (hi << 8) | b[i];
      for (int i = 8; i < 16; ++i) lo = (lo << 8) | b[i];
      prefixed[g] = Prefixed{hi, lo, g};
    }
    std::sort(prefixed.begin(), prefixed.end(),
              [&](const Prefixed& a, const Prefixed& b) {
                if (a.hi != b.hi) return a.hi < b.hi;
                if (a.lo != b.lo) return a.lo < b.lo;
                return groups.key(a.id) < groups.key(b.id);
              });
    for (uint32_t i = 0; i < ngroups; ++i) order[i] = prefixed[i].id;
  } else {
    // The next (4-byte little-endian length, bytes) part of `key` at `*pos`.
    auto next_part = [](std::string_view key, size_t* pos,
                        std::string_view* part) {
      if (*pos + 4 > key.size()) return false;
      const unsigned char* b =
          reinterpret_cast<const unsigned char*>(key.data() + *pos);
      const uint32_t n =
          b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t{b[3]} << 24);
      *pos += 4;
      *part = key.substr(*pos, n);
      *pos += part->size();
      return true;
    };
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const std::string_view ka = groups.key(a), kb = groups.key(b);
      size_t pa = 0, pb = 0;
      for (size_t i = 0; i < nkeys; ++i) {
        std::string_view x, y;
        const bool hx = next_part(ka, &pa, &x);
        const bool hy = next_part(kb, &pb, &y);
        if (!hx || !hy) return !hx && hy;
        if (x != y) return x < y;
      }
      return false;
    });
  }

  return order;
}

// Column `c`'s final values for groups `which`, from its aggregate or, for
// last() or first() of a group-by field, from the group keys.
void FinalizeColumn(const plan::Plan& p, const plan::Column& c,
                    const GroupStates& states, std::span<const uint32_t> which,
                    FinalColumn* out) {
  const int32_t part = states.key_part[c.slot];
  out->rank = c.rank;
  if (part < 0) {
    FindAggregate(*c.aggregate)
        ->finalize(*states.slots[c.slot], states.groups.size(), which, out);
    return;
  }
  out->values.resize(which.size());
  out->texts.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    const std::string_view text =
        KeyPart(states.groups.key(which[i]), p.group_by.size(),
                static_cast<size_t>(part));
    out->texts[i] = text;
    if (!util::ParseNumber(text, &out->values[i])) out->values[i] = 0;
  }
}

void AppendCellText(ValueType type, const FinalColumn& f, size_t i,
                    std::string* cell) {
  switch (type) {
    case ValueType::kInteger:
      util::AppendGoInt(f.values[i], cell);
      return;
    case ValueType::kNumber:
      util::AppendGoFloat(f.values[i], cell);
      return;
    case ValueType::kText:
      cell->append(f.texts[i].data(), f.texts[i].size());
      return;
  }
}

// Sorts `order` stably by column `c`'s values, descending or not; NaN last.
void SortByColumn(const plan::Plan& p, const plan::Column& c,
                  const GroupStates& states, bool descending,
                  std::vector<uint32_t>* order) {
  FinalColumn f;
  FinalizeColumn(p, c, states, *order, &f);
  // By group id, so the comparison needs no position lookup.
  std::vector<double> value(order->size());
  for (size_t i = 0; i < order->size(); ++i) value[(*order)[i]] = f.values[i];
  f = FinalColumn();
  std::stable_sort(order->begin(), order->end(), [&](uint32_t a, uint32_t b) {
    const double x = value[a], y = value[b];
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return descending ? x > y : x < y;
  });
}

}  // namespace

ResultTable BuildResult(const plan::Plan& p, const GroupStates& states,
                        const LineCounters& counters) {
  const size_t ngroups = states.groups.size();
  std::vector<uint32_t> order = KeyOrder(states.groups, p.group_by.size());
  if (p.order_column) {
    SortByColumn(p, p.columns[*p.order_column], states, p.order_descending,
                 &order);
  }
  if (p.limit >= 0 && order.size() > static_cast<size_t>(p.limit)) {
    order.resize(static_cast<size_t>(p.limit));
  }

  std::vector<ResultColumn> columns;
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const plan::Column& c = p.columns[i];
    ResultColumn rc;
    rc.name = c.name;
    rc.aggregate = std::string(c.aggregate->name);
    rc.type = c.aggregate->result;
    rc.field = p.fields[c.field].name;
    rc.is_group_key = c.is_group_key;
    rc.is_order_key = p.order_column && *p.order_column == i;
    columns.push_back(std::move(rc));
  }
  ResultTable table(std::move(columns), counters, ngroups);
  if (p.columns.empty()) return table;
  // Room for the rows, guessing 12 bytes of text per cell; grows if not.
  table.Reserve(order.size(), order.size() * p.columns.size() * 12);
  // Rendered in blocks of rows, so that the final values held at once stay
  // small whatever the number of groups.
  constexpr size_t kBlock = 1024;
  std::vector<FinalColumn> finals(p.columns.size());
  std::string cell;
  for (size_t lo = 0; lo < order.size(); lo += kBlock) {
    const std::span<const uint32_t> block(order.data() + lo,
                                          std::min(kBlock, order.size() - lo));
    for (size_t c = 0; c < p.columns.size(); ++c) {
      FinalizeColumn(p, p.columns[c], states, block, &finals[c]);
    }
    for (size_t r = 0; r < block.size(); ++r) {
      for (size_t c = 0; c < p.columns.size(); ++c) {
        cell.clear();
        AppendCellText(p.columns[c].aggregate->result, finals[c], r, &cell);
        table.AppendCell(cell, finals[c].values[r]);
      }
    }
  }
  return table;
}

}  // namespace mapr::runtime
