// libFuzzer target: regular expressions, from query text to matches. The
// input is a pattern (up to the first '\n') and lines (the rest). Checks:
// - RewriteNamedGroups, CompilePattern (under a small or the default memory
//   bound) and LiteralPattern never crash or hang;
// - where LiteralPattern says a pattern is plain text, a substring search
//   gives RE2's answer on every line (the planner swaps one for the other);
// - regex() results point into the line;
// - a query with the pattern in `=~`, `!~`, regex() and `logformat regex`
//   either fails to compile with InvalidArgument or runs, and every line
//   lands in exactly one counter.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "parser/regex.h"
#include "re2/re2.h"
#include "runtime/functions.h"

namespace {

void CheckCounters(const mapr::LineCounters& c) {
  uint64_t sum = 0;
  for (const mapr::LineCounterField& f : mapr::kLineCounterFields) {
    if (f.line_outcome) sum += c.*f.value;
  }
  if (sum != c.lines_read) __builtin_trap();
}

void RunQueries(std::string_view pattern, const std::vector<std::string>& lines,
                int64_t max_memory) {
  // Raw strings cannot hold their own quote character.
  if (pattern.find('\'') != std::string_view::npos) return;
  mapr::CompileOptions options;
  options.max_regex_memory = max_memory;
  const std::string p(pattern);
  const std::string queries[] = {
      absl::StrCat("select count($line), $v where $line =~ '", p,
                   "' set $v = regex($line, '", p, "') group by $v"),
      absl::StrCat("select count($line) where $line !~ '", p, "'"),
      absl::StrCat("select count($line) logformat regex '", p, "'"),
  };
  for (const std::string& text : queries) {
    absl::StatusOr<mapr::Query> q = mapr::Query::Compile(text, options);
    if (!q.ok()) {
      if (q.status().code() != absl::StatusCode::kInvalidArgument) {
        __builtin_trap();
      }
      continue;
    }
    absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(*q);
    if (!agg.ok() || !agg->PushLines(lines).ok() || !agg->FinishInput().ok()) {
      __builtin_trap();
    }
    absl::StatusOr<mapr::ResultTable> r = agg->TakeResult();
    if (!r.ok()) __builtin_trap();
    CheckCounters(r->stats());
    if (r->stats().lines_read != lines.size()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  // 64 KiB or 1 MiB: near RE2's 8 MiB default a pattern compiles for
  // seconds under ASan, and every input compiles it several times.
  const int64_t max_memory =
      (data[0] & 1) != 0 ? int64_t{64} << 10 : int64_t{1} << 20;
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t nl = bytes.find('\n');
  const std::string_view pattern = bytes.substr(0, nl);
  std::vector<std::string> lines;
  if (nl != std::string_view::npos) {
    std::string_view rest = bytes.substr(nl + 1);
    while (!rest.empty() && lines.size() < 64) {
      const size_t end = rest.find('\n');
      lines.emplace_back(rest.substr(0, end));
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }

  (void)mapr::parser::RewriteNamedGroups(pattern);
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
      mapr::parser::CompilePattern(pattern, max_memory);
  if (!re.ok()) {
    if (re.status().code() != absl::StatusCode::kInvalidArgument) {
      __builtin_trap();
    }
  } else {
    const std::optional<std::string> literal =
        mapr::parser::LiteralPattern(pattern);
    for (const std::string& line : lines) {
      if (literal.has_value() && (line.find(*literal) != std::string::npos) !=
                                     RE2::PartialMatch(line, **re)) {
        __builtin_trap();
      }
      const std::string_view v = mapr::runtime::RegexExtract(**re, line);
      if (v.data() != nullptr &&
          (v.data() < line.data() ||
           v.data() + v.size() > line.data() + line.size())) {
        __builtin_trap();
      }
    }
  }
  RunQueries(pattern, lines, max_memory);
  return 0;
}
