#include "mapr/line_splitter.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Collect(LineSplitter& s, std::string_view chunk) {
  std::vector<std::string> out;
  for (std::string_view l : s.Split(chunk)) out.emplace_back(l);
  return out;
}

TEST(LineSplitterTest, SplitsCompleteLinesAndCarriesTheRest) {
  LineSplitter s;
  EXPECT_THAT(Collect(s, "a\nbb\ncc"), ElementsAre("a", "bb"));
  EXPECT_TRUE(s.has_partial_line());
  EXPECT_THAT(Collect(s, "c\n\nd"), ElementsAre("ccc", ""));
  std::optional<std::string_view> last = s.Finish();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(*last, "d");
  EXPECT_FALSE(s.Finish().has_value());
}

TEST(LineSplitterTest, KeepsCarriageReturnForTheEngineToTrim) {
  LineSplitter s;
  EXPECT_THAT(Collect(s, "a\r\nb\r"), ElementsAre("a\r"));
  EXPECT_THAT(Collect(s, "\n"), ElementsAre("b\r"));
}

TEST(LineSplitterTest, CarryAcrossManyChunks) {
  LineSplitter s;
  std::string expected;
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(Collect(s, "xy").empty());
    expected += "xy";
  }
  EXPECT_THAT(Collect(s, "\n"), ElementsAre(expected));
}

TEST(LineSplitterTest, DropsAndCountsTooLongLinesWithoutBufferingThem) {
  LineSplitter s(/*max_line_bytes=*/4);
  EXPECT_THAT(Collect(s, "1234\n12345\nok\n"), ElementsAre("1234", "ok"));
  EXPECT_EQ(s.too_long_lines(), 1u);
  // A long line arriving in pieces.
  EXPECT_TRUE(Collect(s, "abc").empty());
  EXPECT_TRUE(Collect(s, "defgh").empty());
  EXPECT_TRUE(Collect(s, "ijklmnop").empty());
  EXPECT_THAT(Collect(s, "q\nz\n"), ElementsAre("z"));
  EXPECT_EQ(s.too_long_lines(), 2u);
  // Exactly the limit plus CRLF is fine.
  EXPECT_THAT(Collect(s, "abcd\r\n"), ElementsAre("abcd\r"));
  // An unterminated too-long last line is counted by Finish().
  EXPECT_TRUE(Collect(s, "toolong").empty());
  EXPECT_FALSE(s.Finish().has_value());
  EXPECT_EQ(s.too_long_lines(), 3u);
}

// Random text cut into random chunks (some over the splitter's 64 KiB
// scan piece, so lines also cross pieces) gives back exactly its lines.
TEST(LineSplitterTest, RandomChunksGiveBackEveryLine) {
  std::mt19937 rng(5);
  for (int round = 0; round < 20; ++round) {
    std::string text;
    std::vector<std::string> want(1);
    const size_t size = rng() % 300000;
    const unsigned density = 2 + rng() % 400;
    for (size_t i = 0; i < size; ++i) {
      if (rng() % density == 0) {
        text.push_back('\n');
        want.emplace_back();
      } else {
        const char c = "ab\r\x80"[rng() % 4];
        text.push_back(c);
        want.back().push_back(c);
      }
    }
    LineSplitter s;
    std::vector<std::string> got;
    for (size_t at = 0; at < text.size();) {
      const size_t len = std::min<size_t>(
          text.size() - at, rng() % 3 == 0 ? rng() % 200000 : rng() % 300);
      for (std::string_view l :
           s.Split(std::string_view(text).substr(at, len))) {
        got.emplace_back(l);
      }
      at += len;
    }
    const std::optional<std::string_view> last = s.Finish();
    if (last.has_value()) got.emplace_back(*last);
    if (want.back().empty()) want.pop_back();  // No line after a final '\n'.
    ASSERT_EQ(got, want) << "round " << round;
  }
}

TEST(AggregatorPushBytesTest, SplitsChunksPerSourceAndFlushesOnFinish) {
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line) group by *"));
  AggregatorOptions options;
  options.max_line_bytes = 8;
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q, options));
  ASSERT_OK(agg.PushBytes("one\ntw", /*source=*/1));
  ASSERT_OK(agg.PushBytes("three\nfo", /*source=*/2));
  ASSERT_OK(agg.PushBytes("o\nwaytoolongline\nlast", /*source=*/1));
  ASSERT_OK(agg.EndSource(2));   // "fo" counts now.
  ASSERT_OK(agg.FinishInput());  // "last" of source 1 counts now.
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), "count($line)\n5\n");
  EXPECT_EQ(r.stats().lines_read, 6u);
  EXPECT_EQ(r.stats().lines_too_long, 1u);
  EXPECT_EQ(r.stats().lines_aggregated, 5u);
}

}  // namespace
}  // namespace mapr
