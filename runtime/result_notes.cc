#include "runtime/result_notes.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mapr::runtime {
namespace {

// "1 line is" / "3 lines are".
std::string Lines(uint64_t n, const char* verb_one, const char* verb_many) {
  return absl::StrCat(n, n == 1 ? " line " : " lines ",
                      n == 1 ? verb_one : verb_many);
}

// The sentence for `count` of `read` lines rejected by the counter named
// `counter` (a LineCounters field), or "" for counters without one.
std::string RejectionNote(const ResultFacts& f, std::string_view counter,
                          uint64_t count, uint64_t read) {
  const std::string share = absl::StrCat(count, " of ", read, " lines");
  if (counter == "lines_table_mismatch") {
    if (f.table == "*") {
      return absl::StrCat(
          share,
          " have no DTail `|MAPREDUCE:NAME|` table; drop `from *` for plain "
          "logs");
    }
    return absl::StrCat(share,
                        " are not DTail `|MAPREDUCE:", f.table.value_or(""),
                        "|` lines; drop `from` for plain logs");
  }
  if (counter == "lines_ignored") {
    if (f.log_format == "default") {
      return absl::StrCat(
          share,
          " are not DTail INFO lines with a MAPREDUCE: field, which the "
          "default log format reads; name the format of other logs with "
          "`logformat` (json, logfmt, combined, syslog, fields, regex "
          "'...', ...; see mapr --help)");
    }
    return absl::StrCat(share, " were ignored by log format ", f.log_format);
  }
  if (counter == "lines_malformed") {
    return absl::StrCat(share, " could not be parsed by log format ",
                        f.log_format, "; is that the logs' format?");
  }
  if (counter == "lines_unmatched") {
    return absl::StrCat(share,
                        " did not match the pattern of `logformat regex`; "
                        "the pattern must match a line somewhere (it is not "
                        "anchored), and its named groups give the fields");
  }
  if (counter == "lines_without_value") {
    return absl::StrCat(share,
                        " gave no select item a value (fields missing or "
                        "not numeric)");
  }
  return "";
}

}  // namespace

std::string FormatByteSize(uint64_t bytes) {
  constexpr struct {
    uint64_t unit;
    const char* suffix;
  } kUnits[] = {{uint64_t{1} << 30, "G"},
                {uint64_t{1} << 20, "M"},
                {uint64_t{1} << 10, "K"}};
  for (const auto& u : kUnits) {
    if (bytes >= u.unit && bytes % u.unit == 0) {
      return absl::StrCat(bytes / u.unit, u.suffix);
    }
  }
  return absl::StrCat(bytes);
}

ResultFacts FactsOf(const plan::Plan& plan, const LineCounters& stats,
                    const std::vector<FieldCount>& fields,
                    size_t max_line_bytes) {
  ResultFacts f;
  switch (plan.table_filter) {
    case plan::TableFilter::kNone:
      break;
    case plan::TableFilter::kAny:
      f.table = "*";
      break;
    case plan::TableFilter::kTable:
      f.table = plan.table;
      break;
  }
  f.log_format = plan.log_format;
  f.stats = stats;
  // A field a compile warning named already ("$service is not a known
  // variable ...") is not named twice.
  for (const FieldCount& field : fields) {
    bool warned = false;
    for (const plan::Warning& w : plan.warnings) {
      warned |= w.message.starts_with(field.name + " ");
    }
    if (!warned) f.fields.push_back(field);
  }
  f.max_line_bytes = max_line_bytes;
  return f;
}

