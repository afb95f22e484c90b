// bindings/cli/huge_pages.h: transparent huge pages for the command's heap.
//
// A run with a million groups touches a few hundred MB of hash table, keys
// and aggregate columns in random order. With 4 KiB pages much of its time
// goes to page faults and TLB misses (Q4 on 1 GB: 59k faults and a quarter
// of the wall time). glibc backs malloc's memory with transparent huge pages
// when its tunable glibc.malloc.hugetlb=1 is set, and it reads tunables only
// at start-up, from GLIBC_TUNABLES. So for a run over at least
// kHugePagesMinInputBytes of files, where the kernel gives huge pages only to
// memory that asks for them (/sys/kernel/mm/transparent_hugepage/enabled is
// "[madvise]", as on Debian), the command re-executes itself once
// (/proc/self/exe) with the tunable added, before it reads anything; the
// re-executed process puts GLIBC_TUNABLES back as it was, so programs it
// starts see the caller's environment. A re-exec costs about 11 ms (the
// dynamic linking of a second start), hence the size floor. Nothing happens
// when THP is "[always]" (already on) or "[never]", when GLIBC_TUNABLES
// names the tunable already (set glibc.malloc.hugetlb=0 to keep 4 KiB
// pages), under valgrind (LD_PRELOAD names its vgpreload library; the
// re-executed process would escape it), or when the re-exec fails: the run
// then goes on as it is.
#ifndef MAPR_BINDINGS_CLI_HUGE_PAGES_H_
#define MAPR_BINDINGS_CLI_HUGE_PAGES_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mapr::cli {

// The tunable the command adds.
inline constexpr std::string_view kHugePagesTunable = "glibc.malloc.hugetlb";

// Marks the re-executed process and keeps the caller's GLIBC_TUNABLES: "-"
// when it was unset, else "=" followed by its value.
inline constexpr char kHugePagesMarker[] = "MAPR_REEXEC_GLIBC_TUNABLES";

// What the command does with its environment at start-up.
struct HugePagesStep {
  enum class Action {
    kNothing,
    // Set GLIBC_TUNABLES to `tunables` and the marker to `marker`, then
    // re-execute.
    kReexec,
    // The re-executed process: set GLIBC_TUNABLES back to `tunables`
    // (unset it when nullopt) and unset the marker.
    kRestore,
  };
  Action action = Action::kNothing;
  std::optional<std::string> tunables;
  std::string marker;
};

// Decides the step from the text of the THP mode file (empty if it cannot
// be read) and the environment (`getenv`, nullptr for unset variables).
HugePagesStep PlanHugePages(
    std::string_view thp_enabled,
    const std::function<const char*(const char*)>& getenv);

// The inputs of at least this many bytes make a run re-execute.
inline constexpr uint64_t kHugePagesMinInputBytes = uint64_t{512} << 20;

// The total size of the regular files among `names` (expanded as the run
// expands them; standard input, pipes and missing files count 0).
uint64_t InputBytes(const std::vector<std::string>& names);

// At the start of main(): if this process is a re-execution, restores the
// caller's GLIBC_TUNABLES and remembers that ReexecForHugePages() must not
// execute it again.
void RestoreEnvironmentAfterReexec();

// Before a run over the files `names` reads anything: re-executes the
// command with `argv` (and does not return) if the step says so and the
// files hold at least kHugePagesMinInputBytes.
void ReexecForHugePages(char** argv, const std::vector<std::string>& names);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_HUGE_PAGES_H_
