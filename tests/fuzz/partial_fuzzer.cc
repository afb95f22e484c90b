// libFuzzer target: arbitrary bytes as a partial (mapr/partial.h). The first
// byte is a mode: bit 0 reseals the rest (its frame size and XXH3-64 trailer
// are rewritten) so that mutations reach the sections, keys and aggregate
// states behind the checksum. Checks: InspectPartial, SplitPartialFrames,
// FromPartial and MergeSerialized never crash and return only the
// documented codes; a frame that loads re-serializes to bytes that load
// again to the same bytes; merging it as an earlier split works or fails
// cleanly; its result renders; an unpartitioned state cuts into partitions
// that load again and hold all its groups.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "mapr/aggregator.h"
#include "mapr/partial.h"
#include "mapr/partial_reducer.h"
#include "mapr/result.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckCode(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kOk:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kResourceExhausted:
      return;
    default:
      std::abort();
  }
}

void Reseal(std::string* f) {
  if (f->size() < 72 + 8) return;
  const uint64_t size = f->size();
  for (int i = 0; i < 8; ++i) (*f)[24 + i] = static_cast<char>(size >> (8 * i));
  const uint64_t sum = XXH3_64bits(f->data(), f->size() - 8);
  for (int i = 0; i < 8; ++i) {
    (*f)[f->size() - 8 + i] = static_cast<char>(sum >> (8 * i));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string frame(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (mode & 1) Reseal(&frame);

  auto frames = mapr::SplitPartialFrames(frame);
  CheckCode(frames.status());
  auto info = mapr::InspectPartial(frame);
  CheckCode(info.status());
  mapr::AggregatorOptions options;
  options.hostname = "fuzz";
  options.max_groups = 1 << 16;
  auto agg = mapr::Aggregator::FromPartial(frame, options);
  CheckCode(agg.status());
  if (!agg.ok()) return 0;
  Check(info.ok());

  // An aggregator of the frame's query over the following split, pushed a
  // line, then merged with the frame as its earlier neighbour.
  mapr::AggregatorOptions next = options;
  next.splits = {info->splits.end, info->splits.end + 1};
  auto later = mapr::Aggregator::Create(agg->query(), next);
  if (later.ok() && info->splits.end < UINT64_MAX) {
    CheckCode(
        later->PushLines({"INFO|1|2|a.go:1|8|13|7|0.2|1h|"
                          "MAPREDUCE:STATS|x=1|y=2"}));
    CheckCode(later->MergeSerialized(frame));
    CheckCode(later->FinishInput());
    auto r = later->TakeResult();
    CheckCode(r.status());
    if (r.ok()) (void)r->ToCsv();
  }

  CheckCode(agg->FinishInput());
  auto bytes = agg->SerializePartial();
  Check(bytes.ok());
  auto again = mapr::Aggregator::FromPartial(*bytes, options);
  Check(again.ok());
  Check(again->FinishInput().ok());
  auto bytes2 = again->SerializePartial();
  Check(bytes2.ok() && *bytes2 == *bytes);
  // Streamed in pieces, the same bytes.
  std::string streamed;
  auto written = again->WritePartial([&](std::string_view piece) {
    streamed += piece;
    return absl::OkStatus();
  });
  Check(written.ok() && *written == info->groups && streamed == *bytes);
  // An unpartitioned state cuts into partitions that load and join again
  // (a partitioned one refuses to be cut twice).
  const uint32_t count = 1 + (mode >> 1) % 7;
  auto cut = again->SerializePartitions(count);
  std::optional<std::string> joined_csv;
  if (info->partitions > 0) {
    Check(!cut.ok() && absl::IsFailedPrecondition(cut.status()));
  } else {
    // Joined a partition at a time (cut down to the shown groups), the
    // partitions give the whole state's result.
    mapr::PartialReducer joined(options);
    for (const std::string& part : *cut) {
      Check(joined.AddLastOfPartition(part).ok());
    }
    auto table = joined.TakeResult();
    Check(table.ok());
    joined_csv = table->ToCsv();
    Check(cut.ok() && cut->size() == count);
    uint64_t groups = 0;
    for (const std::string& part : *cut) {
      auto p = mapr::InspectPartial(part);
      Check(p.ok() && p->partitions == count);
      groups += p->groups;
      auto loaded = mapr::Aggregator::FromPartial(part, options);
      Check(loaded.ok());
    }
    Check(groups == info->groups);
  }
  auto result = agg->TakeResult();
  Check(result.ok());
  Check(!joined_csv.has_value() || *joined_csv == result->ToCsv());
  return 0;
}