namespace {

using AddNote = absl::FunctionRef<void(const char* code, std::string text)>;

// What the input itself was: too-long lines, NUL bytes, no lines at all.
void InputNotes(const ResultFacts& f, AddNote add) {
  const LineCounters& s = f.stats;
  if (s.lines_too_long > 0) {
    add("lines_too_long",
        absl::StrCat(Lines(s.lines_too_long, "was", "were"), " longer than ",
                     FormatByteSize(f.max_line_bytes),
                     " and skipped; raise --max-line-bytes to read them"));
  }
  if (f.lines_with_nul > 0) {
    add("lines_with_nul",
        absl::StrCat(Lines(f.lines_with_nul, "contains", "contain"),
                     " NUL bytes; is the input a binary file?"));
  }
  if (s.lines_read == 0) {
    add("empty_input",
        "the input had no lines, so the result is empty; is it the file "
        "you meant?");
  }
}

// Lines the log format or the table rejected: every line, a share of
// them, or every line of an input.
void RejectionNotes(const ResultFacts& f, AddNote add) {
  const LineCounters& s = f.stats;
  if (s.lines_read > s.lines_too_long && s.lines_aggregated == 0) {
    // The rule that rejected the most of the lines that were not too long.
    const uint64_t read = s.lines_read - s.lines_too_long;
    std::string_view worst;
    uint64_t worst_count = 0;
    for (const LineCounterField& c : kLineCounterFields) {
      const uint64_t n = s.*c.value;
      // A `where` that is false everywhere is an answer, not a mistake.
      if (!c.line_outcome || c.name == "lines_too_long" ||
          c.name == "lines_header" || c.name == "lines_filtered" ||
          c.name == "lines_aggregated") {
        continue;
      }
      if (n > worst_count) {
        worst = c.name;
        worst_count = n;
      }
    }
    if (worst_count > 0) {
      std::string note = RejectionNote(f, worst, worst_count, read);
      if (!note.empty()) add("no_line_aggregated", std::move(note));
    }
  }
  // Some lines aggregated, but a share of the rest could not be parsed:
  // an answer over part of the input, which must not pass unnoticed.
  const uint64_t unparsable = s.lines_malformed + s.lines_unmatched;
  const uint64_t matched = s.lines_matched();
  if (s.lines_aggregated > 0 && unparsable > 0 && unparsable * 100 > matched) {
    add("lines_unparsable",
        absl::StrCat(
            unparsable, " of ", matched, " lines (",
            absl::StrFormat("%.1f", 100.0 * static_cast<double>(unparsable) /
                                        static_cast<double>(matched)),
            " %) could not be parsed by log format ", f.log_format,
            " and are not in the result",
            f.first_unparsable_line == 0
                ? std::string()
                : absl::StrCat(" (the first is line ", f.first_unparsable_line,
                               " of ",
                               f.first_unparsable_input == "-"
                                   ? "standard input"
                                   : f.first_unparsable_input,
                               ")"),
            "; are other logs mixed in?"));
  }
  // (When no line parsed at all, the note above already says so.)
  if (s.lines_parsed() > 0) {
    for (const std::string& input : f.inputs_without_parsed_lines) {
      add("input_without_parsed_lines",
          absl::StrCat("no line of ", input, " could be parsed by log format ",
                       f.log_format, "; is that its format?"));
    }
  }
}

// Values: unreadable for a function or an operator, not numbers, or a
// field found in no line.
void ValueNotes(const ResultFacts& f, AddNote add) {
  const LineCounters& s = f.stats;
  if (s.values_unparsed > 0) {
    add("values_unparsed",
        absl::StrCat(
            s.values_unparsed,
            s.values_unparsed == 1 ? " value was" : " values were",
            " not a time, number, duration, size or IP address that time(), "
            "bucket(), window(), duration(), bytes(), cidr() or ip_in() could "
            "read, or "
            "not numbers for + - * / (or a divisor of 0), and stayed missing; "
            "check the layout (time(x, '%Y-%m-%d ...')), the unit or the "
            "operands"));
  }
  for (const FieldCount& field : f.fields) {
    if (field.not_numeric == 0) continue;
    add("values_not_numeric",
        absl::StrCat(
            field.not_numeric, field.not_numeric == 1 ? " value" : " values",
            " of field '", field.name, "' ",
            field.not_numeric == 1 ? "was" : "were", " not a number (such as '",
            field.not_numeric_example,
            "') and counted as missing in its numeric aggregates; read "
            "durations and sizes with duration() and bytes() in a set"));
  }
  const uint64_t parsed = s.lines_parsed();
  if (parsed > 0) {
    for (const FieldCount& field : f.fields) {
      if (field.lines != 0) continue;
      add("field_not_found",
          absl::StrCat("field '", field.name, "' was not found in any of the ",
                       parsed, parsed == 1 ? " parsed line" : " parsed lines",
                       " (log format ", f.log_format,
                       "); check its name and the log format"));
    }
  }
}

}  // namespace

std::vector<ResultNote> ResultNotes(const ResultFacts& f) {
  std::vector<ResultNote> notes;
  auto add = [&](const char* code, std::string text) {
    notes.push_back(ResultNote{code, std::move(text)});
  };
  InputNotes(f, add);
  RejectionNotes(f, add);
  ValueNotes(f, add);
  return notes;
}

}  // namespace mapr::runtime
