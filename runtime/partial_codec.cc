#include "runtime/partial_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/aggregate.h"
#include "runtime/group_table.h"
#include "runtime/partial_bytes.h"
#include "runtime/window.h"
#include "util/bytes.h"
#include "util/status_macros.h"
#include "util/strings.h"

namespace mapr::runtime {

using partial_bytes::AppendU16;
using partial_bytes::BeginSection;
using partial_bytes::Checksum;
using partial_bytes::EndSection;
using partial_bytes::InMoreCounters;
using partial_bytes::kFrameSizeAt;
using partial_bytes::kMinGroupBytes;
using partial_bytes::Malformed;
using partial_bytes::OmittedWhenZero;
using partial_bytes::SectionName;
using partial_bytes::StoreU64;
using util::AppendBytes;
using util::AppendU32;
using util::AppendU64;
using util::AppendU8;
using util::ReadBytes;
using util::ReadU32;
using util::ReadU64;

// ---- The engine side

namespace {

// The ids of `selected` (all groups when null) in key byte order.
std::vector<uint32_t> KeyOrder(const GroupTable& groups,
                               const std::vector<uint32_t>* selected) {
  std::vector<uint32_t> order;
  if (selected != nullptr) {
    order = *selected;
  } else {
    order.resize(groups.size());
    std::iota(order.begin(), order.end(), 0u);
  }
  std::sort(order.begin(), order.end(), [&groups](uint32_t a, uint32_t b) {
    return groups.key(a) < groups.key(b);
  });
  return order;
}

// The stream section (v1.4): the source, the final flag and the positions.
void AppendStreamSection(std::string_view source, const StreamMark& mark,
                         std::string* out) {
  const size_t at = BeginSection(out, PartialSection::kStream);
  AppendBytes(out, source);
  AppendU8(out, mark.final ? 1 : 0);
  AppendU32(out, static_cast<uint32_t>(mark.positions.size()));
  for (const InputPosition& position : mark.positions) {
    AppendBytes(out, position.input);
    AppendU64(out, position.offset);
  }
  EndSection(out, at);
}

void AppendSlots(const BatchAggregator& agg, std::string* out,
                 const plan::Plan& p, const std::vector<int32_t>& key_part) {
  (void)agg;
  AppendU32(out, static_cast<uint32_t>(p.slots.size()));
  for (size_t i = 0; i < p.slots.size(); ++i) {
    AppendBytes(out, p.slots[i].aggregate->state);
    AppendBytes(out, p.fields[p.slots[i].field].name);
    AppendU8(out, key_part[i] < 0 ? 1 : 0);
  }
}

// The section that holds the states of slots keeping `state`: the groups
// section for the states v1.0 knew, a section of its own for each later one.
PartialSection StateSection(const plan::AggregateInfo& info) {
  const AggregateFunction* a = FindAggregate(info);
  return a != nullptr ? a->partial_section : PartialSection::kGroups;
}
// Every section that holds states, in kind order (the groups section
// first), from the aggregates' catalog entries.
std::vector<PartialSection> StateSections() {
  std::vector<PartialSection> out = {PartialSection::kGroups};
  for (const AggregateFunction* a : Aggregates()) {
    if (std::find(out.begin(), out.end(), a->partial_section) == out.end()) {
      out.push_back(a->partial_section);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// True if `key` is a well-formed key of `parts` parts (group_table.h).
bool WellFormedKey(std::string_view key, uint32_t parts) {
  if (parts == 1) return true;
  for (uint32_t i = 0; i < parts; ++i) {
    std::string_view part;
    if (!ReadBytes(&key, &part)) return false;
  }
  return key.empty();
}

// Reads the presence bits and present states of `slots` of the frame's
// group `g` from *in (the groups section, or a later state section named
// `section`) into group `id` of the states.
absl::Status ReadGroupStates(std::string_view* in,
                             const std::vector<AggregateState*>& slots,
                             uint32_t id, uint32_t g,
                             std::optional<PartialSection> section) {
  const size_t bits_bytes = (slots.size() + 7) / 8;
  if (in->size() < bits_bytes) return Malformed("presence bits");
  const std::string_view bits = in->substr(0, bits_bytes);
  in->remove_prefix(bits_bytes);
  for (size_t k = 0; k < bits_bytes * 8; ++k) {
    const bool present = (static_cast<uint8_t>(bits[k / 8]) >> (k % 8)) & 1;
    if (!present) continue;
    if (k >= slots.size()) return Malformed("unused presence bits set");
    if (!slots[k]->Deserialize(in, id)) {
      return Malformed(
          section ? absl::StrCat("state ", k, " of the ", SectionName(*section),
                                 " section in group ", g)
                  : absl::StrCat("state of slot ", k, " in group ", g));
    }
  }
  return absl::OkStatus();
}

// The field counts section (lines with a value per extracted field, named
// `names`) and the optional values-not-numeric section of frame `f`
// (examples of at most `max_example_bytes`).
absl::Status ReadFieldSections(const PartialFrame& f,
                               const std::vector<std::string>& names,
                               std::vector<uint64_t>* field_lines,
                               std::vector<uint64_t>* not_numeric,
                               size_t max_example_bytes,
                               std::vector<std::string_view>* examples) {
  std::string_view in = f.field_counts;
  uint32_t n;
  if (!ReadU32(&in, &n) || n != names.size()) {
    return Malformed("field counts do not match the query");
  }
  field_lines->assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view name;
    if (!ReadBytes(&in, &name) || name != names[i] ||
        !ReadU64(&in, &(*field_lines)[i])) {
      return Malformed("field counts do not match the query");
    }
  }
  if (!in.empty()) return Malformed("field counts section");
  not_numeric->assign(n, 0);
  examples->assign(n, std::string_view());
  if (!f.not_numeric) return absl::OkStatus();
  in = *f.not_numeric;
  uint32_t m;
  if (!ReadU32(&in, &m) || m != n) {
    return Malformed("values not numeric do not match the query");
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!ReadU64(&in, &(*not_numeric)[i]) || !ReadBytes(&in, &(*examples)[i]) ||
        (*examples)[i].size() > max_example_bytes ||
        ((*not_numeric)[i] == 0 && !(*examples)[i].empty())) {
      return Malformed("values not numeric section");
    }
  }
  if (!in.empty()) return Malformed("values not numeric section");
  return absl::OkStatus();
}

// Whether `groups` groups can be in a groups section of `bytes` bytes with
// `bitmap_bytes` of presence bits each, and within the limits.
absl::Status CheckGroupCount(uint64_t groups, size_t bytes, size_t bitmap_bytes,
                             uint64_t max_groups) {
  if (groups > bytes / (kMinGroupBytes + bitmap_bytes)) {
    return Malformed(absl::StrCat("group count ", groups,
                                  " does not fit in the groups section"));
  }
  if (groups >= GroupTable::kNotFound) {
    return absl::ResourceExhaustedError(
        absl::StrCat("partial holds ", groups, " groups, more than 2^32-2"));
  }
  if (max_groups != 0 && groups > max_groups) {
    return absl::ResourceExhaustedError(absl::StrCat(
        MoreGroupsThan(max_groups), " in the partial (", groups, ")"));
  }
  return absl::OkStatus();
}

// The stored slots of each later state section (7-9, by kind - 7), and
// the unread bytes of each.
struct LaterSections {
  std::vector<AggregateState*> slots[3];
  std::string_view in[3];
};

// Checks that frame `f` has exactly the later state sections that `later`'s
// slots need, and opens them.
absl::Status OpenLaterStateSections(const PartialFrame& f,
                                    LaterSections* later) {
  for (uint32_t i = 0; i < 3; ++i) {
    const PartialSection section = static_cast<PartialSection>(7 + i);
    const std::optional<std::string_view>& payload = f.state_sections[i];
    if (later->slots[i].empty() != !payload.has_value()) {
      return Malformed(absl::StrCat(payload ? "unexpected " : "no ",
                                    SectionName(section), " section"));
    }
    if (!payload) continue;
    later->in[i] = *payload;
    uint32_t section_n;
    if (!ReadU32(&later->in[i], &section_n) ||
        section_n != later->slots[i].size()) {
      return Malformed(absl::StrCat(SectionName(section),
                                    " section does not match the query"));
    }
  }
  return absl::OkStatus();
}

// Reads the frame's groups [first, end) from each later state section
// (group by group in the groups section's order) into ids [0, end - first);
// at the frame's last group (`last`), checks that nothing follows.
absl::Status ReadLaterStates(uint32_t first, uint32_t end, bool last,
                             LaterSections* later) {
  for (uint32_t i = 0; i < 3; ++i) {
    if (later->slots[i].empty()) continue;
    const PartialSection section = static_cast<PartialSection>(7 + i);
    for (uint32_t g = first; g < end; ++g) {
      MAPR_RETURN_IF_ERROR(ReadGroupStates(&later->in[i], later->slots[i],
                                           g - first, g, section));
    }
    if (last && !later->in[i].empty()) {
      return Malformed(absl::StrCat("bytes after the last group of the ",
                                    SectionName(section), " section"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::array<uint64_t, 2> PartialCodec::Fingerprint(const BatchAggregator& agg) {
  const plan::Plan& p = *agg.plan_;
  std::string buf;
  AppendBytes(&buf, "mapr partial fingerprint");
  AppendBytes(&buf, p.canonical);
  AppendBytes(&buf, p.log_format);
  AppendSlots(agg, &buf, p, agg.key_part_);
  AppendU64(&buf, agg.options_.max_line_bytes);
  // The percentile settings change results; the defaults add nothing, so
  // the fingerprints of v1.0 and v1.1 frames stay what they were.
  if (p.state_options != plan::StateOptions()) {
    AppendBytes(&buf, "state options");
    AppendU32(&buf, p.state_options.percentile_exact_values);
    AppendU64(&buf,
              std::bit_cast<uint64_t>(p.state_options.percentile_accuracy));
  }
  // lookup() tables; none in other queries, whose fingerprints stay.
  for (const std::string& extra : p.fingerprint_extras) {
    AppendBytes(&buf, "extra");
    AppendBytes(&buf, extra);
  }
  const XXH128_hash_t h = XXH3_128bits(buf.data(), buf.size());
  return {h.low64, h.high64};
}

void PartialCodec::AppendCounterSections(const BatchAggregator& agg, bool zero,
                                         std::string* out) {
  const LineCounters none;
  const LineCounters& counters = zero ? none : agg.counters_;
  for (bool more : {false, true}) {
    const size_t at = BeginSection(
        out, more ? PartialSection::kMoreCounters : PartialSection::kCounters);
    // A counter that may be omitted is written when it is not 0 (it is the
    // last of its section, so readers take the list as a prefix).
    auto written = [&](const LineCounterField& field) {
      return InMoreCounters(field) == more &&
             (!OmittedWhenZero(field) || counters.*field.value != 0);
    };
    uint32_t n = 0;
    for (const LineCounterField& field : kLineCounterFields) {
      n += written(field);
    }
    AppendU32(out, n);
    for (const LineCounterField& field : kLineCounterFields) {
      if (!written(field)) continue;
      AppendBytes(out, field.name);
      AppendU64(out, counters.*field.value);
    }
    EndSection(out, at);
  }
}

void PartialCodec::AppendFieldSections(const BatchAggregator& agg,
                                       bool not_numeric, bool zero,
                                       std::string* out) {
  const std::string& run_id = agg.options_.run_id;
  const size_t counts_at = BeginSection(out, PartialSection::kFieldCounts);
  AppendU32(out, static_cast<uint32_t>(agg.extracted_names_.size()));
  for (size_t i = 0; i < agg.extracted_names_.size(); ++i) {
    AppendBytes(out, agg.extracted_names_[i]);
    AppendU64(out, zero ? 0 : agg.field_lines_[i]);
  }
  EndSection(out, counts_at);

  if (!run_id.empty()) {
    const size_t at = BeginSection(out, PartialSection::kRun);
    AppendBytes(out, run_id);
    EndSection(out, at);
  }
  if (not_numeric) {
    const size_t at = BeginSection(out, PartialSection::kNotNumeric);
    AppendU32(out, static_cast<uint32_t>(agg.field_not_numeric_.size()));
    for (size_t i = 0; i < agg.field_not_numeric_.size(); ++i) {
      AppendU64(out, agg.field_not_numeric_[i]);
      AppendBytes(out, agg.field_not_numeric_[i] == 0
                           ? std::string_view()
                           : std::string_view(agg.field_example_[i]));
    }
    EndSection(out, at);
  }
}

// One state section of a frame: its stored slots (the slots whose states
// it holds) and their empty states' bytes; written whole (Encode) or a
// block of groups at a time (EncodeTo).
class PartialCodec::StateSectionWriter {
 public:
  StateSectionWriter(const BatchAggregator& agg, PartialSection section)
      : agg_(agg), section_(section) {
    const plan::Plan& p = *agg.plan_;
    for (size_t k = 0; k < agg.states_.size(); ++k) {
      if (agg.states_[k] == nullptr ||
          StateSection(*p.slots[k].aggregate) != section) {
        continue;
      }
      stored_.push_back(agg.states_[k].get());
      std::unique_ptr<AggregateState> fresh =
          FindAggregate(*p.slots[k].aggregate)
              ->new_state(plan::SlotOptions(p, k));
      fresh->Resize(1);
      empty_.emplace_back();
      fresh->Serialize(0, &empty_.back());
    }
  }

  PartialSection section() const { return section_; }
  // False for a later section no slot of the query stores states in: the
  // frame has none. The groups section is always there.
  bool present() const {
    return section_ == PartialSection::kGroups || !stored_.empty();
  }

  // The payload's opening: the key's part count (groups section), or the
  // percentile settings (quantile section) and the stored slot count.
  void AppendPrefix(std::string* out) const {
    const plan::Plan& p = *agg_.plan_;
    if (section_ == PartialSection::kGroups) {
      AppendU32(out, static_cast<uint32_t>(p.group_by.size()));
      return;
    }
    if (section_ == PartialSection::kQuantileStates) {
      AppendU32(out, p.state_options.percentile_exact_values);
      AppendU64(out,
                std::bit_cast<uint64_t>(p.state_options.percentile_accuracy));
    }
    AppendU32(out, static_cast<uint32_t>(stored_.size()));
  }

  // Groups `order`: per group its key (groups section), the presence bits
  // of the stored slots, then the state bytes of each present one (a state
  // equal to an empty one is absent).
  void AppendGroups(std::span<const uint32_t> order, std::string* out) const {
    const bool groups_section = section_ == PartialSection::kGroups;
    const size_t bitmap_bytes = (stored_.size() + 7) / 8;
    for (uint32_t g : order) {
      if (groups_section) AppendBytes(out, agg_.groups_.key(g));
      const size_t bits_at = out->size();
      out->append(bitmap_bytes, '\0');
      for (size_t k = 0; k < stored_.size(); ++k) {
        const size_t before = out->size();
        stored_[k]->Serialize(g, out);
        const std::string_view written(out->data() + before,
                                       out->size() - before);
        if (written == empty_[k]) {
          out->resize(before);
        } else {
          (*out)[bits_at + k / 8] = static_cast<char>(
              static_cast<uint8_t>((*out)[bits_at + k / 8]) | (1u << (k % 8)));
        }
      }
    }
  }

 private:
  const BatchAggregator& agg_;
  PartialSection section_;
  std::vector<const AggregateState*> stored_;
  std::vector<std::string> empty_;
};

uint32_t PartialCodec::PartitionOfKey(const plan::Plan& plan,
                                      std::string_view key, uint32_t count) {
  // A seed of the format's own, so partitions do not follow the group
  // table's hash (XXH3 with seed 0).
  constexpr uint64_t kPartitionSeed = 0x6d617072'70617274;  // "maprpart"
  std::string scratch;
  const std::string_view bytes = PartitionBytes(plan, key, &scratch);
  return static_cast<uint32_t>(
      XXH3_64bits_withSeed(bytes.data(), bytes.size(), kPartitionSeed) % count);
}

absl::Status PartialCodec::CheckWritableAs(const BatchAggregator& agg,
                                           Partition partition) {
  const std::string as =
      absl::StrCat("cannot be written as partition ", partition.index, " of ",
                   partition.count,
                   " (lines were pushed into it, or another partition's "
                   "state merged): its reader would refuse the frame");
  const GroupTable& groups = agg.groups_;
  for (uint32_t g = 0; g < groups.size(); ++g) {
    const uint32_t in =
        PartitionOfKey(*agg.plan_, groups.key(g), partition.count);
    if (in != partition.index) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the state holds a group of partition ", in, ", so it ", as));
    }
  }
  if (partition.index == 0) return absl::OkStatus();
  const bool counts =
      agg.counters_ != LineCounters() ||
      std::any_of(agg.field_lines_.begin(), agg.field_lines_.end(),
                  [](uint64_t n) { return n != 0; }) ||
      std::any_of(agg.field_not_numeric_.begin(), agg.field_not_numeric_.end(),
                  [](uint64_t n) { return n != 0; });
  if (counts) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the state holds line counters, which only partition 0 carries, so "
        "it ",
        as));
  }
  return absl::OkStatus();
}

std::vector<std::vector<uint32_t>> PartialCodec::PartitionGroups(
    const BatchAggregator& agg, uint32_t count) {
  std::vector<std::vector<uint32_t>> out(count);
  const GroupTable& groups = agg.groups_;
  for (uint32_t g = 0; g < groups.size(); ++g) {
    out[PartitionOfKey(*agg.plan_, groups.key(g), count)].push_back(g);
  }
  return out;
}

std::string PartialCodec::EncodeHead(const BatchAggregator& agg,
                                     SplitRange splits, const StreamMark& mark,
                                     std::optional<Partition> partition,
                                     const std::vector<uint32_t>* selected,
                                     std::vector<uint32_t>* order) {
  const plan::Plan& p = *agg.plan_;
  const GroupTable& groups = agg.groups_;
  bool state_sections = false;
  uint16_t state_minor = 0;  // the newest state's minor (topk: 7)
  for (size_t k = 0; k < agg.states_.size(); ++k) {
    if (agg.states_[k] == nullptr) continue;
    if (StateSection(*p.slots[k].aggregate) != PartialSection::kGroups) {
      state_sections = true;
    }
    if (const AggregateFunction* a = FindAggregate(*p.slots[k].aggregate)) {
      state_minor = std::max(state_minor, a->partial_minor);
    }
  }
  // A selected partition but the first carries no counters.
  const bool zero =
      selected != nullptr && partition.has_value() && partition->index != 0;
  // Groups in key byte order (of the partition, when selecting one); per
  // group the key, the presence bits of the stored slots of the groups
  // section, then the state bytes of each present one. A state equal to an
  // empty one is absent. The sections of the later states repeat the
  // presence bits and states, group by group in the same order, for their
  // own slots.
  *order = KeyOrder(groups, selected);
  std::string out;
  out.append(kPartialMagic);
  const bool not_numeric =
      !zero &&
      std::any_of(agg.field_not_numeric_.begin(), agg.field_not_numeric_.end(),
                  [](uint64_t n) { return n != 0; });
  AppendU16(&out, kPartialMajor);
  // The oldest minor that has every section written.
  const std::string& run_id = agg.options_.run_id;
  const std::string& source = agg.options_.source;
  const bool stream = !source.empty() || mark.final || !mark.positions.empty();
  AppendU16(&out, state_minor > 0                  ? state_minor
                  : partition.has_value()          ? 5
                  : stream                         ? 4
                  : not_numeric || !run_id.empty() ? 3
                  : state_sections                 ? 2
                                                   : 1);
  AppendU32(&out, kPartialHeaderBytes);
  AppendU64(&out, (state_sections ? kPartialFlagStateSections : 0) |
                      (partition.has_value() ? kPartialFlagPartitioned : 0));
  AppendU64(&out, 0);  // frame size, below
  const std::array<uint64_t, 2> fp = Fingerprint(agg);
  AppendU64(&out, fp[0]);
  AppendU64(&out, fp[1]);
  AppendU64(&out, splits.begin);
  AppendU64(&out, splits.end);
  AppendU64(&out, order->size());

  size_t at = BeginSection(&out, PartialSection::kQuery);
  AppendBytes(&out, p.canonical);
  AppendBytes(&out, p.log_format);
  AppendU64(&out, agg.options_.max_line_bytes);
  EndSection(&out, at);

  AppendCounterSections(agg, zero, &out);

  at = BeginSection(&out, PartialSection::kSlots);
  AppendSlots(agg, &out, p, agg.key_part_);
  EndSection(&out, at);

  AppendFieldSections(agg, not_numeric, zero, &out);
  if (stream) AppendStreamSection(source, mark, &out);
  if (partition.has_value()) {
    at = BeginSection(&out, PartialSection::kPartition);
    AppendU32(&out, partition->count);
    AppendU32(&out, partition->index);
    EndSection(&out, at);
  }
  return out;
}

std::string PartialCodec::Encode(const BatchAggregator& agg, SplitRange splits,
                                 const StreamMark& mark,
                                 std::optional<Partition> partition,
                                 const std::vector<uint32_t>* selected) {
  std::vector<uint32_t> order;
  std::string out = EncodeHead(agg, splits, mark, partition, selected, &order);
  for (PartialSection section : StateSections()) {
    const StateSectionWriter w(agg, section);
    if (!w.present()) continue;
    const size_t at = BeginSection(&out, section);
    w.AppendPrefix(&out);
    w.AppendGroups(order, &out);
    EndSection(&out, at);
  }
  StoreU64(&out, kFrameSizeAt, out.size() + kPartialTrailerBytes);
  AppendU64(&out, Checksum(out));
  return out;
}

absl::StatusOr<uint64_t> PartialCodec::EncodeTo(
    const BatchAggregator& agg, SplitRange splits, const StreamMark& mark,
    std::optional<Partition> partition, const std::vector<uint32_t>* selected,
    absl::FunctionRef<absl::Status(std::string_view)> write) {
  constexpr size_t kBlockGroups = 4096;
  constexpr size_t kPieceBytes = size_t{1} << 20;
  std::vector<uint32_t> order;
  std::string head = EncodeHead(agg, splits, mark, partition, selected, &order);
  const std::span<const uint32_t> all(order);
  // Appends the groups to *out a block at a time, calling after_block()
  // after each.
  auto for_blocks = [&](const StateSectionWriter& w, std::string* out,
                        auto&& after_block) -> absl::Status {
    for (size_t lo = 0; lo < all.size(); lo += kBlockGroups) {
      w.AppendGroups(all.subspan(lo, std::min(kBlockGroups, all.size() - lo)),
                     out);
      if (absl::Status s = after_block(); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  // The frame size goes in the header: each section's payload is
  // serialized once to be measured, then again to be written.
  std::vector<StateSectionWriter> sections;
  std::vector<uint64_t> payload;
  uint64_t frame_bytes = head.size() + kPartialTrailerBytes;
  std::string piece;
  for (PartialSection section : StateSections()) {
    StateSectionWriter w(agg, section);
    if (!w.present()) continue;
    piece.clear();
    w.AppendPrefix(&piece);
    uint64_t n = piece.size();
    piece.clear();
    auto measure = [&] {
      n += piece.size();
      piece.clear();
      return absl::OkStatus();
    };
    MAPR_RETURN_IF_ERROR(for_blocks(w, &piece, measure));
    payload.push_back(n);
    frame_bytes += 4 + 8 + n;
    sections.push_back(std::move(w));
  }
  StoreU64(&head, kFrameSizeAt, frame_bytes);

  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> hash(
      XXH3_createState(), &XXH3_freeState);
  XXH3_64bits_reset(hash.get());
  uint64_t written = 0;
  auto emit = [&](std::string_view bytes) {
    XXH3_64bits_update(hash.get(), bytes.data(), bytes.size());
    written += bytes.size();
    return write(bytes);
  };
  MAPR_RETURN_IF_ERROR(emit(head));
  for (size_t i = 0; i < sections.size(); ++i) {
    piece.clear();
    AppendU32(&piece, static_cast<uint32_t>(sections[i].section()));
    AppendU64(&piece, payload[i]);
    sections[i].AppendPrefix(&piece);
    auto flush_large = [&]() -> absl::Status {
      if (piece.size() < kPieceBytes) return absl::OkStatus();
      absl::Status s = emit(piece);
      piece.clear();
      return s;
    };
    MAPR_RETURN_IF_ERROR(for_blocks(sections[i], &piece, flush_large));
    MAPR_RETURN_IF_ERROR(emit(piece));
  }
  piece.clear();
  AppendU64(&piece, XXH3_64bits_digest(hash.get()));
  if (written + piece.size() != frame_bytes) {
    // A state serialized to other bytes the second time: a bug.
    return absl::InternalError("a state serialized differently twice");
  }
  MAPR_RETURN_IF_ERROR(write(piece));
  return order.size();
}

absl::Status PartialCodec::ReadGroups(
    const PartialFrame& f, uint32_t parts, uint32_t first, uint32_t end,
    const std::vector<AggregateState*>& stored, std::string_view* in,
    std::string_view* prev, BatchAggregator* agg) {
  agg->groups_.Reserve(end - first);
  for (const std::unique_ptr<AggregateState>& s : agg->states_) {
    if (s != nullptr) s->Resize(end - first);
  }
  for (uint32_t g = first; g < end; ++g) {
    std::string_view key;
    if (!ReadBytes(in, &key) || !WellFormedKey(key, parts)) {
      return Malformed(absl::StrCat("key of group ", g));
    }
    if (g > 0 && !(*prev < key)) {
      return Malformed("groups are not in strictly increasing key order");
    }
    *prev = key;
    if (f.partition.has_value() &&
        PartitionOfKey(*agg->plan_, key, f.partition->count) !=
            f.partition->index) {
      return Malformed(absl::StrCat("group ", g, " is not in partition ",
                                    f.partition->index, " of ",
                                    f.partition->count));
    }
    bool created;
    agg->groups_.FindOrInsert(key, HashKey(key), &created);
    MAPR_RETURN_IF_ERROR(
        ReadGroupStates(in, stored, g - first, g, std::nullopt));
  }
  return absl::OkStatus();
}

absl::Status PartialCodec::Load(const PartialFrame& f, BatchAggregator* agg) {
  return LoadInChunks(f, agg, /*chunk_groups=*/0,
                      [](BatchAggregator&) { return absl::OkStatus(); });
}

absl::Status PartialCodec::LoadInChunks(
    const PartialFrame& f, BatchAggregator* agg, uint32_t chunk_groups,
    absl::FunctionRef<absl::Status(BatchAggregator&)> take) {
  const plan::Plan& p = *agg->plan_;
  // The slot layout must be this query's.
  std::string slots;
  AppendSlots(*agg, &slots, p, agg->key_part_);
  if (slots != f.slots) {
    return Malformed("slot section does not match the query");
  }

  std::vector<uint64_t> field_lines, not_numeric;
  std::vector<std::string_view> examples;
  MAPR_RETURN_IF_ERROR(
      ReadFieldSections(f, agg->extracted_names_, &field_lines, &not_numeric,
                        BatchAggregator::kMaxExampleBytes, &examples));

  std::string_view in = f.group_bytes;
  uint32_t parts;
  if (!ReadU32(&in, &parts) || parts != p.group_by.size()) {
    return Malformed("group key parts do not match the query");
  }
  // The stored slots of each state section: collected again for every
  // chunk, since `take` may replace agg's states.
  std::vector<AggregateState*> stored;
  LaterSections later;
  auto collect_slots = [&] {
    stored.clear();
    for (std::vector<AggregateState*>& section : later.slots) section.clear();
    for (size_t k = 0; k < agg->states_.size(); ++k) {
      AggregateState* s = agg->states_[k].get();
      if (s == nullptr) continue;
      const PartialSection section = StateSection(*p.slots[k].aggregate);
      if (section == PartialSection::kGroups) {
        stored.push_back(s);
      } else {
        later.slots[static_cast<uint32_t>(section) - 7].push_back(s);
      }
    }
  };
  collect_slots();
  MAPR_RETURN_IF_ERROR(CheckGroupCount(
      f.groups, in.size(), (stored.size() + 7) / 8, agg->options_.max_groups));
  MAPR_RETURN_IF_ERROR(OpenLaterStateSections(f, &later));
  const uint32_t count = static_cast<uint32_t>(f.groups);
  const uint32_t chunk =
      chunk_groups == 0 ? count : std::min(chunk_groups, count);
  std::string_view prev;
  uint32_t first = 0;
  do {
    // Groups [first, end) of the frame, as ids [0, end - first) of `agg`.
    const uint32_t end = first + std::min(chunk, count - first);
    collect_slots();
    MAPR_RETURN_IF_ERROR(
        ReadGroups(f, parts, first, end, stored, &in, &prev, agg));
    const bool last = end == count;
    if (last && !in.empty()) return Malformed("bytes after the last group");
    MAPR_RETURN_IF_ERROR(ReadLaterStates(first, end, last, &later));
    if (first == 0) {
      // The counters travel with the first chunk.
      agg->counters_ = f.counters;
      agg->field_lines_ = field_lines;
      for (size_t i = 0; i < not_numeric.size(); ++i) {
        agg->MergeNotNumeric(i, not_numeric[i], examples[i]);
      }
    }
    MAPR_RETURN_IF_ERROR(take(*agg));
    if (!last) agg->Reset();
    first = end;
  } while (first < count);
  return absl::OkStatus();
}

}  // namespace mapr::runtime
