#include "parser/planner.h"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "api/query_internal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "parser/ast.h"
#include "parser/function_catalog.h"
#include "parser/parse.h"
#include "parser/plan.h"
#include "re2/re2.h"
#include "runtime/planner_context.h"
#include "tests/testing/status_matchers.h"
#include "util/strings.h"

namespace mapr::parser {
namespace {

using ::mapr::testing::IsOk;
using ::mapr::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

using plan::CompareOp;
using plan::Operand;
using plan::StateSlot;
using plan::TableFilter;

absl::StatusOr<plan::Plan> PlanWith(std::string_view text,
                                    const PlannerContext& context) {
  absl::StatusOr<ast::Query> q = Parse(text);
  if (!q.ok()) return q.status();
  return BuildPlan(*q, text, context);
}

absl::StatusOr<plan::Plan> PlanOf(std::string_view text) {
  return PlanWith(text, runtime::RegistryPlannerContext());
}

std::string FieldName(const plan::Plan& p, plan::FieldId id) {
  return p.fields[id].name;
}

std::vector<std::string> FieldNames(const plan::Plan& p,
                                    const std::vector<plan::FieldId>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (plan::FieldId id : ids) out.push_back(FieldName(p, id));
  return out;
}

std::vector<std::string> Extracted(const plan::Plan& p) {
  return FieldNames(p, p.extracted_fields);
}

std::vector<std::string> GroupBy(const plan::Plan& p) {
  return FieldNames(p, p.group_by);
}

std::vector<std::string> Warnings(const plan::Plan& p) {
  std::vector<std::string> out;
  for (const plan::Warning& w : p.warnings) out.push_back(w.message);
  return out;
}

std::vector<std::string> ColumnNames(const plan::Plan& p) {
  std::vector<std::string> out;
  for (const plan::Column& c : p.columns) out.push_back(c.name);
  return out;
}

std::optional<plan::FieldId> FindField(const plan::Plan& p,
                                       std::string_view name) {
  for (plan::FieldId id = 0; id < p.fields.size(); ++id) {
    if (p.fields[id].name == name) return id;
  }
  return std::nullopt;
}

// The plan's state slots as "state(field)".
std::vector<std::string> SlotNames(const plan::Plan& p) {
  std::vector<std::string> out;
  for (const StateSlot& s : p.slots) {
    out.push_back(absl::StrCat(util::ToAbsl(s.aggregate->state), "(",
                               p.fields[s.field].name, ")"));
  }
  return out;
}

// ---- Log format and table
// ----------------------------------------------------

// The function names of a set step, innermost first.
std::vector<std::string_view> Kinds(const plan::SetStep& step) {
  std::vector<std::string_view> names;
  for (const plan::FunctionStep& f : step.functions) {
    names.push_back(f.info->name);
  }
  return names;
}

// The literal arguments a call was bound with, as the plan writes them.
std::string ArgsOf(const plan::FunctionStep& f) {
  return f.binding ? f.binding->ArgsText() : "";
}

TEST(PlannerTest, FormatChoice) {
  struct Case {
    std::string_view query;
    std::string_view format;
    bool given;
  };
  const Case kCases[] = {
      {"select a", "generic", false},
      {"select a from STATS", "default", false},
      {"select a from STATS logformat generic", "generic", true},
      {"select a logformat default", "default", true},
      {"select a logformat csv", "csv", true},
      {"select a logformat CSV", "csv", true},
      {"select a logformat GenericKV", "generickv", true},
      {"select a logformat `generic`", "generic", true},
  };
  for (const Case& c : kCases) {
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(c.query));
    EXPECT_EQ(p.log_format, c.format) << c.query;
    EXPECT_EQ(p.log_format_given, c.given) << c.query;
  }
}

TEST(PlannerTest, UnknownFormatListsTheKnownOnes) {
  EXPECT_THAT(
      PlanOf("select a logformat nginx"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:20-24: unknown log format 'nginx'\n"
                  "select a logformat nginx\n"
                  "                   ^~~~~\n"
                  "hint: known log formats: auto, clf, combined, csv, default, "
                  "fields, generic, generickv, journal, json, jsonl, logfmt, "
                  "ndjson, "
                  "pattern, "
                  "regex, "
                  "syslog")));
}

TEST(PlannerTest, MultilineRules) {
  ASSERT_OK_AND_ASSIGN(plan::Plan builtin,
                       PlanOf("select a multiline JAVA logformat logfmt"));
  ASSERT_NE(builtin.event_start, nullptr);
  EXPECT_EQ(builtin.event_start->text(), "java");
  EXPECT_TRUE(builtin.event_start->builtin());
  EXPECT_TRUE(builtin.event_start->Starts("2024-05-01 x"));
  EXPECT_FALSE(builtin.event_start->Starts("\tat a.B.c(B.java:1)"));
  EXPECT_NE(plan::DebugString(builtin).find("events: built-in java\n"),
            std::string::npos);
  ASSERT_OK_AND_ASSIGN(plan::Plan pattern, PlanOf("select a multiline '^S'"));
  ASSERT_NE(pattern.event_start, nullptr);
  EXPECT_EQ(pattern.event_start->text(), "^S");
  EXPECT_TRUE(pattern.event_start->Starts("S1"));
  EXPECT_FALSE(pattern.event_start->Starts(" S1"));
  EXPECT_NE(pattern.canonical.find(" multiline \"^S\""), std::string::npos);
  ASSERT_OK_AND_ASSIGN(plan::Plan none, PlanOf("select a"));
  EXPECT_EQ(none.event_start, nullptr);
  EXPECT_THAT(
      PlanOf("select a multiline ruby"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:20-23: unknown multiline rule 'ruby'\n"
                  "select a multiline ruby\n"
                  "                   ^~~~\n"
                  "hint: built-in rules: java, python, go, stacktrace, "
                  "indented; or a 'quoted' regular expression that matches "
                  "the lines that start an event")));
  EXPECT_THAT(PlanOf("select a multiline '(x'"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::StartsWith(
                           "1:20-23: invalid regular expression: missing ): "
                           "(x\nselect a multiline '(x'\n")));
}

TEST(PlannerTest, HostContextSuppliesFormats) {
  PlannerContext ctx = runtime::RegistryPlannerContext();
  ctx.format_names = {"zeta", "alpha"};
  ctx.lookup_format = [](std::string_view name) -> std::optional<FormatInfo> {
    if (name == "alpha") return FormatInfo{"alpha", std::nullopt, nullptr};
    return std::nullopt;
  };
  ASSERT_OK_AND_ASSIGN(plan::Plan p,
                       PlanWith("select $x logformat ALPHA", ctx));
  EXPECT_EQ(p.log_format, "alpha");
  // A format that declares no variables never warns.
  EXPECT_THAT(p.warnings, IsEmpty());
  // Without a logformat clause the default rule picks generic, which this
  // context does not know; the names are listed sorted.
  EXPECT_THAT(PlanWith("select a", ctx),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:1: unknown log format 'generic'\n"
                          "select a\n"
                          "^\n"
                          "hint: known log formats: alpha, zeta")));
}

TEST(PlannerTest, TableFilter) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf("select a"));
  EXPECT_EQ(p.table_filter, TableFilter::kNone);
  EXPECT_EQ(p.table_marker, "");

  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a from stats"));
  EXPECT_EQ(p.table_filter, TableFilter::kTable);
  EXPECT_EQ(p.table, "STATS");
  EXPECT_EQ(p.table_marker, "|MAPREDUCE:STATS|");

  // Taken literally, not as a regex.
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a from St.Ts"));
  EXPECT_EQ(p.table_marker, "|MAPREDUCE:ST.TS|");

  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a from *"));
  EXPECT_EQ(p.table_filter, TableFilter::kAny);
  EXPECT_EQ(p.table_marker, "");

  // A backticked star is a table named `*`.
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a from `*`"));
  EXPECT_EQ(p.table_filter, TableFilter::kTable);
  EXPECT_EQ(p.table_marker, "|MAPREDUCE:*|");
}

TEST(PlannerTest, CsvTableFilter) {
  // DTail's fork gives table "." (match all) for csv without from.
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf("select foo logformat csv"));
  EXPECT_EQ(p.log_format, "csv");
  EXPECT_EQ(p.table_filter, TableFilter::kNone);
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select foo from myfile logformat csv"));
  EXPECT_EQ(p.log_format, "csv");
  EXPECT_EQ(p.table_filter, TableFilter::kTable);
  EXPECT_EQ(p.table_marker, "|MAPREDUCE:MYFILE|");
}

// ---- Group by
// ------------------------------------------------------------------

TEST(PlannerTest, DefaultGroupByIsTheFirstSelectItemsField) {
  struct Case {
    std::string_view query;
    std::vector<std::string> group_by;
  };
  const std::vector<Case> kCases = {
      {"select count($line)", {"$line"}},
      {"select count(*)", {"*"}},
      {"select count($line) from STATS", {"$line"}},
      {"select avg(x), count(y)", {"x"}},
      {"select `count($time)`, x", {"count($time)"}},
      {"select count() from STATS", {""}},
      {"select count($line) group by $hostname", {"$hostname"}},
      {"select count($line) group by a, `b c`, *", {"a", "b c", "*"}},
  };
  for (const Case& c : kCases) {
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(c.query));
    EXPECT_EQ(GroupBy(p), c.group_by) << c.query;
  }
}

