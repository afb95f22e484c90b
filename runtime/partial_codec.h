// The MAPRPART frame (docs/partial-format.md): an aggregator's state as
// canonical little-endian bytes, and back. mapr/partial.h and
// mapr::Aggregator wrap it; this file knows the byte layout, the engine's
// groups and states (BatchAggregator), and nothing of the public phases.
//
// Decoding validates in this order, so that every damaged frame gets a named
// error and nothing is allocated in proportion to an untrusted count before
// it is checked against the bytes that would hold it: magic, major version,
// header size and flags, frame size, checksum, group count against the body,
// section framing, then (Load) the slot layout, keys and states.
#ifndef MAPR_RUNTIME_PARTIAL_CODEC_H_
#define MAPR_RUNTIME_PARTIAL_CODEC_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/options.h"
#include "mapr/result.h"
#include "runtime/batch_aggregator.h"
#include "runtime/partial_sections.h"

namespace mapr::runtime {

inline constexpr uint16_t kPartialMajor = 1;
inline constexpr uint16_t kPartialMinor = 7;
// Header flag bit 0 (v1.2): the frame holds aggregate states in sections of
// kinds 7-9 (quantile, distinct, moments), which a reader must not skip; a
// v1.0 or v1.1 reader refuses it by this flag. Frames without such states
// are written as v1.1 with no flag, so every older reader still reads them.
inline constexpr uint64_t kPartialFlagStateSections = 1;
// Header flag bit 1 (v1.5): the frame holds one partition of the group-key
// space (section kPartition). Earlier readers refuse it by this flag: they
// would take it for the whole state.
inline constexpr uint64_t kPartialFlagPartitioned = 2;
// Most partitions a partitioned partial may be cut into.
inline constexpr uint32_t kMaxPartitions = 65536;
inline constexpr std::string_view kPartialMagic = "MAPRPART";
// The fixed header of v1.0; later minors may make it longer.
inline constexpr uint32_t kPartialHeaderBytes = 72;
inline constexpr uint32_t kPartialTrailerBytes = 8;

// A validated frame: its header facts and views of its sections (into the
// decoded bytes).
struct PartialFrame {
  uint16_t major = 0;
  uint16_t minor = 0;
  uint64_t frame_bytes = 0;
  std::array<uint64_t, 2> fingerprint{};
  SplitRange splits;
  uint64_t groups = 0;
  std::string_view query;
  std::string_view log_format;
  uint64_t max_line_bytes = 0;
  LineCounters counters;
  std::string_view slots;                       // the kSlots payload
  std::string_view field_counts;                // the kFieldCounts payload
  std::string_view group_bytes;                 // the kGroups payload
  std::optional<std::string_view> not_numeric;  // the kNotNumeric payload
  std::string_view run_id;  // the kRun payload; empty without one
  std::string_view source;  // from the kStream payload; empty without one
  StreamMark mark;          // from the kStream payload
  std::optional<Partition> partition;  // the kPartition payload
  // The kQuantileStates..kMomentsStates payloads, by kind - 7 (empty when
  // absent).
  std::array<std::optional<std::string_view>, 3> state_sections;
  // The percentile settings, which open the quantile states section.
  std::optional<plan::StateOptions> state_options;
};

// The size the frame at the front of `bytes` claims, after checking its
// magic, version and header (not its checksum). Errors as DecodePartialFrame.
absl::StatusOr<uint64_t> PartialFrameSize(std::string_view bytes);

// Validates `bytes` as exactly one frame (header, checksum, sections, query,
// counters) and returns its facts. InvalidArgument: not a partial, unknown
// flags, trailing bytes; DataLoss: truncated, checksum, malformed sections;
// FailedPrecondition: a newer major version.
absl::StatusOr<PartialFrame> DecodePartialFrame(std::string_view bytes);

// The engine side: friend of BatchAggregator.
class PartialCodec {
 public:
  // XXH3-128 (low, high) of what makes two aggregators' partials
  // combinable: the canonical query text, the log format, the slot layout
  // and max_line_bytes. Not the hostname, not the splits.
  static std::array<uint64_t, 2> Fingerprint(const BatchAggregator& agg);

