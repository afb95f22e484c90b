#include "runtime/result_builder.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "runtime/compare_ops.h"
#include "runtime/time_functions.h"
#include "util/exact_sum.h"
#include "util/format_number.h"
#include "util/number.h"
#include "util/run_on_threads.h"
#include "util/scan.h"

namespace mapr::runtime {
namespace {

// How many threads to build a result with: BuildResult's `threads`, and
// the fewest groups worth a thread.
struct Threads {
  size_t max;
  size_t min_groups;

  // For `n` groups.
  size_t For(size_t n) const { return util::ThreadsFor(n, max, min_groups); }
};

// std::sort on `threads` threads: each sorts a slice, then the slices are
// merged. `less` must be a strict total order on the elements (the keys of
// groups are distinct), so the result is the one std::sort gives.
template <typename T, typename Less>
void SortOnThreads(std::vector<T>& v, const Less& less, Threads threads) {
  const size_t n = threads.For(v.size());
  if (n <= 1) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  auto at = [&](size_t i) {
    return v.begin() + static_cast<ptrdiff_t>(v.size() * i / n);
  };
  util::RunOnThreads(n, [&](size_t i) { std::sort(at(i), at(i + 1), less); });
  for (size_t i = 1; i < n; ++i) {
    std::inplace_merge(v.begin(), at(i), at(i + 1), less);
  }
}

// The group ids in key-tuple order (DTail sorts groups by key before the
// `order by` sort, whose stability then breaks ties by key).
std::vector<uint32_t> KeyOrder(const GroupTable& groups, size_t nkeys,
                               Threads threads) {
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
    SortOnThreads(
        prefixed,
        [&](const Prefixed& a, const Prefixed& b) {
          if (a.hi != b.hi) return a.hi < b.hi;
          if (a.lo != b.lo) return a.lo < b.lo;
          return groups.key(a.id) < groups.key(b.id);
        },
        threads);
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
    SortOnThreads(
        order,
        [&](uint32_t a, uint32_t b) {
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
        },
        threads);
  }