TEST(PlannerTest, GroupKeyColumns) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select host,count(value) from STATS group by host order by "
             "count(value)"));
  ASSERT_EQ(p.columns.size(), 2u);
  EXPECT_TRUE(p.columns[0].is_group_key);
  EXPECT_FALSE(p.columns[1].is_group_key);
  ASSERT_EQ(p.order_by.size(), 1u);
  EXPECT_EQ(p.order_by[0].value, 1u);

  // Only a plain field that is grouped on is a key; an alias keeps it one.
  ASSERT_OK_AND_ASSIGN(
      p, PlanOf("select last(host), host as h, other, count(host) group by "
                "host"));
  ASSERT_EQ(p.columns.size(), 4u);
  EXPECT_FALSE(p.columns[0].is_group_key);
  EXPECT_TRUE(p.columns[1].is_group_key);
  EXPECT_FALSE(p.columns[2].is_group_key);
  EXPECT_FALSE(p.columns[3].is_group_key);

  // The default group-by counts too.
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select $time, count($line)"));
  EXPECT_TRUE(p.columns[0].is_group_key);
}

// ---- Fields
// ----------------------------------------------------------------------

TEST(PlannerTest, FieldPlanOfDTailsTest) {
  // The case of DTail's parserfieldplan_test.go.
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count($derived) from STATS where $goroutines > 10 set "
             "$derived = md5sum(foo), $other = $derived group by $derived"));
  EXPECT_THAT(Extracted(p), UnorderedElementsAre("$goroutines", "foo"));
  for (std::string_view name : {"$derived", "$other"}) {
    std::optional<plan::FieldId> id = FindField(p, name);
    ASSERT_TRUE(id.has_value()) << name;
    EXPECT_FALSE(p.fields[*id].extracted) << name;
    EXPECT_TRUE(p.fields[*id].assigned) << name;
  }
  EXPECT_FALSE(FindField(p, "$time").has_value());
  EXPECT_TRUE(p.sets_before_where.empty());
}

TEST(PlannerTest, FieldPlanOnlyHasWhatTheQueryReads) {
  // TestDefaultLogFormatQuerySpecificFields: bar, $time, $pid and $line are
  // not needed.
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count(foo) from STATS where $hostname eq \"testhost\""));
  EXPECT_THAT(Extracted(p), ElementsAre("foo"));
}

TEST(PlannerTest, CommonVariablesAreNeverExtracted) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count($line), $hostname, $server, $timezone, "
             "$timeoffset, $empty, count(*) from STATS where $line contains "
             "\"x\" group by *"));
  EXPECT_THAT(Extracted(p), IsEmpty());
  EXPECT_EQ(p.fields[*FindField(p, "$line")].common,
            plan::CommonVariable::kLine);
  EXPECT_EQ(p.fields[*FindField(p, "*")].common, plan::CommonVariable::kStar);
}

TEST(PlannerTest, ExtractedFieldsAreInIdOrder) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("from STATS select count($line),last($time),avg($goroutines),"
             "min(concurrentConnections),max(lifetimeConnections) group by "
             "$hostname"));
  EXPECT_THAT(Extracted(p),
              ElementsAre("$time", "$goroutines", "concurrentConnections",
                          "lifetimeConnections"));
}

TEST(PlannerTest, SetSourcesAreExtractedUnlessAnEarlierSetWroteThem) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select $b set $a = md5sum(x), $b = $a, $c = 42, $d = \"s\""));
  EXPECT_THAT(Extracted(p), ElementsAre("x"));
  // A set that reads its own target reads the format's value first.
  ASSERT_OK_AND_ASSIGN(
      p, PlanOf("from STATS select $time set $time = maskdigits($time)"));
  EXPECT_THAT(Extracted(p), ElementsAre("$time"));
  // dmap5: CSV columns with unusual names, read through backticks.
  ASSERT_OK_AND_ASSIGN(
      p, PlanOf("select sum($timecount),last($time),min($min_goroutines), "
                "group by $hostname set $timecount = `count($time)`, $time = "
                "`$time`, $min_goroutines = `min($goroutines)` logformat csv"));
  EXPECT_THAT(Extracted(p), UnorderedElementsAre("count($time)", "$time",
                                                 "min($goroutines)"));
}

// ---- Where
// -------------------------------------------------------------------------

TEST(PlannerTest, FloatOperandsAreNumbersOrFields) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select a where x > 5 and -1.5e3 <= y and a == b and `7` != 1 "
             "and z => 0x10 and n =< inf"));
  ASSERT_TRUE(p.where.has_value());
  const plan::Condition& w = *p.where;
  EXPECT_EQ(w.kind, plan::Condition::Kind::kAnd);
  ASSERT_EQ(w.children.size(), 6u);

  const plan::Condition& c0 = w.children[0];
  EXPECT_EQ(c0.op, CompareOp::kFloatGt);
  EXPECT_EQ(c0.lhs.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, c0.lhs.field), "x");
  EXPECT_EQ(c0.rhs.kind, Operand::Kind::kNumber);
  EXPECT_EQ(c0.rhs.number, 5);
  EXPECT_EQ(c0.rhs.text, "5");

  const plan::Condition& c1 = w.children[1];
  EXPECT_EQ(c1.op, CompareOp::kFloatLe);
  EXPECT_EQ(c1.lhs.kind, Operand::Kind::kNumber);
  EXPECT_EQ(c1.lhs.number, -1500);
  EXPECT_EQ(c1.rhs.kind, Operand::Kind::kField);

  const plan::Condition& c2 = w.children[2];
  EXPECT_EQ(c2.op, CompareOp::kFloatEq);
  EXPECT_EQ(c2.lhs.kind, Operand::Kind::kField);
  EXPECT_EQ(c2.rhs.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, c2.rhs.field), "b");

  // A backticked number is a field name.
  const plan::Condition& c3 = w.children[3];
  EXPECT_EQ(c3.op, CompareOp::kFloatNe);
  EXPECT_EQ(c3.lhs.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, c3.lhs.field), "7");

  // Hex is not numeric in mapr: a field.
  const plan::Condition& c4 = w.children[4];
  EXPECT_EQ(c4.op, CompareOp::kFloatGe);
  EXPECT_EQ(c4.rhs.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, c4.rhs.field), "0x10");

  const plan::Condition& c5 = w.children[5];
  EXPECT_EQ(c5.op, CompareOp::kFloatLe);
  EXPECT_EQ(c5.rhs.kind, Operand::Kind::kNumber);
  EXPECT_TRUE(std::isinf(c5.rhs.number));

  EXPECT_THAT(Extracted(p),
              ElementsAre("a", "x", "y", "b", "7", "z", "0x10", "n"));
}

TEST(PlannerTest, StringOperandsAreLiteralsOrFields) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select a where status eq 200 and s contains \"x y\" and t ne u "
             "and v lacks `200` and \"\" hasprefix w and w nhassuffix \"q\" "
             "and w ncontains \"r\" and w nhasprefix \"s\" and w hassuffix "
             "\"t\""));
  const plan::Condition& w = *p.where;
  ASSERT_EQ(w.children.size(), 9u);
  // A bare number under a string operator is the literal text.
  EXPECT_EQ(w.children[0].op, CompareOp::kStrEq);
  EXPECT_EQ(w.children[0].lhs.kind, Operand::Kind::kField);
  EXPECT_EQ(w.children[0].rhs.kind, Operand::Kind::kString);
  EXPECT_EQ(w.children[0].rhs.text, "200");
  EXPECT_EQ(w.children[1].op, CompareOp::kContains);
  EXPECT_EQ(w.children[1].rhs.kind, Operand::Kind::kString);
  EXPECT_EQ(w.children[1].rhs.text, "x y");
  // A bareword is a field, as in DTail.
  EXPECT_EQ(w.children[2].op, CompareOp::kStrNe);
  EXPECT_EQ(w.children[2].rhs.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, w.children[2].rhs.field), "u");
  // `lacks` is ncontains; a backticked number is a field.
  EXPECT_EQ(w.children[3].op, CompareOp::kNotContains);
  EXPECT_EQ(w.children[3].rhs.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, w.children[3].rhs.field), "200");
  EXPECT_EQ(w.children[4].op, CompareOp::kHasPrefix);
  EXPECT_EQ(w.children[4].lhs.kind, Operand::Kind::kString);
  EXPECT_EQ(w.children[4].lhs.text, "");
  EXPECT_EQ(w.children[5].op, CompareOp::kNotHasSuffix);
  EXPECT_EQ(w.children[6].op, CompareOp::kNotContains);
  EXPECT_EQ(w.children[7].op, CompareOp::kNotHasPrefix);
  EXPECT_EQ(w.children[8].op, CompareOp::kHasSuffix);
}

TEST(PlannerTest, WhereTreeKeepsItsShape) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select a where x > 1 and (y eq \"a\" or not z contains 200)"));
  EXPECT_EQ(plan::DebugString(p),
            "format: generic (default rule)\n"
            "table: every line\n"
            "extract: a, x, y, z\n"
            "where: and[(x > 1) or[(y eq \"a\") not(z contains \"200\")]]\n"
            "group by: a\n"
            "columns:\n"
            "  a: last(a) slot 0 [group key]\n"
            "states: last(a)\n"
            "interval: 5000ms\n");
}

// ---- Set
// ---------------------------------------------------------------------------

TEST(PlannerTest, SetSteps) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count($line) set $a = maskdigits(md5sum($line)), $b = "
             "42, $c = \"s\", $d = $a, $e = `x y`, $f = md5sum(\"lit\")"));
  ASSERT_EQ(p.sets.size(), 6u);

  const plan::SetStep& a = p.sets[0];
  EXPECT_EQ(FieldName(p, a.target), "$a");
  // Innermost first.
  EXPECT_THAT(Kinds(a), ElementsAre("md5sum", "maskdigits"));
  EXPECT_EQ(a.source.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, a.source.field), "$line");

  const plan::SetStep& b = p.sets[1];
  EXPECT_THAT(b.functions, IsEmpty());
  EXPECT_EQ(b.source.kind, Operand::Kind::kNumber);
  EXPECT_EQ(b.source.text, "42");
  EXPECT_EQ(b.source.number, 42);

  EXPECT_EQ(p.sets[2].source.kind, Operand::Kind::kString);
  EXPECT_EQ(p.sets[2].source.text, "s");

  EXPECT_EQ(p.sets[3].source.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, p.sets[3].source.field), "$a");

  EXPECT_EQ(p.sets[4].source.kind, Operand::Kind::kField);
  EXPECT_EQ(FieldName(p, p.sets[4].source.field), "x y");

  // A quoted argument is a literal, never a field.
  EXPECT_THAT(Kinds(p.sets[5]), ElementsAre("md5sum"));
  EXPECT_EQ(p.sets[5].source.kind, Operand::Kind::kString);
  EXPECT_EQ(p.sets[5].source.text, "lit");

  EXPECT_THAT(Extracted(p), ElementsAre("x y"));
}

