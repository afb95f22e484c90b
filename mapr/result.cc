#include "mapr/result.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "util/prefault.h"

namespace mapr {
namespace {

bool SameColumn(const ResultColumn& a, const ResultColumn& b) {
  return a.name == b.name && a.aggregate == b.aggregate && a.type == b.type &&
         a.field == b.field && a.is_group_key == b.is_group_key &&
         a.is_order_key == b.is_order_key && a.is_bucket == b.is_bucket &&
         a.is_time_bucket == b.is_time_bucket;
}

// Bitwise equality, except that every NaN equals every NaN.
bool SameValue(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint64_t x;
  uint64_t y;
  std::memcpy(&x, &a, sizeof(x));
  std::memcpy(&y, &b, sizeof(y));
  return x == y;
}

// Collects rendered output in a buffer and hands it to the sink in chunks.
class ChunkWriter {
 public:
  explicit ChunkWriter(ResultSink sink) : sink_(sink) {
    buf_.reserve(kChunk + 4096);
  }
  // No flush here: the sink may throw (std::bad_alloc from a string), which
  // must not happen in a destructor; every writer calls Flush() at its end.
  ~ChunkWriter() = default;
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  std::string* out() { return &buf_; }
  // Call between rows.
  void MaybeFlush() {
    if (buf_.size() >= kChunk) Flush();
  }
  void Flush() {
    if (!buf_.empty()) sink_(buf_);
    buf_.clear();
  }

 private:
  static constexpr size_t kChunk = 64 * 1024;
  ResultSink sink_;
  std::string buf_;
};

// ---------------------------------------------------------------- CSV

bool NeedsCsvQuotes(std::string_view s) {
  for (char c : s) {
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  }
  return false;
}

// True if `s` holds a byte that makes a CSV value need quotes: one pass,
// 16 bytes at a time where SSE2 is there.
bool HasCsvSpecial(std::string_view s) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i cr = _mm_set1_epi8('\r');
  const __m128i lf = _mm_set1_epi8('\n');
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, quote)),
        _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf)));
    if (_mm_movemask_epi8(hit) != 0) return true;
  }
#endif
  return NeedsCsvQuotes(s.substr(i));
}

void AppendCsvValue(std::string_view s, std::string* out) {
  if (!NeedsCsvQuotes(s)) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// --------------------------------------------------------------- JSON

// True if `s` matches the JSON number grammar:
//   -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  auto is_digit = [&](size_t k) { return k < n && s[k] >= '0' && s[k] <= '9'; };
  if (i < n && s[i] == '-') ++i;
  if (!is_digit(i)) return false;
  if (s[i] == '0') {
    ++i;
  } else {
    while (is_digit(i)) ++i;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (!is_digit(i)) return false;
    while (is_digit(i)) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!is_digit(i)) return false;
    while (is_digit(i)) ++i;
  }
  return i == n;
}

// Length of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80),
// or 0 if it is ill-formed. On 0, *bad_len is the length of the maximal
// subpart to replace by one U+FFFD (Unicode 15 §3.9, the same policy as
// Python's bytes.decode(errors="replace") and WHATWG).
size_t Utf8SequenceLength(std::string_view s, size_t i, size_t* bad_len) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = b(i);
  size_t len;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    if (lead == 0xE0) lo = 0xA0;  // No overlong forms.
    if (lead == 0xED) hi = 0x9F;  // No surrogates.
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    if (lead == 0xF0) lo = 0x90;  // No overlong forms.
    if (lead == 0xF4) hi = 0x8F;  // Nothing above U+10FFFF.
  } else {
    *bad_len = 1;  // Stray continuation byte, C0, C1 or F5..FF.
    return 0;
  }
  size_t k = 1;
  for (; k < len; ++k) {
    if (i + k >= s.size()) break;
    const unsigned char c = b(i + k);
    const unsigned char min = k == 1 ? lo : 0x80;
    const unsigned char max = k == 1 ? hi : 0xBF;
    if (c < min || c > max) break;
  }
  if (k == len) return len;
  *bad_len = k;
  return 0;
}

// Appends `s` as a JSON string literal, quotes included. The output is
// always valid JSON and valid UTF-8.
void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    // Fast path: copy a run of printable ASCII that needs no escaping.
    size_t run = i;
    while (run < n) {
      const unsigned char c = static_cast<unsigned char>(s[run]);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
      ++run;
    }
    out->append(s.data() + i, run - i);
    i = run;
    if (i >= n) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20) {
      const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out->append(esc, sizeof(esc));
      ++i;
    } else {
      size_t bad_len = 0;
      const size_t len = Utf8SequenceLength(s, i, &bad_len);
      if (len > 0) {
        out->append(s.data() + i, len);
        i += len;
      } else {
        out->append("\\ufffd");
        i += bad_len;
      }
    }
  }
  out->push_back('"');
}

// Appends one cell as a JSON value. Numeric kinds emit the rendered text as a
// JSON number; text that is not a JSON number (NaN, +Inf, -Inf, or anything
// unexpected) becomes a JSON string so the document stays valid.
void AppendJsonValue(ValueType type, std::string_view cell, std::string* out) {
  if (type != ValueType::kText && IsJsonNumber(cell)) {
    out->append(cell);
  } else {
    AppendJsonString(cell, out);
  }
}

