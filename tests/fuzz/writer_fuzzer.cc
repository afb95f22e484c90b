// libFuzzer target: the CSV writer must round-trip any cell text through an
// RFC 4180 reader, and the table and JSON writers must not crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/result.h"

namespace {

// A strict RFC 4180 reader for the writer's output.
std::vector<std::vector<std::string>> ReadCsv(std::string_view s) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false, at_start = true;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"' && at_start) {
      quoted = true;
      at_start = false;
    } else if (c == ',') {
      rows.back().push_back(cell);
      cell.clear();
      at_start = true;
    } else if (c == '\n') {
      rows.back().push_back(cell);
      cell.clear();
      rows.emplace_back();
      at_start = true;
    } else {
      cell += c;
      at_start = false;
    }
  }
  rows.pop_back();  // The empty row after the final newline.
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t ncols = 1 + data[0] % 4;
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 1; i < size; ++i) {
    if (data[i] == 0xff) {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(data[i]);
    }
  }
  cells.push_back(cur);
  std::vector<mapr::ResultColumn> columns(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    columns[c].name = "c" + std::to_string(c);
    columns[c].aggregate = c % 2 ? "last" : "sum";
    columns[c].type = c % 2 ? mapr::ValueType::kText : mapr::ValueType::kNumber;
  }
  std::vector<mapr::ResultRow> rows;
  for (size_t i = 0; i + ncols <= cells.size(); i += ncols) {
    mapr::ResultRow row;
    for (size_t c = 0; c < ncols; ++c) {
      row.cells.push_back(cells[i + c]);
      row.values.push_back(0);
    }
    rows.push_back(row);
  }
  mapr::ResultTable table(columns, rows, mapr::LineCounters(), rows.size());
  std::vector<std::vector<std::string>> back = ReadCsv(table.ToCsv());
  if (back.size() != rows.size() + 1) __builtin_trap();
  for (size_t r = 0; r < rows.size(); ++r) {
    if (back[r + 1] != rows[r].cells) __builtin_trap();
  }
  (void)table.ToTable();
  (void)table.ToJson();
  (void)table.ToNdjson();
  return 0;
}
