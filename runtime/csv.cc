#include "runtime/csv.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "util/arena.h"

namespace mapr::runtime {
namespace {

// Position of the first `c` in line[from, line.size()), or line.size().
inline size_t FindFrom(std::string_view line, size_t from, char c) {
  const void* p = std::memchr(line.data() + from, c, line.size() - from);
  if (p == nullptr) return line.size();
  return static_cast<size_t>(static_cast<const char*>(p) - line.data());
}

// The fast path: no '"' anywhere in the line, so every field is a plain view
// between commas.
CsvSplitResult SplitUnquoted(std::string_view line, std::string_view* fields,
                             size_t max_fields) {
  const size_t n = line.size();
  size_t count = 0;
  size_t pos = 0;
  while (true) {
    if (count == max_fields) return {count, true};
    const size_t comma = FindFrom(line, pos, ',');
    fields[count++] = std::string_view(line.data() + pos, comma - pos);
    if (comma == n) return {count, false};
    pos = comma + 1;
  }
}

// Parses the quoted field whose opening '"' is at line[pos]. Stores its value
// in *value and returns the position just past the field: a ',' or
// line.size().
size_t ParseQuoted(std::string_view line, size_t pos, Arena* arena,
                   std::string_view* value) {
  const size_t n = line.size();
  const size_t content_begin = pos + 1;
  bool has_escapes = false;
  // Find the closing quote: the first '"' not followed by another '"'.
  size_t content_end = n;  // Unterminated unless a closing quote is found.
  size_t after = n;        // First position after the closing quote.
  size_t i = content_begin;
  while (i < n) {
    const size_t q = FindFrom(line, i, '"');
    if (q == n) break;
    if (q + 1 < n && line[q + 1] == '"') {
      has_escapes = true;
      i = q + 2;
      continue;
    }
    content_end = q;
    after = q + 1;
    break;
  }
  // Lenient: text between the closing quote and the next ',' is kept.
  const size_t field_end = after == n ? n : FindFrom(line, after, ',');
  const size_t trailing = field_end - after;

  if (!has_escapes && trailing == 0) {
    *value = std::string_view(line.data() + content_begin,
                              content_end - content_begin);
    return field_end;
  }
  // The unescaped value is never longer than the raw field.
  char* out = arena->Allocate(field_end - pos);
  size_t len = 0;
  i = content_begin;
  while (i < content_end) {
    // Inside the content every '"' is the first of a '""' pair.
    const size_t q = std::min(FindFrom(line, i, '"'), content_end);
    std::memcpy(out + len, line.data() + i, q - i);
    len += q - i;
    if (q == content_end) break;
    out[len++] = '"';
    i = q + 2;
  }
  if (trailing > 0) {
    std::memcpy(out + len, line.data() + after, trailing);
    len += trailing;
  }
  *value = std::string_view(out, len);
  return field_end;
}

}  // namespace

CsvSplitResult SplitCsvRecord(std::string_view line, std::string_view* fields,
                              size_t max_fields, Arena* arena) {
  assert(arena != nullptr);
  // A default-constructed view has a null data(); every field we produce must
  // be non-null, so point empty input at a static empty string.
  static constexpr char kEmpty[] = "";
  if (line.data() == nullptr) line = std::string_view(kEmpty);
  if (std::memchr(line.data(), '"', line.size()) == nullptr) {
    return SplitUnquoted(line, fields, max_fields);
  }

  const size_t n = line.size();
  size_t count = 0;
  size_t pos = 0;
  while (true) {
    if (count == max_fields) return {count, true};
    size_t end;
    if (pos < n && line[pos] == '"') {
      end = ParseQuoted(line, pos, arena, &fields[count]);
    } else {
      end = FindFrom(line, pos, ',');
      fields[count] = std::string_view(line.data() + pos, end - pos);
    }
    ++count;
    if (end == n) return {count, false};
    pos = end + 1;  // line[end] == ','.
  }
}

}  // namespace mapr::runtime
