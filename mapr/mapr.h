// mapr/mapr.h: the umbrella header. Include this to use mapr.
//
// Example:
//   #include "mapr/mapr.h"
//   absl::StatusOr<mapr::ResultTable> r = mapr::RunQuery(
//       "select count($line) group by *", {"a", "b"});
#ifndef MAPR_MAPR_MAPR_H_
#define MAPR_MAPR_MAPR_H_

#include "mapr/aggregator.h"       // IWYU pragma: export
#include "mapr/alert.h"            // IWYU pragma: export
#include "mapr/catalog.h"          // IWYU pragma: export
#include "mapr/files.h"            // IWYU pragma: export
#include "mapr/format_guess.h"     // IWYU pragma: export
#include "mapr/input.h"            // IWYU pragma: export
#include "mapr/journal.h"          // IWYU pragma: export
#include "mapr/line_splitter.h"    // IWYU pragma: export
#include "mapr/log_format.h"       // IWYU pragma: export
#include "mapr/options.h"          // IWYU pragma: export
#include "mapr/outfile.h"          // IWYU pragma: export
#include "mapr/partial.h"          // IWYU pragma: export
#include "mapr/partial_reducer.h"  // IWYU pragma: export
#include "mapr/prometheus.h"       // IWYU pragma: export
#include "mapr/query.h"            // IWYU pragma: export
#include "mapr/result.h"           // IWYU pragma: export
#include "mapr/status.h"           // IWYU pragma: export
#include "mapr/time.h"             // IWYU pragma: export
#include "mapr/turbo_aggregate.h"  // IWYU pragma: export
#include "mapr/version.h"          // IWYU pragma: export

#endif  // MAPR_MAPR_MAPR_H_
