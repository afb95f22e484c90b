// An RFC 4180 record splitter for a single log line.
//
// The CSV log format splits each line (already stripped of its line ending;
// a quoted field never spans lines) into field views. Fields are separated by
// ','. A field that starts with '"' is quoted: it ends at the next '"' that is
// not followed by another '"', a doubled '""' inside stands for one '"', and
// the value excludes the surrounding quotes.
//
// Most values are views into the line and are not copied. Only a quoted field
// that needs rewriting (it contains '""', or has text after its closing quote)
// is copied into the arena.
//
// Malformed input never fails and never crashes; it is read leniently, like
// Python's csv module:
//   "ab"cd,x   -> `abcd`, `x`      (text after the closing quote is appended)
//   "ab,cd     -> `ab,cd`          (an unterminated quote runs to the end)
//
// Example:
//   std::string_view fields[16];
//   Arena arena;
//   CsvSplitResult r = SplitCsvRecord(R"(a,"b,""c""",,d)", fields, 16, &arena);
//   // r.num_fields == 4: `a`, `b,"c"`, ``, `d`; r.too_many == false.
#ifndef MAPR_RUNTIME_CSV_H_
#define MAPR_RUNTIME_CSV_H_

#include <cstddef>
#include <string_view>

#include "util/arena.h"

namespace mapr::runtime {

using util::Arena;

struct CsvSplitResult {
  // Number of entries written to `fields`; at most `max_fields`.
  size_t num_fields;
  // True if the line has more than `max_fields` fields. The first
  // `max_fields` fields are still written.
  bool too_many;
};

// Splits `line` into at most `max_fields` fields written to `fields[0..]`.
// Every line has at least one field: an empty line yields one empty field,
// "a,,b" yields three and "a," yields two (the last one empty).
//
// Every view written has a non-null data() pointer, even an empty one
// (callers use data() == nullptr to mean "missing"). Views point into `line`
// or into `arena`; they stay valid while both do (until arena->Reset()).
//
// Never allocates except from `arena`, and only for quoted fields that need
// unescaping.
//
// REQUIRES: `fields` has room for `max_fields` views; arena != nullptr.
CsvSplitResult SplitCsvRecord(std::string_view line, std::string_view* fields,
                              size_t max_fields, Arena* arena);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_CSV_H_
