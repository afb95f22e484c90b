// The aggregate interface: one home per aggregate.
//
// Each aggregate is one file in runtime/aggregates/ holding its catalog entry
// (a plan::AggregateInfo: name, argument, result type, state), its state
// class, and its finalizer, and it is listed once in
// runtime/aggregates/registry.cc. The planner reads the catalog entries
// (through its PlannerContext), the engine calls the states, and `mapr
// --help` and the docs list the catalog.
//
// A state holds one aggregate's values for every group of an aggregator, as
// columns indexed by group id (DuckDB's aggregate states, laid out by
// column). Its methods run once per batch, per merge or per result, never
// once per row: the per-row loops inside them are templated and tight.
//
// The contract every state keeps (tested for all of them by
// runtime/aggregates/aggregate_test.cc):
//   * Update sees the batch's rows in input order; Combine(later) adds a
//     partial of input that came after this one's. The result of any split of
//     the input into adjacent partials, combined in any tree shape that keeps
//     their order, equals the result of one pass.
//   * Serialize writes a group's state as explicit little-endian fields
//     (never a memory dump); Deserialize reads it back into an empty group and
//     rejects malformed bytes. A round trip changes nothing.
//   * Deserialize rejects every state whose merges with other states it
//     accepts could give a state it rejects, but for overflow: Combine
//     refuses a count or an exact sum that would pass what it holds
//     (CombineStatus), never wraps. No input of fewer than 2^62 lines gets
//     there; partials from elsewhere can.
#ifndef MAPR_RUNTIME_AGGREGATE_H_
#define MAPR_RUNTIME_AGGREGATE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parser/aggregate_catalog.h"
#include "runtime/partial_sections.h"

namespace mapr::runtime {

// The values of one field for the rows of a batch, by row.
struct FieldRows {
  const std::string_view* values;  // data() == nullptr: missing
  const double* numbers;           // valid where numeric[row]
  const uint8_t* numeric;          // 1 if the value parsed as a number
};

// What AggregateState::Combine did: combined every group, or met an
// overflow it refuses. The state is then unusable (combined in part, or
// holding a wrapped count): the caller fails the aggregator.
enum class [[nodiscard]] CombineStatus : uint8_t{
    kOk,
    kCountOverflow,  // a group's count of values would pass 64 bits
    kSumOverflow,    // a group's exact sum would reach 2^1087 (util::WideSum)
};

// The status of a Combine that met these overflows (a sum's first).
inline CombineStatus CombineOutcome(bool count_overflow, bool sum_overflow) {
  return sum_overflow     ? CombineStatus::kSumOverflow
         : count_overflow ? CombineStatus::kCountOverflow
                          : CombineStatus::kOk;
}

// One aggregate's state for every group.
class AggregateState {
 public:
  virtual ~AggregateState() = default;

  // Makes room for `groups` groups; new groups start empty.
  virtual void Resize(size_t groups) = 0;
  // Forgets every group.
  virtual void Clear() = 0;
  // Adds rows sel[0..n) of `field`, whose groups are gids[0..n).
  virtual void Update(const FieldRows& field, const uint32_t* sel,
                      const uint32_t* gids, size_t n) = 0;
  // Adds group g of `later` (a state of the same class over later input)
  // into group to[g] of this, for g in [0, n). kOk, or the overflow that
  // stopped it (checked per group, with __builtin_add_overflow: the
  // states a reader accepts hold up to 2^64 - 1 values).
  virtual CombineStatus Combine(const AggregateState& later, const uint32_t* to,
                                size_t n) = 0;
  // Appends group g's state to `out`.
  virtual void Serialize(uint32_t g, std::string* out) const = 0;
  // Reads a state written by Serialize from the front of `*in` into the
  // empty group g, consuming its bytes. False (and `*in` unspecified) on
  // malformed input.
  virtual bool Deserialize(std::string_view* in, uint32_t g) = 0;
};

// A column's final values for some of its groups.
struct FinalColumn {
  // values[i] (and texts[i] for kText results: views into the state) for
  // group which[i] of the last finalize call.
  std::vector<double> values;
  std::vector<std::string_view> texts;
  // Texts a finalizer composed (topk's lists), when texts cannot point into
  // the state: reserved for the whole call before the first is added, so
  // that moving the vector keeps them where `texts` points.
  std::vector<std::string> owned;
  // Facts over every group that a finalizer computes on its first call with
  // this FinalColumn and reuses on later calls (the result is rendered in
  // blocks of rows): percentage's total, percentile's sorted sums.
  bool prepared = false;
  // The rank median and pN return (plan::Column::rank), set by the caller.
  plan::Rank rank;
  double total = 0;
  std::vector<double> sorted;
};

struct AggregateFunction {
  const plan::AggregateInfo& info;
  // A new, empty state (the slot's first aggregate creates it; every
  // aggregate with the same AggregateInfo::state reads the same class).
  std::unique_ptr<AggregateState> (*new_state)(const plan::StateOptions&);
  // Sets out->values (and out->texts for kText results) to the final values
  // of groups `which` of a state that holds `groups` groups.
  void (*finalize)(const AggregateState& state, size_t groups,
                   std::span<const uint32_t> which, FinalColumn* out);
  // The partial section that carries its states: the groups section for
  // the states v1.0 knew, a section of its own for each later one (the
  // codec writes the sections in kind order).
  PartialSection partial_section = PartialSection::kGroups;
  // True if a group's final value depends on the other groups (percentage's
  // total, percentile's ranks): then a result cannot be built from the
  // groups it shows alone (BatchAggregator::KeepResultGroups).
  bool reads_every_group = false;
  // The partial minor version that added this state, when it came after
  // its section's (topk: v1.6, in v1.2's distinct states section): a frame
  // holding it is written with at least this minor. 0: its section's.
  uint16_t partial_minor = 0;
};

// AggregateFunction::new_state for a state class with a default
// constructor: `{kInfo, NewStateOf<SumState>, Finalize}`.
template <typename State>
std::unique_ptr<AggregateState> NewStateOf(const plan::StateOptions&) {
  return std::make_unique<State>();
}

// AggregateFunction::finalize for a state whose final value of group g is
// `state.Value(g)` (a number): `{kInfo, NewStateOf<SumState>,
// FinalizeValues<SumState>}`.
template <typename State>
void FinalizeValues(const AggregateState& state, size_t /*groups*/,
                    std::span<const uint32_t> which, FinalColumn* out) {
  const auto& s = static_cast<const State&>(state);
  out->values.resize(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    out->values[i] = static_cast<double>(s.Value(which[i]));
  }
}

// AggregateFunction::finalize's work for a state that composes each
// group's text (topk, histogram): render(g, &text, &value) for each group g
// of `which`, the texts kept in out->owned.
template <typename Render>
void FinalizeComposed(std::span<const uint32_t> which, FinalColumn* out,
                      Render&& render) {
  out->values.resize(which.size());
  out->texts.resize(which.size());
  out->owned.clear();
  out->owned.reserve(which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    std::string text;
    render(which[i], &text, &out->values[i]);
    out->owned.push_back(std::move(text));
    out->texts[i] = out->owned.back();
  }
}

// Every aggregate, in the order `mapr --help` lists them.
std::span<const AggregateFunction* const> Aggregates();
// The aggregate called `info.name` (never null for an AggregateInfo of
// Aggregates()).
const AggregateFunction* FindAggregate(const plan::AggregateInfo& info);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_AGGREGATE_H_
