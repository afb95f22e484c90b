#include "runtime/batch_aggregator.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/arithmetic.h"
#include "runtime/combine_states.h"
#include "runtime/function.h"
#include "runtime/log_formats.h"
#include "runtime/result_builder.h"
#include "runtime/result_notes.h"
#include "runtime/time_functions.h"
#include "runtime/unit_functions.h"
#include "runtime/window.h"
#include "util/host_name.h"
#include "util/run_on_threads.h"
#include "util/scan.h"
#include "util/status_macros.h"

namespace mapr::runtime {
namespace {

using plan::CommonVariable;
using plan::FieldId;
using plan::Operand;
using util::ContainsTableMarker;

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
    return agg_->batch_.column(agg_->plan_->extracted_fields[field]);
  }
  char* Allocate(size_t n) override { return agg_->arena_.Allocate(n); }
  size_t line_padding() const override { return agg_->line_padding_; }

 private:
  BatchAggregator* agg_;
};

absl::StatusOr<std::unique_ptr<BatchAggregator>> BatchAggregator::Create(
    std::shared_ptr<const plan::Plan> plan, const AggregatorOptions& options) {
  std::shared_ptr<const LogFormat> format =
      plan->format != nullptr ? plan->format : FindLogFormat(plan->log_format);
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
  field_lines_.assign(extracted_names_.size(), 0);
  field_not_numeric_.assign(extracted_names_.size(), 0);
  field_example_.assign(extracted_names_.size(), std::string());
  for (size_t i = 0; i < plan_->extracted_fields.size(); ++i) {
    const FieldId id = plan_->extracted_fields[i];
    for (const plan::StateSlot& s : plan_->slots) {
      if (s.field == id &&
          s.aggregate->argument == plan::ArgumentKind::kNumber) {
        numeric_fields_.emplace_back(id, i);
        break;
      }
    }
  }
  hostname_ = options_.hostname.empty() ? util::HostName() : options_.hostname;
  const LocalZone& zone = GetLocalZone();
  timezone_ = zone.name;
  timeoffset_ = zone.offset;

  const std::vector<plan::StateSlot>& slots = plan_->slots;
  states_.resize(slots.size());
  key_part_.assign(slots.size(), -1);
  for (size_t i = 0; i < slots.size(); ++i) {
    // One row's value (last, first) of a group-by field: every row of a
    // group carries the group's key in this field, so that value is the key
    // part (a missing field is the empty part) and no state is needed.
    const auto& by = plan_->group_by;
    auto it = std::find(by.begin(), by.end(), slots[i].field);
    if (slots[i].aggregate->one_row_value && it != by.end()) {
      key_part_[i] = static_cast<int32_t>(it - by.begin());
      continue;
    }
    states_[i] = FindAggregate(*slots[i].aggregate)
                     ->new_state(plan::SlotOptions(*plan_, i));
  }

  auto per_batch_value = [&](FieldId id) {
    const plan::Field& f = plan_->fields[id];
    return f.common != CommonVariable::kNone &&
           f.common != CommonVariable::kLine && !f.assigned;
  };
  one_group_key_ = std::all_of(plan_->group_by.begin(), plan_->group_by.end(),
                               per_batch_value);
  // $line is never missing either (SelectLines keeps a blank line's view
  // non-null).
  auto never_missing = [&](FieldId id) {
    return per_batch_value(id) ||
           (plan_->fields[id].common == CommonVariable::kLine &&
            !plan_->fields[id].assigned);
  };
  every_row_contributes_ =
      std::any_of(slots.begin(), slots.end(), [&](const plan::StateSlot& s) {
        return s.aggregate->argument != plan::ArgumentKind::kNumber &&
               never_missing(s.field);
      });
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

void BatchAggregator::AllocateBatch() {
  batch_allocated_ = true;
  lines_.resize(kMaxBatchRows);
  outcomes_.resize(kMaxBatchRows);
  mismatch_ = std::make_unique<bool[]>(kMaxBatchRows);
  batch_ = BatchColumns(plan_->fields.size());
  gids_.resize(kMaxBatchRows);
  if (plan_->event_start != nullptr) event_lines_.resize(kMaxBatchRows);
}

absl::Status BatchAggregator::Push(std::span<const std::string_view> lines,
                                   uint64_t source, size_t line_padding) {
  if (!sticky_error_.ok()) return sticky_error_;
  if (plan_->event_start != nullptr) {
    return PushEvents(lines, source, line_padding);
  }
  return PushLines(lines, source, line_padding);
}

namespace {

// A line without its '\n' and the '\r' before it.
std::string_view Bare(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

absl::Status BatchAggregator::PushEvents(
    std::span<const std::string_view> lines, uint64_t source,
    size_t line_padding) {
  const parser::EventStart& rule = *plan_->event_start;
  const size_t max_bytes = options_.max_line_bytes;
  event_bytes_.clear();
  event_pieces_.clear();
  // The source's pending event: carried over from an earlier Push (in
  // `ev->text`), or begun in this one at lines[first].
  auto found = events_.find(source);
  PendingEvent* ev = found == events_.end() ? nullptr : &found->second;
  bool carried = ev != nullptr;
  size_t first = 0;
  // The pending event's size so far (joined), and whether it is too long.
  size_t size = carried ? ev->text.size() : 0;
  bool too_long = carried && ev->too_long;
  bool open = carried;
  auto complete = [&](size_t end) {
    if (too_long) {
      ++counters_.lines_read;
      ++counters_.lines_too_long;
      return;
    }
    if (!carried && end - first == 1) {
      event_pieces_.push_back(EventPiece{lines[first], 0, 0});
      return;
    }
    const size_t offset = event_bytes_.size();
    if (carried) event_bytes_.append(ev->text);
    bool empty = !carried;
    for (size_t j = first; j < end; ++j) {
      const std::string_view line = Bare(lines[j]);
      if (line.size() > max_bytes) continue;  // Dropped by itself.
      if (!empty) event_bytes_.push_back('\n');
      event_bytes_.append(line);
      empty = false;
    }
    event_pieces_.push_back(
        EventPiece{std::string_view(), offset, event_bytes_.size() - offset});
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = Bare(lines[i]);
    if (line.size() > max_bytes) {
      // A line too long is dropped by itself, as a LineSplitter drops it
      // before the engine sees it (PushBytes, files): the event around it
      // goes on.
      ++counters_.lines_read;
      ++counters_.lines_too_long;
      continue;
    }
    if (!open || rule.Starts(line)) {
      if (open) complete(i);
      open = true;
      carried = false;
      first = i;
      size = line.size();
      too_long = size > max_bytes;
    } else {
      size += 1 + line.size();
      too_long = too_long || size > max_bytes;
    }
  }
  // Keep the unfinished event: its lines die with this call.
  if (open) {
    if (ev == nullptr) ev = &events_[source];
    if (!carried) ev->text.clear();
    if (!too_long) {
      bool empty = !carried;
      for (size_t j = first; j < lines.size(); ++j) {
        const std::string_view line = Bare(lines[j]);
        if (line.size() > max_bytes) continue;  // Dropped by itself.
        if (!empty) ev->text.push_back('\n');
        ev->text.append(line);
        empty = false;
      }
    }
    if (too_long) ev->text.clear();
    ev->too_long = too_long;
  }
  if (event_pieces_.empty()) return absl::OkStatus();
  // Spare bytes after the joined events, so the format may read past each.
  event_bytes_.append(kLinePadding, '\0');
  event_views_.clear();
  for (const EventPiece& p : event_pieces_) {
    event_views_.push_back(
        p.line.data() != nullptr
            ? p.line
            : std::string_view(event_bytes_.data() + p.offset, p.size));
  }
  return PushLines(event_views_, source, line_padding);
}

absl::Status BatchAggregator::FlushEvent(uint64_t source) {
  auto it = events_.find(source);
  if (it == events_.end()) return absl::OkStatus();
  PendingEvent ev = std::move(it->second);
  events_.erase(it);
  if (ev.too_long) {
    ++counters_.lines_read;
    ++counters_.lines_too_long;
    return absl::OkStatus();
  }
  const size_t size = ev.text.size();
  ev.text.append(kLinePadding, '\0');
  const std::string_view view(ev.text.data(), size);
  return PushLines({&view, 1}, source, kLinePadding);
}

absl::Status BatchAggregator::FlushEvents() {
  if (!sticky_error_.ok()) return sticky_error_;
  std::vector<uint64_t> sources;
  sources.reserve(events_.size());
  for (const auto& [source, ev] : events_) sources.push_back(source);
  std::sort(sources.begin(), sources.end());
  for (uint64_t source : sources) MAPR_RETURN_IF_ERROR(FlushEvent(source));
  return absl::OkStatus();
}

absl::Status BatchAggregator::EndSource(uint64_t source) {
  absl::Status s = sticky_error_.ok() ? FlushEvent(source) : sticky_error_;
  parsers_.erase(source);
  return s;
}

absl::Status BatchAggregator::PushLines(std::span<const std::string_view> lines,
                                        uint64_t source, size_t line_padding) {
  if (!sticky_error_.ok()) return sticky_error_;
  // (Trimming only moves a line's end back, so the padding still holds.)
  line_padding_ = line_padding;
  while (!lines.empty()) {
    const size_t n = std::min(lines.size(), kMaxBatchRows);
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
  if (!batch_allocated_) AllocateBatch();
  const plan::Plan& p = *plan_;
  batch_.NextBatch();
  arena_.Reset();
  counters_.lines_read += in.size();
  batch_in_ = in;

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
  const size_t rows = SelectLines(in, table_parser != nullptr);
  if (rows == 0) return absl::OkStatus();
  MAPR_RETURN_IF_ERROR(ParseLines(rows, source, table_parser));
  if (batch_.sel_size == 0) return absl::OkStatus();
  FillCommonVariables(source);

  // set (the part `where` reads), where, the rest of set.
  RunSets(p.sets_before_where);
  if (p.where) {
    const size_t before = batch_.sel_size;
    filter_.Filter(*p.where, batch_);
    counters_.lines_filtered += before - batch_.sel_size;
  }
  RunSets(p.sets);
  return Aggregate();
}

size_t BatchAggregator::SelectLines(std::span<const std::string_view> in,
                                    bool table_in_parser) {
  const plan::Plan& p = *plan_;
  const bool multiline = p.event_start != nullptr;
  size_t m = 0;
  for (std::string_view raw : in) {
    if (RawLength(raw) > options_.max_line_bytes) {
      ++counters_.lines_too_long;
      continue;
    }
    std::string_view line = Trim(raw);
    if (multiline) {
      // The format reads the event's first line; $line is the event.
      event_lines_[m] = line;
      const size_t nl = line.find('\n');
      if (nl != std::string_view::npos) {
        line = Trim(line.substr(0, nl));
        raw = line;
      }
    }
    // (The marker starts and ends with '|', so the trimmed line holds it
    // exactly when the raw one does.)
    if (!table_in_parser) {
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
  return m;
}

void BatchAggregator::NoteFirstUnparsable(size_t r) {
  // lines_[r] is a trimmed view into one of the batch's lines (once per
  // aggregator, so a scan is cheap).
  const char* at = lines_[r].data();
  const uint64_t batch_start = counters_.lines_read - batch_in_.size();
  for (size_t i = 0; i < batch_in_.size(); ++i) {
    const std::string_view raw = batch_in_[i];
    if (at >= raw.data() && at <= raw.data() + raw.size()) {
      first_unparsable_line_ = batch_start + i + 1;
      return;
    }
  }
}

absl::Status BatchAggregator::ParseLines(size_t rows, uint64_t source,
                                         TableFilteringParser* table_parser) {
  const plan::Plan& p = *plan_;
  for (FieldId id : p.extracted_fields) {
    std::fill_n(batch_.column(id), rows, std::string_view());
  }
  const std::span<const std::string_view> lines(lines_.data(), rows);
  Fields fields(this);
  if (table_parser != nullptr) {
    table_parser->ParseBatchInTable(lines, p.table_marker, fields,
                                    outcomes_.data(), mismatch_.get());
  } else {
    absl::StatusOr<LogFormatParser*> parser = ParserFor(source);
    if (!parser.ok()) return parser.status();
    (*parser)->ParseBatch(lines, fields, outcomes_.data());
  }
  size_t selected = 0;
  for (size_t r = 0; r < rows; ++r) {
    if (table_parser != nullptr && mismatch_[r]) {
      ++counters_.lines_table_mismatch;
      continue;
    }
    switch (outcomes_[r]) {
      case LineOutcome::kParsed:
        batch_.sel[selected++] = static_cast<uint32_t>(r);
        break;
      case LineOutcome::kIgnored:
        ++counters_.lines_ignored;
        break;
      case LineOutcome::kMalformed:
        if (first_unparsable_line_ == 0) NoteFirstUnparsable(r);
        ++counters_.lines_malformed;
        break;
      case LineOutcome::kUnmatched:
        if (first_unparsable_line_ == 0) NoteFirstUnparsable(r);
        ++counters_.lines_unmatched;
        break;
      case LineOutcome::kHeader:
        ++counters_.lines_header;
        break;
    }
  }
  batch_.sel_size = selected;
  // Lines with a value, per extracted field (ResultTable::field_counts).
  // Usually every row was parsed: then the rows are [0, selected) and the
  // count is a plain (vectorizable) scan.
  const bool dense = selected == rows;
  for (size_t i = 0; i < p.extracted_fields.size(); ++i) {
    const std::string_view* col = batch_.column(p.extracted_fields[i]);
    uint64_t found = 0;
    if (dense) {
      for (size_t r = 0; r < selected; ++r) found += col[r].data() != nullptr;
    } else {
      for (size_t k = 0; k < selected; ++k) {
        found += col[batch_.sel[k]].data() != nullptr;
      }
    }
    field_lines_[i] += found;
  }
  return absl::OkStatus();
}

void BatchAggregator::FillCommonVariables(uint64_t source) {
  const plan::Plan& p = *plan_;
  for (FieldId id = 0; id < p.fields.size(); ++id) {
    CommonVariable var = p.fields[id].common;
    if (var == CommonVariable::kNone) continue;
    std::string_view* col = batch_.column(id);
    if (var == CommonVariable::kLine) {
      const std::vector<std::string_view>& whole =
          p.event_start != nullptr ? event_lines_ : lines_;
      for (size_t i = 0; i < batch_.sel_size; ++i)
        col[batch_.sel[i]] = whole[batch_.sel[i]];
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
      case CommonVariable::kFile: {
        auto it = source_names_.find(source);
        if (it != source_names_.end()) v = it->second;
        break;
      }
      default:
        break;
    }
    if (v.data() == nullptr) v = FieldBatch::kEmptyValue;
    for (size_t i = 0; i < batch_.sel_size; ++i) col[batch_.sel[i]] = v;
  }
}

void BatchAggregator::ApplyCall(const plan::FunctionStep& f,
                                std::span<std::string_view> values) {
  FunctionContext ctx{arena_, time_reader_};
  FunctionOf(*f.info).apply(f.binding.get(), values, unreadable_.data(), ctx);
}

std::span<std::string_view> BatchAggregator::EvalProgram(
    const plan::SetStep& step) {
  const size_t n = batch_.sel_size;
  size_t depth = 0;
  // A column of the stack (reused from batch to batch).
  auto push = [&]() -> std::vector<std::string_view>& {
    if (columns_.size() <= depth) columns_.emplace_back();
    std::vector<std::string_view>& c = columns_[depth++];
    c.resize(n);
    return c;
  };
  for (const plan::ExprOp& op : step.program) {
    switch (op.kind) {
      case plan::ExprOp::Kind::kField: {
        std::vector<std::string_view>& c = push();
        const std::string_view* col = batch_.column(op.field);
        for (size_t i = 0; i < n; ++i) c[i] = col[batch_.sel[i]];
        break;
      }
      case plan::ExprOp::Kind::kLiteral:
        std::fill_n(push().begin(), n, std::string_view(op.text));
        break;
      case plan::ExprOp::Kind::kFunction:
        ApplyCall(op.function, std::span(columns_[depth - 1].data(), n));
        break;
      case plan::ExprOp::Kind::kCoalesce: {
        // The first present value of each row, into the first column.
        const size_t first = depth - op.args;
        std::vector<std::string_view>& out = columns_[first];
        for (size_t k = first + 1; k < depth; ++k) {
          const std::vector<std::string_view>& c = columns_[k];
          for (size_t i = 0; i < n; ++i) {
            if (out[i].data() == nullptr) out[i] = c[i];
          }
        }
        depth = first + 1;
        break;
      }
      default: {
        const ArithmeticOp aop =
            op.kind == plan::ExprOp::Kind::kAdd        ? ArithmeticOp::kAdd
            : op.kind == plan::ExprOp::Kind::kSubtract ? ArithmeticOp::kSubtract
            : op.kind == plan::ExprOp::Kind::kMultiply ? ArithmeticOp::kMultiply
                                                       : ArithmeticOp::kDivide;
        const std::vector<std::string_view>& b = columns_[depth - 1];
        std::vector<std::string_view>& a = columns_[depth - 2];
        --depth;
        for (size_t i = 0; i < n; ++i) {
          if (a[i].data() == nullptr || b[i].data() == nullptr) {
            a[i] = std::string_view();  // Missing in, missing out.
            continue;
          }
          char buffer[kMaxArithmeticTextSize];
          size_t size = 0;
          if (Arithmetic(aop, a[i], b[i], buffer, &size) !=
              ArithmeticOutcome::kOk) {
            unreadable_[i] = 1;  // Not a number, or a division by zero.
            a[i] = std::string_view();
            continue;
          }
          a[i] = arena_.Copy(std::string_view(buffer, size));
        }
        break;
      }
    }
  }
  return std::span(columns_[0].data(), n);
}

void BatchAggregator::RunSets(const std::vector<plan::SetStep>& steps) {
  const size_t n = batch_.sel_size;
  for (const plan::SetStep& step : steps) {
    std::string_view* target = batch_.column(step.target);
    // Set for a row whose value could not be read or computed: counted
    // once per line and step, however many calls failed.
    unreadable_.assign(n, 0);
    std::span<std::string_view> values;
    if (!step.program.empty()) {
      values = EvalProgram(step);
    } else {
      values_.resize(n);
      values = std::span(values_.data(), n);
      if (step.source.kind == Operand::Kind::kField) {
        const std::string_view* source = batch_.column(step.source.field);
        for (size_t i = 0; i < n; ++i) values[i] = source[batch_.sel[i]];
      } else {
        std::fill(values.begin(), values.end(),
                  std::string_view(step.source.text));
      }
      for (const plan::FunctionStep& f : step.functions) ApplyCall(f, values);
    }
    uint64_t unparsed = 0;
    for (size_t i = 0; i < n; ++i) {
      std::string_view v = values[i];
      if (v.data() != nullptr && v.empty()) v = FieldBatch::kEmptyValue;
      target[batch_.sel[i]] = v;
      unparsed += unreadable_[i];
    }
    if (step.count_unparsed) counters_.values_unparsed += unparsed;
    batch_.Invalidate(step.target);  // Its numbers are stale now.
  }
}

void BatchAggregator::ResizeStates() {
  for (std::unique_ptr<AggregateState>& s : states_) {
    if (s != nullptr) s->Resize(groups_.size());
  }
}

void BatchAggregator::CountNotNumeric() {
  for (const auto& [field, index] : numeric_fields_) {
    const std::string_view* col = batch_.column(field);
    const uint8_t* numeric = batch_.numeric_of(field);
    uint64_t found = 0;
    for (size_t i = 0; i < batch_.sel_size; ++i) {
      const uint32_t r = batch_.sel[i];
      if (numeric[r] || col[r].empty()) continue;  // Missing, or empty.
      ++found;
      const std::string_view v = col[r].substr(0, kMaxExampleBytes);
      if (field_not_numeric_[index] + found == 1 || v < field_example_[index]) {
        field_example_[index].assign(v.data(), v.size());
      }
    }
    field_not_numeric_[index] += found;
  }
}

void BatchAggregator::MergeNotNumeric(size_t index, uint64_t count,
                                      std::string_view example) {
  if (count == 0) return;
  if (field_not_numeric_[index] == 0 || example < field_example_[index]) {
    field_example_[index].assign(example.data(), example.size());
  }
  field_not_numeric_[index] += count;
}

absl::Status BatchAggregator::Aggregate() {
  const plan::Plan& p = *plan_;
  // Keep rows from which at least one select item takes a value.
  for (const plan::StateSlot& s : p.slots) {
    if (s.aggregate->argument == plan::ArgumentKind::kNumber) {
      batch_.EnsureNumeric(s.field);
    }
  }
  CountNotNumeric();
  size_t kept = batch_.sel_size;
  if (!every_row_contributes_) {
    kept = 0;
    for (size_t i = 0; i < batch_.sel_size; ++i) {
      const uint32_t r = batch_.sel[i];
      bool contributes = false;
      for (const plan::StateSlot& s : p.slots) {
        contributes = s.aggregate->argument == plan::ArgumentKind::kNumber
                          ? batch_.numeric_of(s.field)[r] != 0
                          : batch_.column(s.field)[r].data() != nullptr;
        if (contributes) break;
      }
      batch_.sel[kept] = r;
      kept += contributes;
    }
  }
  counters_.lines_without_value += batch_.sel_size - kept;
  counters_.lines_aggregated += kept;
  batch_.sel_size = kept;
  if (kept == 0) return absl::OkStatus();

  absl::Status s = lookup_.Assign(p.group_by, batch_, options_.max_groups,
                                  groups_, gids_.data(), one_group_key_);
  // Groups created before a failing row still get (empty) state, so the
  // table stays consistent whatever the caller does next.
  ResizeStates();
  if (!s.ok()) return s;
  for (size_t k = 0; k < states_.size(); ++k) {
    if (states_[k] == nullptr) continue;
    const FieldId f = p.slots[k].field;
    const FieldRows rows{batch_.column(f), batch_.numbers_of(f),
                         batch_.numeric_of(f)};
    states_[k]->Update(rows, batch_.sel.data(), gids_.data(), batch_.sel_size);
  }
  return absl::OkStatus();
}

absl::Status BatchAggregator::CombineStates(const BatchAggregator& later,
                                            uint32_t groups, size_t threads) {
  ResizeStates();
  return CombineSlots(*plan_, states_, later.states_, merge_to_.data(), groups,
                      threads);
}

absl::Status BatchAggregator::CheckMergedCounts(
    const BatchAggregator& later) const {
  auto refused = [](const std::string& what) {
    return absl::DataLossError(absl::StrCat(
        what,
        " overflows when merged: the partials' counts pass 64 bits (the "
        "partials cannot be of real input)"));
  };
  uint64_t sum;
  for (const LineCounterField& f : kLineCounterFields) {
    if (__builtin_add_overflow(counters_.*f.value, later.counters_.*f.value,
                               &sum)) {
      return refused(std::string(f.name));
    }
  }
  for (size_t i = 0; i < field_lines_.size(); ++i) {
    if (__builtin_add_overflow(field_lines_[i], later.field_lines_[i], &sum)) {
      return refused(absl::StrCat("the count of lines with field '",
                                  extracted_names_[i], "'"));
    }
    if (__builtin_add_overflow(field_not_numeric_[i],
                               later.field_not_numeric_[i], &sum)) {
      return refused(absl::StrCat("the count of values of field '",
                                  extracted_names_[i],
                                  "' that were not numbers"));
    }
  }
  return absl::OkStatus();
}

void BatchAggregator::FindMergeTargets(const BatchAggregator& later,
                                       uint32_t lo, uint32_t hi) {
  // In runs of kRun groups: hash each and start loading its bucket, then
  // look them up, so that with large tables the loads overlap. merge_to_
  // is written at [lo, hi) only.
  constexpr uint32_t kRun = 16;
  uint64_t hashes[kRun];
  for (uint32_t g = lo; g < hi; g += kRun) {
    const uint32_t end = std::min(hi, g + kRun);
    for (uint32_t k = g; k < end; ++k) {
      hashes[k - g] = later.groups_.hash(k);
      groups_.Prefetch(hashes[k - g]);
    }
    for (uint32_t k = g; k < end; ++k) {
      merge_to_[k] = groups_.Find(later.groups_.key(k), hashes[k - g]);
    }
  }
}

absl::Status BatchAggregator::Merge(const BatchAggregator& later,
                                    size_t min_groups_per_thread) {
  if (later.plan_->canonical != plan_->canonical) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot merge a partial of a different query: '",
        later.plan_->canonical, "' into '", plan_->canonical, "'"));
  }
  if (!sticky_error_.ok()) return sticky_error_;  // Sticky for Merge too.
  if (!later.sticky_error_.ok()) return later.sticky_error_;
  // Refused before anything changes.
  MAPR_RETURN_IF_ERROR(CheckMergedCounts(later));
  const uint32_t n = later.groups_.size();
  merge_to_.resize(n);
  // First, reading this table only: where each of later's groups is here.
  // With a million groups that is mostly cache misses on this table, so it
  // runs on slices of later's groups on several threads.
  const size_t threads =
      util::ThreadsFor(n, options_.result_threads, min_groups_per_thread);
  util::RunOnThreads(threads, [&](size_t t) {
    FindMergeTargets(later, static_cast<uint32_t>(size_t{n} * t / threads),
                     static_cast<uint32_t>(size_t{n} * (t + 1) / threads));
  });
  // Then the groups this table lacks, one by one in later's order, so that
  // they get the ids a serial merge gives them.
  for (uint32_t g = 0; g < n; ++g) {
    if (merge_to_[g] != GroupTable::kNotFound) continue;
    if (options_.max_groups != 0 && groups_.size() >= options_.max_groups) {
      // The groups found so far are combined, so the state stays whole.
      const absl::Status combined = CombineStates(later, g);
      sticky_error_ =
          combined.ok()
              ? absl::ResourceExhaustedError(absl::StrCat(
                    MoreGroupsThan(options_.max_groups), " after merging"))
              : combined;
      return sticky_error_;
    }
    // Hashed again rather than kept from the look-up: 8 bytes per group
    // of `later` held through the result would cost more than the hashing.
    bool created;
    merge_to_[g] = groups_.FindOrInsert(later.groups_.key(g),
                                        later.groups_.hash(g), &created);
  }
  if (absl::Status s = CombineStates(later, n, threads); !s.ok()) {
    sticky_error_ = s;
    return s;
  }
  if (first_unparsable_line_ == 0 && later.first_unparsable_line_ != 0) {
    first_unparsable_line_ =
        counters_.lines_read + later.first_unparsable_line_;
  }
  counters_ += later.counters_;
  dropped_groups_ += later.dropped_groups_;
  for (size_t i = 0; i < field_lines_.size(); ++i) {
    field_lines_[i] += later.field_lines_[i];
    MergeNotNumeric(i, later.field_not_numeric_[i], later.field_example_[i]);
  }
  return absl::OkStatus();
}

void BatchAggregator::Reset() {
  groups_.Clear();
  lookup_.Reset();
  for (std::unique_ptr<AggregateState>& s : states_) {
    if (s != nullptr) s->Clear();
  }
  counters_ = LineCounters();
  first_unparsable_line_ = 0;
  dropped_groups_ = 0;
  std::fill(field_lines_.begin(), field_lines_.end(), 0);
  std::fill(field_not_numeric_.begin(), field_not_numeric_.end(), 0);
  for (std::string& e : field_example_) e.clear();
}

absl::StatusOr<bool> BatchAggregator::KeepResultGroups() {
  if (!ResultNeedsOnlyShownGroups(*plan_)) return false;
  const ResultRows shown =
      ResultOrder(*plan_, GroupStates{groups_, states_, key_part_},
                  options_.result_threads);
  if (shown.rows.size() < groups_.size()) {
    // The shown groups' states, copied through their serialized form into
    // an engine of their own, whose groups and states are then these.
    MAPR_ASSIGN_OR_RETURN(std::unique_ptr<BatchAggregator> kept,
                          Create(plan_, options_));
    kept->groups_.Reserve(shown.rows.size());
    for (const std::unique_ptr<AggregateState>& s : kept->states_) {
      if (s != nullptr) s->Resize(shown.rows.size());
    }
    std::string bytes;
    for (const uint32_t g : shown.rows) {
      bool created;
      const uint32_t id =
          kept->groups_.FindOrInsert(groups_.key(g), groups_.hash(g), &created);
      for (size_t k = 0; k < states_.size(); ++k) {
        if (states_[k] == nullptr) continue;
        bytes.clear();
        states_[k]->Serialize(g, &bytes);
        std::string_view in = bytes;
        if (!kept->states_[k]->Deserialize(&in, id) || !in.empty()) {
          return absl::InternalError("a state does not read back its bytes");
        }
      }
    }
    std::swap(groups_, kept->groups_);
    std::swap(states_, kept->states_);
    lookup_.Reset();
  }
  dropped_groups_ += shown.kept - shown.rows.size();
  return true;
}

void BatchAggregator::SwapState(BatchAggregator& other) {
  std::swap(dropped_groups_, other.dropped_groups_);
  std::swap(groups_, other.groups_);
  std::swap(states_, other.states_);
  std::swap(counters_, other.counters_);
  std::swap(first_unparsable_line_, other.first_unparsable_line_);
  std::swap(field_lines_, other.field_lines_);
  std::swap(field_not_numeric_, other.field_not_numeric_);
  std::swap(field_example_, other.field_example_);
  // The lookup memo points at groups of the table it was filled from.
  lookup_.Reset();
  other.lookup_.Reset();
}

absl::StatusOr<ResultTable> BatchAggregator::Result(
    size_t threads, size_t min_groups_per_thread) const {
  // A window query's groups hold hops: join them into windows first
  // (window.h), within max_groups.
  std::optional<WindowGroups> windows;
  if (plan_->window) {
    absl::StatusOr<WindowGroups> joined =
        JoinWindows(*plan_, groups_, states_, threads, min_groups_per_thread,
                    options_.max_groups);
    if (!joined.ok()) return joined.status();
    windows = std::move(*joined);
  }
  ResultTable table = BuildResult(
      *plan_,
      windows ? GroupStates{windows->groups, windows->states, key_part_,
                            dropped_groups_}
              : GroupStates{groups_, states_, key_part_, dropped_groups_},
      counters_, threads, min_groups_per_thread);
  std::vector<FieldCount> fields(field_lines_.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    fields[i] = {extracted_names_[i], field_lines_[i], field_not_numeric_[i],
                 field_example_[i]};
  }
  table.set_notes(
      ResultNotes(FactsOf(*plan_, counters_, fields, options_.max_line_bytes)));
  table.set_field_counts(std::move(fields));
  return table;
}

}  // namespace mapr::runtime
