#include "bindings/cli/partials.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"

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

// A partial of `lines` (generickv) covering split `split`.
std::string Partial(const std::vector<std::string>& lines, uint64_t split) {
  absl::StatusOr<Query> q =
      Query::Compile("select k, count($line) group by k logformat generickv");
  EXPECT_TRUE(q.ok()) << q.status();
  AggregatorOptions options;
  options.splits = {split, split + 1};
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, options);
  EXPECT_TRUE(agg.ok()) << agg.status();
  EXPECT_TRUE(agg->PushLines(lines).ok());
  EXPECT_TRUE(agg->FinishInput().ok());
  absl::StatusOr<std::string> p = agg->SerializePartial();
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

// The PART `bytes` decoded from reads of `read` bytes each.
absl::StatusOr<std::vector<NamedFrame>> DecodeInReads(std::string_view bytes,
                                                      size_t read,
                                                      uint64_t limit) {
  PartialStreamDecoder decoder("p", limit);
  for (size_t at = 0; at < bytes.size(); at += read) {
    if (absl::Status s = decoder.Append(bytes.substr(at, read)); !s.ok()) {
      return s;
    }
  }
  return decoder.Finish();
}

TEST(PartialsTest, StreamFramesDoNotDependOnHowTheBytesArrive) {
  const std::string a = Partial({"k=a", "k=b"}, 0);
  const std::string b = Partial({"k=b"}, 1);
  const std::string binary = a + b;
  const std::string b64 = B64Line(0, a) + "\r\n" + B64Line(1, b);
  for (const std::string* part : {&binary, &b64}) {
    for (size_t read : {size_t{1}, size_t{5}, size_t{100}, part->size()}) {
      absl::StatusOr<std::vector<NamedFrame>> frames =
          DecodeInReads(*part, read, kDefaultMaxFrameBytes);
      ASSERT_TRUE(frames.ok()) << frames.status();
      ASSERT_EQ(frames->size(), 2u);
      EXPECT_EQ((*frames)[0].bytes, a);
      EXPECT_EQ((*frames)[1].bytes, b);
      EXPECT_EQ((*frames)[1].info.splits.begin, 1u);
      EXPECT_EQ((*frames)[1].offset,
                part == &binary ? a.size() : B64Line(0, a).size() + 2);
    }
  }
  // The last --b64 line needs no newline.
  absl::StatusOr<std::vector<NamedFrame>> frames =
      DecodePartials("p", B64Line(0, a) + "1\t" + B64Line(1, b).substr(2));
  ASSERT_TRUE(frames.ok()) << frames.status();
  EXPECT_EQ(frames->size(), 2u);
}

TEST(PartialsTest, StreamRefusesWhatIsOverTheLimitBeforeHoldingIt) {
  const std::string a = Partial({"k=a", "k=b"}, 0);
  // A frame over the limit, at its header.
  absl::StatusOr<std::vector<NamedFrame>> f =
      DecodeInReads(a + a, 7, a.size() - 1);
  EXPECT_EQ(f.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(
      f.status().message(),
      absl::StrCat("p: a frame of ", a.size(), " bytes is over the limit of ",
                   a.size() - 1, " bytes (max_frame_bytes)"));
  // A --b64 line longer than a frame within the limit can be, before its
  // end: (1024 + 2) / 3 * 4 bytes of base64 and 22 for the rest.
  PartialStreamDecoder decoder("b", 1024);
  ASSERT_TRUE(decoder.Append(B64Line(0, Partial({"k=a"}, 0))).ok());
  EXPECT_TRUE(decoder.Append("1\t").ok());
  const absl::Status s = decoder.Append(std::string(2000, 'A'));
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(),
            "b: line 2 is longer than 1390 bytes: its frame would be over "
            "the limit of 1024 bytes (max_frame_bytes)");
  EXPECT_EQ(decoder.Finish().status(), s);
}

TEST(PartialsTest, StreamNamesTheFrameThatIsBad) {
  const std::string a = Partial({"k=a", "k=b"}, 0);
  std::string b = Partial({"k=b"}, 1);
  b[b.size() / 2] ^= 0x40;  // The checksum no longer matches.
  absl::StatusOr<std::vector<NamedFrame>> f = DecodePartials("p", a + b);
  EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(
      absl::StartsWith(f.status().message(),
                       absl::StrCat("p: frame 2 (at byte ", a.size(), "): ")))
      << f.status();
  f = DecodePartials("p", B64Line(0, a) + B64Line(1, b));
  EXPECT_TRUE(absl::StartsWith(f.status().message(), "p: line 2: "))
      << f.status();
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