TEST(PlannerTest, SetsBeforeWhere) {
  struct Case {
    std::string_view query;
    size_t sets_before_where;
  };
  const Case kCases[] = {
      // DTail rejected every line here (where ran first); mapr runs the set
      // first because where reads a variable only set provides.
      {"select a where $m eq \"x\" set $m = \"x\"", 1},
      // $time is a variable of the default format: where reads the
      // format's value, the set runs after.
      {"from STATS select a where $time eq \"x\" set $time = "
       "maskdigits($time)",
       0},
      // generic has no $time: it is set-only there.
      {"select a where $time eq \"x\" set $time = maskdigits($line)", 1},
      // Only the steps where depends on run first (on private copies).
      {"select a where $b eq \"x\" set $a = 1, $b = $a, $c = 2", 2},
      {"select a where $a eq \"x\" set $a = 1, $b = $a, $c = 2", 1},
      {"select a where x eq \"x\" set $a = 1", 0},
      // A set target without a $ is an error; barewords never move.
      {"select a set $a = 1", 0},
  };
  for (const Case& c : kCases) {
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(c.query));
    EXPECT_EQ(p.sets_before_where.size(), c.sets_before_where) << c.query;
  }
}

TEST(PlannerTest, WhereExpressionsRunBeforeWhereOnly) {
  // An expression operand is a step of its own before `where`, after the
  // set steps it reads (on their private copies), and not run again after.
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count($line) where ($m + b) * 2 > 7 and lower(c) eq "
             "\"x\" and ($m + b) * 2 < 100 set $m = len(a)"));
  EXPECT_THAT(Extracted(p), ElementsAre("b", "c", "a"));
  EXPECT_EQ(plan::DebugString(p),
            "format: generic (default rule)\n"
            "table: every line\n"
            "extract: b, c, a\n"
            "set before where: $m' = len(a), `($m + b) * 2`' = mul(add($m', "
            "b), '2'), `lower(c)`' = lower(c)\n"
            "where: and[(`($m + b) * 2`' > 7) (`lower(c)`' eq \"x\") "
            "(`($m + b) * 2`' < 100)]\n"
            "set: $m = len(a)\n"
            "group by: $line\n"
            "columns:\n"
            "  count($line): count($line) slot 0\n"
            "states: count($line)\n"
            "interval: 5000ms\n");
}

TEST(PlannerTest, SetBeforeWhereReadsItsSourceFromTheLine) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count($line) where $m eq \"x\" set $m = md5sum(foo)"));
  EXPECT_EQ(p.sets_before_where.size(), 1u);
  EXPECT_THAT(Extracted(p), ElementsAre("foo"));
  EXPECT_EQ(plan::DebugString(p),
            "format: generic (default rule)\n"
            "table: every line\n"
            "extract: foo\n"
            "set before where: $m' = md5sum(foo)\n"
            "where: ($m' eq \"x\")\n"
            "set: $m = md5sum(foo)\n"
            "group by: $line\n"
            "columns:\n"
            "  count($line): count($line) slot 0\n"
            "states: count($line)\n"
            "interval: 5000ms\n");
}

// ---- Aggregate slots
// ---------------------------------------------------------------

TEST(PlannerTest, IdenticalItemsShareASlot) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf("select sum(x), sum(x), sum(y)"));
  ASSERT_EQ(p.columns.size(), 3u);
  EXPECT_EQ(p.columns[0].slot, p.columns[1].slot);
  EXPECT_NE(p.columns[0].slot, p.columns[2].slot);
  EXPECT_THAT(SlotNames(p), ElementsAre("sum(x)", "sum(y)"));
}

TEST(PlannerTest, SumPercentageAndPercentileShareTheSumSlot) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select sum(x), percentage(x), percentile(x), avg(x), count(x), "
             "min(x), max(x), last(x), len(x), x"));
  ASSERT_EQ(p.columns.size(), 10u);
  EXPECT_EQ(p.columns[1].slot, p.columns[0].slot);
  EXPECT_EQ(p.columns[2].slot, p.columns[0].slot);
  // avg keeps its own state (sum and count of numeric values).
  EXPECT_NE(p.columns[3].slot, p.columns[0].slot);
  // A plain field is last().
  EXPECT_EQ(p.columns[9].slot, p.columns[7].slot);
  EXPECT_EQ(p.columns[9].aggregate->name, "last");
  EXPECT_EQ(p.columns[2].aggregate->name, "percentile");
  EXPECT_THAT(SlotNames(p),
              ElementsAre("sum(x)", "avg(x)", "count(x)", "min(x)", "max(x)",
                          "last(x)", "len(x)"));
}

// ---- Columns
// -----------------------------------------------------------------------

TEST(PlannerTest, ColumnNamesUseAliases) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count($line) as n, $time, avg(x) as `a b`, `count($t)`"));
  EXPECT_THAT(ColumnNames(p), ElementsAre("n", "$time", "a b", "count($t)"));
  ASSERT_EQ(p.columns.size(), 4u);
  EXPECT_EQ(p.columns[0].storage, "count($line)");
  EXPECT_EQ(p.columns[1].storage, "$time");
  EXPECT_EQ(p.columns[2].storage, "avg(x)");
  EXPECT_EQ(p.columns[3].storage, "count($t)");
  EXPECT_EQ(p.columns[3].aggregate->name, "last");
}

// ---- Order, limit, interval, outfile
// -----------------------------------------------

TEST(PlannerTest, OrderColumnAndDirection) {
  struct Case {
    std::string_view query;
    std::optional<uint32_t> column;
    bool descending;
  };
  const Case kCases[] = {
      {"select a, count(b)", std::nullopt, true},
      {"select a, count(b) order by count(b)", 1, true},
      {"select a, count(b) order by count(b) desc", 1, true},
      {"select a, count(b) order by count(b) asc", 1, false},
      {"select a, count(b) rorder by count(b)", 1, false},
      {"select a, count(b) rorder by a asc", 0, false},
      {"select a, count(b) ORDER a", 0, true},
      // By alias, or by the item as written.
      {"select a, count(b) as n order by n", 1, true},
      {"select a, count(b) as n order by count(b)", 1, true},
      // An alias wins over another item's field of the same name.
      {"select count(x) as y, y order by y", 0, true},
  };
  for (const Case& c : kCases) {
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(c.query));
    if (!c.column) {
      EXPECT_TRUE(p.order_by.empty()) << c.query;
      continue;
    }
    ASSERT_EQ(p.order_by.size(), 1u) << c.query;
    EXPECT_EQ(p.order_by[0].value, *c.column) << c.query;
    EXPECT_EQ(p.order_by[0].descending, c.descending) << c.query;
  }
}

TEST(PlannerTest, HavingResolvesAliasesItemsGroupFieldsAndHiddenAggregates) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select y, sum(x) as total group by y, z having total > 1 and "
             "sum(x) < 9 and count($line) >= 2 and z eq \"q\" and y != 3"));
  ASSERT_EQ(p.columns.size(), 2u);
  // count($line) is computed in a hidden slot; z reads the key part.
  ASSERT_EQ(p.hidden_columns.size(), 2u);
  EXPECT_EQ(p.hidden_columns[0].storage, "count($line)");
  EXPECT_EQ(p.hidden_columns[0].slot, 2u);
  EXPECT_EQ(p.hidden_columns[1].storage, "z");
  EXPECT_EQ(p.hidden_columns[1].slot, plan::kKeyPartSlot);
  ASSERT_EQ(p.slots.size(), 3u);  // last(y), sum(x), count($line)
  ASSERT_TRUE(p.having.has_value());
  ASSERT_EQ(p.having->children.size(), 5u);
  const auto value_of = [&](size_t i) {
    const plan::Operand& o = p.having->children[i].lhs;
    EXPECT_EQ(o.kind, plan::Operand::Kind::kValue);
    return o.value;
  };
  EXPECT_EQ(value_of(0), 1u);  // the alias
  EXPECT_EQ(value_of(1), 1u);  // the item as written
  EXPECT_EQ(value_of(2), 2u);  // hidden count($line)
  EXPECT_EQ(value_of(3), 3u);  // group field z
  EXPECT_EQ(value_of(4), 0u);  // the select item y
  EXPECT_EQ(p.having->children[1].rhs.kind, plan::Operand::Kind::kNumber);
  EXPECT_EQ(p.having->children[3].rhs.kind, plan::Operand::Kind::kString);
  // The hidden slot's field is extracted like a select item's.
  EXPECT_THAT(plan::DebugString(p),
              HasSubstr("having: and[(sum(x) > 1) (sum(x) < 9) (count($line) "
                        ">= 2) (z eq \"q\") (y != 3)]"));
}

