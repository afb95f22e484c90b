// The process-wide registry of log formats (mapr/log_format.h).
#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "util/strings.h"

namespace mapr {
namespace {

struct Registry {
  absl::Mutex mu;
  std::map<std::string, std::shared_ptr<const LogFormat>> formats
      ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    absl::MutexLock lock(&r->mu);
    for (const auto& f :
         {runtime::NewDefaultLogFormat(), runtime::NewGenericLogFormat(),
          runtime::NewGenericKvLogFormat(), runtime::NewCsvLogFormat(),
          runtime::NewRegexLogFormat(), runtime::NewPatternLogFormat(),
          runtime::NewFieldsLogFormat(), runtime::NewClfLogFormat(),
          runtime::NewCombinedLogFormat(), runtime::NewLogfmtLogFormat(),
          runtime::NewSyslogLogFormat(), runtime::NewJsonLogFormat(),
          runtime::NewJsonLogFormat("ndjson"),
          runtime::NewJsonLogFormat("jsonl"), runtime::NewJournalLogFormat(),
          runtime::NewAutoLogFormat()}) {
      r->formats[f->name()] = f;
    }
    return r;
  }();
  return *registry;
}

}  // namespace

std::string_view FieldBatch::Copy(std::string_view s) {
  if (s.empty()) return kEmptyValue;
  char* p = Allocate(s.size());
  std::copy(s.begin(), s.end(), p);
  return std::string_view(p, s.size());
}

// By value: it is moved into the registry.
// NOLINTNEXTLINE(performance-unnecessary-value-param)
absl::Status RegisterLogFormat(std::shared_ptr<const LogFormat> format) {
  if (format == nullptr) return absl::InvalidArgumentError("null log format");
  std::string name = format->name();
  if (name.empty() || name != absl::AsciiStrToLower(util::ToAbsl(name))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "log format name '", name, "' must be non-empty and lower-case"));
  }
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto [it, inserted] = r.formats.try_emplace(name, std::move(format));
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat("log format '", name, "' is already registered"));
  }
  return absl::OkStatus();
}

bool LogFormatIsLineIndependent(std::string_view name) {
  std::shared_ptr<const LogFormat> format = FindLogFormat(name);
  return format != nullptr && format->line_independent();
}

std::shared_ptr<const LogFormat> FindLogFormat(std::string_view name) {
  std::string key = absl::AsciiStrToLower(util::ToAbsl(name));
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.formats.find(key);
  return it == r.formats.end() ? nullptr : it->second;
}

std::vector<std::string> LogFormatNames() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.formats) names.push_back(name);
  return names;
}

}  // namespace mapr
