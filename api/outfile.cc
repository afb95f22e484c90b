#include "mapr/outfile.h"

#include <new>
#include <optional>
#include <string>

#include "runtime/outfile.h"
#include "util/out_of_memory.h"

namespace mapr {

absl::Status WriteOutfile(std::string_view path, bool append,
                          const ResultTable& result,
                          std::string_view query_text) {
  // Rendering the CSV allocates as much as the result; the writer rolls the
  // files back if an allocation fails after it touched them.
  try {
    std::string header =
        ResultTable(result.columns(), {}, LineCounters(), 0).ToCsv();
    std::string csv = result.ToCsv();
    runtime::OutfileRequest request;
    request.path = std::string(path);
    request.append = append;
    request.header = header;
    request.body = std::string_view(csv).substr(header.size());
    request.query = query_text;
    return runtime::WriteOutfile(request);
  } catch (const std::bad_alloc&) {
    return util::OutOfMemoryError("writing outfile",
                                  absl::string_view(path.data(), path.size()));
  }
}

absl::Status WriteOutfile(const Query& query, const ResultTable& result) {
  try {
    std::optional<std::string> path = query.outfile();
    if (!path.has_value()) {
      return absl::FailedPreconditionError("the query has no outfile clause");
    }
    return WriteOutfile(*path, query.outfile_append(), result, query.text());
  } catch (const std::bad_alloc&) {
    return util::OutOfMemoryError("writing the query's outfile");
  }
}

}  // namespace mapr