  return order;
}

// Column `c`'s final values for groups `which`, from its aggregate or, for
// last() or first() of a group-by field, from the group keys.
void FinalizeColumn(const plan::Plan& p, const plan::Column& c,
                    const GroupStates& states, std::span<const uint32_t> which,
                    FinalColumn* out) {
  out->rank = c.rank;
  int32_t part = -1;
  if (c.slot == plan::kKeyPartSlot) {
    // A hidden group field: its key part.
    part = static_cast<int32_t>(
        std::find(p.group_by.begin(), p.group_by.end(), c.field) -
        p.group_by.begin());
  } else {
    part = states.key_part[c.slot];
  }
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

// One value column (a select item or a hidden value) for the groups of a
// `which` list, by position in it.
struct Values {
  ValueType type = ValueType::kNumber;
  // The value as a number: for a text, its number if it is one, else the
  // aggregate's own number for it (0, as DTail orders it).
  std::vector<double> number;
  std::vector<uint8_t> numeric;        // 1 if the value is a number.
  std::vector<std::string_view> text;  // kText only; data() null: missing.
  std::vector<std::string> owned;      // What `text` may point into.
};

Values FinalValues(const plan::Plan& p, const plan::Column& c,
                   const GroupStates& states, std::span<const uint32_t> which) {
  FinalColumn f;
  FinalizeColumn(p, c, states, which, &f);
  Values v;
  v.type = c.aggregate->result;
  v.number = std::move(f.values);
  v.numeric.assign(which.size(), 1);
  if (v.type == ValueType::kText) {
    v.text = std::move(f.texts);
    v.owned = std::move(f.owned);
    for (size_t i = 0; i < which.size(); ++i) {
      double x;
      v.numeric[i] = util::ParseNumber(v.text[i], &x);
      if (v.numeric[i]) v.number[i] = x;
    }
  }
  return v;
}

// The values a condition or the order keys read, by value index, computed
// once over `which`.
class ValueCache {
 public:
  ValueCache(const plan::Plan& p, const GroupStates& states,
             std::span<const uint32_t> which)
      : p_(p),
        states_(states),
        which_(which),
        values_(p.columns.size() + p.hidden_columns.size()) {}

  const Values& Get(uint32_t value) {
    if (!values_[value]) {
      values_[value] =
          FinalValues(p_, plan::ValueColumn(p_, value), states_, which_);
    }
    return *values_[value];
  }

 private:
  const plan::Plan& p_;
  const GroupStates& states_;
  std::span<const uint32_t> which_;
  std::vector<std::optional<Values>> values_;
};

// The values of a rendered result's columns (value v is column v), for a
// condition over its rows: a column's numbers are its cells' values; a
// text cell is a number if it reads as one.
class TableValueCache {
 public:
  explicit TableValueCache(const ResultTable& t)
      : t_(t), values_(t.num_columns()) {}

  const Values& Get(uint32_t value) {
    if (!values_[value]) {
      Values v;
      v.type = t_.columns()[value].type;
      const size_t n = t_.num_rows();
      v.number.resize(n);
      v.numeric.assign(n, 1);
      if (v.type == ValueType::kText) v.text.resize(n);
      for (size_t r = 0; r < n; ++r) {
        v.number[r] = t_.value(r, value);
        if (v.type != ValueType::kText) continue;
        v.text[r] = t_.cell(r, value);
        double x;
        v.numeric[r] = util::ParseNumber(v.text[r], &x);
        if (v.numeric[r]) v.number[r] = x;
      }
      values_[value] = std::move(v);
    }
    return *values_[value];
  }

 private:
  const ResultTable& t_;
  std::vector<std::optional<Values>> values_;
};

// Whether `having` condition `c` holds for the group at position i. As in
// `where`, a missing value or a text that is not a number under a numeric
// operator compares false; a number compares as text in its rendered form
// (count 14, avg 14.000000). `Cache`: ValueCache or TableValueCache.
template <typename Cache>
bool Holds(const plan::Condition& c, Cache& cache, size_t i,
           std::string* scratch_l, std::string* scratch_r) {
  using plan::CompareOp;
  using plan::Condition;
  using plan::Operand;
  switch (c.kind) {
    case Condition::Kind::kAnd:
      for (const Condition& child : c.children) {
        if (!Holds(child, cache, i, scratch_l, scratch_r)) return false;
      }
      return true;
    case Condition::Kind::kOr:
      for (const Condition& child : c.children) {
        if (Holds(child, cache, i, scratch_l, scratch_r)) return true;
      }
      return false;
    case Condition::Kind::kNot:
      return !Holds(c.children[0], cache, i, scratch_l, scratch_r);
    case Condition::Kind::kCompare:
      break;
  }
  if (plan::IsFloatOp(c.op)) {
    auto number = [&](const Operand& o, double* x) {
      if (o.kind != Operand::Kind::kValue) {
        *x = o.number;
        return true;
      }
      const Values& v = cache.Get(o.value);
      *x = v.number[i];
      return v.numeric[i] != 0;
    };
    double a, b;
    if (!number(c.lhs, &a) || !number(c.rhs, &b)) return false;
    return VisitNumberOp(c.op, [&](auto op) { return op(a, b); });
  }
  auto text = [&](const Operand& o, std::string* scratch) -> std::string_view {
    if (o.kind != Operand::Kind::kValue) return o.text;
    const Values& v = cache.Get(o.value);
    if (v.type == ValueType::kText) return v.text[i];
    scratch->clear();
    if (v.type == ValueType::kInteger) {
      util::AppendGoInt(v.number[i], scratch);
    } else {
      util::AppendGoFloat(v.number[i], scratch);
    }
    return *scratch;
  };
  const std::string_view a = text(c.lhs, scratch_l);
  const std::string_view b = text(c.rhs, scratch_r);
  if (a.data() == nullptr || b.data() == nullptr) return false;
  return VisitTextOp(c, [&](auto op) { return op(a, b); });
}

// Keeps the groups of `order` for which `having` holds, in their order.
void ApplyHaving(const plan::Plan& p, const GroupStates& states,
                 std::vector<uint32_t>* order) {
  std::vector<uint32_t> kept;
  {
    ValueCache cache(p, states, *order);
    std::string scratch_l, scratch_r;
    for (size_t i = 0; i < order->size(); ++i) {
      if (Holds(*p.having, cache, i, &scratch_l, &scratch_r)) {
        kept.push_back((*order)[i]);
      }
    }
  }
  *order = std::move(kept);
}

using plan::LastCall;

// True if `field` holds time buckets (bucket(x, 5m)). Their texts keep each
// input's layout, which does not sort by time as text (Apr 1 < Mar 31,
// offsets, CLF months), so they are ordered by the instant.
bool IsTimeBucket(const plan::Plan& p, plan::FieldId field) {
  const plan::FunctionStep* f = LastCall(p, field);
  return f != nullptr && f->binding && f->binding->IsTimeBucket();
}

// Missing (or unreadable) time buckets first, then by instant.
int CompareInstants(const ColumnTime& a, const ColumnTime& b) {
  if (a.ok != b.ok) return a.ok ? 1 : -1;
  if (!a.ok) return 0;
  if (a.seconds != b.seconds) return a.seconds < b.seconds ? -1 : 1;
  return a.nanos == b.nanos ? 0 : (a.nanos < b.nanos ? -1 : 1);
}

// Without `order by`, groups whose first key is a time bucket come in time
// order (ties, such as one instant in two layouts, in key order).
void SortByTimeKey(const plan::Plan& p, const GroupStates& states,
                   std::vector<uint32_t>* order) {
  const std::vector<ColumnTime> instants =
      ReadTimeColumn(order->size(), [&](size_t i) {
        return KeyPart(states.groups.key((*order)[i]), p.group_by.size(), 0);
      });
  std::vector<uint32_t> pos(order->size());
  std::iota(pos.begin(), pos.end(), 0);
  std::stable_sort(pos.begin(), pos.end(), [&](uint32_t a, uint32_t b) {
    return CompareInstants(instants[a], instants[b]) < 0;
  });
  std::vector<uint32_t> sorted(order->size());
  for (size_t i = 0; i < pos.size(); ++i) sorted[i] = (*order)[pos[i]];
  *order = std::move(sorted);
}

// Sorts `order` (in key-tuple order) stably by the `order by` keys, so ties
// keep the key order. NaN sorts last whatever the direction.
//
// One key naming a select item, the form DTail accepts, sorts as DTail
// does: by number, a text that is not a number counting as 0. Otherwise
// (several keys, or a group field) each key compares two numbers as numbers,
// two texts as text (byte order), and puts numbers before texts (ascending;
// after them descending).
void SortByKeys(const plan::Plan& p, const GroupStates& states,
                std::vector<uint32_t>* order) {
  const bool dtail =
      p.order_by.size() == 1 && p.order_by[0].value < p.columns.size();
  ValueCache cache(p, states, *order);
  std::vector<const Values*> keys;
  // Per key: the instants of a time bucket's values (else empty).
  std::vector<std::vector<ColumnTime>> instants(p.order_by.size());
  for (size_t k = 0; k < p.order_by.size(); ++k) {
    const uint32_t value = p.order_by[k].value;
    keys.push_back(&cache.Get(value));
    const Values& v = *keys.back();
    if (v.type != ValueType::kText ||
        !IsTimeBucket(p, plan::ValueColumn(p, value).field)) {
      continue;
    }
    instants[k] =
        ReadTimeColumn(order->size(), [&](size_t i) { return v.text[i]; });
  }
  // Positions in `order`; sorted, then mapped back to group ids.
  std::vector<uint32_t> pos(order->size());
  std::iota(pos.begin(), pos.end(), 0);
  std::stable_sort(pos.begin(), pos.end(), [&](uint32_t a, uint32_t b) {
    for (size_t k = 0; k < keys.size(); ++k) {
      if (!instants[k].empty()) {
        const int cmp = CompareInstants(instants[k][a], instants[k][b]);
        if (cmp != 0) return p.order_by[k].descending ? cmp > 0 : cmp < 0;
        continue;
      }
      const Values& v = *keys[k];
      const bool na = dtail || v.numeric[a];
      const bool nb = dtail || v.numeric[b];
      int cmp = 0;
      if (na && nb) {
        const double x = v.number[a], y = v.number[b];
        if (std::isnan(x) || std::isnan(y)) {
          if (std::isnan(x) != std::isnan(y)) return std::isnan(y);
          continue;
        }
        cmp = x < y ? -1 : (x > y ? 1 : 0);
      } else if (na != nb) {
        cmp = na ? -1 : 1;
      } else {
        cmp = v.text[a].compare(v.text[b]);
      }
      if (cmp != 0) return p.order_by[k].descending ? cmp > 0 : cmp < 0;
    }
    return false;
  });
  std::vector<uint32_t> sorted(order->size());
  for (size_t i = 0; i < pos.size(); ++i) sorted[i] = (*order)[pos[i]];
  *order = std::move(sorted);
}

// Per column, empty or (for a running total, cumsum) its value on each
// shown row.
using RunningTotals = std::vector<std::vector<double>>;

// The running totals of the columns that show one: over `rows` (the shown
// rows, in order), the exact sum of the column's values so far, rounded
// once per row (an infinite or NaN value joins in as a double).
RunningTotals RunningTotalsOf(const plan::Plan& p, const GroupStates& states,
                              std::span<const uint32_t> rows) {
  RunningTotals out(p.columns.size());
  for (size_t c = 0; c < p.columns.size(); ++c) {
    if (p.columns[c].running_total == nullptr) continue;
    const Values v = FinalValues(p, p.columns[c], states, rows);
    util::WideSum sum;
    double special = 0;
    bool any_special = false;
    out[c].resize(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (std::isfinite(v.number[i])) {
        sum.Add(v.number[i]);
      } else {
        any_special = true;
        special += v.number[i];
      }
      out[c][i] = any_special ? special + sum.Round() : sum.Round();
    }
  }
  return out;
}

// Renders the cells of groups `rows` into `table`, in blocks of rows so
// that the final values held at once stay small whatever the number of
// groups. `finals` (one per column) carries what a finalizer prepared over
// every group from one call to the next.
void RenderRows(const plan::Plan& p, const GroupStates& states,
                std::span<const uint32_t> rows, const RunningTotals& running,
                size_t first_row, std::vector<FinalColumn>& finals,
                ResultTable& table) {
  constexpr size_t kBlock = 1024;
  std::string cell;
  for (size_t lo = 0; lo < rows.size(); lo += kBlock) {
    const std::span<const uint32_t> block =
        rows.subspan(lo, std::min(kBlock, rows.size() - lo));
    for (size_t c = 0; c < p.columns.size(); ++c) {
      if (running[c].empty()) {
        FinalizeColumn(p, p.columns[c], states, block, &finals[c]);
        continue;
      }
      // A running total (numbers only) was computed for every shown row.
      const auto from =
          running[c].begin() + static_cast<ptrdiff_t>(first_row + lo);
      finals[c].values.assign(from,
                              from + static_cast<ptrdiff_t>(block.size()));
    }
    for (size_t r = 0; r < block.size(); ++r) {
      for (size_t c = 0; c < p.columns.size(); ++c) {
        cell.clear();
        AppendCellText(p.columns[c].aggregate->result, finals[c], r, &cell);
        table.AppendCell(cell, finals[c].values[r]);
      }
    }
  }
}

}  // namespace

std::vector<ResultColumn> ResultColumns(const plan::Plan& p) {
  std::vector<ResultColumn> columns;
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const plan::Column& c = p.columns[i];
    ResultColumn rc;
    rc.name = c.name;
    rc.aggregate = std::string(
        c.running_total != nullptr ? c.running_total->name : c.aggregate->name);
    rc.type = c.aggregate->result;
    rc.field = p.fields[c.field].name;
    rc.is_group_key = c.is_group_key;
    rc.is_order_key = std::any_of(
        p.order_by.begin(), p.order_by.end(),
        [&](const plan::Plan::OrderKey& k) { return k.value == i; });
    const plan::FunctionStep* call = LastCall(p, c.field);
    rc.is_bucket = c.is_group_key && call != nullptr && call->binding &&
                   call->binding->IsBucket();
    rc.is_time_bucket = rc.is_bucket && IsTimeBucket(p, c.field);
    columns.push_back(std::move(rc));
  }
  return columns;
}

