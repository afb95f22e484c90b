#include "mapr/line_splitter.h"

#include <algorithm>
#include <optional>
#include <random>
#include <span>
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

TEST(LineSplitterTest, DropsAByteOrderMarkAtTheStartOfEachStream) {
  const std::string bom = "\xEF\xBB\xBF";
  LineSplitter s;
  EXPECT_THAT(Collect(s, bom + "a,b\n" + bom + "c\n"),
              ElementsAre("a,b", bom + "c"));  // Only at the start.
  EXPECT_FALSE(s.Finish().has_value());
  // A new stream after Finish(); the mark split over chunks and carried.
  EXPECT_TRUE(Collect(s, "\xEF").empty());
  EXPECT_TRUE(Collect(s, "\xBB\xBFx").empty());
  EXPECT_THAT(Collect(s, "y\nz\n"), ElementsAre("xy", "z"));
  // A stream of one unterminated line.
  s.DiscardPartialLine();
  EXPECT_TRUE(Collect(s, bom + "{}").empty());
  std::optional<std::string_view> last = s.Finish();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(*last, "{}");
  // A first line dropped as too long ends the check.
  LineSplitter short_lines(/*max_line_bytes=*/4);
  EXPECT_THAT(Collect(short_lines, "123456\n" + bom + "a\n"),
              ElementsAre(bom + "a"));
  // ContinueStream: the bytes do not start a stream.
  LineSplitter range;
  range.ContinueStream();
  EXPECT_THAT(Collect(range, bom + "a\n"), ElementsAre(bom + "a"));
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

TEST(LineSplitterTest, TooLongIsDecidedAtTheLimitWhateverTheChunks) {
  // Every cut of "1234\r\n" + "12345\r\n" + "123\r" (an unterminated last
  // line with its '\r') into two chunks gives the same lines and count.
  const std::string text = "1234\r\n12345\r\n123\r";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    LineSplitter s(/*max_line_bytes=*/4);
    std::vector<std::string> got = Collect(s, text.substr(0, cut));
    for (const std::string& l : Collect(s, text.substr(cut))) got.push_back(l);
    const std::optional<std::string_view> last = s.Finish();
    ASSERT_TRUE(last.has_value()) << cut;
    got.emplace_back(*last);
    EXPECT_THAT(got, ElementsAre("1234\r", "123\r")) << cut;
    EXPECT_EQ(s.too_long_lines(), 1u) << cut;
  }
}

TEST(LineSplitterTest, DiscardPartialLineDropsItWithoutCounting) {
  LineSplitter s(/*max_line_bytes=*/4);
  EXPECT_EQ(s.max_line_bytes(), 4u);
  EXPECT_THAT(Collect(s, "a\nbc"), ElementsAre("a"));
  s.DiscardPartialLine();
  EXPECT_FALSE(s.has_partial_line());
  EXPECT_FALSE(s.Finish().has_value());
  // A too-long partial line is dropped uncounted too.
  EXPECT_TRUE(Collect(s, "toolong").empty());
  EXPECT_TRUE(s.has_partial_line());
  s.DiscardPartialLine();
  EXPECT_FALSE(s.has_partial_line());
  EXPECT_EQ(s.too_long_lines(), 0u);
  // The next stream starts afresh.
  EXPECT_THAT(Collect(s, "d\n"), ElementsAre("d"));
}

TEST(LineSplitterTest, LongLineInManySmallChunks) {
  // 8 MiB in 4 KiB chunks: 2048 appends to the carry buffer, completed once.
  const size_t size = size_t{8} << 20;
  LineSplitter s(/*max_line_bytes=*/size);
  const std::string chunk(4096, 'x');
  for (size_t n = 0; n < size; n += chunk.size()) {
    ASSERT_TRUE(s.Split(chunk).empty());
  }
  std::span<const std::string_view> lines = s.Split("\r\nok\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), size + 1);
  EXPECT_EQ(lines[1], "ok");
  // One byte more is too long.
  for (size_t n = 0; n < size; n += chunk.size()) s.Split(chunk);
  EXPECT_TRUE(s.Split("x\r\n").empty());
  EXPECT_EQ(s.too_long_lines(), 1u);
  EXPECT_FALSE(s.has_partial_line());
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
