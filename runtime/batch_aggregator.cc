#include "runtime/batch_aggregator.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"
#include "util/format_number.h"
#include "runtime/functions.h"
#include "runtime/log_formats.h"
#include "util/number.h"
#include "util/scan.h"

namespace mapr::runtime {

using util::AppendGoFloat;
using util::AppendGoInt;
using util::Contains;
using util::ContainsTableMarker;
using util::ParseNumber;
namespace {

using plan::CommonVariable;
using plan::CompareOp;
using plan::Condition;
using plan::FieldId;
using plan::Operand;

inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

inline std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  // Keep a non-null pointer for an empty line ("a blank line is a line").
  return std::string_view(s.data() == nullptr ? "" : s.data() + b, e - b);
}

// Removes only the line ending, for the max_line_bytes check.
inline size_t RawLength(std::string_view s) {
  size_t n = s.size();
  if (n > 0 && s[n - 1] == '\n') --n;
  if (n > 0 && s[n - 1] == '\r') --n;
  return n;
}

// True if the line holds `|MAPREDUCE:<name>|` for some name (`from *`).
bool HasAnyTable(std::string_view line) {
  static constexpr std::string_view kMarker = "|MAPREDUCE:";
  size_t pos = 0;
  while ((pos = line.find(kMarker, pos)) != std::string_view::npos) {
    pos += kMarker.size();
    if (line.find('|', pos) != std::string_view::npos) return true;
  }
  return false;
}

struct LocalZone {
  std::string name;    // $timezone, e.g. UTC or CET
  std::string offset;  // $timeoffset, seconds east of UTC
};

// The process's time zone, read once: tm_zone points into glibc's tzname,
// which a concurrent localtime_r may rewrite, so it is copied under the
// static's initialization lock and never read again.
const LocalZone& GetLocalZone() {
  static const LocalZone* zone = [] {
    time_t now = time(nullptr);
    struct tm tm_local;
    localtime_r(&now, &tm_local);
    return new LocalZone{tm_local.tm_zone != nullptr ? tm_local.tm_zone : "UTC",
                         absl::StrCat(tm_local.tm_gmtoff)};
  }();
  return *zone;
}

std::string LocalHostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

// out[i] = rows[i]'s values compare true under `Op`: a missing or
// non-numeric value (ok == 0) compares false. A null column stands for the
// constant `k`. One loop per operator, so the loop has no switch and no
// branch on the data.
template <typename Op>
void CompareFloats(const uint32_t* rows, size_t n, const double* ln,
                   const uint8_t* lok, double lk, const double* rn,
                   const uint8_t* rok, double rk, uint8_t* out, Op op) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = rows[i];
    const bool ok = (lok == nullptr || lok[r]) && (rok == nullptr || rok[r]);
    const double a = ln != nullptr ? ln[r] : lk;
    const double b = rn != nullptr ? rn[r] : rk;
    out[i] = static_cast<uint8_t>(ok & op(a, b));
  }
}

template <typename Op>
void CompareStrings(const uint32_t* rows, size_t n,
                    const std::string_view* lcol, std::string_view lk,
                    const std::string_view* rcol, std::string_view rk,
                    uint8_t* out, Op op) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = rows[i];
    const std::string_view a = lcol != nullptr ? lcol[r] : lk;
    const std::string_view b = rcol != nullptr ? rcol[r] : rk;
    out[i] = a.data() != nullptr && b.data() != nullptr && op(a, b);
  }
}

bool HasPrefix(std::string_view a, std::string_view b) {
  return a.size() >= b.size() && BytesEqual(a.data(), b.data(), b.size());
}

bool HasSuffix(std::string_view a, std::string_view b) {
  return a.size() >= b.size() &&
         BytesEqual(a.data() + a.size() - b.size(), b.data(), b.size());
}

// A key of up to 16 bytes as two words that, with its size, determine it:
// its first and last 8 bytes (overlapping below 16), or fewer loads below
// 8. Reads only the key's bytes.
inline void ShortKeyWords(std::string_view key, uint64_t* w0, uint64_t* w1) {
  const char* p = key.data();
  const size_t n = key.size();
  if (n >= 8) {
    std::memcpy(w0, p, 8);
    std::memcpy(w1, p + n - 8, 8);
    return;
  }
  *w1 = 0;
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    *w0 = lo | (uint64_t{hi} << 32);
    return;
  }
  *w0 = n == 0 ? 0
               : static_cast<uint64_t>(static_cast<uint8_t>(p[0])) |
                     (uint64_t{static_cast<uint8_t>(p[n / 2])} << 8) |
                     (uint64_t{static_cast<uint8_t>(p[n - 1])} << 16);
}