ResultRows ResultOrder(const plan::Plan& p, const GroupStates& states,
                       size_t max_threads, size_t min_groups_per_thread) {
  const Threads threads{max_threads, min_groups_per_thread};
  ResultRows out;
  std::vector<uint32_t>& order = out.rows;
  order = KeyOrder(states.groups, p.group_by.size(), threads);
  if (p.having) ApplyHaving(p, states, &order);
  out.kept = order.size();
  if (!p.order_by.empty()) {
    SortByKeys(p, states, &order);
  } else if (!p.group_by.empty() && IsTimeBucket(p, p.group_by[0])) {
    SortByTimeKey(p, states, &order);
  }
  if (p.limit >= 0 && order.size() > static_cast<size_t>(p.limit)) {
    order.resize(static_cast<size_t>(p.limit));
  }
  return out;
}

std::vector<bool> RowsHolding(const plan::Condition& condition,
                              const ResultTable& table) {
  TableValueCache cache(table);
  std::string scratch_l, scratch_r;
  std::vector<bool> out(table.num_rows());
  for (size_t r = 0; r < out.size(); ++r) {
    out[r] = Holds(condition, cache, r, &scratch_l, &scratch_r);
  }
  return out;
}

bool ResultNeedsOnlyShownGroups(const plan::Plan& p) {
  // A window query's groups are hops, which the windows shown all need.
  if (p.limit < 0 || p.window) return false;
  for (const auto* columns : {&p.columns, &p.hidden_columns}) {
    for (const plan::Column& c : *columns) {
      if (FindAggregate(*c.aggregate)->reads_every_group) return false;
    }
  }
  return true;
}