// topk(x, k) columns of one field share a slot (k is read when the
// result is built); histogram(x, w) slots differ by width.
TEST(PlannerTest, ArgumentsOfSlotsAndColumns) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select topk(x, 3), topk(x,10), histogram(x, 0.5), "
             "histogram(x, 100), histogram(x,0.5) as again group by *"));
  ASSERT_EQ(p.columns.size(), 5u);
  EXPECT_EQ(p.columns[0].storage, "topk(x,3)");
  EXPECT_EQ(p.columns[0].rank, (plan::Rank{3, 1}));
  EXPECT_EQ(p.columns[1].rank, (plan::Rank{10, 1}));
  EXPECT_EQ(p.columns[0].slot, p.columns[1].slot);
  EXPECT_EQ(p.columns[2].storage, "histogram(x,0.5)");
  EXPECT_NE(p.columns[2].slot, p.columns[3].slot);
  EXPECT_EQ(p.columns[2].slot, p.columns[4].slot);
  ASSERT_EQ(p.slots.size(), 3u);
  EXPECT_EQ(p.slots[p.columns[3].slot].parameter, "100");
  EXPECT_EQ(plan::SlotOptions(p, p.columns[2].slot).parameter, "0.5");
  EXPECT_EQ(p.state_options.parameter, "");
}

TEST(PlannerTest, HavingNeverAddsASlotTwice) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count(x) group by g having max(x) > 1 and max(x) < 5 "
             "or count(x) > 2"));
  EXPECT_EQ(p.hidden_columns.size(), 1u);
  EXPECT_EQ(p.slots.size(), 2u);  // count(x), max(x) (g reads the key)
}

TEST(PlannerTest, OrderBySeveralKeysAndGroupFields) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select count(x) as n, a group by a, b order by b, n asc, a"));
  ASSERT_EQ(p.order_by.size(), 3u);
  EXPECT_EQ(p.order_by[0].value, 2u);  // hidden group field b
  EXPECT_TRUE(p.order_by[0].descending);
  EXPECT_EQ(p.order_by[1].value, 0u);
  EXPECT_FALSE(p.order_by[1].descending);
  EXPECT_EQ(p.order_by[2].value, 1u);
  EXPECT_TRUE(p.order_by[2].descending);
  ASSERT_EQ(p.hidden_columns.size(), 1u);
  EXPECT_EQ(p.hidden_columns[0].slot, plan::kKeyPartSlot);
  EXPECT_EQ(p.slots.size(), 2u);  // No state for b.
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select count(x), a group by a rorder by a, "
                                 "count(x) asc"));
  ASSERT_EQ(p.order_by.size(), 2u);
  EXPECT_FALSE(p.order_by[0].descending);
  EXPECT_FALSE(p.order_by[1].descending);
}

TEST(PlannerTest, LimitAndInterval) {
  struct Case {
    std::string_view query;
    int64_t limit;
    int64_t interval_ms;
    bool interval_given;
  };
  const Case kCases[] = {
      {"select a", -1, 5000, false},
      {"select a limit 5", 5, 5000, false},
      {"select a limit 0", 0, 5000, false},
      {"select a limit 007", 7, 5000, false},
      {"select a interval 5", -1, 5000, true},
      {"select a interval 5s", -1, 5000, true},
      {"select a interval 2m", -1, 120000, true},
      {"select a interval 500ms", -1, 500, true},
      {"select a interval 1h", -1, 3600000, true},
      {"select a interval 0", -1, 0, true},
      {"select a interval 8784h", -1, int64_t{8784} * 3600 * 1000, true},
  };
  for (const Case& c : kCases) {
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(c.query));
    EXPECT_EQ(p.limit, c.limit) << c.query;
    EXPECT_EQ(p.interval_ms, c.interval_ms) << c.query;
    EXPECT_EQ(p.interval_given, c.interval_given) << c.query;
  }
  // `interval 0` runs every second, as in DTail.
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf("select a interval 0"));
  EXPECT_EQ(p.effective_interval_ms(), 1000);
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a interval 500ms"));
  EXPECT_EQ(p.effective_interval_ms(), 500);
}

TEST(PlannerTest, IntervalLimits) {
  for (std::string_view bad : {"5x", "x", "-5", "+5", "1.5s", "s", "5S", "5sec",
                               "8785h", "527041m", "99999999999999999999"}) {
    std::string text = "select a interval " + std::string(bad);
    EXPECT_THAT(PlanOf(text),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::HasSubstr("invalid interval")))
        << bad;
  }
}

TEST(PlannerTest, Outfile) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf("select a"));
  EXPECT_EQ(p.outfile, std::nullopt);
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a outfile result.csv"));
  EXPECT_EQ(p.outfile, "result.csv");
  EXPECT_FALSE(p.outfile_append);
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a outfile append \"my r.csv\""));
  EXPECT_EQ(p.outfile, "my r.csv");
  EXPECT_TRUE(p.outfile_append);
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select a outfile append:r.csv"));
  EXPECT_EQ(p.outfile, "append:r.csv");
  EXPECT_FALSE(p.outfile_append);
  EXPECT_THAT(PlanOf("select a outfile \"\""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:18-19: empty outfile path\n"
                          "select a outfile \"\"\n"
                          "                 ^~")));
}

// ---- Warnings
// ----------------------------------------------------------------------

TEST(PlannerTest, WarnsAboutUnknownVariables) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p,
                       PlanOf("from STATS select $service group by $service"));
  EXPECT_THAT(Warnings(p),
              ElementsAre("$service is not a known variable for log format "
                          "\"default\"; did you mean bareword service?"));
  EXPECT_EQ(p.warnings[0].span, (ast::Span{18, 8}));
}

TEST(PlannerTest, UnknownVariableHintsTheClosestKnownOne) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p,
                       PlanOf("select count($lines) group by $hostnam"));
  EXPECT_THAT(Warnings(p),
              ElementsAre("$hostnam is not a known variable for log format "
                          "\"generic\"; did you mean $hostname?",
                          "$lines is not a known variable for log format "
                          "\"generic\"; did you mean $line?"));
  ASSERT_OK_AND_ASSIGN(
      p, PlanOf("select count($line) group by $goroutine logformat default"));
  EXPECT_THAT(Warnings(p),
              ElementsAre("$goroutine is not a known variable for log format "
                          "\"default\"; did you mean $goroutines?"));
}

TEST(PlannerTest, WarningCases) {
  struct Case {
    std::string_view query;
    std::vector<std::string> warned;  // The variables warned about, sorted.
  };
  const std::vector<Case> kCases = {
      // DTail's queryvariables_test.go cases.
      {"from STATS select $service,sum($bytes) group by $service",
       {"$bytes", "$service"}},
      {"select $time,$line", {"$time"}},
      {"from STATS select $empty, count($line)", {}},
      {"from STATS select $x set $x = 1", {}},
      {"from STATS select $x set $x = $y", {"$y"}},
      {"from STATS select $x set $x = md5sum($z)", {"$z"}},
      {"from STATS select count($line) where $foo eq \"x\"", {"$foo"}},
      {"from STATS select service, count($line)", {}},
      // Sorted and de-duplicated.
      {"from STATS select $b, $a, $b group by $a", {"$a", "$b"}},
      // The default format's own variables.
      {"from STATS select $severity, $loglevel, $time, $date, $hour, "
       "$minute, $second, $pid, $caller, $cpus, $goroutines, $cgocalls, "
       "$loadavg, $uptime, $hostname, $server, $timezone, $timeoffset",
       {}},
      // csv, generic and generickv know only the common variables.
      {"select $time logformat csv", {"$time"}},
      {"select $goroutines logformat generickv", {"$goroutines"}},
      {"select $hostname, $server, $timezone, $timeoffset, $line, $empty, "
       "$file logformat generickv",
       {}},
      // clf and combined list their bareword fields, so a `$` before one is
      // warned about; logfmt's keys are open-ended: it never warns.
      {"select $status, status logformat combined", {"$status"}},
      {"select $referer, referer logformat clf", {"$referer"}},
      {"select $level, level logformat logfmt", {}},
      // `$` alone is not a variable name.
      {"from STATS select $", {}},
  };
  for (const Case& c : kCases) {
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(c.query));
    std::vector<std::string> expected;
    for (const std::string& name : c.warned) {
      expected.push_back(name + " is not a known variable for log format \"" +
                         p.log_format + "\"; did you mean bareword " +
                         name.substr(1) + "?");
    }
    EXPECT_EQ(Warnings(p), expected) << c.query;
  }
}

// ---- Errors (the planner reports all of them)
// ------------------------------------

TEST(PlannerTest, CollectsEveryError) {
  EXPECT_THAT(
      PlanOf("select avgg(x), COUNT(y) set z = 1, $a = md5(b) limit x "
             "interval y"),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          Eq("1:8-11: unknown aggregation 'avgg'\n"
             "select avgg(x), COUNT(y) set z = 1, $a = md5(b) limit x "
             "interval y\n"
             "       ^~~~\n"
             "hint: did you mean 'avg'?\n"
             "\n"
             "1:17-21: unknown aggregation 'COUNT'\n"
             "select avgg(x), COUNT(y) set z = 1, $a = md5(b) limit x "
             "interval y\n"
             "                ^~~~~\n"
             "hint: did you mean 'count'? aggregation names are "
             "case-sensitive\n"
             "\n"
             "1:30: 'set' assigns $variables, not 'z'\n"
             "select avgg(x), COUNT(y) set z = 1, $a = md5(b) limit x "
             "interval y\n"
             "                             ^\n"
             "hint: write: set $z = ...\n"
             "\n"
             "1:42-44: unknown function 'md5'\n"
             "select avgg(x), COUNT(y) set z = 1, $a = md5(b) limit x "
             "interval y\n"
             "                                         ^~~\n"
             "hint: known functions: md5sum, maskdigits, regex, time, "
             "bucket, window, duration, bytes, lower, upper, len, substr, "
             "split, "
             "format_time, template, cidr, ip_in, lookup, coalesce, isnull\n"
             "\n"
             "1:55: 'limit' needs a non-negative integer, found 'x'\n"
             "select avgg(x), COUNT(y) set z = 1, $a = md5(b) limit x "
             "interval y\n"
             "                                                      ^\n"
             "hint: limit 0 prints only the header; leave out 'limit' "
             "for every row\n"
             "\n"
             "1:66: invalid interval 'y'\n"
             "select avgg(x), COUNT(y) set z = 1, $a = md5(b) limit x "
             "interval y\n"
             "                                                          "
             "       ^\n"
             "hint: give seconds (interval 5) or a duration with a unit: "
             "500ms, 30s, 2m, 1h (at most a year)")));
}

