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
  struct SourceState {
    std::string name;
    uint64_t partials = 0;
    std::optional<Aggregator> aggregator;  // From its first partial on.
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
    sources.push_back(SourceState{std::string(name), 0, std::nullopt});
    return sources.back();
  }

  AggregatorOptions options;
  std::vector<SourceState> sources;
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
    if (theirs.query != mine.query) {
      return absl::InvalidArgumentError(
          absl::StrCat("partial of another query: '", theirs.query,
                       "' cannot merge into '", mine.query, "'"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("partial of '", theirs.query,
                     "' was made with other result-changing options "
                     "(--max-line-bytes, percentile settings) or another "
                     "mapr's catalog"));
  }
  if (theirs.run_id != mine.run_id) {
    auto name = [](const std::string& run) {
      return run.empty() ? std::string("no run id")
                         : absl::StrCat("run '", run, "'");
    };
    return absl::InvalidArgumentError(
        absl::StrCat("partial of another run: ", name(theirs.run_id),
                     " cannot merge with ", name(mine.run_id)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status PartialReducer::Add(std::string_view frame) {
  MAPR_ASSIGN_OR_RETURN(PartialInfo info, InspectPartial(frame));
  if (rep_->first.has_value()) {
    MAPR_RETURN_IF_ERROR(
        InSource(info.source, CheckSameJob(*rep_->first, info)));
  }
  Rep::SourceState* source = rep_->Find(info.source);
  if (source != nullptr && source->aggregator.has_value()) {
    MAPR_RETURN_IF_ERROR(
        InSource(info.source, source->aggregator->MergeSerialized(frame)));
  } else {
    // A source is added only with its first partial that loads.
    absl::StatusOr<Aggregator> agg =
        Aggregator::FromPartial(frame, rep_->options);
    if (!agg.ok()) return InSource(info.source, agg.status());
    source = &rep_->FindOrAdd(info.source);
    source->aggregator.emplace(*std::move(agg));
  }
  ++source->partials;
  if (!rep_->first.has_value()) rep_->first = std::move(info);
  return absl::OkStatus();
}

std::vector<PartialReducer::Source> PartialReducer::sources() const {
  std::vector<Source> out;
  out.reserve(rep_->sources.size());
  for (const Rep::SourceState& s : rep_->sources) {
    Source o;
    o.name = s.name;
    o.partials = s.partials;
    if (s.aggregator.has_value()) {
      o.splits = AggregatorInternal::Coverage(*s.aggregator);
      o.mark = AggregatorInternal::Mark(*s.aggregator);
      o.counters = s.aggregator->stats();
    }
    out.push_back(std::move(o));
  }
  return out;
}

const Query* PartialReducer::query() const {
  for (const Rep::SourceState& s : rep_->sources) {
    if (s.aggregator.has_value()) return &s.aggregator->query();
  }
  return nullptr;
}

absl::StatusOr<ResultTable> PartialReducer::Result() const {
  if (query() == nullptr) {
    return absl::FailedPreconditionError(
        "PartialReducer::Result before any partial was added");
  }
  const Aggregator* model = nullptr;
  for (const Rep::SourceState& s : rep_->sources) {
    if (s.aggregator.has_value()) {
      model = &*s.aggregator;
      break;
    }
  }
  MAPR_ASSIGN_OR_RETURN(Aggregator view, AggregatorInternal::EmptyLike(*model));
  for (const Rep::SourceState& s : rep_->sources) {
    if (!s.aggregator.has_value()) continue;
    MAPR_RETURN_IF_ERROR(
        InSource(s.name, AggregatorInternal::MergeCopy(view, *s.aggregator)));
  }
  return view.Snapshot();
}

absl::StatusOr<ResultTable> PartialReducer::TakeResult() {
  if (query() == nullptr) {
    return absl::FailedPreconditionError(
        "PartialReducer::TakeResult before any partial was added, or after "
        "the result was taken");
  }
  std::optional<Aggregator> all;
  for (Rep::SourceState& s : rep_->sources) {
    if (!s.aggregator.has_value()) continue;
    if (!all.has_value()) {
      all.emplace(*std::move(s.aggregator));
    } else {
      MAPR_RETURN_IF_ERROR(
          InSource(s.name, all->Merge(*std::move(s.aggregator))));
    }
    s.aggregator.reset();
  }
  rep_->sources.clear();
  MAPR_RETURN_IF_ERROR(all->FinishInput());
  return all->TakeResult();
}

}  // namespace mapr