// The memo slot of a short key's words.
inline uint16_t MemoSlot(uint64_t w0, uint64_t w1, size_t size) {
  const uint64_t h =
      (w0 ^ (w1 * 0x9e3779b97f4a7c15) ^ size) * 0xff51afd7ed558ccd;
  return static_cast<uint16_t>(h >> 54);  // 10 bits: kKeyMemoSize slots
}

}  // namespace

// The format's view of the batch columns: requested field i is plan field
// extracted_fields[i].
class BatchAggregator::Fields : public FieldBatch {
 public:
  explicit Fields(BatchAggregator* agg) : agg_(agg) {}
  size_t num_fields() const override {
    return agg_->plan_->extracted_fields.size();
  }
  std::string_view* column(size_t field) override {
    return agg_->Column(agg_->plan_->extracted_fields[field]);
  }
  char* Allocate(size_t n) override { return agg_->arena_.Allocate(n); }

 private:
  BatchAggregator* agg_;
};

absl::StatusOr<std::unique_ptr<BatchAggregator>> BatchAggregator::Create(
    std::shared_ptr<const plan::Plan> plan, const AggregatorOptions& options) {
  std::shared_ptr<const LogFormat> format = FindLogFormat(plan->log_format);
  if (format == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "log format '", plan->log_format, "' is no longer registered"));
  }
  return std::unique_ptr<BatchAggregator>(
      new BatchAggregator(std::move(plan), options, std::move(format)));
}

BatchAggregator::BatchAggregator(std::shared_ptr<const plan::Plan> plan,
                                 const AggregatorOptions& options,
                                 std::shared_ptr<const LogFormat> format)
    : plan_(std::move(plan)), options_(options), format_(std::move(format)) {
  for (FieldId id : plan_->extracted_fields) {
    extracted_names_.push_back(plan_->fields[id].name);
  }
  hostname_ = options_.hostname.empty() ? LocalHostname() : options_.hostname;
  const LocalZone& zone = GetLocalZone();
  timezone_ = zone.name;
  timeoffset_ = zone.offset;

  size_t nfields = plan_->fields.size();
  lines_.resize(kMaxBatchRows);
  outcomes_.resize(kMaxBatchRows);
  mismatch_ = std::make_unique<bool[]>(kMaxBatchRows);
  values_.resize(nfields * kMaxBatchRows);
  numbers_.resize(nfields * kMaxBatchRows);
  numeric_.resize(nfields * kMaxBatchRows);
  numeric_epoch_.resize(nfields, 0);
  sel_.resize(kMaxBatchRows);
  gids_.resize(kMaxBatchRows);
  // Heap buffers (beyond the small-string size), so swapping the two keeps
  // views of the previous key valid.
  key_scratch_.reserve(256);
  prev_key_scratch_.reserve(256);
  hashes_.resize(kMaxBatchRows);
  same_key_.resize(kMaxBatchRows);
  static_assert(kKeyMemoSize == 1 << 10, "MemoSlot gives 10 bits");
  key_memo_.resize(kKeyMemoSize);
  memo_slot_.resize(kMaxBatchRows);
  slots_.resize(plan_->slots.size());
  key_part_.assign(slots_.size(), -1);
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].kind = plan_->slots[i].kind;
    if (slots_[i].kind != plan::StateKind::kLast) continue;
    // Every row of a group carries the group's key in this field, so the
    // last value is the key part (a missing field is the empty part).
    const auto& by = plan_->group_by;
    auto it = std::find(by.begin(), by.end(), plan_->slots[i].field);
    if (it != by.end()) key_part_[i] = static_cast<int32_t>(it - by.begin());
  }
}