// ---- Explain
// -----------------------------------------------------------------------

TEST(PlannerTest, DebugStringOfDTailsDeepQuery) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select s1, `from`, count(s3) from table where w1 == 2 and w2 eq "
             "\"free beer\" group by g1, g2 order by count(s3) interval 10 "
             "limit 23 set $foo = maskdigits(bar), $baz = 12, $bay = $foo "
             "logformat generic outfile append out.csv"));
  EXPECT_EQ(plan::DebugString(p),
            "format: generic (logformat)\n"
            "table: |MAPREDUCE:TABLE|\n"
            "extract: s1, from, s3, w1, w2, bar, g1, g2\n"
            "where: and[(w1 == 2) (w2 eq \"free beer\")]\n"
            "set: $foo = maskdigits(bar), $baz = 12, $bay = $foo\n"
            "group by: g1, g2\n"
            "columns:\n"
            "  s1: last(s1) slot 0\n"
            "  from: last(from) slot 1\n"
            "  count(s3): count(s3) slot 2\n"
            "states: last(s1) last(from) count(s3)\n"
            "order by: count(s3) desc\n"
            "limit: 23\n"
            "interval: 10000ms\n"
            "outfile: out.csv (append)\n");
  EXPECT_EQ(p.canonical,
            "select s1,`from`,count(s3) from table where w1 == 2 and w2 eq "
            "\"free beer\" set $foo = maskdigits(bar), $baz = 12, $bay = $foo "
            "group by g1,g2 order by count(s3) interval 10 limit 23 outfile "
            "append \"out.csv\" logformat generic");
}

// ---- Through the public API (the runtime's log format registry)
// --------------------

TEST(QueryCompileTest, Accessors) {
  ASSERT_OK_AND_ASSIGN(
      Query q,
      Query::Compile("from STATS select count($line) as n, $service group by "
                     "$service interval 2m limit 3 outfile append r.csv"));
  EXPECT_EQ(q.text(),
            "from STATS select count($line) as n, $service group by $service "
            "interval 2m limit 3 outfile append r.csv");
  EXPECT_EQ(q.ToString(),
            "select count($line) as n,$service from STATS group by $service "
            "interval 2m limit 3 outfile append \"r.csv\"");
  EXPECT_THAT(q.column_names(), ElementsAre("n", "$service"));
  EXPECT_EQ(q.log_format(), "default");
  EXPECT_EQ(q.table(), "STATS");
  EXPECT_EQ(q.interval_ms(), 120000);
  EXPECT_EQ(q.limit(), 3);
  EXPECT_EQ(q.outfile(), "r.csv");
  EXPECT_TRUE(q.outfile_append());
  EXPECT_THAT(q.warnings(),
              ElementsAre("$service is not a known variable for log format "
                          "\"default\"; did you mean bareword service?"));
  EXPECT_EQ(q.Explain(), plan::DebugString(QueryInternal::GetPlan(q)));
}

TEST(QueryCompileTest, RegistryFormatsMatchTheBuiltinContext) {
  for (std::string_view text : {
           // Long queries are split across lines on purpose (adjacent
           // literals).
           // NOLINTBEGIN(bugprone-suspicious-missing-comma)
           "select count($line) logformat CSV",
           "select $time,$line",
           "from STATS select $severity, $uptime, $service group by $pid",
           "select $goroutines, $hostname logformat generickv",
           "select foo logformat csv",
           "from STATS select count($derived) where $goroutines > 10 set "
           "$derived = md5sum(foo), $other = $derived group by $derived",
       }) {
    // NOLINTEND(bugprone-suspicious-missing-comma)
    ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(text));
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(text));
    EXPECT_EQ(q.Explain(), plan::DebugString(p)) << text;
  }
}

TEST(QueryCompileTest, LogformatIsCaseInsensitive) {
  ASSERT_OK_AND_ASSIGN(Query q,
                       Query::Compile("select count($line) logformat CSV"));
  EXPECT_EQ(q.log_format(), "csv");
  EXPECT_EQ(q.table(), std::nullopt);
  EXPECT_EQ(QueryInternal::GetPlan(q).table_filter, TableFilter::kNone);
  ASSERT_OK_AND_ASSIGN(Query any, Query::Compile("from * select count($line)"));
  EXPECT_EQ(any.table(), "*");
  ASSERT_OK_AND_ASSIGN(Query lower,
                       Query::Compile("from stats select count($line)"));
  EXPECT_EQ(lower.table(), "STATS");
  EXPECT_THAT(
      Query::Compile("select a logformat foo"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               ::testing::StartsWith("1:20-22: unknown log format 'foo'\n")));
}

TEST(QueryCompileTest, CopiesShareThePlan) {
  ASSERT_OK_AND_ASSIGN(Query q, Query::Compile("select count(*)"));
  // The copy is what is tested.
  Query copy = q;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(&QueryInternal::GetPlan(copy), &QueryInternal::GetPlan(q));
}

TEST(QueryCompileTest, CompileOptionsReachTheParser) {
  CompileOptions options;
  options.max_items = 1;
  EXPECT_THAT(Query::Compile("select a, b", options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::StartsWith("1:11: more than 1 select "
                                             "items\n")));
  options = CompileOptions();
  options.max_depth = 1;
  EXPECT_THAT(Query::Compile("select a where not not x > 1", options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::StartsWith("1:20-22: nesting deeper than 1 "
                                             "levels\n")));
  options = CompileOptions();
  options.max_query_bytes = 5;
  EXPECT_THAT(Query::Compile("select a", options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::StartsWith("1:1: query is 8 bytes, more "
                                             "than the limit of 5\n")));
}

TEST(PlannerTest, AggregatesComeFromTheContext) {
  PlannerContext ctx = runtime::RegistryPlannerContext();
  const plan::AggregateInfo* last = nullptr;
  for (const plan::AggregateInfo* a : ctx.aggregates) {
    if (a->name == "last") last = a;
  }
  ASSERT_NE(last, nullptr);
  ctx.aggregates = {last};
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanWith("select last(a), a", ctx));
  EXPECT_EQ(p.columns[0].aggregate, last);
  EXPECT_EQ(p.columns[1].aggregate, last);
  EXPECT_THAT(PlanWith("select count(a)", ctx),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:8-12: unknown aggregation 'count'\n"
                          "select count(a)\n"
                          "       ^~~~~\n"
                          "hint: known aggregations: last")));
  ctx.aggregates.clear();
  EXPECT_THAT(PlanWith("select a", ctx),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("this planner context has no 'last' "
                                 "aggregate")));
}

// ---- Names and explain output for every kind and operator
// -----------------------------------------------------------

TEST(PlannerTest, AggregateNamesRoundTrip) {
  for (std::string_view name : {"count", "sum", "min", "max", "avg", "last",
                                "first", "len", "percentage", "percentile"}) {
    const std::string query = absl::StrCat("select ", std::string(name), "(x)");
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(query));
    ASSERT_EQ(p.columns.size(), 1u) << query;
    EXPECT_EQ(p.columns[0].aggregate->name, name);
  }
  // A bare field is last().
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf("select x"));
  EXPECT_EQ(p.columns[0].aggregate->name, "last");
}

// Every operator the grammar accepts plans to an op whose name is the
// canonical spelling (aliases fold: =< is <=, => is >=, lacks is
// ncontains).
TEST(PlannerTest, CompareOperatorNamesRoundTrip) {
  const std::pair<std::string_view, std::string_view> kOps[] = {
      {"==", "=="},
      {"!=", "!="},
      {"<", "<"},
      {"<=", "<="},
      {"=<", "<="},
      {">", ">"},
      {">=", ">="},
      {"=>", ">="},
      {"eq", "eq"},
      {"ne", "ne"},
      {"contains", "contains"},
      {"ncontains", "ncontains"},
      {"lacks", "ncontains"},
      {"hasprefix", "hasprefix"},
      {"nhasprefix", "nhasprefix"},
      {"hassuffix", "hassuffix"},
      {"nhassuffix", "nhassuffix"},
      {"ieq", "ieq"},
      {"INE", "ine"},
      {"icontains", "icontains"},
      {"nicontains", "nicontains"},
  };
  for (const auto& [written, canonical] : kOps) {
    const std::string query =
        absl::StrCat("select a where a ", std::string(written), " b");
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(query));
    ASSERT_TRUE(p.where.has_value()) << query;
    EXPECT_EQ(plan::CompareOpName(p.where->op), canonical) << query;
    EXPECT_EQ(plan::IsFloatOp(p.where->op),
              canonical.find_first_of("=<>!") != std::string_view::npos)
        << query;
  }
}

TEST(PlannerTest, DebugStringOfOperatorsTablesAndDirections) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select a where a != 1 and (b ne \"x\" or not c hasprefix \"p\") "
             "and d nhassuffix \"s\" and e lacks f and 2 <= g rorder by a"));
  EXPECT_EQ(plan::DebugString(p),
            "format: generic (default rule)\n"
            "table: every line\n"
            "extract: a, b, c, d, e, f, g\n"
            "where: and[(a != 1) or[(b ne \"x\") not(c hasprefix \"p\")] "
            "(d nhassuffix \"s\") (e ncontains f) (2 <= g)]\n"
            "group by: a\n"
            "columns:\n"
            "  a: last(a) slot 0 [group key]\n"
            "states: last(a)\n"
            "order by: a asc\n"
            "interval: 5000ms\n");
}

