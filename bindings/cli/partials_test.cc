#include "bindings/cli/partials.h"

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace mapr::cli {
namespace {

auto Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(PartialsTest, SplitAutoReadsEachLauncher) {
  EXPECT_EQ(SplitFromEnvironment(Env({{"PARALLEL_SEQ", "3"}}))->index, 2u);
  EXPECT_EQ(SplitFromEnvironment(Env({{"OMPI_COMM_WORLD_RANK", "5"}}))->index,
            5u);
  EXPECT_EQ(SplitFromEnvironment(Env({{"SLURM_ARRAY_TASK_ID", "0"}}))->index,
            0u);
  EXPECT_EQ(SplitFromEnvironment(Env({{"SLURM_PROCID", "7"}}))->index, 7u);
  EXPECT_EQ(SplitFromEnvironment(Env({{"JOB_COMPLETION_INDEX", "4"}}))->index,
            4u);
  EXPECT_EQ(
      SplitFromEnvironment(Env({{"mapreduce_task_partition", "9"}}))->index,
      9u);
}

TEST(PartialsTest, SplitAutoInnermostLauncherWins) {
  auto s = SplitFromEnvironment(Env({{"PARALLEL_SEQ", "2"},
                                     {"SLURM_PROCID", "0"},
                                     {"SLURM_ARRAY_TASK_ID", "6"},
                                     {"OMPI_COMM_WORLD_RANK", "3"}}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 1u);
  EXPECT_EQ(s->variable, "PARALLEL_SEQ");
  s = SplitFromEnvironment(
      Env({{"SLURM_PROCID", "0"}, {"SLURM_ARRAY_TASK_ID", "6"}}));
  EXPECT_EQ(s->index, 6u);
  s = SplitFromEnvironment(
      Env({{"SLURM_PROCID", "0"}, {"OMPI_COMM_WORLD_RANK", "3"}}));
  EXPECT_EQ(s->index, 3u);
}

TEST(PartialsTest, SplitAutoRefusesNothingAndNonNumbers) {
  EXPECT_EQ(SplitFromEnvironment(Env({})).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto s = SplitFromEnvironment(Env({{"PARALLEL_SEQ", "0"}}));
  EXPECT_EQ(s.status().message(),
            "--split auto: PARALLEL_SEQ='0' is not a split number");
  EXPECT_FALSE(SplitFromEnvironment(Env({{"SLURM_PROCID", "x1"}})).ok());
  EXPECT_FALSE(SplitFromEnvironment(Env({{"SLURM_PROCID", "-1"}})).ok());
}

TEST(PartialsTest, B64LineIsKeyTabBase64) {
  EXPECT_EQ(B64Line(12, std::string("MAP\0x", 5)), "12\tTUFQAHg=\n");
}

TEST(PartialsTest, TextIsNotAPartial) {
  auto f = DecodePartials("a.part", "hello\n");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(f.status().message(), "a.part: ")) << f.status();
  f = DecodePartials("a.part", "");
  EXPECT_EQ(f.status().message(), "a.part: empty input is not a partial");
  f = DecodePartials("b", "3\tnot base64!\n");
  EXPECT_EQ(f.status().message(),
            "b: line 1 is not <split><TAB><base64 partial>");
}

TEST(PartialsTest, ExpectedSplitsNamesTheMissingOnes) {
  EXPECT_EQ(ExpectedSplitsProblem({0, 4}, 4), "");
  EXPECT_EQ(ExpectedSplitsProblem({0, 4}, 6), "missing splits 4-5");
  EXPECT_EQ(ExpectedSplitsProblem({0, 4}, 5), "missing split 4");
  EXPECT_EQ(ExpectedSplitsProblem({2, 4}, 6),
            "missing splits 0-1 and splits 4-5");
  EXPECT_EQ(ExpectedSplitsProblem({0, 5}, 4),
            "split 4 is past --expect-splits 4");
}

}  // namespace
}  // namespace mapr::cli
