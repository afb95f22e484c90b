// mapr/prometheus.h: the metric and label naming, escaping, values and the
// refusals.
#include "mapr/prometheus.h"

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::_;
using ::testing::HasSubstr;

ResultTable RunLines(const std::string& query,
                     const std::vector<std::string>& lines) {
  AggregatorOptions o;
  o.hostname = "web1";
  absl::StatusOr<ResultTable> r = RunQuery(query, lines, o);
  EXPECT_OK(r);
  return r.ok() ? *std::move(r) : ResultTable({}, {}, 0);
}

TEST(PrometheusTest, GroupKeysAreLabelsAndNumbersAreGauges) {
  const ResultTable r = RunLines(
      "select $hostname,path,count($line),avg(ms) as `avg latency`,"
      "last(ms),sum(ms) group by $hostname,path logformat generickv",
      {"path=/a|ms=1.5", "path=/a|ms=2", "path=/b\"x\\y|ms=3"});
  ASSERT_OK_AND_ASSIGN(std::string text, ToPrometheus(r));
  EXPECT_EQ(text,
            "# HELP mapr_count_line count($line)\n"
            "# TYPE mapr_count_line gauge\n"
            "mapr_count_line{hostname=\"web1\",path=\"/a\"} 2\n"
            "mapr_count_line{hostname=\"web1\",path=\"/b\\\"x\\\\y\"} 1\n"
            "# HELP mapr_avg_latency avg latency\n"
            "# TYPE mapr_avg_latency gauge\n"
            "mapr_avg_latency{hostname=\"web1\",path=\"/a\"} 1.75\n"
            "mapr_avg_latency{hostname=\"web1\",path=\"/b\\\"x\\\\y\"} 3\n"
            "# HELP mapr_sum_ms sum(ms)\n"
            "# TYPE mapr_sum_ms gauge\n"
            "mapr_sum_ms{hostname=\"web1\",path=\"/a\"} 3.5\n"
            "mapr_sum_ms{hostname=\"web1\",path=\"/b\\\"x\\\\y\"} 3\n");
}

TEST(PrometheusTest, NamesAreMadeValidAndUnique) {
  const ResultTable r = RunLines(
      "select count($line),count($line) as `count line`,max(9lives) as "
      "`9lives`,`1st` group by `1st` logformat generickv",
      {"1st=a\xff"
       "b|9lives=2"});
  PrometheusOptions o;
  o.prefix = "app:";
  ASSERT_OK_AND_ASSIGN(std::string text, ToPrometheus(r, o));
  EXPECT_THAT(text, HasSubstr("app:count_line{l1st=\"a\xef\xbf\xbd"
                              "b\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("app:count_line_2{l1st="));
  EXPECT_THAT(text, HasSubstr("app:9lives{l1st="));
  o.prefix = "9x";
  EXPECT_THAT(ToPrometheus(r, o).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("invalid metric name prefix '9x'")));
}

TEST(PrometheusTest, NoGroupsGiveOneUnlabelledSample) {
  const ResultTable r =
      RunLines("select count($line),avg(x) group by * logformat generickv",
               {"x=1", "x=2"});
  ASSERT_OK_AND_ASSIGN(std::string text, ToPrometheus(r));
  EXPECT_THAT(text, HasSubstr("\nmapr_count_line 2\n"));
  EXPECT_THAT(text, HasSubstr("\nmapr_avg_x 1.5\n"));
}

TEST(PrometheusTest, RowsThatCannotBeToldApartAreRefused) {
  // `path` is grouped by but not selected: the two rows get no labels.
  const ResultTable r =
      RunLines("select count($line) group by path logformat generickv",
               {"path=/a", "path=/b"});
  EXPECT_THAT(ToPrometheus(r).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rows 1 and 2 get the same labels (none): "
                                 "select every group-by field")));
}

// WritePrometheus hands the text to its sink in chunks of whole lines (a
// chunk once 64 KiB are pending), which add up to ToPrometheus' text; a
// refusal writes nothing.
TEST(PrometheusTest, SinkGetsWholeLinesInChunksThatAddUp) {
  std::vector<std::string> lines;
  for (int i = 0; i < 6000; ++i) {
    lines.push_back(absl::StrCat("path=/api/v1/items/", i, "|ms=", i % 97));
  }
  const ResultTable r = RunLines(
      "select path,count($line),avg(ms) group by path logformat generickv",
      lines);
  ASSERT_OK_AND_ASSIGN(std::string whole, ToPrometheus(r));
  ASSERT_GT(whole.size(), size_t{3} << 16);
  std::vector<std::string> chunks;
  ASSERT_OK(WritePrometheus(
      r, {}, [&](std::string_view chunk) { chunks.emplace_back(chunk); }));
  EXPECT_GE(chunks.size(), 3u);
  std::string joined;
  for (const std::string& chunk : chunks) {
    ASSERT_FALSE(chunk.empty());
    EXPECT_EQ(chunk.back(), '\n');
    // At most one line past the 64 KiB mark.
    EXPECT_LT(chunk.size(), (size_t{1} << 16) + 200);
    joined += chunk;
  }
  EXPECT_EQ(joined, whole);

  int calls = 0;
  PrometheusOptions bad_prefix;
  bad_prefix.prefix = "9x";
  EXPECT_THAT(
      WritePrometheus(r, bad_prefix, [&](std::string_view) { ++calls; }),
      StatusIs(absl::StatusCode::kInvalidArgument, _));
  const ResultTable unlabelled =
      RunLines("select count($line) group by path logformat generickv",
               {"path=/a", "path=/b"});
  EXPECT_THAT(
      WritePrometheus(unlabelled, {}, [&](std::string_view) { ++calls; }),
      StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace mapr
