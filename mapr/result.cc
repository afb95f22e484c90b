#include "mapr/result.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mapr {
namespace {

// Rows built by hand may have fewer cells than columns; a missing cell renders
// as empty text instead of reading out of bounds.
std::string_view CellOrEmpty(const ResultRow& row, size_t col) {
  if (col < row.cells.size()) return row.cells[col];
  return std::string_view();
}

bool SameColumn(const ResultColumn& a, const ResultColumn& b) {
  return a.name == b.name && a.kind == b.kind && a.field == b.field &&
         a.is_group_key == b.is_group_key && a.is_order_key == b.is_order_key;
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

bool SameRow(const ResultRow& a, const ResultRow& b) {
  if (a.cells != b.cells || a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (!SameValue(a.values[i], b.values[i])) return false;
  }
  return true;
}

// ---------------------------------------------------------------- CSV

bool NeedsCsvQuotes(std::string_view s) {
  for (char c : s) {
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  }
  return false;
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

bool IsNumericKind(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kCount:
    case ColumnKind::kSum:
    case ColumnKind::kMin:
    case ColumnKind::kMax:
    case ColumnKind::kAvg:
    case ColumnKind::kLen:
    case ColumnKind::kPercentage:
    case ColumnKind::kPercentile:
      return true;
    case ColumnKind::kLast:
      return false;
  }
  return false;
}

// Appends one cell as a JSON value. Numeric kinds emit the rendered text as a
// JSON number; text that is not a JSON number (NaN, +Inf, -Inf, or anything
// unexpected) becomes a JSON string so the document stays valid.
void AppendJsonValue(ColumnKind kind, std::string_view cell, std::string* out) {
  if (IsNumericKind(kind) && IsJsonNumber(cell)) {
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

void AppendJsonObject(const std::vector<ResultColumn>& columns,
                      const std::vector<std::string>& keys,
                      const ResultRow& row, std::string* out) {
  out->push_back('{');
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) out->push_back(',');
    out->append(keys[c]);
    AppendJsonValue(columns[c].kind, CellOrEmpty(row, c), out);
  }
  out->push_back('}');
}

// Bytes of JSON for all rows, assuming no escaping: keys, cells and
// punctuation (`{`, `}`, `,` between fields and after the object).
size_t EstimateJsonBytes(const std::vector<ResultColumn>& columns,
                         const std::vector<std::string>& keys,
                         const std::vector<ResultRow>& rows) {
  size_t per_row = 3 + columns.size();
  for (const std::string& k : keys) per_row += k.size();
  size_t total = per_row * rows.size();
  for (const ResultRow& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      total += CellOrEmpty(row, c).size();
    }
  }
  return total;
}

}  // namespace

LineCounters& LineCounters::operator+=(const LineCounters& o) {
  lines_read += o.lines_read;
  lines_too_long += o.lines_too_long;
  lines_table_mismatch += o.lines_table_mismatch;
  lines_ignored += o.lines_ignored;
  lines_malformed += o.lines_malformed;
  lines_header += o.lines_header;
  lines_filtered += o.lines_filtered;
  lines_without_value += o.lines_without_value;
  lines_aggregated += o.lines_aggregated;
  return *this;
}

bool operator==(const ResultTable& a, const ResultTable& b) {
  if (!(a.stats_ == b.stats_) || a.total_groups_ != b.total_groups_ ||
      a.columns_.size() != b.columns_.size() ||
      a.rows_.size() != b.rows_.size()) {
    return false;
  }
  for (size_t i = 0; i < a.columns_.size(); ++i) {
    if (!SameColumn(a.columns_[i], b.columns_[i])) return false;
  }
  for (size_t i = 0; i < a.rows_.size(); ++i) {
    if (!SameRow(a.rows_[i], b.rows_[i])) return false;
  }
  return true;
}

std::string ResultTable::ToTable(const TableOptions& options) const {
  const size_t ncols = columns_.size();
  std::vector<size_t> widths(ncols);
  for (size_t c = 0; c < ncols; ++c) widths[c] = columns_[c].name.size();
  // Widths consider every row, printed or not (DTail does the same).
  for (const ResultRow& row : rows_) {
    for (size_t c = 0; c < ncols; ++c) {
      widths[c] = std::max(widths[c], CellOrEmpty(row, c).size());
    }
  }
  size_t printed = rows_.size();
  if (options.max_rows >= 0 &&
      static_cast<uint64_t>(options.max_rows) < printed) {
    printed = static_cast<size_t>(options.max_rows);
  }

  // Every line has the same length: per column ' ' + width + ' ', a '|'
  // between columns, and '\n'.
  size_t line_bytes = 1;
  for (size_t c = 0; c < ncols; ++c) line_bytes += widths[c] + 2;
  if (ncols > 1) line_bytes += ncols - 1;
  std::string out;
  out.reserve(line_bytes * (printed + 2));

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
    const ResultRow& row = rows_[r];
    append_line([&](size_t c) { return CellOrEmpty(row, c); });
  }
  return out;
}

std::string ResultTable::ToCsv() const {
  const size_t ncols = columns_.size();
  // Unquoted size; quoting, rare by design, may grow the string once or so.
  size_t bytes = ncols + (ncols > 0 ? 0 : 1);
  for (const ResultColumn& c : columns_) bytes += c.name.size();
  bytes += rows_.size() * (ncols > 0 ? ncols : 1);
  for (const ResultRow& row : rows_) {
    for (size_t c = 0; c < ncols; ++c) bytes += CellOrEmpty(row, c).size();
  }
  std::string out;
  out.reserve(bytes);

  for (size_t c = 0; c < ncols; ++c) {
    if (c > 0) out.push_back(',');
    AppendCsvValue(columns_[c].name, &out);
  }
  out.push_back('\n');
  for (const ResultRow& row : rows_) {
    for (size_t c = 0; c < ncols; ++c) {
      if (c > 0) out.push_back(',');
      AppendCsvValue(CellOrEmpty(row, c), &out);
    }
    out.push_back('\n');
  }
  return out;
}

std::string ResultTable::ToJson() const {
  const std::vector<std::string> keys = EncodeJsonKeys(columns_);
  std::string out;
  out.reserve(EstimateJsonBytes(columns_, keys, rows_) + 3);
  out.push_back('[');
  for (size_t r = 0; r < rows_.size(); ++r) {
    if (r > 0) out.push_back(',');
    AppendJsonObject(columns_, keys, rows_[r], &out);
  }
  out.append("]\n");
  return out;
}

std::string ResultTable::ToNdjson() const {
  const std::vector<std::string> keys = EncodeJsonKeys(columns_);
  std::string out;
  out.reserve(EstimateJsonBytes(columns_, keys, rows_));
  for (const ResultRow& row : rows_) {
    AppendJsonObject(columns_, keys, row, &out);
    out.push_back('\n');
  }
  return out;
}

}  // namespace mapr
