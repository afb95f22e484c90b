#include "mapr/outfile.h"

#include <string>

#include "runtime/outfile.h"

namespace mapr {

absl::Status WriteOutfile(std::string_view path, bool append,
                          const ResultTable& result,
                          std::string_view query_text) {
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
}

absl::Status WriteOutfile(const Query& query, const ResultTable& result) {
  std::optional<std::string> path = query.outfile();
  if (!path.has_value()) {
    return absl::FailedPreconditionError("the query has no outfile clause");
  }
  return WriteOutfile(*path, query.outfile_append(), result, query.text());
}

}  // namespace mapr
