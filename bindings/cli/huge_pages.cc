#include "bindings/cli/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace mapr::cli {

HugePagesStep PlanHugePages(
    std::string_view thp_enabled,
    const std::function<const char*(const char*)>& getenv) {
  HugePagesStep step;
  if (const char* marker = getenv(kHugePagesMarker); marker != nullptr) {
    step.action = HugePagesStep::Action::kRestore;
    if (marker[0] == '=') step.tunables = std::string(marker + 1);
    return step;
  }
  // Only "[madvise]": with "[always]" malloc's memory gets huge pages
  // anyway, with "[never]" it cannot.
  if (thp_enabled.find("[madvise]") == std::string_view::npos) return step;
  // Under valgrind the re-executed process would run outside it.
  if (const char* preload = getenv("LD_PRELOAD");
      preload != nullptr &&
      std::string_view(preload).find("vgpreload") != std::string_view::npos) {
    return step;
  }
  const char* tunables = getenv("GLIBC_TUNABLES");
  if (tunables != nullptr &&
      std::string_view(tunables).find(kHugePagesTunable) !=
          std::string_view::npos) {
    return step;  // The caller chose.
  }
  step.action = HugePagesStep::Action::kReexec;
  std::string set = std::string(kHugePagesTunable) + "=1";
  if (tunables != nullptr && tunables[0] != '\0') {
    set = std::string(tunables) + ":" + set;
  }
  step.tunables = std::move(set);
  step.marker = tunables == nullptr ? "-" : std::string("=") + tunables;
  return step;
}

namespace {

const char* GetEnv(const char* name) { return std::getenv(name); }

// Puts GLIBC_TUNABLES back as a kRestore step says.
void Restore(const HugePagesStep& step) {
  if (step.tunables.has_value()) {
    setenv("GLIBC_TUNABLES", step.tunables->c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
  unsetenv(kHugePagesMarker);
}

}  // namespace

void UseHugePages(char** argv) {
  std::string thp;
  {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    thp.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
  }
  const HugePagesStep step = PlanHugePages(thp, GetEnv);
  switch (step.action) {
    case HugePagesStep::Action::kNothing:
      return;
    case HugePagesStep::Action::kRestore:
      Restore(step);
      return;
    case HugePagesStep::Action::kReexec:
      if (setenv(kHugePagesMarker, step.marker.c_str(), 1) != 0 ||
          setenv("GLIBC_TUNABLES", step.tunables->c_str(), 1) != 0) {
        return;
      }
      execv("/proc/self/exe", argv);
      // Not re-executed (no /proc, say): run as we are, with the caller's
      // environment (the marker now makes the plan a kRestore).
      Restore(PlanHugePages(thp, GetEnv));
      return;
  }
}

}  // namespace mapr::cli