TEST(PlannerTest, DebugStringOfAnyTableAndSetsBeforeWhere) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p,
                       PlanOf("from * select count($line),a where $m eq \"x\" "
                              "set $m = md5sum(maskdigits(a))"));
  EXPECT_EQ(plan::DebugString(p),
            "format: default (default rule)\n"
            "table: any |MAPREDUCE:<table>|\n"
            "extract: a\n"
            "set before where: $m' = md5sum(maskdigits(a))\n"
            "where: ($m' eq \"x\")\n"
            "set: $m = md5sum(maskdigits(a))\n"
            "group by: $line\n"
            "columns:\n"
            "  count($line): count($line) slot 0\n"
            "  a: last(a) slot 1\n"
            "states: count($line) last(a)\n"
            "interval: 5000ms\n");
}

// Set expressions print in prefix form (add(a, mul(b, '2'))), literals
// quoted, and every function with its literal arguments as written.
TEST(PlannerTest, DebugStringOfExpressionsAndFunctionArguments) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select $e set $e = a + b * 2 - c / d, "
             "$c = coalesce(a, b, \"-\"), $s = substr(a, 2, 3), "
             "$t = substr(a, -2), $p = split(a, ',', 2), "
             "$b = bucket(a, 5m), $n = bucket(a, 0.5), $r = regex(a, 'x(.)'), "
             "$l = time(a, '%Y'), $m = len(upper(a)) * 8 "
             "logformat fields ';'"));
  EXPECT_EQ(plan::DebugString(p),
            "format: fields ';' (logformat)\n"
            "table: every line\n"
            "extract: a, b, c, d\n"
            "set: $e = sub(add(a, mul(b, '2')), div(c, d)), "
            "$c = coalesce(a, b, '-'), $s = substr(a, 2, 3), "
            "$t = substr(a, -2), $p = split(a, ',', 2), "
            "$b = bucket(a, 300s), $n = bucket(a, 0.5), $r = regex(a, 'x(.)'), "
            "$l = time(a, '%Y'), $m = mul(len(upper(a)), '8')\n"
            "group by: $e\n"
            "columns:\n"
            "  $e: last($e) slot 0 [group key]\n"
            "states: last($e)\n"
            "interval: 5000ms\n");
}

// Each way a function call, a time layout, a bucket width, a quantile name
// or a select item can be wrong, with the message that names it.
TEST(PlannerTest, ArgumentErrorsAreNamed) {
  const std::pair<std::string_view, std::string_view> kCases[] = {
      {"select $v set $v = zzzzzzzzzz(a)", "unknown function 'zzzzzzzzzz'\n"},
      {"select $v set $v = substr(a)",
       "substr() takes 2 or 3 arguments, not 1"},
      {"select $v set $v = substr(a, 1, 2, 3)",
       "substr() takes 2 or 3 arguments, not 4"},
      {"select $v set $v = md5sum(a, 1)", "md5sum() takes 1 argument, not 2"},
      {"select $v set $v = substr(a, 0)",
       "expected a whole number other than 0 as an argument of substr(), "
       "found '0'"},
      {"select $v set $v = substr(a, 1099511627777)", "found '1099511627777'"},
      {"select $v set $v = substr(a, -1099511627777)",
       "found '-1099511627777'"},
      {"select $v set $v = substr(a, 'x')", "found 'x'"},
      {"select $v set $v = substr(a, 1.5)", "found '1.5'"},
      {"select $v set $v = substr(a, 1, -1)",
       "the length of substr() cannot be negative"},
      {"select $v set $v = split(a, '', 1)",
       "the separator of split() must be a non-empty 'quoted' string"},
      {"select $v set $v = split(a, x, 1)",
       "the separator of split() must be a non-empty 'quoted' string"},
      {"select $v set $v = split(a, ',', 0)",
       "expected a whole number other than 0 as an argument of split()"},
      {"select $v set $v = time(a, 5)",
       "the layout of time() must be a 'quoted' string"},
      {"select $v set $v = format_time(a, 5)",
       "the layout of format_time() must be a 'quoted' string"},
      {"select $v set $v = time(a, '%Q')",
       "unknown conversion '%Q' in the layout of time()"},
      {"select $v set $v = time(a, '%Y %E')", "unknown conversion '%E'"},
      {"select $v set $v = time(a, '%Y %')", "unknown conversion '%'"},
      {"select $v set $v = time(a, '%E*Q')", "unknown conversion '%E*Q'"},
      {"select $v set $v = format_time(a, '%O2Q')",
       "unknown conversion '%O2Q' in the layout of format_time()"},
      {"select $v set $v = time(a, 'abc')",
       "the layout of time() cannot read a time: 'abc'"},
      {"select $v set $v = time(a, '%% %n %t')",
       "a layout needs conversions such as"},
      {"select $v set $v = time(a, '%Y%Y')",
       "it does not read back its own output"},
      {"select $v set $v = bucket(a, '5m')",
       "the width of bucket() is written bare, not quoted"},
      {"select $v set $v = bucket(a, 0)", "invalid bucket width '0'"},
      {"select $v set $v = bucket(a, -2)", "invalid bucket width '-2'"},
      {"select $v set $v = bucket(a, 5x)", "invalid bucket width '5x'"},
      {"select $v set $v = bucket(a, 0m)", "invalid bucket width '0m'"},
      {"select $v set $v = bucket(a, 2w)", "invalid bucket width '2w'"},
      {"select $v set $v = bucket(a, 1234567s)",
       "invalid bucket width '1234567s'"},
      // 7 minutes do not divide 1440; 6 and 8 do.
      {"select $v set $v = bucket(a, 7m)",
       "bucket width 7m does not divide a day\n"},
      {"select $v set $v = bucket(a, 7m)", "nearest: 6m or 8m"},
      // Past a day: only smaller widths are near.
      {"select $v set $v = bucket(a, 25h)",
       "the width must divide 24h; nearest: 24h"},
      {"select $v set v = a", "'set' assigns $variables, not 'v'"},
      {"select $v set v = a", "write: set $v = ..."},
      {"select a logformat generic 'x'",
       "log format 'generic' takes no argument"},
      {"select p101(a)", "'p101': a percentile is from p0 to p100"},
      {"select percentile95(a)", "write p95"},
      {"select p1x(a)", "unknown aggregation 'p1x'"},
      {"select p.5(a)", "unknown aggregation 'p.5'"},
      {"select p1234567890(a)", "unknown aggregation 'p1234567890'"},
      {"select p1.1234567890(a)", "unknown aggregation 'p1.1234567890'"},
  };
  for (const auto& [query, message] : kCases) {
    EXPECT_THAT(PlanOf(query), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(message)))
        << query;
  }
  // The valid neighbours of those.
  for (std::string_view query :
       {"select $v set $v = bucket(a, 1w)", "select $v set $v = bucket(a, 8m)",
        "select $v set $v = time(a, '%E*S %Ez %E4Y')",
        "select $v set $v = format_time(a, '%O*S %%')",
        "select $v set $v = substr(a, -1099511627776, 0)",
        "select p99.999999999(a)", "select p0(a), p100(a)"}) {
    EXPECT_THAT(PlanOf(query), IsOk()) << query;
  }
  ASSERT_OK_AND_ASSIGN(plan::Plan p,
                       PlanOf("select p99.50(a), p12.5(a) where a eq 5 and a "
                              "== 5 and a eq b"));
  EXPECT_EQ(p.columns[0].rank, (plan::Rank{199, 200}));
  EXPECT_EQ(p.columns[1].rank, (plan::Rank{1, 8}));
  // A number is text to a string operator, a number to a float one.
  EXPECT_THAT(plan::DebugString(p),
              HasSubstr("where: and[(a eq \"5\") (a == 5) (a eq b)]\n"));
}

// A warning points at the first use of the variable: in a select item,
// a group-by field, anywhere in the where tree (left or right, however
// deeply nested) or a set operand.
TEST(PlannerTest, WarningSpansPointAtTheFirstUse) {
  struct Case {
    std::string_view query;
    std::string_view variable;
    ast::Span span;
  };
  const Case kCases[] = {
      {"from STATS select count($line) group by $g", "$g", {40, 2}},
      {"from STATS select count($line) where x > 1 and $w < 2", "$w", {47, 2}},
      {"from STATS select count($line) where 1 < $w", "$w", {41, 2}},
      {"from STATS select count($line) where x > 1 or (y < 2 and not 1 == $w)",
       "$w",
       {66, 2}},
      {"from STATS select count($line) where $w eq \"a\" or $w eq \"b\"",
       "$w",
       {37, 2}},
      {"from STATS select $x set $x = $src", "$src", {30, 4}},
      // In a set expression (not the quoted "$src"), inside a call.
      {"from STATS select $x where x > 1 set $x = 1 + \"$src\" * len($src)",
       "$src",
       {59, 4}},
  };
  for (const Case& c : kCases) {
    ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf(c.query));
    ASSERT_EQ(p.warnings.size(), 1u) << c.query;
    EXPECT_THAT(p.warnings[0].message,
                ::testing::StartsWith(absl::StrCat(std::string(c.variable),
                                                   " is not a known variable")))
        << c.query;
    EXPECT_EQ(p.warnings[0].span, c.span) << c.query;
    EXPECT_EQ(
        c.query.substr(p.warnings[0].span.offset, p.warnings[0].span.length),
        c.variable)
        << c.query;
  }
}

