// mapr/query.h: compiling a DTail-compatible mapreduce query.
//
// A Query is the compiled, immutable form of a query text such as
//   from STATS select count($line),avg($goroutines) group by $hostname
// It is checked once (syntax, names, order key, log format) and then drives
// any number of Aggregators.
//
// Example:
//   absl::StatusOr<mapr::Query> q = mapr::Query::Compile(
//       "from STATS select count($line) group by $hostname");
//   if (!q.ok()) { std::cerr << q.status().message() << "\n"; return 2; }
//   for (const std::string& w : q->warnings()) {
//     std::cerr << "warning: " << w << "\n";
//   }
//
// Thread safety: a Query is immutable and cheap to copy (it shares its plan);
// it may be used from any number of threads at once.
#ifndef MAPR_MAPR_QUERY_H_
#define MAPR_MAPR_QUERY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapr/export.h"
#include "mapr/options.h"
#include "mapr/result.h"

namespace mapr {

namespace plan {
struct Plan;
}  // namespace plan

class MAPR_EXPORT Query {
 public:
  // Compiles `text`. On a problem in the text, returns InvalidArgument whose
  // message names the position (`1:32-35: unknown aggregation 'avgg'`),
  // shows the query line with a caret underline and, where one exists, a
  // hint; the span is attached (mapr::GetSourceSpan). Syntax errors stop at
  // the first; semantic errors are all reported.
  static absl::StatusOr<Query> Compile(std::string_view text,
                                       const CompileOptions& options = {});

  // The query text as given.
  const std::string& text() const;
  // A canonical text that compiles to the same plan.
  std::string ToString() const;
  // A multi-line description of the plan (fields extracted, where tree,
  // groups, aggregates), for `mapr --explain` and debugging.
  std::string Explain() const;

  // Compile-time warnings (unknown $variables for the chosen log format),
  // each without a "warning: " prefix and without a newline.
  std::vector<std::string> warnings() const;

  // Output column names, in order.
  std::vector<std::string> column_names() const;
  // The output columns as every result of this query describes them (name,
  // aggregate, value type, group/order/time-bucket key), in order.
  std::vector<ResultColumn> columns() const;
  // The log format that will parse lines (canonical name).
  const std::string& log_format() const;
  // Whether the query names its format (`logformat`); false when DTail's
  // rule picked it (`default` with `from`, else `generic`).
  bool log_format_given() const;
  // `multiline RULE`: the rule as written (a regex, or a built-in name in
  // lower case), nullopt when the query reads lines, not events.
  std::optional<std::string> multiline() const;
  // The `from` table: its name upper-cased (`STATS`), `*` for `from *`,
  // nullopt when the query reads every line.
  std::optional<std::string> table() const;
  // The interval in milliseconds as the query gives it (default 5000);
  // `interval 0` is kept as 0 and means one second at run time, as in DTail.
  int64_t interval_ms() const;
  // The `outfile` path, if any, and whether it is in append mode.
  std::optional<std::string> outfile() const;
  bool outfile_append() const;
  // The `limit`, or -1 when none is given.
  int64_t limit() const;

 private:
  friend class QueryInternal;  // api/query_internal.h, not installed.

  explicit Query(std::shared_ptr<const plan::Plan> plan)
      : plan_(std::move(plan)) {}
  std::shared_ptr<const plan::Plan> plan_;
};

}  // namespace mapr

#endif  // MAPR_MAPR_QUERY_H_