// The JSON keys, each already encoded as `"name":`.
std::vector<std::string> EncodeJsonKeys(
    const std::vector<ResultColumn>& columns) {
  std::vector<std::string> keys;
  keys.reserve(columns.size());
  for (const ResultColumn& c : columns) {
    std::string key;
    key.reserve(c.name.size() + 3);
    AppendJsonString(c.name, &key);
    key.push_back(':');
    keys.push_back(std::move(key));
  }
  return keys;
}

void AppendJsonObject(const ResultTable& t,
                      const std::vector<std::string>& keys, size_t row,
                      std::string* out) {
  out->push_back('{');
  for (size_t c = 0; c < t.num_columns(); ++c) {
    if (c > 0) out->push_back(',');
    out->append(keys[c]);
    AppendJsonValue(t.columns()[c].type, t.cell(row, c), out);
  }
  out->push_back('}');
}

}  // namespace

// kLineCounterFields lists every LineCounters field exactly once, in
// declaration order: LineCounters is nothing but the listed uint64_t fields,
// and numbering the fields through the list numbers the struct's words
// 1, 2, 3, ...
constexpr size_t kNumLineCounters = std::size(kLineCounterFields);
static_assert(sizeof(LineCounters) == kNumLineCounters * sizeof(uint64_t),
              "a LineCounters field is missing from kLineCounterFields");
static_assert(
    [] {
      LineCounters c;
      for (size_t i = 0; i < kNumLineCounters; ++i) {
        c.*kLineCounterFields[i].value = i + 1;
      }
      const auto words =
          std::bit_cast<std::array<uint64_t, kNumLineCounters>>(c);
      for (size_t i = 0; i < kNumLineCounters; ++i) {
        if (words[i] != i + 1) return false;
      }
      return true;
    }(),
    "kLineCounterFields is not in LineCounters' declaration order");

LineCounters& LineCounters::operator+=(const LineCounters& o) {
  for (const LineCounterField& f : kLineCounterFields) {
    this->*f.value += o.*f.value;
  }
  return *this;
}

ResultTable::ResultTable(std::vector<ResultColumn> columns,
                         const std::vector<ResultRow>& rows, LineCounters stats,
                         uint64_t total_groups)
    : columns_(std::move(columns)), stats_(stats), total_groups_(total_groups) {
  if (columns_.empty()) return;
  for (const ResultRow& row : rows) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      AppendCell(c < row.cells.size() ? row.cells[c] : std::string_view(),
                 c < row.values.size() ? row.values[c] : 0);
    }
  }
}

// Reserves room for `n` elements in `v` and prefaults what a reallocation
// left spare (util/prefault.h): a result of a million groups writes ~90 MB
// into memory just reserved, and page faults were a third of its rendering
// time in a VM.
template <typename V>
static void ReservePrefaulted(V& v, size_t n) {
  const size_t before = v.capacity();
  v.reserve(n);
  if (v.capacity() == before) return;
  util::PrefaultForWrite(v.data() + v.size(),
                         (v.capacity() - v.size()) * sizeof(v[0]));
}

void ResultTable::Reserve(size_t rows, size_t text_bytes) {
  const size_t cells = rows * columns_.size();
  ReservePrefaulted(text_, text_.size() + text_bytes + cells);
  ReservePrefaulted(ends_, ends_.size() + cells);
  ReservePrefaulted(values_, values_.size() + cells);
}

void ResultTable::AppendCells(std::vector<ResultTable> parts) {
  size_t text = text_.size(), cells = ends_.size();
  for (const ResultTable& part : parts) {
    text += part.text_.size();
    cells += part.ends_.size();
  }
  // Exact sizes, so that nothing prefaulted here stays unwritten.
  ReservePrefaulted(text_, text);
  ReservePrefaulted(ends_, cells);
  ReservePrefaulted(values_, cells);
  for (ResultTable& part : parts) {
    const size_t shift = text_.size();
    text_.append(part.text_);
    for (size_t end : part.ends_) ends_.push_back(end + shift);
    values_.insert(values_.end(), part.values_.begin(), part.values_.end());
    part = ResultTable();
  }
}

ResultRow ResultTable::row(size_t row) const {
  ResultRow r;
  r.cells.reserve(columns_.size());
  r.values.reserve(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    r.cells.emplace_back(cell(row, c));
    r.values.push_back(value(row, c));
  }
  return r;
}

std::vector<ResultRow> ResultTable::CopyRows() const {
  std::vector<ResultRow> rows;
  rows.reserve(num_rows());
  for (size_t r = 0; r < num_rows(); ++r) rows.push_back(row(r));
  return rows;
}

