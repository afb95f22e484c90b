#include "bindings/cli/huge_pages.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "mapr/files.h"

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
  if (tunables != nullptr && std::string_view(tunables).find(
                                 kHugePagesTunable) != std::string_view::npos) {
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

uint64_t InputBytes(const std::vector<std::string>& names) {
  uint64_t total = 0;
  for (const FileInput& in : ExpandFileNames(names)) {
    struct stat st;
    if (!in.is_stdin && stat(in.path.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode)) {
      total += static_cast<uint64_t>(st.st_size);
    }
  }
  return total;
}

namespace {

// Set once this process found the marker: it is the re-executed one, and
// must never execute itself again.
bool reexecuted = false;

}  // namespace

void RestoreEnvironmentAfterReexec() {
  if (std::getenv(kHugePagesMarker) != nullptr) {
    reexecuted = true;
    Restore(PlanHugePages("", GetEnv));
  }
}

void ReexecForHugePages(char** argv, const std::vector<std::string>& names) {
  if (reexecuted || InputBytes(names) < kHugePagesMinInputBytes) return;
  std::string thp;
  {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    thp.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
  }
  const HugePagesStep step = PlanHugePages(thp, GetEnv);
  if (step.action != HugePagesStep::Action::kReexec) return;
  if (setenv(kHugePagesMarker, step.marker.c_str(), 1) != 0) return;
  if (setenv("GLIBC_TUNABLES", step.tunables->c_str(), 1) != 0) {
    unsetenv(kHugePagesMarker);
    return;
  }
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc, say): run as we are, with the caller's
  // environment (the marker now makes the plan a kRestore).
  Restore(PlanHugePages(thp, GetEnv));
}

}  // namespace mapr::cli