TEST(PlannerTest, RegexOperators) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p, PlanOf("select count($line) where path =~ '^/api/(v\\d+)' "
                           "and agent !~ \"(?i)bot\" logformat generickv"));
  ASSERT_TRUE(p.where.has_value());
  ASSERT_EQ(p.where->children.size(), 2u);
  const plan::Condition& match = p.where->children[0];
  EXPECT_EQ(match.op, CompareOp::kRegexMatch);
  ASSERT_NE(match.regex, nullptr);
  EXPECT_EQ(match.regex->pattern(), "^/api/(v\\d+)");
  EXPECT_EQ(FieldName(p, match.lhs.field), "path");
  const plan::Condition& no_match = p.where->children[1];
  EXPECT_EQ(no_match.op, CompareOp::kRegexNotMatch);
  ASSERT_NE(no_match.regex, nullptr);
  EXPECT_TRUE(RE2::PartialMatch("GoogleBOT/2.1", *no_match.regex));
}

// rate(): count per second of the first group field holding time buckets;
// an error without one.
TEST(PlannerTest, RateDividesByTheBucketWidth) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select $m, rate($line) set $h = lower(a), $m = bucket($time, 5m) "
             "group by $h, $m having rate(x) > 1"));
  EXPECT_EQ(p.columns[1].aggregate->name, "rate");
  EXPECT_EQ(p.columns[1].rank, (plan::Rank{1, 300}));
  ASSERT_EQ(p.hidden_columns.size(), 1u);
  EXPECT_EQ(p.hidden_columns[0].rank, (plan::Rank{1, 300}));
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select rate(a), $d set $d = bucket(t, 1d) "
                                 "group by $d"));
  EXPECT_EQ(p.columns[0].rank, (plan::Rank{1, 86400}));
  // A numeric bin is no time bucket.
  EXPECT_THAT(PlanOf("select rate(a) set $b = bucket(n, 100) group by $b"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:8-11: rate() is a value per second of a time "
                          "bucket, and no 'group by' field is one\n"
                          "select rate(a) set $b = bucket(n, 100) group by $b\n"
                          "       ^~~~\n"
                          "hint: group by a bucket: set $minute = "
                          "bucket($time, 1m) ... group by $minute")));
  EXPECT_THAT(PlanOf("select count(a) group by a having rate(a) > 1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:35-38: rate() is a value per second")));
}

// window(t, w, h): the group field's key part, the width and the hop; rate()
// divides by the width; every misuse is an error under the call.
TEST(PlannerTest, WindowIsAGroupFieldOfHops) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select h, $w, count($line), rate($line) set $w = window($time, "
             "15m, 5m) group by h, $w having $w ne 'x' order by $w"));
  ASSERT_TRUE(p.window.has_value());
  EXPECT_EQ(p.window->key_part, 1u);
  EXPECT_EQ(p.window->width_seconds, 900);
  EXPECT_EQ(p.window->hop_seconds, 300);
  EXPECT_EQ(p.columns[3].rank, (plan::Rank{1, 900}));
  EXPECT_THAT(
      plan::DebugString(p),
      HasSubstr("windows: 900s every 300s, joined from the hops of $w"));
  EXPECT_EQ(ArgsOf(p.sets[0].functions[0]), ", 900s, 300s");
  ASSERT_OK_AND_ASSIGN(p, PlanOf("select count(a) set $b = bucket(t, 5m) "
                                 "group by $b"));
  EXPECT_FALSE(p.window.has_value());

  const std::string kHint =
      "hint: give it a set step of its own: set $w = window($time, 5m, 1m) "
      "... group by $w";
  EXPECT_THAT(
      PlanOf("select count(a) set $w = window(t, 5m, 1m) group by h"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:26-31: $w holds window() but is not a 'group by' field\n"
                  "select count(a) set $w = window(t, 5m, 1m) group by h\n"
                  "                         ^~~~~~\n"
                  "hint: windows overlap, so a line counts in several of "
                  "them: group by $w")));
  EXPECT_THAT(
      PlanOf("select max($w) set $w = window(t, 5m, 1m) group by $w"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:25-30: $w holds window(), which only 'group by' may "
                  "read, and max($w) reads it\n"
                  "select max($w) set $w = window(t, 5m, 1m) group by $w\n"
                  "                        ^~~~~~\n"
                  "hint: read the time itself, or bucket($time, 1m) for a "
                  "line's hop")));
  EXPECT_THAT(
      PlanOf("select count(a) set $w = upper(window(t, 5m, 1m)) group by $w"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq(absl::StrCat(
                   "1:32-37: window() cannot be the value of upper()\n"
                   "select count(a) set $w = upper(window(t, 5m, 1m)) group "
                   "by $w\n"
                   "                               ^~~~~~\n",
                   kHint))));
  EXPECT_THAT(
      PlanOf("select count(a) set $w = window(t, 5m, 1m) + 60 group by $w"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq(absl::StrCat(
                   "1:26-42: window() is not a value to compute with\n"
                   "select count(a) set $w = window(t, 5m, 1m) + 60 group by "
                   "$w\n"
                   "                         ^~~~~~~~~~~~~~~~~\n",
                   kHint))));
  EXPECT_THAT(
      PlanOf("select count(a) set $w = window(t, 7m, 2m) group by $w"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:36-37: window width 7m is not a multiple of its hop 2m\n"
                  "select count(a) set $w = window(t, 7m, 2m) group by $w\n"
                  "                                   ^~\n"
                  "hint: a window is a whole number of hops, at most 1440: "
                  "window(t, 1h, 5m) joins 12")));
  const std::pair<std::string_view, std::string_view> kCases[] = {
      {"select count(a) set $w = window(t, 5m) group by $w",
       "window() takes 3 arguments, not 2"},
      {"select count(a) set $w = window(t, 5m, 7m) group by $w",
       "1:40-41: window hop 7m does not divide a day\n"},
      {"select count(a) set $w = window(t, 5m, 7m) group by $w",
       "nearest: 6m or 8m"},
      {"select count(a) set $w = window(t, 2d, 1m) group by $w",
       "window width 2d is more than 1440 times its hop 1m"},
      {"select count(a) set $w = window(t, '5m', 1m) group by $w",
       "1:36-39: invalid window width '5m'"},
      {"select count(a) set $w = window(t, 5m, 0s) group by $w",
       "invalid window hop '0s'"},
      {"select count(a) set $w = window(t, 5m, 1m), $v = window(t, 5m, 1m) "
       "group by $w, $v",
       "1:50-55: a query has at most one window()"},
      {"select count(a) set $w = window(t, 5m, 1m), $w = lower(t) group by $w",
       "$w is assigned by window() and again"},
      {"select count(a) set $w = window(t, 5m, 1m), $x = upper($w) "
       "group by $w, $x",
       "and the set step of $x reads it"},
      {"select count(a) set $w = window(t, 5m, 1m) group by $w where $w eq 1",
       "and 'where' reads it"},
      {"select count(a) set $w = window(t, 5m, 1m) group by $w having "
       "count($w) > 1",
       "and count($w) reads it"},
  };
  for (const auto& [query, message] : kCases) {
    EXPECT_THAT(PlanOf(query), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(message)))
        << query;
  }
}

TEST(PlannerTest, InListsAreSortedUniqueTexts) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select a where s in (\"b\", 200, 'a', \"b\", 1e3) and "
             "t in (\"\")"));
  ASSERT_EQ(p.where->children.size(), 2u);
  const plan::Condition& in = p.where->children[0];
  EXPECT_EQ(in.op, CompareOp::kIn);
  EXPECT_EQ(FieldName(p, in.lhs.field), "s");
  ASSERT_NE(in.in_values, nullptr);
  // Numbers are kept as written: the comparison is on text, like eq.
  EXPECT_THAT(*in.in_values, ElementsAre("1e3", "200", "a", "b"));
  EXPECT_THAT(*p.where->children[1].in_values, ElementsAre(""));
  EXPECT_THAT(plan::DebugString(p),
              HasSubstr("where: and[(s in (\"1e3\", \"200\", \"a\", "
                        "\"b\")) (t in (\"\"))]"));
  // In `having` it tests a group's value.
  ASSERT_OK_AND_ASSIGN(
      p, PlanOf("select count(x), g group by g having g in (\"a\")"));
  EXPECT_EQ(p.having->op, CompareOp::kIn);
}

TEST(PlannerTest, LiteralPatternsUseTheSubstringSearch) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p,
                       PlanOf("select count($line) where $line =~ 'GET /a\\.b' "
                              "and $line !~ 'x'"));
  ASSERT_EQ(p.where->children.size(), 2u);
  EXPECT_EQ(p.where->children[0].op, CompareOp::kContains);
  EXPECT_EQ(p.where->children[0].rhs.text, "GET /a.b");
  EXPECT_EQ(p.where->children[0].regex, nullptr);
  // A bareword pattern is refused below; a quoted literal is (n)contains.
  ASSERT_OK_AND_ASSIGN(
      p, PlanOf("select count($line) where $line !~ \"timeout\""));
  EXPECT_EQ(p.where->op, CompareOp::kNotContains);
  EXPECT_EQ(p.where->rhs.text, "timeout");
}

TEST(PlannerTest, RegexErrorsPointAtThePattern) {
  EXPECT_THAT(PlanOf("select a where a =~ '(ab'"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:21-25: invalid regular expression: missing ): "
                          "(ab\n"
                          "select a where a =~ '(ab'\n"
                          "                    ^~~~~\n"
                          "hint: patterns are RE2 syntax: "
                          "https://github.com/google/re2/wiki/Syntax")));
  EXPECT_THAT(PlanOf("select a where a =~ ab"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:21-22: the pattern of '=~' must be a 'quoted' "
                          "string\n"
                          "select a where a =~ ab\n"
                          "                    ^~\n"
                          "hint: for example: path =~ '^/api/'")));
  EXPECT_THAT(PlanOf("select a where a =~ '\\pL{1000}'"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("regular expression needs more than 8388608 "
                                 "bytes to compile (RE2: pattern too large - "
                                 "compile failed)")));
}

