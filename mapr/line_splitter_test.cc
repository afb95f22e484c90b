#include "mapr/line_splitter.h"

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
