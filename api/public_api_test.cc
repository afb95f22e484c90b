// The public API the `mapr` command is built on: Query::columns(), the
// catalogs (mapr/catalog.h) and ReadTime (mapr/time.h).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/catalog.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "mapr/time.h"

namespace mapr {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;

TEST(QueryColumnsTest, DescribeTheResultBeforeARun) {
  absl::StatusOr<Query> q = Query::Compile(
      "select $t, $b, count($line), last($x) "
      "set $t = bucket($time, 5m), $b = bucket($n, 10) "
      "group by $t, $b order by count($line) logformat generickv");
  ASSERT_TRUE(q.ok()) << q.status();
  const std::vector<ResultColumn> c = q->columns();
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].name, "$t");
  EXPECT_TRUE(c[0].is_group_key);
  EXPECT_TRUE(c[0].is_bucket);
  EXPECT_TRUE(c[0].is_time_bucket);
  EXPECT_TRUE(c[1].is_bucket);
  EXPECT_FALSE(c[1].is_time_bucket);
  EXPECT_EQ(c[2].name, "count($line)");
  EXPECT_EQ(c[2].type, ValueType::kInteger);
  EXPECT_TRUE(c[2].is_order_key);
  EXPECT_FALSE(c[2].is_bucket);
  EXPECT_EQ(c[3].aggregate, "last");
  EXPECT_EQ(c[3].type, ValueType::kText);
  EXPECT_FALSE(c[3].is_group_key);
  EXPECT_EQ(q->column_names(),
            (std::vector<std::string>{"$t", "$b", "count($line)", "last($x)"}));
}

TEST(QueryColumnsTest, APlainGroupKeyIsNoBucket) {
  absl::StatusOr<Query> q =
      Query::Compile("select $h, count($line) group by $h logformat generickv");
  ASSERT_TRUE(q.ok()) << q.status();
  const std::vector<ResultColumn> c = q->columns();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_TRUE(c[0].is_group_key);
  EXPECT_FALSE(c[0].is_bucket);
  EXPECT_FALSE(c[0].is_time_bucket);
}

TEST(CatalogTest, ListsWhatCompiles) {
  const std::vector<CatalogEntry> aggregates = AggregateCatalog();
  const std::vector<CatalogEntry> functions = FunctionCatalog();
  EXPECT_THAT(aggregates, Contains(Field(&CatalogEntry::usage, "avg(x)")));
  EXPECT_THAT(functions, Contains(Field(&CatalogEntry::name, "bucket")));
  for (const CatalogEntry& a : aggregates) {
    EXPECT_FALSE(a.summary.empty()) << a.name;
    // pN stands for p1 ... p99 (and p99.9); rate() needs a time bucket
    // among the group fields; the usage shows a second argument (topk(x,
    // k)).
    std::string call = a.usage;
    call.replace(0, a.name.size(), a.name == "pN" ? "p95" : a.name);
    call = absl::StrReplaceAll(
        call, {{"(x", "($x"}, {", k)", ", 3)"}, {", w)", ", 10)"}});
    const std::string query = "select " + call +
                              " set $m = bucket($time, 1m) group by $m "
                              "logformat generickv";
    EXPECT_TRUE(Query::Compile(query).ok()) << query;
  }
  for (const CatalogEntry& f : functions) {
    EXPECT_FALSE(f.summary.empty()) << f.name;
    EXPECT_EQ(f.usage.rfind(f.name + "(", 0), 0u) << f.usage;
  }
}

TEST(ReadTimeTest, ReadsTimeLayoutsAsInstants) {
  EXPECT_EQ(ReadTime("2026-12-04T10:00:00Z"), (TimeInstant{1796378400, 0}));
  EXPECT_EQ(ReadTime("2026-12-04T11:00:00.25+01:00"),
            (TimeInstant{1796378400, 250000000}));
  EXPECT_EQ(ReadTime("04/Dec/2026:10:00:00 +0000"),
            (TimeInstant{1796378400, 0}));
  EXPECT_EQ(ReadTime("1796378400"), (TimeInstant{1796378400, 0}));
  EXPECT_LT(*ReadTime("31/Mar/2026:00:00:00 +0000"),
            *ReadTime("01/Apr/2026:00:00:00 +0000"));
  EXPECT_EQ(ReadTime("not a time"), std::nullopt);
  EXPECT_EQ(ReadTime(""), std::nullopt);
  EXPECT_EQ(ReadTime("2026-13-01T00:00:00Z"), std::nullopt);
}

// ReadTimes' year rule: times without a year (syslog, DTail's MMDD-HHMMSS)
// are read in 2000; when every time read lacks a year and two next in
// calendar order lie more than half a year (183 days) apart, the times
// before that gap move to 2001, so December orders before January.
TEST(ReadTimeTest, TimesWithoutAYearCrossNewYearInOrder) {
  constexpr int64_t k2000 = 946684800;  // 2000-01-01T00:00:00Z
  constexpr int64_t kDay = 86400;
  constexpr int64_t k2001 = k2000 + 366 * kDay;
  auto seconds = [](std::vector<std::string_view> texts) {
    std::vector<int64_t> out;
    for (const std::optional<TimeInstant>& t : ReadTimes(texts)) {
      out.push_back(t.has_value() ? t->seconds : -1);
    }
    return out;
  };
  // December into January: January moves on a year.
  EXPECT_THAT(seconds({"Dec 31 23:59:59", "Jan  1 00:00:01"}),
              ElementsAre(k2001 - 1, k2001 + 1));
  EXPECT_THAT(seconds({"0101-000001", "1231-235959"}),
              ElementsAre(k2001 + 1, k2001 - 1));
  // A pure function of the set: any order, the same instant per text.
  EXPECT_THAT(
      seconds({"Jan  1 00:00:01", "Dec 31 23:59:59", "Jan  1 00:00:01"}),
      ElementsAre(k2001 + 1, k2001 - 1, k2001 + 1));
  // Within half a year nothing moves: exactly 183 days apart stays...
  EXPECT_THAT(seconds({"Jan  1 00:00:00", "Jul  2 00:00:00"}),
              ElementsAre(k2000, k2000 + 183 * kDay));
  // ... one second more is a gap across New Year.
  EXPECT_THAT(seconds({"Jan  1 00:00:00", "Jul  2 00:00:01"}),
              ElementsAre(k2001, k2000 + 183 * kDay + 1));
  // Only when every time read lacks a year: one with a year (or an epoch)
  // leaves the others in 2000. Texts that are no time are left out.
  EXPECT_THAT(
      seconds({"Dec 31 23:59:59", "Jan  1 00:00:01", "2026-12-04T10:00:00Z"}),
      ElementsAre(k2001 - 1, k2000 + 1, 1796378400));
  EXPECT_THAT(seconds({"Dec 31 23:59:59", "not a time", "Jan  1 00:00:01"}),
              ElementsAre(k2001 - 1, -1, k2001 + 1));
  EXPECT_THAT(seconds({"Jan  1 00:00:01"}), ElementsAre(k2000 + 1));
  EXPECT_THAT(seconds({}), ElementsAre());
}

}  // namespace
}  // namespace mapr
