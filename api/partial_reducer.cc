#include "mapr/partial_reducer.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/aggregator_internal.h"
#include "mapr/aggregator.h"
#include "util/status_macros.h"
#include "util/strings.h"

namespace mapr {

struct PartialReducer::Rep {
  // The state of one partition of a source (the whole source when its
  // partials are not partitioned).
  struct State {
    std::optional<Partition> partition;
    uint64_t partials = 0;
    // Empty once its partition has ended (EndPartition); `counters`,
    // `coverage` and `mark` are then what it held.
    std::optional<Aggregator> aggregator;
    LineCounters counters;
    SplitRange coverage{0, 0};
    StreamMark mark;

    LineCounters Counters() const {
      return aggregator ? aggregator->stats() : counters;
    }
    SplitRange Coverage() const {
      return aggregator ? AggregatorInternal::Coverage(*aggregator) : coverage;
    }
    StreamMark Mark() const {
      return aggregator ? AggregatorInternal::Mark(*aggregator) : mark;
    }
  };
  struct SourceState {
    std::string name;
    std::vector<State> states;  // In the order met.
  };

  explicit Rep(const AggregatorOptions& o) : options(o) {}

  // The source called `name`, or null.
  SourceState* Find(std::string_view name) {
    for (SourceState& s : sources) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
  // The source called `name`, added last if it is new.
  SourceState& FindOrAdd(std::string_view name) {
    if (SourceState* s = Find(name)) return *s;
    sources.push_back(SourceState{std::string(name), {}});
    return sources.back();
  }

  // The first live state's aggregator, else `joined`'s; null before any
  // partial.
  const Aggregator* Model() const {
    for (const SourceState& s : sources) {
      for (const State& st : s.states) {
        if (st.aggregator) return &*st.aggregator;
      }
    }
    return joined ? &*joined : nullptr;
  }

  // FailedPrecondition if partition `index` has ended (EndPartition).
  absl::Status CheckNotEnded(uint32_t index) const {
    if (index < ended.size() && ended[index]) {
      return absl::FailedPreconditionError(
          absl::StrCat("partial of partition ", index,
                       ", which has ended (PartialReducer::EndPartition)"));
    }
    return absl::OkStatus();
  }

  // Adds an ended partition's state, cut down to its shown groups, to
  // `joined`, and cuts that down again.
  absl::Status Join(Aggregator&& part) {
    MAPR_RETURN_IF_ERROR(AggregatorInternal::KeepResultGroups(part).status());
    if (!joined.has_value()) {
      joined.emplace(std::move(part));
      return absl::OkStatus();
    }
    MAPR_RETURN_IF_ERROR(joined->Merge(std::move(part)));
    return AggregatorInternal::KeepResultGroups(*joined).status();
  }

  AggregatorOptions options;
  std::vector<SourceState> sources;
  // The ended partitions (EndPartition), merged and cut down to the groups
  // the result shows.
  std::optional<Aggregator> joined;
  std::vector<bool> ended;
  // The first partial's facts, which every later one must share.
  std::optional<PartialInfo> first;
};

PartialReducer::PartialReducer(const AggregatorOptions& options)
    : rep_(std::make_unique<Rep>(options)) {}
PartialReducer::~PartialReducer() = default;
PartialReducer::PartialReducer(PartialReducer&&) noexcept = default;
PartialReducer& PartialReducer::operator=(PartialReducer&&) noexcept = default;

void PartialReducer::DeclareSource(std::string_view source) {
  rep_->FindOrAdd(source);
}

namespace {

// `s` with "source 'NAME': " before its message (nothing for no source).
absl::Status InSource(std::string_view source, const absl::Status& s) {
  if (s.ok() || source.empty()) return s;
  return absl::Status(s.code(), absl::StrCat("source '", util::ToAbsl(source),
                                             "': ", s.message()));
}

// Why a partial described by `theirs` cannot join the partials of `mine`.
absl::Status CheckSameJob(const PartialInfo& mine, const PartialInfo& theirs) {
  if (theirs.fingerprint != mine.fingerprint) {
    return QueryMismatch(theirs.query, mine.query,
                         "(--max-line-bytes, percentile settings) or another "
                         "mapr's catalog");
  }
  if (theirs.partitions != mine.partitions) {
    auto name = [](uint32_t n) {
      return n == 0 ? std::string("unpartitioned partials")
                    : absl::StrCat("partials cut into ", n, " partitions");
    };
    return absl::InvalidArgumentError(absl::StrCat(
        name(theirs.partitions), " cannot join ", name(mine.partitions)));
  }
  return CheckSameRun(mine.run_id, theirs.run_id);
}

}  // namespace

absl::Status PartialReducer::Add(std::string_view frame) {
  MAPR_ASSIGN_OR_RETURN(PartialInfo info, InspectPartial(frame));
  if (rep_->first.has_value()) {
    MAPR_RETURN_IF_ERROR(
        InSource(info.source, CheckSameJob(*rep_->first, info)));
  }
  std::optional<Partition> partition;
  if (info.partitions > 0)
    partition = Partition{info.partitions, info.partition};
  if (partition) {
    MAPR_RETURN_IF_ERROR(
        InSource(info.source, rep_->CheckNotEnded(partition->index)));
  }
  Rep::State* state = nullptr;
  if (Rep::SourceState* source = rep_->Find(info.source)) {
    for (Rep::State& st : source->states) {
      if (st.partition == partition) state = &st;
    }
  }
  if (state != nullptr) {
    MAPR_RETURN_IF_ERROR(
        InSource(info.source, state->aggregator->MergeSerialized(frame)));
  } else {
    // A source (and a partition) is added only with its first partial that
    // loads.
    absl::StatusOr<Aggregator> agg =
        Aggregator::FromPartial(frame, rep_->options);
    if (!agg.ok()) return InSource(info.source, agg.status());
    Rep::SourceState& source = rep_->FindOrAdd(info.source);
    Rep::State added;
    added.partition = partition;
    added.aggregator.emplace(*std::move(agg));
    source.states.push_back(std::move(added));
    state = &source.states.back();
  }
  ++state->partials;
  if (!rep_->first.has_value()) rep_->first = std::move(info);
  return absl::OkStatus();
}

absl::Status PartialReducer::EndPartition(uint32_t index) {
  if (!rep_->first.has_value()) {
    return absl::FailedPreconditionError(
        "PartialReducer::EndPartition before any partial was added");
  }
  const uint32_t count = rep_->first->partitions;
  if (count == 0) {
    return absl::FailedPreconditionError(
        "PartialReducer::EndPartition: the partials are not partitioned");
  }
  if (index >= count) {
    return absl::InvalidArgumentError(
        absl::StrCat("PartialReducer::EndPartition(", index,
                     "): the partials are cut into ", count, " partitions"));
  }
  rep_->ended.resize(count, false);
  if (rep_->ended[index]) {
    return absl::FailedPreconditionError(
        absl::StrCat("partition ", index, " has ended already"));
  }
  // The partition's states of every source, in source order.
  std::optional<Aggregator> merged;
  for (Rep::SourceState& s : rep_->sources) {
    for (Rep::State& st : s.states) {
      if (!st.partition || st.partition->index != index || !st.aggregator) {
        continue;
      }
      st.counters = st.Counters();
      st.coverage = st.Coverage();
      st.mark = st.Mark();
      if (!merged.has_value()) {
        merged.emplace(*std::move(st.aggregator));
      } else {
        MAPR_RETURN_IF_ERROR(
            InSource(s.name, merged->Merge(*std::move(st.aggregator))));
      }
      st.aggregator.reset();
    }
  }
  rep_->ended[index] = true;
  if (!merged.has_value()) return absl::OkStatus();
  // Each partition, then the join, keeps only the groups the result shows.
  return rep_->Join(*std::move(merged));
}

absl::Status PartialReducer::AddLastOfPartition(std::string_view frame) {
  MAPR_ASSIGN_OR_RETURN(PartialInfo info, InspectPartial(frame));
  bool held = info.partitions == 0;
  for (const Rep::SourceState& s : rep_->sources) {
    for (const Rep::State& st : s.states) {
      if (st.partition && st.partition->index == info.partition) held = true;
    }
  }
  if (held) {
    // The partition has partials already (or the partials are not
    // partitioned): the usual way.
    MAPR_RETURN_IF_ERROR(Add(frame));
    if (info.partitions == 0) return absl::OkStatus();
    return EndPartition(info.partition);
  }
  if (rep_->first.has_value()) {
    MAPR_RETURN_IF_ERROR(
        InSource(info.source, CheckSameJob(*rep_->first, info)));
  }
  MAPR_RETURN_IF_ERROR(
      InSource(info.source, rep_->CheckNotEnded(info.partition)));
  rep_->ended.resize(info.partitions, false);
  absl::StatusOr<Aggregator> part =
      AggregatorInternal::FromPartialKeepingShown(frame, rep_->options);
  if (!part.ok()) return InSource(info.source, part.status());
  Rep::State added;
  added.partition = Partition{info.partitions, info.partition};
  added.partials = 1;
  added.counters = info.counters;
  added.coverage = info.splits;
  added.mark = info.mark;
  rep_->FindOrAdd(info.source).states.push_back(std::move(added));
  rep_->ended[info.partition] = true;
  if (!rep_->first.has_value()) rep_->first = std::move(info);
  return rep_->Join(*std::move(part));
}

std::vector<PartialReducer::Source> PartialReducer::sources() const {
  std::vector<Source> out;
  out.reserve(rep_->sources.size());
  for (const Rep::SourceState& s : rep_->sources) {
    Source o;
    o.name = s.name;
    for (const Rep::State& st : s.states) {
      o.partials += st.partials;
      o.counters += st.Counters();
      const SplitRange splits = st.Coverage();
      if (st.partition.has_value()) {
        o.partition_count = st.partition->count;
        o.partition_splits.resize(st.partition->count, SplitRange{0, 0});
        o.partition_splits[st.partition->index] = splits;
      }
      // The whole source's, or partition 0's (else the first partition's).
      if (&st == &s.states.front() || !st.partition.has_value() ||
          st.partition->index == 0) {
        o.splits = splits;
        o.mark = st.Mark();
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

const Query* PartialReducer::query() const {
  const Aggregator* model = rep_->Model();
  return model != nullptr ? &model->query() : nullptr;
}

absl::StatusOr<ResultTable> PartialReducer::Result() const {
  if (query() == nullptr) {
    return absl::FailedPreconditionError(
        "PartialReducer::Result before any partial was added");
  }
  MAPR_ASSIGN_OR_RETURN(Aggregator view,
                        AggregatorInternal::EmptyLike(*rep_->Model()));
  // Partitions hold disjoint groups: their order within a source does not
  // matter; sources add up in source order.
  for (const Rep::SourceState& s : rep_->sources) {
    for (const Rep::State& st : s.states) {
      if (!st.aggregator) continue;
      MAPR_RETURN_IF_ERROR(InSource(
          s.name, AggregatorInternal::MergeCopy(view, *st.aggregator)));
    }
  }
  if (rep_->joined) {
    MAPR_RETURN_IF_ERROR(AggregatorInternal::MergeCopy(view, *rep_->joined));
  }
  return view.Snapshot();
}

absl::StatusOr<ResultTable> PartialReducer::TakeResult() {
  if (query() == nullptr) {
    return absl::FailedPreconditionError(
        "PartialReducer::TakeResult before any partial was added, or after "
        "the result was taken");
  }
  std::optional<Aggregator> all = std::move(rep_->joined);
  rep_->joined.reset();
  for (Rep::SourceState& s : rep_->sources) {
    for (Rep::State& st : s.states) {
      if (!st.aggregator) continue;
      if (!all.has_value()) {
        all.emplace(*std::move(st.aggregator));
      } else {
        MAPR_RETURN_IF_ERROR(
            InSource(s.name, all->Merge(*std::move(st.aggregator))));
      }
    }
  }
  rep_->sources.clear();
  MAPR_RETURN_IF_ERROR(all->FinishInput());
  return all->TakeResult();
}

}  // namespace mapr
