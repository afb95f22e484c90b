// lookup(): reading the table, the answers, the errors, and the table's
// place in a partial's fingerprint.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "tests/testing/result_rows.h"

namespace mapr::runtime {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

// A folder of its own for the test's tables, and the working directory
// while the test runs (tables are named relative to it).
class LookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = fs::current_path();
    dir_ = fs::temp_directory_path() /
           ("mapr_lookup_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    fs::current_path(dir_);
    Write("hosts.csv",
          "host,owner,\"rack, row\"\r\n"
          "web1,alice,\"r1, a\"\r\n"
          "web2,bob,r2\n"
          "\n"
          "db1,\"carol \"\"c\"\"\",r3\n");
  }
  void TearDown() override {
    fs::current_path(old_);
    fs::remove_all(dir_);
  }
  static void Write(const std::string& name, const std::string& text) {
    std::ofstream(name, std::ios::binary) << text;
  }
  static absl::StatusOr<Query> Compile(const std::string& text) {
    CompileOptions options;
    options.allow_file_lookups = true;
    return Query::Compile(text, options);
  }
  // The rows of `query` over `lines`, cells joined by ','.
  static std::vector<std::string> Rows(const std::string& query,
                                       const std::vector<std::string>& lines) {
    CompileOptions options;
    options.allow_file_lookups = true;
    return ::mapr::testing::QueryRows(query, lines, options);
  }
  static std::string Error(const std::string& query) {
    absl::StatusOr<Query> q = Compile(query);
    EXPECT_FALSE(q.ok()) << query;
    return q.ok() ? "" : std::string(q.status().message());
  }

  fs::path old_, dir_;
};

const std::vector<std::string> kLines = {"host=web1", "host=web2", "host=web2",
                                         "host=db1",  "host=mail", "other=1"};

TEST_F(LookupTest, AnswersFromTheTable) {
  EXPECT_THAT(Rows("select $owner, count($line) set $owner = lookup(host, "
                   "'hosts.csv', 'owner') group by $owner logformat logfmt",
                   kLines),
              ElementsAre(",2", "alice,1", "bob,2", "carol \"c\",1"));
  // A column name with a comma; the key column named.
  EXPECT_THAT(Rows("select $rack, count($line) set $rack = lookup(host, "
                   "'hosts.csv', 'rack, row', 'host') group by $rack "
                   "logformat logfmt",
                   kLines),
              ElementsAre(",2", "r1, a,1", "r2,2", "r3,1"));
  // Keyed by another column: owner -> host.
  EXPECT_THAT(Rows("select $h, count($line) set $h = lookup(o, 'hosts.csv', "
                   "'host', 'owner') group by $h logformat logfmt",
                   {"o=bob", "o=alice", "o=nobody"}),
              ElementsAre(",1", "web1,1", "web2,1"));
}

TEST_F(LookupTest, TheTableMayComeFirst) {
  const std::vector<std::string> want = {",2", "alice,1", "bob,2",
                                         "carol \"c\",1"};
  EXPECT_EQ(Rows("select $o, count($line) set $o = lookup('hosts.csv', host, "
                 "'owner') group by $o logformat logfmt",
                 kLines),
            want);
  // In an expression and in `where`.
  EXPECT_EQ(Rows("select $o, count($line) set $o = coalesce(lookup("
                 "'hosts.csv', host, 'owner'), lookup('hosts.csv', other, "
                 "'owner')) group by $o logformat logfmt",
                 kLines),
            want);
  EXPECT_THAT(Rows("select host, count($line) where lookup('hosts.csv', host, "
                   "'owner') eq \"bob\" group by host logformat logfmt",
                   kLines),
              ElementsAre("web2,2"));
  EXPECT_THAT(Rows("select $u, count($line) set $u = upper(lookup(host, "
                   "'hosts.csv', 'owner')) where host ne \"mail\" group by "
                   "$u logformat logfmt",
                   kLines),
              ElementsAre("ALICE,1", "BOB,2", "CAROL \"C\",1"));
}