ResultTable BuildResult(const plan::Plan& p, const GroupStates& states,
                        const LineCounters& counters, size_t max_threads,
                        size_t min_groups_per_thread) {
  const Threads threads{max_threads, min_groups_per_thread};
  const ResultRows ordered =
      ResultOrder(p, states, max_threads, min_groups_per_thread);
  const std::vector<uint32_t>& order = ordered.rows;

  const std::vector<ResultColumn> columns = ResultColumns(p);
  ResultTable table(columns, counters, ordered.kept + states.dropped);
  if (p.columns.empty()) return table;
  std::vector<FinalColumn> finals(p.columns.size());
  const std::span<const uint32_t> rows(order);
  const RunningTotals running = RunningTotalsOf(p, states, rows);
  const size_t n = threads.For(rows.size());
  // Room for the rows, guessing 12 bytes of text per cell (about what a
  // million groups' keys and counts take); grows if not. Reserve()
  // prefaults it, so an overestimate is resident memory.
  table.Reserve(rows.size(), rows.size() * p.columns.size() * 12);
  if (n <= 1) {
    RenderRows(p, states, rows, running, 0, finals, table);
    return table;
  }
  // The first rows here, so that each finalizer prepares its facts over
  // every group once. Then rounds: each thread renders the next
  // kRowsPerRound rows, from its own copy of the prepared columns, into a
  // table of its own, and the round's tables are appended in order. Rounds
  // keep the rendered text held twice small (a whole slice per thread held
  // until the end made Q4's peak RSS 40 % higher).
  constexpr size_t kRowsPerRound = size_t{1} << 14;
  const size_t first = std::min<size_t>(1024, rows.size());
  RenderRows(p, states, rows.first(first), running, 0, finals, table);
  std::vector<std::vector<FinalColumn>> own(n, finals);
  for (size_t at = first; at < rows.size(); at += n * kRowsPerRound) {
    std::vector<ResultTable> parts;
    parts.reserve(n);
    for (size_t i = 0; i < n; ++i) parts.emplace_back(columns, counters, 0);
    util::RunOnThreads(n, [&](size_t i) {
      const size_t lo = std::min(rows.size(), at + i * kRowsPerRound);
      const size_t hi = std::min(rows.size(), lo + kRowsPerRound);
      RenderRows(p, states, rows.subspan(lo, hi - lo), running, lo, own[i],
                 parts[i]);
    });
    table.AppendCells(std::move(parts));
  }
  return table;
}

}  // namespace mapr::runtime