bool operator==(const ResultTable& a, const ResultTable& b) {
  if (!(a.stats_ == b.stats_) || a.total_groups_ != b.total_groups_ ||
      a.columns_.size() != b.columns_.size() || a.text_ != b.text_ ||
      a.ends_ != b.ends_ || a.values_.size() != b.values_.size()) {
    return false;
  }
  for (size_t i = 0; i < a.columns_.size(); ++i) {
    if (!SameColumn(a.columns_[i], b.columns_[i])) return false;
  }
  for (size_t i = 0; i < a.values_.size(); ++i) {
    if (!SameValue(a.values_[i], b.values_[i])) return false;
  }
  return true;
}

std::string ResultTable::ToTable(const TableOptions& options) const {
  std::string out;
  WriteTable(options, [&out](std::string_view c) { out.append(c); });
  return out;
}

std::string ResultTable::ToCsv() const {
  std::string out;
  WriteCsv([&out](std::string_view c) { out.append(c); });
  return out;
}

std::string ResultTable::ToJson() const {
  std::string out;
  WriteJson([&out](std::string_view c) { out.append(c); });
  return out;
}

std::string ResultTable::RowToJson(size_t row) const {
  std::string out;
  AppendJsonObject(*this, EncodeJsonKeys(columns_), row, &out);
  return out;
}

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

std::string ResultTable::ToNdjson() const {
  std::string out;
  WriteNdjson([&out](std::string_view c) { out.append(c); });
  return out;
}

void ResultTable::WriteTable(const TableOptions& options,
                             ResultSink sink) const {
  const size_t ncols = columns_.size();
  const size_t nrows = num_rows();
  std::vector<size_t> widths(ncols);
  for (size_t c = 0; c < ncols; ++c) widths[c] = columns_[c].name.size();
  // Widths consider every row, printed or not (DTail does the same).
  for (size_t r = 0; r < nrows; ++r) {
    for (size_t c = 0; c < ncols; ++c) {
      widths[c] = std::max(widths[c], cell(r, c).size());
    }
  }
  size_t printed = nrows;
  if (options.max_rows >= 0 &&
      static_cast<uint64_t>(options.max_rows) < printed) {
    printed = static_cast<size_t>(options.max_rows);
  }

  ChunkWriter w(sink);
  std::string& out = *w.out();
  auto append_line = [&](auto&& text_of) {
    for (size_t c = 0; c < ncols; ++c) {
      if (c > 0) out.push_back('|');
      const std::string_view text = text_of(c);
      out.push_back(' ');
      out.append(widths[c] - text.size(), ' ');
      out.append(text);
      out.push_back(' ');
    }
    out.push_back('\n');
  };

  append_line([&](size_t c) -> std::string_view { return columns_[c].name; });
  for (size_t c = 0; c < ncols; ++c) {
    if (c > 0) out.push_back('|');
    out.append(widths[c] + 2, '-');
  }
  out.push_back('\n');
  for (size_t r = 0; r < printed; ++r) {
    append_line([&](size_t c) { return cell(r, c); });
    w.MaybeFlush();
  }
  w.Flush();
}

void ResultTable::WriteCsv(ResultSink sink) const {
  const size_t ncols = columns_.size();
  ChunkWriter w(sink);
  std::string& out = *w.out();
  for (size_t c = 0; c < ncols; ++c) {
    if (c > 0) out.push_back(',');
    AppendCsvValue(columns_[c].name, &out);
  }
  out.push_back('\n');
  // Usually no cell anywhere needs quotes. Then a row is written as its
  // cells' text in one copy, the NUL after each cell turned into ',' (or
  // '\n' after the last).
  const bool plain = ncols > 0 && !HasCsvSpecial(text_);
  for (size_t r = 0; r < num_rows(); ++r) {
    if (plain) {
      const size_t first = r * ncols;
      const size_t begin = first == 0 ? 0 : ends_[first - 1] + 1;
      const size_t end = ends_[first + ncols - 1] + 1;
      const size_t at = out.size();
      out.append(text_.data() + begin, end - begin);
      for (size_t c = 0; c + 1 < ncols; ++c) {
        out[at + (ends_[first + c] - begin)] = ',';
      }
      out.back() = '\n';
    } else {
      for (size_t c = 0; c < ncols; ++c) {
        if (c > 0) out.push_back(',');
        AppendCsvValue(cell(r, c), &out);
      }
      out.push_back('\n');
    }
    w.MaybeFlush();
  }
  w.Flush();
}

void ResultTable::WriteJson(ResultSink sink) const {
  const std::vector<std::string> keys = EncodeJsonKeys(columns_);
  ChunkWriter w(sink);
  std::string& out = *w.out();
  out.push_back('[');
  for (size_t r = 0; r < num_rows(); ++r) {
    if (r > 0) out.push_back(',');
    AppendJsonObject(*this, keys, r, &out);
    w.MaybeFlush();
  }
  out.append("]\n");
  w.Flush();
}

void ResultTable::WriteNdjson(ResultSink sink) const {
  const std::vector<std::string> keys = EncodeJsonKeys(columns_);
  ChunkWriter w(sink);
  std::string& out = *w.out();
  for (size_t r = 0; r < num_rows(); ++r) {
    AppendJsonObject(*this, keys, r, &out);
    out.push_back('\n');
    w.MaybeFlush();
  }
  w.Flush();
}

}  // namespace mapr
