#include "bindings/cli/huge_pages.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "gtest/gtest.h"

namespace mapr::cli {
namespace {

using Action = HugePagesStep::Action;

// PlanHugePages over a fixed environment.
HugePagesStep Plan(std::string_view thp,
                   const std::map<std::string, std::string>& env) {
  return PlanHugePages(thp, [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

constexpr char kMadvise[] = "always [madvise] never\n";

TEST(HugePagesTest, ReexecutesWithTheTunableWhereHugePagesAreAskedFor) {
  const HugePagesStep step = Plan(kMadvise, {});
  EXPECT_EQ(step.action, Action::kReexec);
  EXPECT_EQ(step.tunables, "glibc.malloc.hugetlb=1");
  EXPECT_EQ(step.marker, "-");
}

TEST(HugePagesTest, KeepsTheCallersOtherTunables) {
  const HugePagesStep step =
      Plan(kMadvise, {{"GLIBC_TUNABLES", "glibc.malloc.arena_max=2"}});
  EXPECT_EQ(step.action, Action::kReexec);
  EXPECT_EQ(step.tunables, "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(step.marker, "=glibc.malloc.arena_max=2");
  // Set but empty is not unset.
  const HugePagesStep empty = Plan(kMadvise, {{"GLIBC_TUNABLES", ""}});
  EXPECT_EQ(empty.tunables, "glibc.malloc.hugetlb=1");
  EXPECT_EQ(empty.marker, "=");
}

TEST(HugePagesTest, DoesNothingWhenTheKernelOrTheCallerDecides) {
  EXPECT_EQ(Plan("[always] madvise never\n", {}).action, Action::kNothing);
  EXPECT_EQ(Plan("always madvise [never]\n", {}).action, Action::kNothing);
  EXPECT_EQ(Plan("", {}).action, Action::kNothing);  // No THP file.
  EXPECT_EQ(
      Plan(kMadvise, {{"GLIBC_TUNABLES", "glibc.malloc.hugetlb=0"}}).action,
      Action::kNothing);
  EXPECT_EQ(Plan(kMadvise, {{"LD_PRELOAD",
                             "/usr/libexec/valgrind/"
                             "vgpreload_core-amd64-linux.so"}})
                .action,
            Action::kNothing);
}

TEST(HugePagesTest, TheReexecutedProcessRestoresTheCallersEnvironment) {
  const HugePagesStep unset = Plan(kMadvise, {{kHugePagesMarker, "-"}});
  EXPECT_EQ(unset.action, Action::kRestore);
  EXPECT_EQ(unset.tunables, std::nullopt);
  const HugePagesStep set = Plan(
      kMadvise,
      {{kHugePagesMarker, "=glibc.malloc.arena_max=2"},
       {"GLIBC_TUNABLES", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"}});
  EXPECT_EQ(set.action, Action::kRestore);
  EXPECT_EQ(set.tunables, "glibc.malloc.arena_max=2");
  // Whatever the THP mode: the marker means this process was re-executed.
  EXPECT_EQ(Plan("", {{kHugePagesMarker, "="}}).tunables, "");
}

TEST(HugePagesTest, InputBytesCountsRegularFilesAndGlobMatches) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("mapr_huge_pages_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.log") << "12345";
  // Sparse: its size costs no disk.
  std::ofstream(dir / "big.log").close();
  std::filesystem::resize_file(dir / "big.log", kHugePagesMinInputBytes);
  EXPECT_EQ(InputBytes({(dir / "a.log").string()}), 5u);
  EXPECT_EQ(InputBytes({(dir / "*.log").string(), "-",
                        (dir / "missing").string(), dir.string()}),
            kHugePagesMinInputBytes + 5);
  EXPECT_EQ(InputBytes({}), 0u);  // Standard input.
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mapr::cli