absl::StatusOr<LogFormatParser*> BatchAggregator::ParserFor(uint64_t source) {
  auto it = parsers_.find(source);
  if (it != parsers_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<LogFormatParser>> parser =
      format_->NewParser(extracted_names_);
  if (!parser.ok()) return parser.status();
  LogFormatParser* raw = parser->get();
  parsers_.emplace(source, std::move(*parser));
  return raw;
}

absl::Status BatchAggregator::Push(std::span<const std::string_view> lines,
                                   uint64_t source) {
  if (!sticky_error_.ok()) return sticky_error_;
  while (!lines.empty()) {
    size_t n = std::min(lines.size(), kMaxBatchRows);
    absl::Status s = PushChunk(lines.first(n), source);
    if (!s.ok()) {
      sticky_error_ = s;
      return s;
    }
    lines = lines.subspan(n);
  }
  return absl::OkStatus();
}

absl::Status BatchAggregator::PushChunk(std::span<const std::string_view> in,
                                        uint64_t source) {
  const plan::Plan& p = *plan_;
  ++epoch_;
  arena_.Reset();
  counters_.lines_read += in.size();

  // A format that meets the table in its own scan filters it there (the
  // parser is looked up first only then: a failing NewParser still fails
  // only batches with lines to parse).
  TableFilteringParser* table_parser = nullptr;
  if (p.table_filter == plan::TableFilter::kTable && !in.empty()) {
    absl::StatusOr<LogFormatParser*> parser = ParserFor(source);
    if (parser.ok()) {
      table_parser = dynamic_cast<TableFilteringParser*>(*parser);
    }
  }

  // 1. Trim, length limit, table filter -> dense lines_.
  size_t m = 0;
  for (std::string_view raw : in) {
    if (RawLength(raw) > options_.max_line_bytes) {
      ++counters_.lines_too_long;
      continue;
    }
    std::string_view line = Trim(raw);
    // (The marker starts and ends with '|', so the trimmed line holds it
    // exactly when the raw one does.)
    if (table_parser == nullptr) {
      switch (p.table_filter) {
        case plan::TableFilter::kNone:
          break;
        case plan::TableFilter::kTable:
          if (!ContainsTableMarker(raw, p.table_marker)) {
            ++counters_.lines_table_mismatch;
            continue;
          }
          break;
        case plan::TableFilter::kAny:
          if (!HasAnyTable(raw)) {
            ++counters_.lines_table_mismatch;
            continue;
          }
          break;
      }
    }
    lines_[m++] = line;
  }
  rows_ = m;
  if (m == 0) return absl::OkStatus();

  // 2. The format fills the extracted fields.
  for (FieldId id : p.extracted_fields) {
    std::fill_n(Column(id), m, std::string_view());
  }
  const std::span<const std::string_view> lines(lines_.data(), m);
  Fields fields(this);
  if (table_parser != nullptr) {
    table_parser->ParseBatchInTable(lines, p.table_marker, fields,
                                    outcomes_.data(), mismatch_.get());
  } else {
    absl::StatusOr<LogFormatParser*> parser = ParserFor(source);
    if (!parser.ok()) return parser.status();
    (*parser)->ParseBatch(lines, fields, outcomes_.data());
  }
  sel_size_ = 0;
  for (size_t r = 0; r < m; ++r) {
    if (table_parser != nullptr && mismatch_[r]) {
      ++counters_.lines_table_mismatch;
      continue;
    }
    switch (outcomes_[r]) {
      case LineOutcome::kParsed:
        sel_[sel_size_++] = static_cast<uint32_t>(r);
        break;
      case LineOutcome::kIgnored:
        ++counters_.lines_ignored;
        break;
      case LineOutcome::kMalformed:
        ++counters_.lines_malformed;
        break;
      case LineOutcome::kHeader:
        ++counters_.lines_header;
        break;
    }
  }
  if (sel_size_ == 0) return absl::OkStatus();

  // 3. Common variables.
  for (FieldId id = 0; id < p.fields.size(); ++id) {
    CommonVariable var = p.fields[id].common;
    if (var == CommonVariable::kNone) continue;
    std::string_view* col = Column(id);
    if (var == CommonVariable::kLine) {
      for (size_t i = 0; i < sel_size_; ++i) col[sel_[i]] = lines_[sel_[i]];
      continue;
    }
    std::string_view v;
    switch (var) {
      case CommonVariable::kEmpty:
        v = FieldBatch::kEmptyValue;
        break;
      case CommonVariable::kStar:
        v = "*";
        break;
      case CommonVariable::kHostname:
      case CommonVariable::kServer:
        v = hostname_;
        break;
      case CommonVariable::kTimezone:
        v = timezone_;
        break;
      case CommonVariable::kTimeoffset:
        v = timeoffset_;
        break;
      default:
        break;
    }
    if (v.data() == nullptr) v = FieldBatch::kEmptyValue;
    for (size_t i = 0; i < sel_size_; ++i) col[sel_[i]] = v;
  }

  // 4. set (the part `where` reads), where, the rest of set.
  RunSets(p.sets_before_where);
  if (p.where) {
    size_t before = sel_size_;
    Filter(*p.where);
    counters_.lines_filtered += before - sel_size_;
  }
  RunSets(p.sets);
  return Aggregate();
}

void BatchAggregator::EnsureNumeric(FieldId f) {
  if (numeric_epoch_[f] == epoch_) return;
  numeric_epoch_[f] = epoch_;
  const std::string_view* col = Column(f);
  double* nums = numbers_.data() + static_cast<size_t>(f) * kMaxBatchRows;
  uint8_t* ok = numeric_.data() + static_cast<size_t>(f) * kMaxBatchRows;
  // Rows outside the current selection may hold stale views; they are never
  // read, but parse only what is selected.
  for (size_t i = 0; i < sel_size_; ++i) {
    uint32_t r = sel_[i];
    std::string_view v = col[r];
    ok[r] = v.data() != nullptr && ParseNumber(v, &nums[r]);
  }
}

void BatchAggregator::RunSets(const std::vector<plan::SetStep>& steps) {
  for (const plan::SetStep& step : steps) {
    std::string_view* target = Column(step.target);
    const std::string_view* source = step.source.kind == Operand::Kind::kField
                                         ? Column(step.source.field)
                                         : nullptr;
    for (size_t i = 0; i < sel_size_; ++i) {
      uint32_t r = sel_[i];
      std::string_view v =
          source != nullptr ? source[r] : std::string_view(step.source.text);
      if (v.data() == nullptr) {
        target[r] = std::string_view();
        continue;
      }
      for (FunctionKind f : step.functions) {
        size_t size = FunctionOutputSize(f, v.size());
        char* out = arena_.Allocate(size == 0 ? 1 : size);
        ApplyFunction(f, v, out);
        v = std::string_view(out, size);
      }
      if (v.data() != nullptr && v.empty()) v = FieldBatch::kEmptyValue;
      target[r] = v;
    }
    numeric_epoch_[step.target] = 0;  // Its numbers are stale now.
  }
}

void BatchAggregator::Evaluate(const Condition& c, const uint32_t* rows,
                               size_t n, uint8_t* out, size_t depth) {
  switch (c.kind) {
    case Condition::Kind::kCompare: {
      if (plan::IsFloatOp(c.op)) {
        const double* ln = nullptr;
        const uint8_t* lok = nullptr;
        const double* rn = nullptr;
        const uint8_t* rok = nullptr;
        if (c.lhs.kind == Operand::Kind::kField) {
          EnsureNumeric(c.lhs.field);
          ln = numbers_.data() + size_t{c.lhs.field} * kMaxBatchRows;
          lok = numeric_.data() + size_t{c.lhs.field} * kMaxBatchRows;
        }
        if (c.rhs.kind == Operand::Kind::kField) {
          EnsureNumeric(c.rhs.field);
          rn = numbers_.data() + size_t{c.rhs.field} * kMaxBatchRows;
          rok = numeric_.data() + size_t{c.rhs.field} * kMaxBatchRows;
        }
        auto run = [&](auto op) {
          CompareFloats(rows, n, ln, lok, c.lhs.number, rn, rok, c.rhs.number,
                        out, op);
        };
        switch (c.op) {
          case CompareOp::kFloatEq:
            return run([](double a, double b) { return a == b; });
          case CompareOp::kFloatNe:
            return run([](double a, double b) { return a != b; });
          case CompareOp::kFloatLt:
            return run([](double a, double b) { return a < b; });
          case CompareOp::kFloatLe:
            return run([](double a, double b) { return a <= b; });
          case CompareOp::kFloatGt:
            return run([](double a, double b) { return a > b; });
          case CompareOp::kFloatGe:
            return run([](double a, double b) { return a >= b; });
          default:
            std::fill_n(out, n, uint8_t{0});
            return;
        }
      }
      const std::string_view* lcol =
          c.lhs.kind == Operand::Kind::kField ? Column(c.lhs.field) : nullptr;
      const std::string_view* rcol =
          c.rhs.kind == Operand::Kind::kField ? Column(c.rhs.field) : nullptr;
      auto run = [&](auto op) {
        CompareStrings(rows, n, lcol, c.lhs.text, rcol, c.rhs.text, out, op);
      };
      using SV = std::string_view;
      switch (c.op) {
        case CompareOp::kStrEq:
          return run([](SV a, SV b) { return a == b; });
        case CompareOp::kStrNe:
          return run([](SV a, SV b) { return a != b; });
        case CompareOp::kContains:
          return run([](SV a, SV b) { return Contains(a, b); });
        case CompareOp::kNotContains:
          return run([](SV a, SV b) { return !Contains(a, b); });
        case CompareOp::kHasPrefix:
          return run([](SV a, SV b) { return HasPrefix(a, b); });
        case CompareOp::kNotHasPrefix:
          return run([](SV a, SV b) { return !HasPrefix(a, b); });
        case CompareOp::kHasSuffix:
          return run([](SV a, SV b) { return HasSuffix(a, b); });
        case CompareOp::kNotHasSuffix:
          return run([](SV a, SV b) { return !HasSuffix(a, b); });
        default:
          std::fill_n(out, n, uint8_t{0});
          return;
      }
    }
    case Condition::Kind::kNot:
      Evaluate(c.children[0], rows, n, out, depth + 1);
      for (size_t i = 0; i < n; ++i) out[i] = !out[i];
      return;
    case Condition::Kind::kAnd:
    case Condition::Kind::kOr: {
      if (masks_.size() <= depth) masks_.resize(depth + 1);
      masks_[depth].resize(kMaxBatchRows);
      // The mask's buffer stays put, but a nested and/or may grow masks_
      // and move the vector that owns it: keep the pointer, not a reference
      // to the element.
      uint8_t* tmp = masks_[depth].data();
      bool is_and = c.kind == Condition::Kind::kAnd;
      Evaluate(c.children[0], rows, n, out, depth + 1);
      for (size_t k = 1; k < c.children.size(); ++k) {
        Evaluate(c.children[k], rows, n, tmp, depth + 1);
        if (is_and) {
          for (size_t i = 0; i < n; ++i) out[i] &= tmp[i];
        } else {
          for (size_t i = 0; i < n; ++i) out[i] |= tmp[i];
        }
      }
      return;
    }
  }
}

void BatchAggregator::Filter(const Condition& c) {
  // The conjuncts of an `and` narrow the selection one after another, so
  // each later one is evaluated only on the rows still selected (the
  // conditions have no side effects, so the result is the same).
  if (c.kind == Condition::Kind::kAnd) {
    for (const Condition& child : c.children) {
      Filter(child);
      if (sel_size_ == 0) return;
    }
    return;
  }
  if (result_.size() < kMaxBatchRows) result_.resize(kMaxBatchRows);
  Evaluate(c, sel_.data(), sel_size_, result_.data(), 0);
  size_t kept = 0;
  for (size_t i = 0; i < sel_size_; ++i) {
    sel_[kept] = sel_[i];
    kept += result_[i];
  }
  sel_size_ = kept;
}

// The group of row sel_[i] into gids_[i], creating groups as needed.
absl::Status BatchAggregator::AssignGroups() {
  const plan::Plan& p = *plan_;
  const size_t nkeys = p.group_by.size();
  const bool limited = options_.max_groups != 0;
  // Looks up `key` for selected row i.
  auto assign = [&](size_t i, std::string_view key,
                    uint64_t hash) -> absl::Status {
    if (limited && groups_.size() >= options_.max_groups) {
      const uint32_t id = groups_.Find(key, hash);
      if (id == GroupTable::kNotFound) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "more than ", options_.max_groups,
            " groups (AggregatorOptions::max_groups); raise the limit or "
            "group by fewer distinct values"));
      }
      gids_[i] = id;
      return absl::OkStatus();
    }
    bool created;
    gids_[i] = groups_.FindOrInsert(key, hash, &created);
    return absl::OkStatus();
  };

  if (nkeys == 1) {
    // Two passes: hash every key and start loading its slot, then look the
    // keys up, so that with a large table the slot loads overlap instead of
    // stalling one row at a time. A row with the same key as the row before
    // (few groups, sorted or bursty logs) skips both, and so does a short
    // key found in the memo.
    const std::string_view* column = Column(p.group_by[0]);
    auto key_of = [&](size_t i) {
      std::string_view key = column[sel_[i]];
      return key.data() == nullptr ? FieldBatch::kEmptyValue : key;
    };
    const bool use_memo = memo_pause_ == 0;
    size_t probes = 0, hits = 0;
    for (size_t i = 0; i < sel_size_; ++i) {
      const std::string_view key = key_of(i);
      const std::string_view prev = i > 0 ? key_of(i - 1) : std::string_view();
      if (i > 0 && key.size() == prev.size() &&
          BytesEqual(key.data(), prev.data(), key.size())) {
        same_key_[i] = 1;
        continue;
      }
      same_key_[i] = 0;
      memo_slot_[i] = kNoMemoSlot;
      if (use_memo && key.size() <= 16) {
        uint64_t w0, w1;
        ShortKeyWords(key, &w0, &w1);
        const uint16_t slot = MemoSlot(w0, w1, key.size());
        const KeyMemo& m = key_memo_[slot];
        ++probes;
        if (m.size == key.size() && m.w0 == w0 && m.w1 == w1) {
          gids_[i] = m.gid;
          same_key_[i] = 2;
          ++hits;
          continue;
        }
        memo_slot_[i] = slot;
      }
      hashes_[i] = HashKey(key);
      groups_.Prefetch(hashes_[i]);
    }
    // Pause when more than one probe in 8 misses (many keys: the misses
    // cost a hash anyway, and a branch that goes either way mispredicts),
    // and look again later. (The first batch after a reset fills the memo;
    // it cannot hit yet.)
    if (!use_memo) {
      --memo_pause_;
    } else if (!memo_warm_) {
      memo_warm_ = true;
    } else if (probes >= 256 && hits * 8 < probes * 7) {
      memo_pause_ = 64;
    }
    for (size_t i = 0; i < sel_size_; ++i) {
      if (same_key_[i] == 1) {
        gids_[i] = gids_[i - 1];
        continue;
      }
      if (same_key_[i] == 2) continue;
      const std::string_view key = key_of(i);
      if (limited) {
        MAPR_RETURN_IF_ERROR(assign(i, key, hashes_[i]));
      } else {
        bool created;
        gids_[i] = groups_.FindOrInsert(key, hashes_[i], &created);
      }
      if (memo_slot_[i] != kNoMemoSlot) {
        KeyMemo& m = key_memo_[memo_slot_[i]];
        ShortKeyWords(key, &m.w0, &m.w1);
        m.size = static_cast<uint32_t>(key.size());
        m.gid = gids_[i];
      }
    }
    return absl::OkStatus();
  }

  std::string_view prev_key;
  for (size_t i = 0; i < sel_size_; ++i) {
    const uint32_t r = sel_[i];
    // Two scratch buffers, so the previous row's key stays readable.
    key_scratch_.swap(prev_key_scratch_);
    key_scratch_.clear();
    for (FieldId id : p.group_by) {
      std::string_view part = Column(id)[r];
      AppendKeyPart(part.data() == nullptr ? std::string_view() : part,
                    &key_scratch_);
    }
    const std::string_view key = key_scratch_;
    if (i > 0 && key == prev_key) {
      gids_[i] = gids_[i - 1];
      prev_key = key;
      continue;
    }
    prev_key = key;
    MAPR_RETURN_IF_ERROR(assign(i, key, HashKey(key)));
  }
  return absl::OkStatus();
}