TEST_F(LookupTest, ErrorsNameTheTableAndPointAtIt) {
  absl::StatusOr<Query> refused =
      Query::Compile("select $o set $o = lookup(h, 'hosts.csv', 'owner')");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.status().message()),
            "1:30-40: lookup() reads files only where the host allows it "
            "(CompileOptions::allow_file_lookups; the mapr command does)\n"
            "select $o set $o = lookup(h, 'hosts.csv', 'owner')\n"
            "                             ^~~~~~~~~~~\n"
            "hint: lookup() reads a CSV file whose first line names its "
            "columns");
  EXPECT_EQ(Error("select $o set $o = lookup(h, 'none.csv', 'owner')"),
            "1:30-39: cannot read the lookup table 'none.csv': No such file "
            "or directory\n"
            "select $o set $o = lookup(h, 'none.csv', 'owner')\n"
            "                             ^~~~~~~~~~\n"
            "hint: lookup() reads a CSV file whose first line names its "
            "columns");
  EXPECT_EQ(Error("select $o set $o = lookup(h, 'hosts.csv', 'owners')"),
            "1:43-50: the lookup table 'hosts.csv' has no column 'owners'\n"
            "select $o set $o = lookup(h, 'hosts.csv', 'owners')\n"
            "                                          ^~~~~~~~\n"
            "hint: its columns: 'host', 'owner', 'rack, row'");
  EXPECT_EQ(Error("select $o set $o = lookup(h, hosts.csv, 'owner')"),
            "1:30-38: the table of lookup() must be a non-empty 'quoted' "
            "string\n"
            "select $o set $o = lookup(h, hosts.csv, 'owner')\n"
            "                             ^~~~~~~~~\n"
            "hint: write: lookup(x, 'table.csv', 'column') or lookup(x, "
            "'table.csv', 'column', 'key')");
  Write("dup.csv", "k,v\na,1\nb,2\na,3\n");
  EXPECT_THAT(Error("select $o set $o = lookup(h, 'dup.csv', 'v')"),
              ::testing::StartsWith(
                  "1:30-38: line 4 of the lookup table 'dup.csv' repeats "
                  "the key of an earlier line\n"));
  EXPECT_THAT(Error("select $o set $o = lookup(h, 'dup.csv', 'v')"),
              ::testing::EndsWith(
                  "\nhint: the key 'a'; each key may have one row, so every "
                  "lookup has one answer"));
  Write("ragged.csv", "k,v\na,1\nb\n");
  EXPECT_THAT(Error("select $o set $o = lookup(h, 'ragged.csv', 'v')"),
              ::testing::StartsWith(
                  "1:30-41: line 3 of the lookup table 'ragged.csv' has 1 "
                  "field, its header 2\n"));
  Write("empty.csv", "");
  EXPECT_THAT(Error("select $o set $o = lookup(h, 'empty.csv', 'v')"),
              ::testing::StartsWith("1:30-40: the lookup table 'empty.csv' "
                                    "has no header line\n"));
  CompileOptions small;
  small.allow_file_lookups = true;
  small.max_lookup_bytes = 10;
  absl::StatusOr<Query> big = Query::Compile(
      "select $o set $o = lookup(h, 'hosts.csv', 'owner')", small);
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(std::string(big.status().message()),
              ::testing::StartsWith(
                  "1:30-40: the lookup table 'hosts.csv' is larger than 10 "
                  "bytes (CompileOptions::max_lookup_bytes)\n"));
}