TEST(PlannerTest, MaxRegexMemoryIsTheContextsBound) {
  PlannerContext ctx = runtime::RegistryPlannerContext();
  ctx.max_regex_memory = 4 << 10;
  EXPECT_THAT(PlanWith("select a where a =~ '\\pL{10}'", ctx),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs more than 4096 bytes")));
  ctx.max_regex_memory = 8 << 20;
  EXPECT_THAT(PlanWith("select a where a =~ '\\pL{10}'", ctx), IsOk());
}

TEST(PlannerTest, RegexFunction) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select $v set $v = md5sum(regex(path, '^/(?<top>\\w+)'))"));
  ASSERT_EQ(p.sets.size(), 1u);
  EXPECT_THAT(Kinds(p.sets[0]), ElementsAre("regex", "md5sum"));
  // (?<top>...) is rewritten as (?P<top>...) for Debian's RE2.
  EXPECT_EQ(ArgsOf(p.sets[0].functions[0]), ", '^/(?P<top>\\w+)'");
  EXPECT_EQ(ArgsOf(p.sets[0].functions[1]), "");
}

TEST(PlannerTest, FunctionArity) {
  EXPECT_THAT(PlanOf("select $v set $v = regex(path)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:20-24: regex() takes 2 arguments, not 1\n"
                          "select $v set $v = regex(path)\n"
                          "                   ^~~~~\n"
                          "hint: write: regex(x, 're')")));
  EXPECT_THAT(PlanOf("select $v set $v = md5sum(path, 'x')"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:33-35: md5sum() takes 1 argument, not 2\n"
                          "select $v set $v = md5sum(path, 'x')\n"
                          "                                ^~~\n"
                          "hint: write: md5sum(x)")));
  EXPECT_THAT(PlanOf("select $v set $v = regex(path, '(')"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:32-34: invalid regular expression: "
                                 "missing ): (")));
  EXPECT_THAT(PlanOf("select $v set $v = regex(path, x)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:32: the pattern of regex() must be a "
                                 "'quoted' string")));
}

TEST(PlannerTest, FormatArguments) {
  ASSERT_OK_AND_ASSIGN(plan::Plan p, PlanOf("select f2 logformat fields ','"));
  EXPECT_EQ(p.log_format, "fields");
  EXPECT_EQ(p.log_format_argument, ",");
  ASSERT_NE(p.format, nullptr);
  EXPECT_EQ(p.canonical, "select f2 logformat fields \",\"");
  ASSERT_OK_AND_ASSIGN(
      p,
      PlanOf("select ip logformat regex '^(?<ip>\\S+) \"(?P<req>[^\"]*)\"'"));
  EXPECT_EQ(p.log_format, "regex");
  EXPECT_EQ(p.canonical,
            "select ip logformat regex '^(?<ip>\\S+) \"(?P<req>[^\"]*)\"'");
  EXPECT_THAT(PlanOf("select a logformat regex"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:20-24: log format 'regex' needs a pattern: "
                          "logformat regex '(?P<ip>\\S+) (?P<rest>.*)'\n"
                          "select a logformat regex\n"
                          "                   ^~~~~")));
  EXPECT_THAT(PlanOf("select a logformat regex '(a'"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:26-29: invalid regular expression: "
                                 "missing ): (a\n")));
  EXPECT_THAT(PlanOf("select a logformat regex 'a(b)'"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:26-31: the pattern of log format 'regex' "
                                 "has no named group")));
  EXPECT_THAT(PlanOf("select a logformat csv ';'"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:24-26: log format 'csv' takes no argument\n"
                          "select a logformat csv ';'\n"
                          "                       ^~~")));
  EXPECT_THAT(PlanOf("select a logformat fields ''"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the delimiter of log format 'fields' is "
                                 "empty")));
}

TEST(PlannerTest, TimeAndBucketArguments) {
  ASSERT_OK_AND_ASSIGN(
      plan::Plan p,
      PlanOf("select $b set $b = bucket(time(t, '%d.%m.%Y'), 5m), "
             "$n = bucket(x, 0.5), $t = time(t)"));
  ASSERT_EQ(p.sets.size(), 3u);
  EXPECT_THAT(Kinds(p.sets[0]), ElementsAre("time", "bucket"));
  EXPECT_EQ(ArgsOf(p.sets[0].functions[0]), ", '%d.%m.%Y'");
  EXPECT_EQ(ArgsOf(p.sets[0].functions[1]), ", 300s");
  EXPECT_TRUE(p.sets[0].functions[1].IsTimeBucket());
  EXPECT_EQ(ArgsOf(p.sets[1].functions[0]), ", 0.5");
  EXPECT_FALSE(p.sets[1].functions[0].IsTimeBucket());
  EXPECT_EQ(ArgsOf(p.sets[2].functions[0]), "");
  EXPECT_EQ(p.canonical,
            "select $b set $b = bucket(time(t, \"%d.%m.%Y\"), 5m), "
            "$n = bucket(x, 0.5), $t = time(t)");
  for (std::string_view w :
       {"1s", "30s", "5m", "90m", "1h", "8h", "24h", "1d"}) {
    EXPECT_OK(PlanOf("select $b set $b = bucket(t, " + std::string(w) + ")"))
        << w;
  }
  // A step `where` reads runs before it on every parsed line and counts
  // unreadable values there; its later run does not count them again.
  ASSERT_OK_AND_ASSIGN(
      p, PlanOf("select count($line) where $t > 5 set $t = time(t)"));
  ASSERT_EQ(p.sets_before_where.size(), 1u);
  EXPECT_TRUE(p.sets_before_where[0].count_unparsed);
  EXPECT_FALSE(p.sets[0].count_unparsed);
}

TEST(PlannerTest, TimeAndBucketErrors) {
  EXPECT_THAT(
      PlanOf("select $t set $t = time(a, '%Y', b)"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:34: time() takes 1 or 2 arguments, not 3\n"
                  "select $t set $t = time(a, '%Y', b)\n"
                  "                                 ^\n"
                  "hint: write: time(x) or time(x, '%d.%m.%Y %H:%M:%S')")));
  EXPECT_THAT(PlanOf("select $b set $b = bucket(a)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:20-25: bucket() takes 2 arguments, not 1\n"
                          "select $b set $b = bucket(a)\n"
                          "                   ^~~~~~\n"
                          "hint: write: bucket(x, 5m) or bucket(x, 100)")));
  EXPECT_THAT(PlanOf("select $b set $b = bucket(a, 5x)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:30-31: invalid bucket width '5x'\n"
                          "select $b set $b = bucket(a, 5x)\n"
                          "                             ^~\n"
                          "hint: give a duration that divides a day (30s, 5m, "
                          "1h, 1d) or 1w for time buckets, or a positive "
                          "number (100, 0.5) for numeric bins")));
  EXPECT_THAT(PlanOf("select $b set $b = bucket(a, 0)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:30: invalid bucket width '0'\n"
                          "select $b set $b = bucket(a, 0)\n"
                          "                             ^\n"
                          "hint: give a duration that divides a day (30s, 5m, "
                          "1h, 1d) or 1w for time buckets, or a positive "
                          "number (100, 0.5) for numeric bins")));
  // Weeks: exactly 1w.
  ASSERT_OK_AND_ASSIGN(plan::Plan week,
                       PlanOf("select $b set $b = bucket(a, 1w)"));
  EXPECT_EQ(ArgsOf(week.sets[0].functions[0]), ", 604800s");
  EXPECT_THAT(PlanOf("select $b set $b = bucket(a, 2w)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("invalid bucket width '2w'")));
  EXPECT_THAT(PlanOf("select $b set $b = bucket(a, 7m)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:30-31: bucket width 7m does not divide a day\n"
                          "select $b set $b = bucket(a, 7m)\n"
                          "                             ^~\n"
                          "hint: time buckets start at midnight, so the width "
                          "must divide 24h; nearest: 6m or 8m")));
  EXPECT_THAT(PlanOf("select $b set $b = bucket(a, 2d)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("1:30-31: bucket width 2d does not divide a day\n"
                          "select $b set $b = bucket(a, 2d)\n"
                          "                             ^~\n"
                          "hint: time buckets start at midnight, so the width "
                          "must divide 24h; nearest: 1d")));
  EXPECT_THAT(
      PlanOf("select $b set $b = bucket(a, '5m')"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:30-33: the width of bucket() is written bare, not quoted\n"
                  "select $b set $b = bucket(a, '5m')\n"
                  "                             ^~~~\n"
                  "hint: write: bucket(x, 5m) or bucket(x, 100)")));
  EXPECT_THAT(
      PlanOf("select $t set $t = time(a, '%Y-%Q')"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:32-33: unknown conversion '%Q' in the layout of time()\n"
                  "select $t set $t = time(a, '%Y-%Q')\n"
                  "                               ^~\n"
                  "hint: layouts use strftime conversions such as %Y %m %d %H "
                  "%M %S %z %b %e %s %E*S (write %% for a '%')")));
  EXPECT_THAT(
      PlanOf("select $t set $t = time(a, x)"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("1:28: the layout of time() must be a 'quoted' string\n"
                  "select $t set $t = time(a, x)\n"
                  "                           ^\n"
                  "hint: for example: time($when, '%d.%m.%Y %H:%M:%S')")));
  EXPECT_THAT(
      PlanOf("select $t set $t = time(a, 'abc')"),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          Eq("1:28-32: the layout of time() cannot read a time: 'abc'\n"
             "select $t set $t = time(a, 'abc')\n"
             "                           ^~~~~\n"
             "hint: a layout needs conversions such as %Y-%m-%d %H:%M:%S")));
}

}  // namespace
}  // namespace mapr::parser
