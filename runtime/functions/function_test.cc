// The contract of runtime/function.h, checked for every registered
// function: a well-formed catalog entry; its usage compiles as written; the
// batch apply leaves missing values missing (unless the entry says it
// gives them a result: isnull), depends on each value alone
// (any batch split and order give the same results), and allocates from the
// batch's arena only (results stay valid while the arena lives).
#include "runtime/function.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

// The calls a usage names: "time(x) or time(x, '%d')" -> both, with the
// placeholders of whole-number arguments (substr's start and len, split's
// i) given values.
std::vector<std::string> UsageCalls(const plan::FunctionInfo& f) {
  std::vector<std::string> calls;
  for (absl::string_view c : absl::StrSplit(util::ToAbsl(f.usage), " or ")) {
    calls.push_back(absl::StrReplaceAll(
        c, {{", start", ", 2"}, {", len)", ", 3)"}, {", i)", ", 2)"}}));
  }
  return calls;
}

// lookup()'s usage names 'table.csv': each test that compiles the usages
// runs in a folder that has one (keys among Inputs()), allowing lookups.
class InTableFolder {
 public:
  InTableFolder() : old_(std::filesystem::current_path()) {
    dir_ = std::filesystem::temp_directory_path() /
           ("mapr_function_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::filesystem::current_path(dir_);
    std::ofstream("table.csv", std::ios::binary)
        << "key,column\n0,zero\n12.5,twelve\n\"GET /api/users/42 "
           "HTTP/1.1\",get\n\"\",empty\n";
  }
  ~InTableFolder() {
    std::filesystem::current_path(old_);
    std::filesystem::remove_all(dir_);
  }

 private:
  std::filesystem::path old_, dir_;
};

absl::StatusOr<Query> Compile(const std::string& text) {
  CompileOptions options;
  options.allow_file_lookups = true;
  return Query::Compile(text, options);
}

absl::StatusOr<ResultTable> RunWithTables(
    const std::string& text, const std::vector<std::string>& lines) {
  absl::StatusOr<Query> q = Compile(text);
  if (!q.ok()) return q.status();
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q);
  if (!agg.ok()) return agg.status();
  absl::Status s = agg->PushLines(std::span<const std::string>(lines));
  if (s.ok()) s = agg->FinishInput();
  if (!s.ok()) return s;
  return agg->TakeResult();
}

TEST(FunctionContractTest, CatalogEntriesAreWellFormed) {
  std::set<std::string_view> names;
  ASSERT_FALSE(ScalarFunctions().empty());
  for (const ScalarFunction* f : ScalarFunctions()) {
    const plan::FunctionInfo& info = f->info;
    SCOPED_TRACE(std::string(info.name));
    EXPECT_TRUE(names.insert(info.name).second) << "listed twice";
    EXPECT_FALSE(info.summary.empty());
    EXPECT_TRUE(info.usage.starts_with(std::string(info.name) + "("));
    EXPECT_EQ(&FunctionOf(info), f);
    // An apply for every function the engine runs; arguments need a hook.
    EXPECT_EQ(f->apply == nullptr, info.expression_only);
    if (info.extra_args + info.optional_args > 0) {
      EXPECT_NE(info.bind, nullptr);
    }
  }
}

TEST(FunctionContractTest, UsageCompilesAsWritten) {
  const InTableFolder folder;
  for (const ScalarFunction* f : ScalarFunctions()) {
    for (const std::string& call : UsageCalls(f->info)) {
      const std::string query =
          "select $v set $v = " + call + " logformat logfmt";
      absl::StatusOr<Query> q = Compile(query);
      EXPECT_TRUE(q.ok()) << query << ": " << q.status();
      // In `where`, too, but for a group field's own call (window).
      if (f->info.group_field_only) {
        EXPECT_FALSE(Compile("select count($line) where " + call +
                             " eq \"1\" logformat logfmt")
                         .ok())
            << call;
        continue;
      }
      const std::string where =
          "select count($line) where " + call + " eq \"1\" logformat logfmt";
      q = Compile(where);
      EXPECT_TRUE(q.ok()) << where << ": " << q.status();
    }
  }
}

// Values of many shapes: numbers, times, durations, sizes, text, empty.
const std::vector<std::string>& Inputs() {
  static const std::vector<std::string> kInputs = {
      "",
      "0",
      "12.5",
      "-3",
      "1700000000",
      "2026-12-01T14:07:31.123+01:00",
      "10/Oct/2000:13:55:36 -0700",
      "Oct 11 22:14:15",
      "1002-071947",
      "1.5s",
      "18ms",
      "10KB",
      "1.5MiB",
      "GET /api/users/42 HTTP/1.1",
      "a,b,c",
      "x=1 y=2",
      "ÄÖÜ mixed Case 123",
      "10.1.2.3",
      "192.168.0.255",
      "2001:db8::1",
      "::ffff:10.1.2.3",
      "1.2.3.4:80",
      std::string(300, 'z')};
  return kInputs;
}

// Each call of each usage over every input alone, then over all of them
// in one batch with lines that have no value between them, then reversed:
// the groups and their counts are the sum of the lone runs (each value's
// result depends on it alone; a line without a value lands in the missing
// group), and the order of the lines changes nothing.
TEST(FunctionContractTest, MissingStaysMissingAndEachValueStandsAlone) {
  const InTableFolder folder;
  for (const ScalarFunction* f : ScalarFunctions()) {
    if (f->apply == nullptr) continue;
    for (const std::string& call : UsageCalls(f->info)) {
      SCOPED_TRACE(call);
      const std::string query = "select $v, count($line) set $v = " + call +
                                " group by $v logformat logfmt";
      auto run = [&](const std::vector<std::string>& lines) {
        absl::StatusOr<ResultTable> r = RunWithTables(query, lines);
        EXPECT_TRUE(r.ok()) << r.status();
        return r.ok() ? r->ToCsv() : std::string();
      };
      // "value,count" rows (after the header) by value.
      auto rows = [](const std::string& csv) {
        std::map<std::string, uint64_t> out;
        std::vector<std::string> lines = absl::StrSplit(csv, '\n');
        for (size_t i = 1; i < lines.size(); ++i) {
          if (lines[i].empty()) continue;
          const size_t comma = lines[i].rfind(',');
          out[lines[i].substr(0, comma)] +=
              std::stoull(lines[i].substr(comma + 1));
        }
        return out;
      };
      std::map<std::string, uint64_t> want;
      std::vector<std::string> together;
      for (const std::string& in : Inputs()) {
        const std::string line = "x=\"" + in + "\"";
        const std::map<std::string, uint64_t> one = rows(run({line}));
        // One group, or several for a line in several (window's).
        if (!f->info.group_field_only) {
          ASSERT_EQ(one.size(), 1u) << in;
        }
        for (const auto& [value, count] : one) want[value] += count;
        together.push_back(line);
        together.push_back("y=no-x-here");  // $v missing.
      }
      // Lines without the value land in the missing group, or in the
      // group of the function's result on a missing value (isnull).
      const std::map<std::string, uint64_t> none = rows(run({"y=no-x"}));
      ASSERT_EQ(none.size(), 1u);
      if (!f->info.defined_on_missing) {
        EXPECT_EQ(none.begin()->first, "");
      }
      want[none.begin()->first] += Inputs().size();
      const std::string all = run(together);
      EXPECT_EQ(rows(all), want);
      EXPECT_EQ(
          run(std::vector<std::string>(together.rbegin(), together.rend())),
          all);
    }
  }
}

}  // namespace
}  // namespace mapr::runtime