absl::Status BatchAggregator::Aggregate() {
  const plan::Plan& p = *plan_;
  // Keep rows from which at least one select item takes a value.
  for (const plan::StateSlot& s : p.slots) {
    if (s.kind == plan::StateKind::kSum || s.kind == plan::StateKind::kMin ||
        s.kind == plan::StateKind::kMax || s.kind == plan::StateKind::kAvg) {
      EnsureNumeric(s.field);
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < sel_size_; ++i) {
    uint32_t r = sel_[i];
    bool contributes = false;
    for (const plan::StateSlot& s : p.slots) {
      switch (s.kind) {
        case plan::StateKind::kCount:
        case plan::StateKind::kLast:
        case plan::StateKind::kLen:
          contributes = Column(s.field)[r].data() != nullptr;
          break;
        default:
          contributes = numeric_[size_t{s.field} * kMaxBatchRows + r] != 0;
          break;
      }
      if (contributes) break;
    }
    sel_[kept] = r;
    kept += contributes;
  }
  counters_.lines_without_value += sel_size_ - kept;
  counters_.lines_aggregated += kept;
  sel_size_ = kept;
  if (kept == 0) return absl::OkStatus();

  // Group ids.
  if (absl::Status s = AssignGroups(); !s.ok()) {
    // Groups created before the failing row still get (empty) state, so the
    // table stays consistent whatever the caller does next.
    for (size_t k = 0; k < slots_.size(); ++k) {
      if (key_part_[k] < 0) slots_[k].Resize(groups_.size());
    }
    return s;
  }
  for (size_t k = 0; k < slots_.size(); ++k) {
    if (key_part_[k] < 0) slots_[k].Resize(groups_.size());
  }

  for (size_t k = 0; k < slots_.size(); ++k) {
    if (key_part_[k] >= 0) continue;
    FieldId f = p.slots[k].field;
    FieldRows rows{Column(f), numbers_.data() + size_t{f} * kMaxBatchRows,
                   numeric_.data() + size_t{f} * kMaxBatchRows};
    UpdateSlot(slots_[k], rows, sel_.data(), gids_.data(), sel_size_,
               last_row_);
  }
  return absl::OkStatus();
}

absl::Status BatchAggregator::Merge(BatchAggregator& later) {
  if (later.plan_->canonical != plan_->canonical) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot merge a partial of a different query: '",
        later.plan_->canonical, "' into '", plan_->canonical, "'"));
  }
  if (!sticky_error_.ok()) return sticky_error_;  // Sticky for Merge too.
  if (!later.sticky_error_.ok()) return later.sticky_error_;
  // In runs of kRun groups: hash each and start loading its slot, then
  // look them up, so that with large tables the loads overlap.
  constexpr uint32_t kRun = 16;
  uint64_t hashes[kRun];
  const uint32_t n = later.groups_.size();
  for (uint32_t g = 0; g < n; ++g) {
    if (g % kRun == 0) {
      for (uint32_t k = g; k < std::min(n, g + kRun); ++k) {
        hashes[k - g] = later.groups_.hash(k);
        groups_.Prefetch(hashes[k - g]);
      }
    }
    std::string_view key = later.groups_.key(g);
    bool created;
    const uint64_t hash = hashes[g % kRun];
    if (options_.max_groups != 0 && groups_.size() >= options_.max_groups &&
        groups_.Find(key, hash) == GroupTable::kNotFound) {
      sticky_error_ = absl::ResourceExhaustedError(absl::StrCat(
          "more than ", options_.max_groups,
          " groups (AggregatorOptions::max_groups) after merging"));
      return sticky_error_;
    }
    uint32_t to = groups_.FindOrInsert(key, hash, &created);
    for (size_t k = 0; k < slots_.size(); ++k) {
      if (key_part_[k] >= 0) continue;
      slots_[k].Resize(groups_.size());
      slots_[k].MergeGroup(to, later.slots_[k], g);
    }
  }
  counters_ += later.counters_;
  return absl::OkStatus();
}

