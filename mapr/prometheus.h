// mapr/prometheus.h: a result as Prometheus metrics (the text exposition
// format 0.0.4, which Prometheus scrapes and `promtool check metrics`
// validates).
//
// Each numeric column that is not a group key (count, sum, avg, ...)
// becomes a metric family, a gauge; each group-key column becomes a label
// of its samples; text columns that are not group keys (last(), first() of
// a field) are left out, since a sample's value is a number. One sample per
// row, in the result's order:
//
//   # HELP mapr_count_line count($line)
//   # TYPE mapr_count_line gauge
//   mapr_count_line{hostname="web1"} 42
//
// Names: the prefix, then the column's name (its alias, else as the query
// spells it) in snake_case: every run of characters other than
// [a-zA-Z0-9_] turned into one '_', a '_' put between a lower-case letter
// or digit and an upper-case letter, all in lower case, leading and
// trailing '_' dropped: count($line) -> mapr_count_line,
// max(lifetimeConnections) -> mapr_max_lifetime_connections. Label names are
// made the same way from the group-key column's name, without the prefix
// ($hostname -> hostname; one that would start with a digit gets a leading
// 'l'). A name taken by an earlier column gets "_2", "_3", ... Label values
// are escaped (\\, \", \n), and bytes that are not UTF-8 become U+FFFD.
// Values print in the shortest form that reads back exactly, NaN and
// +Inf/-Inf as Prometheus spells them.
//
// Example:
//   absl::StatusOr<std::string> text = mapr::ToPrometheus(*result);
//   if (text.ok()) std::fputs(text->c_str(), stdout);
//
// Thread safety: the functions only read the table.
#ifndef MAPR_MAPR_PROMETHEUS_H_
#define MAPR_MAPR_PROMETHEUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/export.h"
#include "mapr/result.h"

namespace mapr {

struct PrometheusOptions {
  // Put before every metric name; must itself be a valid start of one
  // ([a-zA-Z_:][a-zA-Z0-9_:]*, or empty).
  std::string prefix = "mapr_";
};

// Writes `table` as metrics to `sink`, in chunks. InvalidArgument (before
// anything is written) if the prefix is not a valid start of a metric
// name, or if two rows would get the same labels: a group-by field that is
// not selected leaves its rows unlabelled, so select every group-by field.
MAPR_EXPORT absl::Status WritePrometheus(const ResultTable& table,
                                         const PrometheusOptions& options,
                                         ResultSink sink);
// The same text as one string.
MAPR_EXPORT absl::StatusOr<std::string> ToPrometheus(
    const ResultTable& table, const PrometheusOptions& options = {});

}  // namespace mapr

#endif  // MAPR_MAPR_PROMETHEUS_H_
