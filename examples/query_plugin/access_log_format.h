// A host-defined log format: a simplified nginx/Apache access log,
//
//   203.0.113.7 - - [30/Nov/2026:04:37:25 +0000] "GET /api/orders HTTP/1.1" 200
//   512 0.042
//
// giving the fields remote, time, method, path, status, bytes, latency. It
// fills mapr's batch columns directly, one call per batch, like the built-in
// formats.
#ifndef MAPR_EXAMPLES_QUERY_PLUGIN_ACCESS_LOG_FORMAT_H_
#define MAPR_EXAMPLES_QUERY_PLUGIN_ACCESS_LOG_FORMAT_H_

#include <memory>

#include "mapr/log_format.h"

namespace access_log {

// Registers the format as "accesslog" (once per process; later calls are
// no-ops).
absl::Status Register();

}  // namespace access_log

#endif  // MAPR_EXAMPLES_QUERY_PLUGIN_ACCESS_LOG_FORMAT_H_