void BatchAggregator::Reset() {
  groups_.Clear();
  std::fill(key_memo_.begin(), key_memo_.end(), KeyMemo());
  memo_warm_ = false;
  memo_pause_ = 0;
  for (SlotState& s : slots_) s.Clear();
  counters_ = LineCounters();
}

ResultTable BatchAggregator::Result() const {
  const plan::Plan& p = *plan_;
  const size_t ngroups = groups_.size();
  const size_t nkeys = p.group_by.size();

  // Groups in key-tuple order (§8.5 step 1).
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
      const std::string_view k = groups_.key(g);
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
                return groups_.key(a.id) < groups_.key(b.id);
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
      const std::string_view ka = groups_.key(a), kb = groups_.key(b);
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

  // Per-slot totals and sorted sums for percentage/percentile.
  std::vector<double> totals(slots_.size(), 0);
  std::vector<std::vector<double>> sorted_sums(slots_.size());
  for (const plan::Column& c : p.columns) {
    if (c.kind != ColumnKind::kPercentage &&
        c.kind != ColumnKind::kPercentile) {
      continue;
    }
    const SlotState& s = slots_[c.slot];
    if (!sorted_sums[c.slot].empty() || ngroups == 0) continue;
    std::vector<double>& sums = sorted_sums[c.slot];
    sums.reserve(ngroups);
    double total = 0;
    for (uint32_t g = 0; g < ngroups; ++g) {
      double v = s.has[g] ? s.value[g] : 0;
      total += v;
      sums.push_back(v);
    }
    std::sort(sums.begin(), sums.end());
    totals[c.slot] = total;
  }

  std::vector<ResultColumn> columns;
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const plan::Column& c = p.columns[i];
    ResultColumn rc;
    rc.name = c.name;
    rc.kind = c.kind;
    rc.field = p.fields[c.field].name;
    rc.is_group_key = c.is_group_key;
    rc.is_order_key = p.order_column && *p.order_column == i;
    columns.push_back(std::move(rc));
  }

  // The value of column `c` for group `g`; with `cell`, also its rendered
  // text (appended).
  auto cell_of = [&](const plan::Column& c, uint32_t g,
                     std::string* cell) -> double {
    const SlotState& s = slots_[c.slot];
    double value = 0;
    switch (c.kind) {
      case ColumnKind::kCount:
        value = static_cast<double>(s.count[g]);
        if (cell != nullptr) AppendGoInt(value, cell);
        return value;
      case ColumnKind::kSum:
      case ColumnKind::kLen:
        value = s.has[g] ? s.value[g] : 0;
        break;
      case ColumnKind::kMin:
      case ColumnKind::kMax:
        value = s.Extreme(g);
        break;
      case ColumnKind::kAvg:
        value =
            s.count[g] > 0 ? s.value[g] / static_cast<double>(s.count[g]) : 0;
        break;
      case ColumnKind::kLast: {
        std::string_view text;
        if (key_part_[c.slot] >= 0) {
          text = KeyPart(groups_.key(g), nkeys,
                         static_cast<size_t>(key_part_[c.slot]));
        } else if (s.has[g]) {
          text = s.text[g];
        }
        if (!ParseNumber(text, &value)) value = 0;
        if (cell != nullptr) cell->append(text.data(), text.size());
        return value;
      }
      case ColumnKind::kPercentage: {
        const double v = s.has[g] ? s.value[g] : 0;
        const double total = totals[c.slot];
        value = total != 0 ? 100 * v / total : 0;
        break;
      }
      case ColumnKind::kPercentile: {
        const double v = s.has[g] ? s.value[g] : 0;
        const std::vector<double>& sums = sorted_sums[c.slot];
        const size_t le = static_cast<size_t>(
            std::upper_bound(sums.begin(), sums.end(), v) - sums.begin());
        value = sums.empty() ? 0
                             : 100 * static_cast<double>(le) /
                                   static_cast<double>(sums.size());
        break;
      }
    }
    if (cell != nullptr) AppendGoFloat(value, cell);
    return value;
  };

  // Stable sort on the order value (§8.5 step 2); NaN sorts last. Only the
  // order column is evaluated here, so that `limit` can cut the groups
  // before any row is rendered.
  if (p.order_column) {
    const plan::Column& oc = p.columns[*p.order_column];
    std::vector<double> order_values(ngroups);
    for (uint32_t g = 0; g < ngroups; ++g) {
      order_values[g] = cell_of(oc, g, nullptr);
    }
    const bool desc = p.order_descending;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const double x = order_values[a], y = order_values[b];
      if (std::isnan(x) || std::isnan(y)) {
        return !std::isnan(x) && std::isnan(y);
      }
      return desc ? x > y : x < y;
    });
  }
  const uint64_t total_groups = ngroups;
  if (p.limit >= 0 && order.size() > static_cast<size_t>(p.limit)) {
    order.resize(static_cast<size_t>(p.limit));
  }

  ResultTable table(std::move(columns), counters_, total_groups);
  if (p.columns.empty()) return table;
  // Room for the rows, guessing 12 bytes of text per cell; grows if not.
  table.Reserve(order.size(), order.size() * p.columns.size() * 12);
  std::string cell;
  for (uint32_t g : order) {
    for (const plan::Column& c : p.columns) {
      cell.clear();
      const double value = cell_of(c, g, &cell);
      table.AppendCell(cell, value);
    }
  }
  return table;
}

}  // namespace mapr::runtime