  // `agg`'s state as a frame covering `splits`, with `mark` (and agg's
  // source) in the stream section. With `partition`, the frame is that
  // partition's; with `selected` too (the ids of the partition's groups,
  // PartitionGroups), it holds only those groups, and the line counters,
  // field counts and not-numeric values only in partition 0 (others write
  // zeros), so the partitions add up to the whole.
  static std::string Encode(const BatchAggregator& agg, SplitRange splits,
                            const StreamMark& mark = {},
                            std::optional<Partition> partition = std::nullopt,
                            const std::vector<uint32_t>* selected = nullptr);

  // The frame Encode() returns, given to `write` a piece (about 1 MiB) at a
  // time instead of held whole: the state sections are serialized twice,
  // once to size the frame (its header holds the size) and once to write
  // it. Returns the number of groups written, or write's first error.
  static absl::StatusOr<uint64_t> EncodeTo(
      const BatchAggregator& agg, SplitRange splits, const StreamMark& mark,
      std::optional<Partition> partition, const std::vector<uint32_t>* selected,
      absl::FunctionRef<absl::Status(std::string_view)> write);

  // Whether `agg`'s state may be written as `partition` (it was read from
  // a frame of that partition): FailedPrecondition if it holds a group of
  // another partition, or, for a partition but the first, line counters,
  // field counts or values not numeric (lines pushed into it, or another
  // partition's state merged), which its reader would refuse.
  static absl::Status CheckWritableAs(const BatchAggregator& agg,
                                      Partition partition);

  // The ids of `agg`'s groups in each of `count` partitions (one pass).
  static std::vector<std::vector<uint32_t>> PartitionGroups(
      const BatchAggregator& agg, uint32_t count);

  // The partition (of `count`) of a group key of `plan` as the engine
  // holds it: XXH3-64 with a fixed seed of the key bytes (without the
  // window part for a window query: PartitionBytes), modulo count.
  static uint32_t PartitionOfKey(const plan::Plan& plan, std::string_view key,
                                 uint32_t count);

  // Reads `frame`'s counters, field counts, groups and states into `agg`,
  // which holds no groups and zero counters (new or Reset()) and was made
  // for the frame's query (the caller checks the fingerprint). DataLoss if a
  // section does not fit the query or holds malformed bytes;
  // ResourceExhausted if the groups exceed agg's max_groups. On error `agg`
  // holds some of the groups: the caller drops it.
  static absl::Status Load(const PartialFrame& frame, BatchAggregator* agg);
  // The same, `chunk_groups` groups at a time (0: all at once): after each
  // chunk `agg` holds that chunk's groups (and, with the first, the
  // frame's counters), `take` is called with it (and may change it), and
  // `agg` is Reset() for the next. A reducer merges a frame this way without a
  // second engine of the frame's size. Errors as Load, and take's; each chunk
  // is validated whole before it is taken, but earlier chunks may have been
  // taken.
  static absl::Status LoadInChunks(
      const PartialFrame& frame, BatchAggregator* agg, uint32_t chunk_groups,
      absl::FunctionRef<absl::Status(BatchAggregator&)> take);

 private:
  // Encode's parts: the counters and more-counters sections, and the field
  // counts with the optional run and not-numeric sections.
  // `zero`: write the counters (field counts) as zeros: a partition but
  // the first of a partitioned partial.
  static void AppendCounterSections(const BatchAggregator& agg, bool zero,
                                    std::string* out);
  static void AppendFieldSections(const BatchAggregator& agg, bool not_numeric,
                                  bool zero, std::string* out);
  // The frame up to its state sections (frame size 0); *order: the ids of
  // the groups it holds (`selected`, or all), in key byte order.
  static std::string EncodeHead(const BatchAggregator& agg, SplitRange splits,
                                const StreamMark& mark,
                                std::optional<Partition> partition,
                                const std::vector<uint32_t>* selected,
                                std::vector<uint32_t>* order);
  class StateSectionWriter;
  // LoadInChunks' part: the frame's groups [first, end) from the groups
  // section at *in (keys of `parts` parts, each after *prev; the states of
  // `stored`) into ids [0, end - first) of `agg`, which holds no groups.
  static absl::Status ReadGroups(const PartialFrame& f, uint32_t parts,
                                 uint32_t first, uint32_t end,
                                 const std::vector<AggregateState*>& stored,
                                 std::string_view* in, std::string_view* prev,
                                 BatchAggregator* agg);
};

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_PARTIAL_CODEC_H_
