#include "mapr/query.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mapr/log_format.h"
#include "parser/parse.h"
#include "parser/plan.h"
#include "parser/planner.h"
#include "runtime/planner_context.h"
#include "runtime/result_builder.h"
#include "util/status_macros.h"

namespace mapr {
namespace {

// The deepest nesting any CompileOptions::max_depth allows. The parser
// recurses for every level (about 1 KiB of stack each in a debug build);
// 10,000 parentheses under max_depth = 20000 overflowed an 8 MiB stack.
constexpr size_t kMaxSupportedDepth = 1000;

// A lookup() table's bytes, at most `max_bytes` of them: a regular file
// (opened without blocking, so a FIFO is refused, not waited on), inside
// `dir` unless that is empty.
absl::StatusOr<std::string> ReadLookupFile(std::string_view path,
                                           size_t max_bytes,
                                           const std::string& dir) {
  const std::string name(path);
  auto cannot = [&](int error) {
    return absl::NotFoundError(absl::StrCat("cannot read the lookup table '",
                                            name, "': ", std::strerror(error)));
  };
  if (!dir.empty()) {
    char* real_dir = realpath(dir.c_str(), nullptr);
    if (real_dir == nullptr) return cannot(errno);
    std::string inside(real_dir);
    std::free(real_dir);
    if (inside.back() != '/') inside.push_back('/');
    char* real = realpath(name.c_str(), nullptr);
    if (real == nullptr) return cannot(errno);
    const std::string resolved(real);
    std::free(real);
    if (resolved.compare(0, inside.size(), inside) != 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("the lookup table '", name, "' is outside ", dir,
                       " (the folder lookup() tables may be read from)"));
    }
  }
  const int fd = open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return cannot(errno);
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("the lookup table '", name, "' is not a regular file"));
  }
  std::FILE* f = fdopen(fd, "rb");
  if (f == nullptr) {
    const int error = errno;
    close(fd);
    return cannot(error);
  }
  std::string bytes;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) {
    if (bytes.size() + n > max_bytes) {
      std::fclose(f);
      return absl::ResourceExhaustedError(
          absl::StrCat("the lookup table '", name, "' is larger than ",
                       max_bytes, " bytes (CompileOptions::max_lookup_bytes)"));
    }
    bytes.append(buffer, n);
  }
  const bool failed = std::ferror(f) != 0;
  const int error = errno;
  std::fclose(f);
  if (failed) {
    return absl::DataLossError(absl::StrCat("cannot read the lookup table '",
                                            name, "': ", std::strerror(error)));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<Query> Query::Compile(std::string_view text,
                                     const CompileOptions& options) {
  parser::ParseLimits limits;
  limits.max_query_bytes = options.max_query_bytes;
  limits.max_depth = std::min(options.max_depth, kMaxSupportedDepth);
  limits.max_items = options.max_items;
  MAPR_ASSIGN_OR_RETURN(ast::Query ast, parser::Parse(text, limits));
  parser::PlannerContext context = runtime::RegistryPlannerContext();
  context.max_regex_memory = options.max_regex_memory;
  if (options.allow_file_lookups) {
    context.read_lookup_file =
        [max = options.max_lookup_bytes, dir = options.lookup_dir](
            std::string_view path) { return ReadLookupFile(path, max, dir); };
  }
  if (options.percentile_exact_values > (uint32_t{1} << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat("CompileOptions::percentile_exact_values is ",
                     options.percentile_exact_values, "; the most is 1048576"));
  }
  if (!(options.percentile_accuracy >= 0.0001 &&
        options.percentile_accuracy <= 0.2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CompileOptions::percentile_accuracy is ", options.percentile_accuracy,
        "; it must be from 0.0001 to 0.2"));
  }
  context.state_options.percentile_exact_values =
      options.percentile_exact_values;
  context.state_options.percentile_accuracy = options.percentile_accuracy;
  MAPR_ASSIGN_OR_RETURN(plan::Plan p, parser::BuildPlan(ast, text, context));
  return Query(std::make_shared<const plan::Plan>(std::move(p)));
}

const std::string& Query::text() const { return plan_->text; }
std::string Query::ToString() const { return plan_->canonical; }
std::string Query::Explain() const { return plan::DebugString(*plan_); }

std::vector<std::string> Query::warnings() const {
  std::vector<std::string> out;
  for (const plan::Warning& w : plan_->warnings) out.push_back(w.message);
  return out;
}

std::vector<std::string> Query::column_names() const {
  std::vector<std::string> out;
  for (const plan::Column& c : plan_->columns) out.push_back(c.name);
  return out;
}

std::vector<ResultColumn> Query::columns() const {
  return runtime::ResultColumns(*plan_);
}

const std::string& Query::log_format() const { return plan_->log_format; }
bool Query::log_format_given() const { return plan_->log_format_given; }
std::optional<std::string> Query::multiline() const {
  if (plan_->event_start == nullptr) return std::nullopt;
  return plan_->event_start->text();
}
std::optional<std::string> Query::table() const {
  switch (plan_->table_filter) {
    case plan::TableFilter::kNone:
      return std::nullopt;
    case plan::TableFilter::kAny:
      return "*";
    case plan::TableFilter::kTable:
      return plan_->table;
  }
  return std::nullopt;
}
int64_t Query::interval_ms() const { return plan_->interval_ms; }
std::optional<std::string> Query::outfile() const { return plan_->outfile; }
bool Query::outfile_append() const { return plan_->outfile_append; }
int64_t Query::limit() const { return plan_->limit; }

}  // namespace mapr
