// Unit tests for queries over the access-log plugin: the pattern to copy.
#include "examples/query_plugin/access_log_format.h"

#include "gtest/gtest.h"
#include "mapr/mapr.h"

namespace {

const std::vector<std::string_view> kLog = {
    R"(203.0.113.7 - - [30/Nov/2026:04:37:25 +0000] "GET /api/orders HTTP/1.1" 200 512 0.042)",
    R"(203.0.113.8 - - [30/Nov/2026:04:37:26 +0000] "GET /api/orders HTTP/1.1" 500 0 1.500)",
    R"(203.0.113.7 - - [30/Nov/2026:04:37:27 +0000] "POST /api/cart HTTP/1.1" 201 128 0.080)",
    R"(not an access log line)",
};

class AccessLogTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(access_log::Register().ok()); }
};

TEST_F(AccessLogTest, CountsRequestsPerPath) {
  absl::StatusOr<mapr::ResultTable> r = mapr::RunQuery(
      "select path,count($line),max(latency) group by path "
      "order by count($line) logformat accesslog",
      std::span<const std::string_view>(kLog));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToCsv(),
            "path,count($line),max(latency)\n"
            "/api/orders,2,1.500000\n"
            "/api/cart,1,0.080000\n");
  EXPECT_EQ(r->stats().lines_malformed, 1u);
}

TEST_F(AccessLogTest, FiltersServerErrors) {
  absl::StatusOr<mapr::ResultTable> r = mapr::RunQuery(
      "select remote,count($line) where status >= 500 group by remote "
      "logformat accesslog",
      std::span<const std::string_view>(kLog));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToCsv(), "remote,count($line)\n203.0.113.8,1\n");
}

TEST_F(AccessLogTest, UnknownFieldIsMissingNotAnError) {
  absl::StatusOr<mapr::ResultTable> r =
      mapr::RunQuery("select count(referrer) group by * logformat accesslog",
                     std::span<const std::string_view>(kLog));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->num_rows(), 0u);  // No line gave count(referrer) a value.
}

}  // namespace
