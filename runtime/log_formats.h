// The built-in log formats (contract §2, dtail-reference §3). Each is a
// mapr::LogFormat; the registry (runtime/log_format_registry.cc) installs
// them under their names.
#ifndef MAPR_RUNTIME_LOG_FORMATS_H_
#define MAPR_RUNTIME_LOG_FORMATS_H_

#include <memory>

#include "mapr/log_format.h"

namespace mapr::runtime {

// DTail's own lines: `INFO|time|pid|caller|cpus|goroutines|cgocalls|loadavg|
// uptime|MAPREDUCE:TABLE|k=v|...` (§3.3).
// Parsers are built for the CPU: AVX2+BMI2 code where the CPU has it, else
// baseline x86-64 (SSE2) code; both give identical fields.
std::shared_ptr<const LogFormat> NewDefaultLogFormat();
// Tests: makes parsers created from now on use the baseline code even on an
// AVX2 CPU (false restores the default). Returns whether an AVX2 build
// exists and the CPU can run it.
bool UseBaselineDefaultParserForTesting(bool baseline);
// Only the common variables; every line is parsed.
std::shared_ptr<const LogFormat> NewGenericLogFormat();
// `k=v|k=v|...`; tokens without '=' are skipped.
std::shared_ptr<const LogFormat> NewGenericKvLogFormat();
// CSV with a header line per input source; RFC 4180 quotes honoured.
std::shared_ptr<const LogFormat> NewCsvLogFormat();

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_LOG_FORMATS_H_