// The table's bytes are part of the fingerprint: a partial made with
// another table is refused, one made with the same table merges (and
// FromPartial reads the table again).
TEST_F(LookupTest, PartialsOfOtherTablesDoNotMerge) {
  const std::string text =
      "select $o, count($line) set $o = lookup(host, 'hosts.csv', 'owner') "
      "group by $o logformat logfmt";
  uint64_t split = 0;
  auto partial = [&](const std::vector<std::string>& lines) {
    absl::StatusOr<Query> q = Compile(text);
    EXPECT_TRUE(q.ok()) << q.status();
    AggregatorOptions options;
    options.splits = SplitRange{split, split + 1};
    ++split;
    absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, options);
    EXPECT_TRUE(agg->PushLines(std::span<const std::string>(lines)).ok());
    EXPECT_TRUE(agg->FinishInput().ok());
    absl::StatusOr<std::string> p = agg->SerializePartial();
    EXPECT_TRUE(p.ok());
    return *p;
  };
  const std::string first = partial({"host=web1"});
  const std::string same = partial({"host=web2"});
  AggregatorOptions here;
  here.partial_lookup_dir = dir_.string();
  absl::StatusOr<Aggregator> merged = Aggregator::FromPartial(first, here);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_TRUE(merged->MergeSerialized(same).ok())
      << merged->MergeSerialized(same);
  ASSERT_TRUE(merged->FinishInput().ok());
  EXPECT_EQ(merged->TakeResult()->ToCsv(), "$o,count($line)\nalice,1\nbob,1\n");

  Write("hosts.csv", "host,owner\nweb1,dave\n");
  const std::string other = partial({"host=web1"});
  absl::StatusOr<Aggregator> agg = Aggregator::FromPartial(other, here);
  ASSERT_TRUE(agg.ok()) << agg.status();
  const absl::Status refused = agg->MergeSerialized(same);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  // The first partial no longer matches the table on disk either.
  EXPECT_EQ(Aggregator::FromPartial(first, here).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A partial's query comes from elsewhere: it reads no table unless the
// caller names a folder, and then only tables inside it; what it reads is
// not echoed back.
TEST_F(LookupTest, APartialsQueryReadsTablesOnlyWhereTheCallerAllows) {
  auto partial_of = [](const std::string& text) {
    absl::StatusOr<Query> q = Compile(text);
    EXPECT_TRUE(q.ok()) << q.status();
    absl::StatusOr<Aggregator> agg = Aggregator::Create(*q, {});
    EXPECT_TRUE(agg->FinishInput().ok());
    absl::StatusOr<std::string> p = agg->SerializePartial();
    EXPECT_TRUE(p.ok());
    return *p;
  };
  const std::string p = partial_of(
      "select $o, count($line) set $o = lookup(host, 'hosts.csv', 'owner') "
      "group by $o logformat logfmt");
  EXPECT_EQ(std::string(Aggregator::FromPartial(p).status().message()),
            "the partial's query 'select $o,count($line) set $o = "
            "lookup(host, \"hosts.csv\", \"owner\") group by $o logformat "
            "logfmt' reads lookup() tables: a partial's query reads files "
            "only from the folder the caller allows "
            "(AggregatorOptions::partial_lookup_dir; mapr --lookup-dir DIR)");
  AggregatorOptions here;
  here.partial_lookup_dir = dir_.string();
  EXPECT_TRUE(Aggregator::FromPartial(p, here).ok());
  fs::create_directories(dir_ / "tables");
  AggregatorOptions tables;
  tables.partial_lookup_dir = (dir_ / "tables").string();
  EXPECT_EQ(std::string(Aggregator::FromPartial(p, tables).status().message()),
            absl::StrCat("the partial's query 'select $o,count($line) set $o "
                         "= lookup(host, \"hosts.csv\", \"owner\") group by "
                         "$o logformat logfmt' does not compile: 1:46-56: the "
                         "lookup table 'hosts.csv' is outside ",
                         tables.partial_lookup_dir,
                         " (the folder lookup() tables may be read from)"));
  // A table's content (its header, a repeated key) stays in the hint,
  // which a partial's error does not show.
  Write("secret.csv", "root:x:0:0\nk\nk\n");
  const std::string q =
      "select $o set $o = lookup(host, 'secret.csv', 'owner') logformat "
      "logfmt";
  EXPECT_NE(Error(q).find("root:x:0:0"), std::string::npos);
  Write("secret.csv", "owner\nk\n");
  const std::string dup = partial_of(q);
  Write("secret.csv", "root:x:0:0\nk\nk\n");
  const absl::Status s = Aggregator::FromPartial(dup, here).status();
  EXPECT_EQ(s.message().find("root:x:0:0"), absl::string_view::npos) << s;
  Write("secret.csv", "owner\nsecret\nsecret\n");
  const absl::Status d = Aggregator::FromPartial(dup, here).status();
  EXPECT_EQ(d.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.message().find("secret'"), absl::string_view::npos) << d;
}

// A table is a regular file: a FIFO (which would block the compile until
// a writer came) or a device is refused at once.
TEST_F(LookupTest, ATableIsARegularFile) {
  ASSERT_EQ(mkfifo((dir_ / "fifo.csv").c_str(), 0600), 0);
  EXPECT_THAT(Error("select $o set $o = lookup(h, 'fifo.csv', 'v')"),
              ::testing::StartsWith("1:30-39: the lookup table 'fifo.csv' is "
                                    "not a regular file\n"));
  EXPECT_THAT(Error("select $o set $o = lookup(h, '/dev/zero', 'v')"),
              ::testing::StartsWith("1:30-40: the lookup table '/dev/zero' is "
                                    "not a regular file\n"));
}

}  // namespace
}  // namespace mapr::runtime
