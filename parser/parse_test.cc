#include "parser/parse.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/query.h"
#include "mapr/status.h"
#include "parser/ast.h"
#include "parser/planner.h"
#include "parser/source_span.h"
#include "runtime/planner_context.h"
#include "tests/testing/status_matchers.h"

namespace mapr::parser {
namespace {

using ::mapr::testing::IsOk;
using ::mapr::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::StartsWith;

ast::Token Bare(std::string text) {
  return ast::Token{ast::TokenKind::kBareword, std::move(text), {}};
}
ast::Token Tick(std::string text) {
  return ast::Token{ast::TokenKind::kBackticked, std::move(text), {}};
}
ast::Token Str(std::string text) {
  return ast::Token{ast::TokenKind::kString, std::move(text), {}};
}

ast::SelectItem Item(ast::Token field,
                     std::optional<ast::Token> aggregation = std::nullopt,
                     std::optional<ast::Token> alias = std::nullopt) {
  ast::SelectItem item;
  item.field = std::move(field);
  item.aggregation = std::move(aggregation);
  item.alias = std::move(alias);
  return item;
}

ast::Assignment Assign(ast::Token target, std::vector<std::string> functions,
                       ast::Token operand) {
  ast::Assignment a;
  a.target = std::move(target);
  for (std::string& f : functions) a.functions.push_back(Bare(std::move(f)));
  a.function_args.resize(a.functions.size());
  a.operand = std::move(operand);
  return a;
}

// Parses `text` and clears the spans, for structural comparisons.
absl::StatusOr<ast::Query> ParseClean(std::string_view text,
                                      const ParseLimits& limits = {}) {
  absl::StatusOr<ast::Query> q = Parse(text, limits);
  if (q.ok()) ast::ClearSpans(&*q);
  return q;
}

std::string WhereString(const ast::Query& q) {
  return q.where ? ast::DebugString(*q.where) : "<none>";
}

// Parse and plan with the built-in formats: the whole compile-time check
// without the runtime registry.
absl::Status ParseAndPlan(std::string_view text,
                          const ParseLimits& limits = {}) {
  absl::StatusOr<ast::Query> q = Parse(text, limits);
  if (!q.ok()) return q.status();
  return BuildPlan(*q, text, runtime::RegistryPlannerContext()).status();
}

// ---- AST shape
// ---------------------------------------------------------------

// DTail's deep-parse case (the fork's query_test.go). In mapr `set` is a
// clause like the others, so its position in the text does not matter.
constexpr std::string_view kDeepLower =
    "select s1, `from`, count(s3) from table where w1 == 2 and w2 eq "
    "\"free beer\" group by g1, g2 order by count(s3) interval 10 limit 23 "
    "set $foo = maskdigits(bar), $baz = 12, $bay = $foo logformat generic";
constexpr std::string_view kDeepUpper =
    "SELECT s1, `from`, count(s3) FROM table WHERE w1 == 2 AND w2 EQ "
    "\"free beer\" GROUP g1, g2 ORDER count(s3) INTERVAL 10 LIMIT 23 "
    "SET $foo = maskdigits(bar), $baz = 12, $bay = $foo LOGFORMAT generic";

ast::Query DeepExpected() {
  ast::Query q;
  q.select = {Item(Bare("s1")), Item(Tick("from")),
              Item(Bare("s3"), Bare("count"))};
  q.from = ast::FromClause{Bare("table"), {}};
  ast::Expr w1;
  w1.op = Bare("==");
  w1.lhs = Bare("w1");
  w1.rhs = Bare("2");
  ast::Expr w2;
  w2.op = Bare("eq");
  w2.lhs = Bare("w2");
  w2.rhs = Str("free beer");
  ast::Expr where;
  where.kind = ast::ExprKind::kAnd;
  where.children = {w1, w2};
  q.where = where;
  q.set = {Assign(Bare("$foo"), {"maskdigits"}, Bare("bar")),
           Assign(Bare("$baz"), {}, Bare("12")),
           Assign(Bare("$bay"), {}, Bare("$foo"))};
  q.group_by = {Bare("g1"), Bare("g2")};
  ast::OrderClause order;
  ast::OrderKey key;
  key.aggregation = Bare("count");
  key.field = Bare("s3");
  order.keys = {key};
  q.order = order;
  q.interval = Bare("10");
  q.limit = Bare("23");
  q.logformat = Bare("generic");
  return q;
}

TEST(ParseTest, DeepParseLowerCase) {
  ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean(kDeepLower));
  EXPECT_EQ(q, DeepExpected());
  EXPECT_EQ(WhereString(q), "and[(w1 == 2) (w2 eq \"free beer\")]");
}

TEST(ParseTest, GroupWithoutByStillTakesFieldsNearBy) {
  // Only a word one edit from `by` before more fields is taken for a typo.
  for (std::string_view ok :
       {"select count(ip) group bu", "select count(ip) group by bu ip",
        "select count(ip) group bus ip", "select count(ip) group `bu` ip",
        "select count(ip) group $b ip", "select count(ip) group ip bu"}) {
    EXPECT_TRUE(ParseClean(ok).ok()) << ok;
  }
}

TEST(ParseTest, DeepParseUpperCaseWithoutBy) {
  ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean(kDeepUpper));
  // Keywords and operators are case-insensitive; operators are stored
  // lower-cased. Names keep their case.
  EXPECT_EQ(q, DeepExpected());
}

TEST(ParseTest, DeepParseSetPositionDoesNotMatter) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("set $foo = maskdigits(bar), $baz = 12, $bay = $foo "
                 "logformat generic limit 23 interval 10 order by count(s3) "
                 "group by g1 g2 where w1 == 2, w2 eq \"free beer\" from "
                 "table select s1 `from` count(s3)"));
  EXPECT_EQ(q, DeepExpected());
}

TEST(ParseTest, BacktickedSelectItemsArePlainFields) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select `count($foo)`, foo, $foo, count($foo) logformat csv"));
  EXPECT_THAT(q.select, ElementsAre(Item(Tick("count($foo)")),
                                    Item(Bare("foo")), Item(Bare("$foo")),
                                    Item(Bare("$foo"), Bare("count"))));
  EXPECT_EQ(q.logformat, Bare("csv"));
}

TEST(ParseTest, BacktickedNamesMayHoldAnything) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select `a b`, ``, count(`x,y`) from `where` group by `a b`"));
  EXPECT_THAT(q.select, ElementsAre(Item(Tick("a b")), Item(Tick("")),
                                    Item(Tick("x,y"), Bare("count"))));
  EXPECT_EQ(q.from->table, Tick("where"));
  EXPECT_THAT(q.group_by, ElementsAre(Tick("a b")));
}

TEST(ParseTest, EmptyAggregationField) {
  ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean("select count()"));
  EXPECT_THAT(q.select, ElementsAre(Item(Bare(""), Bare("count"))));
}

TEST(ParseTest, CommasAndSpacesAreEquivalent) {
  ASSERT_OK_AND_ASSIGN(ast::Query a,
                       ParseClean("select a,b,count(c) group by x,y"));
  for (std::string_view text : {
           "select a b count(c) group by x y",
           "select a, b, count(c) group by x, y",
           "select a ,b , count(c) group by x ,y",
           "select a,,b,,count(c) group by x,,y",
           "select a,b,count(c), group by x,y,",
           "select\ta\nb\r\ncount(c)\tgroup\tby\nx\ny",
       }) {
    EXPECT_THAT(ParseClean(text), IsOk()) << text;
    ASSERT_OK_AND_ASSIGN(ast::Query b, ParseClean(text));
    EXPECT_EQ(a, b) << text;
  }
}

TEST(ParseTest, ConditionsJoinedByNothingAndOrComma) {
  constexpr std::string_view kExpected = "and[(baz < 100) (bay eq 12)]";
  for (std::string_view text : {
           "select foo from bar where baz < 100 bay eq 12",
           "select foo from bar where baz < 100, bay eq 12",
           "select foo from bar where baz < 100 and bay eq 12",
           "select foo from bar where baz < 100 AND bay eq 12",
           "select foo from bar where baz<100,bay eq 12",
       }) {
    ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean(text));
    EXPECT_EQ(WhereString(q), kExpected) << text;
  }
}

TEST(ParseTest, WherePrecedence) {
  struct Case {
    std::string_view where;
    std::string_view expected;
  };
  const Case kCases[] = {
      {"a == 1", "(a == 1)"},
      // `and` (written or implicit) binds tighter than `or`.
      {"a == 1 or b == 2 and c == 3", "or[(a == 1) and[(b == 2) (c == 3)]]"},
      {"a == 1 and b == 2 or c == 3", "or[and[(a == 1) (b == 2)] (c == 3)]"},
      {"a == 1 b == 2 or c == 3", "or[and[(a == 1) (b == 2)] (c == 3)]"},
      {"a == 1 or b == 2, c == 3", "or[(a == 1) and[(b == 2) (c == 3)]]"},
      // Chains of the same operator are flat.
      {"a == 1 or b == 2 or c == 3", "or[(a == 1) (b == 2) (c == 3)]"},
      {"a == 1 and b == 2 c == 3", "and[(a == 1) (b == 2) (c == 3)]"},
      // Parentheses override.
      {"(a == 1 or b == 2) and c == 3", "and[or[(a == 1) (b == 2)] (c == 3)]"},
      {"a == 1 and (b == 2 or c == 3)", "and[(a == 1) or[(b == 2) (c == 3)]]"},
      {"((a == 1))", "(a == 1)"},
      // `not` applies to one term.
      {"not a == 1 and b == 2", "and[not(a == 1) (b == 2)]"},
      {"not (a == 1 and b == 2)", "notand[(a == 1) (b == 2)]"},
      {"not not a == 1", "notnot(a == 1)"},
      {"a == 1 or not b == 2", "or[(a == 1) not(b == 2)]"},
      {"NOT a == 1 OR b == 2", "or[not(a == 1) (b == 2)]"},
  };
  for (const Case& c : kCases) {
    std::string text = "select x where " + std::string(c.where);
    ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean(text));
    EXPECT_EQ(WhereString(q), c.expected) << c.where;
  }
}

TEST(ParseTest, WhereOperandsKeepTheirKind) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean(
          "select x where `a b` CONTAINS \"\" and 5 < 6 and s eq \"x\""));
  ASSERT_TRUE(q.where.has_value());
  ASSERT_EQ(q.where->children.size(), 3u);
  const ast::Expr& first = q.where->children[0];
  EXPECT_EQ(first.lhs, Tick("a b"));
  EXPECT_EQ(first.op, Bare("contains"));
  EXPECT_EQ(first.rhs, Str(""));
  EXPECT_EQ(q.where->children[1].lhs, Bare("5"));
  EXPECT_EQ(q.where->children[2].rhs, Str("x"));
}

TEST(ParseTest, Aliases) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select count($line) as n, $time AS `the time`, avg(x) "
                 "order by n"));
  EXPECT_THAT(q.select,
              ElementsAre(Item(Bare("$line"), Bare("count"), Bare("n")),
                          Item(Bare("$time"), std::nullopt, Tick("the time")),
                          Item(Bare("x"), Bare("avg"))));
  ASSERT_EQ(q.order->keys.size(), 1u);
  EXPECT_EQ(q.order->keys[0].field, Bare("n"));
  EXPECT_FALSE(q.order->keys[0].aggregation.has_value());
}

TEST(ParseTest, HavingTakesTheWhereConditionOverAggregationCalls) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select count($line) as n group by g HAVING count($line) > 1 "
                 "and n < avg(x) or not g eq \"a\""));
  ASSERT_TRUE(q.having.has_value());
  EXPECT_EQ(ast::DebugString(*q.having),
            "or[and[(count($line) > 1) (n < avg(x))] not(g eq \"a\")]");
  const ast::Expr& first = q.having->children[0].children[0];
  EXPECT_EQ(first.lhs_aggregation, Bare("count"));
  EXPECT_EQ(first.lhs, Bare("$line"));
  EXPECT_FALSE(first.rhs_aggregation.has_value());
  // `or(` is the keyword, not a call.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a having a > 1 or(a < 0)"));
  EXPECT_EQ(ast::DebugString(*q.having), "or[(a > 1) (a < 0)]");
  // Any clause order.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("having a > 1 select a"));
  EXPECT_TRUE(q.having.has_value());
}

TEST(ParseTest, OrderTakesSeveralKeys) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select a, count(b), c order by a desc, count(b),c ASC "
                 "limit 3"));
  ASSERT_EQ(q.order->keys.size(), 3u);
  EXPECT_EQ(q.order->keys[0].field, Bare("a"));
  EXPECT_EQ(q.order->keys[0].direction, Bare("desc"));
  EXPECT_EQ(q.order->keys[1].aggregation, Bare("count"));
  EXPECT_EQ(q.order->keys[1].field, Bare("b"));
  EXPECT_FALSE(q.order->keys[1].direction.has_value());
  EXPECT_EQ(q.order->keys[2].direction, Bare("asc"));
  EXPECT_EQ(q.limit, Bare("3"));
  // A comma before a clause keyword separates clauses, as before.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a order by a, limit 3"));
  EXPECT_EQ(q.order->keys.size(), 1u);
  EXPECT_EQ(q.limit, Bare("3"));
}

TEST(ParseTest, OrderDirections) {
  ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean("select a order by a"));
  EXPECT_FALSE(q.order->reverse);
  EXPECT_FALSE(q.order->keys[0].direction.has_value());
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a order by a asc"));
  EXPECT_EQ(q.order->keys[0].direction, Bare("asc"));
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a ORDER BY a DESC"));
  EXPECT_EQ(q.order->keys[0].direction, Bare("desc"));  // Lower-cased.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a rorder by a"));
  EXPECT_TRUE(q.order->reverse);
  EXPECT_FALSE(q.order->keys[0].direction.has_value());
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a rorder a asc"));
  EXPECT_TRUE(q.order->reverse);
  EXPECT_EQ(q.order->keys[0].direction, Bare("asc"));
  // `desc` after the order key is not a select item.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a order by a desc limit 1"));
  EXPECT_EQ(q.select.size(), 1u);
}

TEST(ParseTest, Outfile) {
  struct Case {
    std::string_view clause;
    bool append;
    std::string_view path;
  };
  const Case kCases[] = {
      {"outfile result.csv", false, "result.csv"},
      {"outfile \"result.csv\"", false, "result.csv"},
      {"outfile \"my results.csv\"", false, "my results.csv"},
      {"outfile ./dserver1.csv.tmp", false, "./dserver1.csv.tmp"},
      {"outfile append result.csv", true, "result.csv"},
      {"outfile APPEND result.csv", true, "result.csv"},
      {"outfile append \"my results.csv\"", true, "my results.csv"},
      {"outfile append append", true, "append"},
      // DTail's integration test relies on `append:x` being a plain path.
      {"outfile append:result.csv", false, "append:result.csv"},
      // `append` alone names a file, with or without trailing blanks.
      {"outfile append", false, "append"},
      {"outfile append  \n", false, "append"},
      {"outfile \"append\"", false, "append"},
      {"outfile /tmp/a(b)=c.csv", false, "/tmp/a(b)=c.csv"},
  };
  for (const Case& c : kCases) {
    std::string text = "select a " + std::string(c.clause);
    ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean(text));
    ASSERT_TRUE(q.outfile.has_value()) << c.clause;
    EXPECT_EQ(q.outfile->append, c.append) << c.clause;
    // A path is a literal however it is written.
    EXPECT_EQ(q.outfile->path, Str(std::string(c.path))) << c.clause;
  }
  // Other clauses may follow.
  ASSERT_OK_AND_ASSIGN(ast::Query q,
                       ParseClean("select a outfile append x.csv limit 1"));
  EXPECT_EQ(q.outfile->path, Str("x.csv"));
  EXPECT_EQ(q.limit, Bare("1"));
}

TEST(ParseTest, IntervalAndLimitAreKeptAsWritten) {
  for (std::string_view value : {"5", "5s", "2m", "500ms", "1h", "0", "x"}) {
    std::string text = "select a interval " + std::string(value);
    ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean(text));
    EXPECT_EQ(q.interval, Bare(std::string(value)));
  }
  ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean("select a limit -1"));
  EXPECT_EQ(q.limit, Bare("-1"));  // The planner rejects it.
}

TEST(ParseTest, SetAssignments) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select foo from bar set $foo = maskdigits(bar), $baz = 12, "
                 "$bay = $foo;, $m = md5sum(maskdigits( `count($time)` )), "
                 "$s = \"a b\""));
  EXPECT_THAT(
      q.set,
      ElementsAre(
          Assign(Bare("$foo"), {"maskdigits"}, Bare("bar")),
          Assign(Bare("$baz"), {}, Bare("12")),
          // As in DTail, the operand is the literal text `$foo;`.
          Assign(Bare("$bay"), {}, Bare("$foo;")),
          Assign(Bare("$m"), {"md5sum", "maskdigits"}, Tick("count($time)")),
          Assign(Bare("$s"), {}, Str("a b"))));
}

TEST(ParseTest, DTailQueriesThatMustParse) {
  // The queries DTail's query_test.go requires to parse (an empty `where`
  // is an error in mapr; see the error table).
  for (std::string_view text : {
           "select foo from bar",
           "select foo from bar where baz < 100 bay eq 12",
           "select foo from bar group by foo, bar, baz order by foo limit 23",
           "select foo from bar outfile \"result.csv\"",
           "select foo from bar outfile append \"result.csv\"",
       }) {
    EXPECT_THAT(ParseAndPlan(text), IsOk()) << text;
  }
}

TEST(ParseTest, Spans) {
  constexpr std::string_view kText =
      "select count(a) as c from STATS where x > 1 group by c";
  ASSERT_OK_AND_ASSIGN(ast::Query q, Parse(kText));
  ASSERT_EQ(q.select.size(), 1u);
  EXPECT_EQ(q.select[0].span, (ast::Span{7, 13}));
  EXPECT_EQ(q.select[0].aggregation->span, (ast::Span{7, 5}));
  EXPECT_EQ(q.select[0].field.span, (ast::Span{13, 1}));
  EXPECT_EQ(q.select[0].alias->span, (ast::Span{19, 1}));
  EXPECT_EQ(q.select_span, (ast::Span{0, 20}));
  EXPECT_EQ(q.from->span, (ast::Span{21, 10}));
  EXPECT_EQ(q.from->table.span, (ast::Span{26, 5}));
  EXPECT_EQ(q.where_span, (ast::Span{32, 11}));
  EXPECT_EQ(q.where->span, (ast::Span{38, 5}));
  EXPECT_EQ(q.where->op.span, (ast::Span{40, 1}));
  EXPECT_EQ(q.group_by[0].span, (ast::Span{53, 1}));
  // A quoted token's span includes the quotes.
  ASSERT_OK_AND_ASSIGN(q, Parse("select a where x eq \"ab\""));
  EXPECT_EQ(q.where->rhs.span, (ast::Span{20, 4}));
  EXPECT_EQ(q.where->rhs.text, "ab");
}

// ---- Round trip ------------------------------------------------------------

// Every query of the DTail golden data (shared/testdata/dtail), the
// reference's examples, and the mapr extensions.
// Long queries are split across lines on purpose (adjacent literals).
// NOLINTBEGIN(bugprone-suspicious-missing-comma)
constexpr std::string_view kCorpus[] = {
    // testdata/dtail README and *.query.expected.
    "from STATS select count($line),last($time),avg($goroutines),min("
    "concurrentConnections),max(lifetimeConnections) group by $hostname",
    "from STATS select count($line),last($time),avg($goroutines),min("
    "concurrentConnections),max(lifetimeConnections) group by $hostname "
    "outfile dmap1a.csv.tmp",
    "from STATS select count($line),last($time),avg($goroutines),min("
    "concurrentConnections),max(lifetimeConnections) group by $hostname where "
    "lifetimeConnections >= 3 outfile dmap1b.csv.tmp",
    "from STATS select count($line),last($time),avg($goroutines),min("
    "concurrentConnections),max(lifetimeConnections) group by $hostname where "
    "$time eq \"1002-071949\" outfile dmap1c.csv.tmp",
    "from STATS select $mask,$md5,$foo,$bar,$baz,last($time), set $mask = "
    "maskdigits($time), $md5 = md5sum($time), $foo = 42, $bar = \"baz\", $baz "
    "= $time group by $hostname outfile dmap1d.csv.tmp",
    "from STATS select count($time),$time,max($goroutines),avg($goroutines),"
    "min($goroutines) group by $time order by count($time) outfile "
    "dmap2.csv.tmp",
    "from STATS select count($time),$time,max($goroutines),avg($goroutines),"
    "min($goroutines) group by $time order by count($time) desc outfile "
    "dmap3.csv.tmp",
    "from STATS select count($time),$time,max($goroutines),avg($goroutines),"
    "min($goroutines) group by $time order by count($time) outfile append "
    "dmap4.csv.tmp",
    "from STATS select count($line),$hostname group by $hostname outfile "
    "append:dmap4.csv.tmp",
    "select sum($timecount),last($time),min($min_goroutines), group by "
    "$hostname set $timecount = `count($time)`, $time = `$time`, "
    "$min_goroutines = `min($goroutines)` logformat csv outfile dmap5.csv.tmp",
    "select sum($timecount),last($time),min($min_goroutines) group by "
    "$hostname set $timecount = `count($time)`, $time = `$time`, "
    "$min_goroutines = `min($goroutines)` logformat csv",
    "select count($line) group by * logformat csv outfile "
    "dmap_csv_multifile.csv.tmp",
    "from STATS select count($line),last($time),avg($goroutines),min("
    "concurrentConnections),max(lifetimeConnections) group by $hostname "
    "outfile ./dserver1.csv.tmp",
    "from INTEGRATIONTEST select last($line),max(foo),min(bar) group by "
    "$hostname interval 1 outfile ./dserver2.csv.tmp",
    "from STATS select $time,count($line),avg($goroutines) group by $time "
    "order by count($line) desc limit 10",
    "from STATS select count($line),sum(lifetimeConnections),avg(goroutines),"
    "min(currentConnections),max(lifetimeConnections) group by hostname order "
    "by count($line) desc",
    "from STATS select hostname,count($line),avg(currentConnections),max("
    "currentConnections) group by hostname where currentConnections > 10 "
    "order by max(currentConnections) desc",
    "from STATS select hostname,count($line),avg(cpus),avg($loadavg),max("
    "$loadavg) group by hostname order by avg($loadavg) desc",
    "select count($line) as cnt from STATS",
    // The probes DTail's behaviour was checked with end to end.
    "select count(*) group by *",
    "select count($line)",
    "from STATS select len($time),len($line),count($line) group by $hostname",
    "from STATS select count($line),lifetimeConnections,currentConnections "
    "group by lifetimeConnections,currentConnections",
    "from STATS select percentage(lifetimeConnections),percentile("
    "lifetimeConnections),count($line),lifetimeConnections group by "
    "lifetimeConnections order by lifetimeConnections",
    "select host,count(value) from STATS group by host order by count(value)",
    "from STATS select $service,sum($bytes) group by $service",
    "select count($derived) from STATS where $goroutines > 10 set $derived = "
    "md5sum(foo), $other = $derived group by $derived",
    kDeepLower,
    kDeepUpper,
    "select `count($foo)`, foo, $foo, count($foo) logformat csv",
    "select foo from myfile logformat csv",
    "select foo from bar where baz < 100 bay eq 12",
    "select foo from bar group by foo, bar, baz order by foo limit 23",
    "select foo from bar set $foo = maskdigits(bar), $baz = 12, $bay = $foo;",
    // mapr extensions and edge cases.
    "select a where x > 1 or not (y eq \"a b\" and z contains \"\")",
    "select a where not not x > 1 and (a == 1 or b == 2 or c == 3)",
    "select a where (x > 1 and y > 2) and z > 3",
    "select a where x > 1 and (y > 2 and z > 3)",
    "select a where ((x > 1 or y > 2)) or z > 3",
    "select a where 5 < 6 and x =< 1 and y => 2 and s lacks \"q\"",
    "select a where s NHASPREFIX \"x\" and s hassuffix `y z`",
    "select count($line) as n, $time as `the time` group by $time order by n "
    "asc",
    "select a rorder by a asc",
    // having and several order keys.
    "select count($line) as n, host group by host having n > 1 and host ne "
    "\"x\" order by n desc, host asc",
    "select sum(x) group by g having count($line) >= 2 or avg(x) < 3.5",
    "having count() > 1 select count($line) from STATS",
    "select count(x) as n, g group by g having not (n < 2) and g =~ '^a' "
    "rorder by n, g asc",
    "select count(x), last(y), g group by g order by last(y) asc, count(x), g",
    "select count(x), g group by g, h having h eq \"a\" and g != 0 order by h, "
    "g asc",
    "select count(x) from * interval 500ms limit 0",
    "select `select`, `a b`, ``, `x,y` from `from` group by `select`",
    "select count() from STATS",
    "select a logformat CSV",
    "select a logformat `generickv`",
    "select a outfile \"my results.csv\"",
    "select a outfile append \"append\"",
    "select a outfile append",
    "select a set $x = \"\", $y = md5sum(maskdigits(md5sum($line)))",
    "SeLeCt a FrOm b WhErE x Eq \"1\" InTeRvAl 2m",
    "select desc, asc, by, append, selected, android",
    "select \xc3\xa9t\xc3\xa9 from stats",
    "  select\ta\n  from b\n  where x > 1\n",
    "select a where (end - start) * 1000 > 100 and lower(m) eq \"get\"",
    "select a where substr(p, 1, 2) eq \"/a\" or a + b > c * 2",
    "select a where (a + b) > 3 and (x > 1 or y < 2)",
    "select a where len(lower(p)) > 2 and not a / 2 <= (1)",
    "select a where x eq lower(\"ABC\"), coalesce(u, v) ne \"-\"",
    "select a where s in (\"GET\", 'HEAD', 200, -1.5) and not t IN(\"x\")",
    "select a where lower(s) in (\"a\") or (a + 1) in (2, 3)",
    "select a where s ieq \"get\" and s ine t and s icontains \"Bot\" and s "
    "nicontains `x`",
    "select count(x), g group by g having g in (\"a\", \"b\")",
    "select count($line) multiline java logformat logfmt",
    "MULTILINE '^\\d{4}-' select count($line)",
    "select a multiline \"it's\" limit 2",
    "select `multiline` multiline `indented`",
};
// NOLINTEND(bugprone-suspicious-missing-comma)

TEST(ParseTest, CorpusIsLargeEnough) { EXPECT_GE(std::size(kCorpus), 40u); }

TEST(ParseTest, UnparseRoundTrips) {
  for (std::string_view text : kCorpus) {
    ASSERT_OK_AND_ASSIGN(ast::Query first, ParseClean(text));
    std::string canonical = ast::Unparse(first);
    absl::StatusOr<ast::Query> second = ParseClean(canonical);
    ASSERT_THAT(second, IsOk()) << text << "\n -> " << canonical;
    EXPECT_EQ(*second, first) << text << "\n -> " << canonical;
    // Canonical text is a fixed point.
    EXPECT_EQ(ast::Unparse(*second), canonical) << text;
  }
}

TEST(ParseTest, CompiledCanonicalTextRoundTrips) {
  for (std::string_view text : kCorpus) {
    ASSERT_OK_AND_ASSIGN(Query q, Query::Compile(text));
    EXPECT_EQ(q.text(), text);
    ASSERT_OK_AND_ASSIGN(Query again, Query::Compile(q.ToString()));
    EXPECT_EQ(again.ToString(), q.ToString()) << text;
    EXPECT_EQ(again.Explain(), q.Explain()) << text;
  }
}

TEST(ParseTest, UnparseIsCanonical) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("LIMIT 3 FROM stats  SELECT a , COUNT(b)  AS `n n` WHERE x "
                 "EQ \"1\" , y > 2 ORDER BY a DESC outfile x.csv"));
  EXPECT_EQ(ast::Unparse(q),
            "select a,COUNT(b) as `n n` from stats where x eq \"1\" and y > 2 "
            "order by a desc limit 3 outfile \"x.csv\"");
}

TEST(ParseTest, RunningTotalsNestOneAggregation) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select cumsum( count($line) ) as run, CUMSUM(x) order by "
                 "cumsum(p99(x)) desc"));
  ASSERT_EQ(q.select.size(), 2u);
  ASSERT_TRUE(q.select[0].aggregation && q.select[0].inner_aggregation);
  EXPECT_EQ(q.select[0].aggregation->text, "cumsum");
  EXPECT_EQ(q.select[0].inner_aggregation->text, "count");
  EXPECT_EQ(q.select[0].field.text, "$line");
  EXPECT_FALSE(q.select[1].inner_aggregation);
  ASSERT_TRUE(q.order && q.order->keys[0].inner_aggregation);
  EXPECT_EQ(q.order->keys[0].inner_aggregation->text, "p99");
  EXPECT_EQ(ast::Unparse(q),
            "select cumsum(count($line)) as run,CUMSUM(x) order by "
            "cumsum(p99(x)) desc");
  // An order key's inner aggregation is not left for the next item.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("order by cumsum(count(x)) select y"));
  ASSERT_EQ(q.select.size(), 1u);
  EXPECT_FALSE(q.select[0].aggregation || q.select[0].inner_aggregation);
}

TEST(ParseTest, AnAggregationMayTakeACount) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select topk( path ,  10 ) as t, topk(`a b`,3), count(x)"));
  ASSERT_EQ(q.select.size(), 3u);
  ASSERT_TRUE(q.select[0].parameter);
  EXPECT_EQ(q.select[0].parameter->text, "10");
  EXPECT_EQ(q.select[0].field.text, "path");
  EXPECT_FALSE(q.select[2].parameter);
  EXPECT_EQ(ast::Unparse(q),
            "select topk(path,10) as t,topk(`a b`,3),count(x)");
  // An order key's count is its own, not the next select item's.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("order by topk(x, 3) select y"));
  ASSERT_TRUE(q.order && q.order->keys[0].parameter);
  EXPECT_EQ(q.order->keys[0].parameter->text, "3");
  EXPECT_FALSE(q.select[0].parameter);
  EXPECT_EQ(ast::Unparse(q), "select y order by topk(x,3)");
}

// ---- Errors
// ------------------------------------------------------------------

struct ErrorCase {
  std::string_view query;
  absl::StatusCode code;
  std::string_view message;
};

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;

void CheckErrors(const std::vector<ErrorCase>& cases,
                 const ParseLimits& limits = {}) {
  for (const ErrorCase& c : cases) {
    EXPECT_THAT(ParseAndPlan(c.query, limits),
                StatusIs(c.code, Eq(std::string(c.message))))
        << "query: " << c.query;
  }
}

TEST(ParseTest, RejectsCountErrors) {
  CheckErrors({
      {"select topk(x)", kInvalid,
       "1:8-11: topk() needs how many values to show\n"
       "select topk(x)\n"
       "       ^~~~\n"
       "hint: write topk(x, 10)"},
      {"select sum(x, 3)", kInvalid,
       "1:15: sum() takes one argument\n"
       "select sum(x, 3)\n"
       "              ^\n"
       "hint: write sum(x)"},
      {"select topk(x, 101)", kInvalid,
       "1:16-18: '101' is not a count from 1 to 100\n"
       "select topk(x, 101)\n"
       "               ^~~\n"
       "hint: topk(x, k) shows the k most frequent values"},
      {"select topk(x, +5)", kInvalid,
       "1:16-17: '+5' is not a count from 1 to 100\n"
       "select topk(x, +5)\n"
       "               ^~\n"
       "hint: topk(x, k) shows the k most frequent values"},
      {"select histogram(x)", kInvalid,
       "1:8-16: histogram() needs a bin width\n"
       "select histogram(x)\n"
       "       ^~~~~~~~~\n"
       "hint: write histogram(x, 10)"},
      {"select histogram(x, 0)", kInvalid,
       "1:21: '0' is not a positive bin width\n"
       "select histogram(x, 0)\n"
       "                    ^\n"
       "hint: histogram(x, w) counts the values in bins of width w"},
      {"select histogram(x, 1m)", kInvalid,
       "1:21-22: '1m' is not a positive bin width\n"
       "select histogram(x, 1m)\n"
       "                    ^~\n"
       "hint: histogram(x, w) counts the values in bins of width w"},
      {"select count(x) having topk(x) eq \"a (2)\"", kInvalid,
       "1:24-30: topk() needs a second argument\n"
       "select count(x) having topk(x) eq \"a (2)\"\n"
       "                       ^~~~~~~\n"
       "hint: select it with one and compare its alias: select topk(x, 10) as "
       "v ... having v ..."},
      {"select topk(x, )", kInvalid,
       "1:16: expected a count after ',', found ')'\n"
       "select topk(x, )\n"
       "               ^\n"
       "hint: topk takes how many values to show: topk(path, 10)"},
  });
}

TEST(ParseTest, RejectsRunningTotalErrors) {
  CheckErrors({
      {"select sum(count(x))", kInvalid,
       "1:12-16: sum() takes a field, not an aggregation\n"
       "select sum(count(x))\n"
       "           ^~~~~\n"
       "hint: write sum(field); a running total of an aggregation is "
       "cumsum(count(...))"},
      {"select cumsum(last(x))", kInvalid,
       "1:15-18: cumsum() cannot add up last()\n"
       "select cumsum(last(x))\n"
       "              ^~~~\n"
       "hint: last() gives text; cumsum() adds numbers"},
      {"select cumsum(cumsum(x))", kInvalid,
       "1:15-20: cumsum() cannot add up cumsum()\n"
       "select cumsum(cumsum(x))\n"
       "              ^~~~~~\n"
       "hint: cumsum() is a running total already"},
      {"select cumsum(count(x)) order by cumsum(count(x))", kInvalid,
       "1:34-49: the running total 'cumsum(count(x))' cannot be an order "
       "key\n"
       "select cumsum(count(x)) order by cumsum(count(x))\n"
       "                                 ^~~~~~~~~~~~~~~~\n"
       "hint: a running total depends on the rows before it; use the "
       "aggregation it adds up"},
      {"select cumsum(x) as r having r > 1", kInvalid,
       "1:30: the running total 'cumsum(x)' cannot be compared\n"
       "select cumsum(x) as r having r > 1\n"
       "                             ^\n"
       "hint: a running total depends on the rows before it; use the "
       "aggregation it adds up"},
      {"select count(x) group by * having cumsum(x) > 1", kInvalid,
       "1:35-43: the running total 'cumsum(x)' cannot be compared\n"
       "select count(x) group by * having cumsum(x) > 1\n"
       "                                  ^~~~~~~~~\n"
       "hint: a running total depends on the rows before it; use the "
       "aggregation it adds up"},
      {"select cumsum(count(x)", kInvalid,
       "1:23: expected ')' to close the aggregation, found end of query\n"
       "select cumsum(count(x)\n"
       "                      ^\n"
       "hint: an aggregation takes one field, for example: count($line)"},
  });
}

// Every query DTail's parser rejects that is still an error in mapr.
TEST(ParseTest, RejectsDTailErrorCases) {
  CheckErrors({
      {"", kInvalid,
       "1:1: empty query\n"
       "\n"
       "^\n"
       "hint: a query is made of clauses such as: select count($line) from "
       "STATS group by $hostname"},
      {" \n\t ", kInvalid,
       "2:3: empty query\n"
       "  \n"
       "  ^\n"
       "hint: a query is made of clauses such as: select count($line) from "
       "STATS group by $hostname"},
      {"foo select bar", kInvalid,
       "1:1-3: expected a clause keyword, found 'foo'\n"
       "foo select bar\n"
       "^~~\n"
       "hint: a query is made of clauses such as: select count($line) from "
       "STATS group by $hostname"},
      {"select", kInvalid,
       "1:7: expected a select item after 'select', found end of query\n"
       "select\n"
       "      ^\n"
       "hint: for example: select count($line),avg(latency)"},
      {"select a from", kInvalid,
       "1:14: expected a table name after 'from', found end of query\n"
       "select a from\n"
       "             ^\n"
       "hint: for example: from STATS, or from * for every table"},
      {"select a from b c", kInvalid,
       "1:17: unexpected 'c'\n"
       "select a from b c\n"
       "                ^\n"
       "hint: 'from' takes exactly one table name"},
      {"select a where x", kInvalid,
       "1:17: expected a comparison operator, found end of query\n"
       "select a where x\n"
       "                ^\n"
       "hint: operators: == != < <= > >= eq ne ieq ine contains ncontains "
       "lacks icontains nicontains hasprefix nhasprefix hassuffix nhassuffix "
       "=~ !~ in"},
      {"select foo from bar where baz", kInvalid,
       "1:30: expected a comparison operator, found end of query\n"
       "select foo from bar where baz\n"
       "                             ^\n"
       "hint: operators: == != < <= > >= eq ne ieq ine contains ncontains "
       "lacks icontains nicontains hasprefix nhasprefix hassuffix nhassuffix "
       "=~ !~ in"},
      {"select a where baz <", kInvalid,
       "1:21: expected a value after the comparison operator, found end of "
       "query\n"
       "select a where baz <\n"
       "                    ^\n"
       "hint: numbers and fields are bare, strings are \"quoted\" or 'quoted'"},
      {"select a where x in 1", kInvalid,
       "1:21: expected '(' and a list of values after 'in', found '1'\n"
       "select a where x in 1\n"
       "                    ^\n"
       "hint: for example: status in (500, 502, 503)"},
      {"select a where x in (1 2)", kInvalid,
       "1:24-25: expected ')' to close the list of 'in', found '2)'\n"
       "select a where x in (1 2)\n"
       "                       ^~\n"
       "hint: values are separated by ',': status in (500, 502)"},
      {"select a where x in (\"a\", b)", kInvalid,
       "1:27: 'b' is not a value: the list of 'in' holds \"strings\" and "
       "numbers\n"
       "select a where x in (\"a\", b)\n"
       "                          ^\n"
       "hint: write \"b\" for the text"},
      {"select a where x foo 1", kInvalid,
       "1:18-20: expected a comparison operator, found 'foo'\n"
       "select a where x foo 1\n"
       "                 ^~~\n"
       "hint: operators: == != < <= > >= eq ne ieq ine contains ncontains "
       "lacks icontains nicontains hasprefix nhasprefix hassuffix nhassuffix "
       "=~ !~ in"},
      // A string under a float operator: a planner error.
      {"select a where \"x\" == 1", kInvalid,
       "1:16-18: \"x\" is a string; numeric comparisons take numbers or "
       "fields\n"
       "select a where \"x\" == 1\n"
       "               ^~~\n"
       "hint: compare strings with eq, ne, contains, hasprefix or hassuffix"},
      {"select a where x == \"1\"", kInvalid,
       "1:21-23: \"1\" is a string; numeric comparisons take numbers or "
       "fields\n"
       "select a where x == \"1\"\n"
       "                    ^~~\n"
       "hint: compare strings with eq, ne, contains, hasprefix or hassuffix"},
      {"select a group", kInvalid,
       "1:15: expected a field after 'group by', found end of query\n"
       "select a group\n"
       "              ^\n"
       "hint: for example: group by $hostname"},
      {"select a group by", kInvalid,
       "1:18: expected a field after 'group by', found end of query\n"
       "select a group by\n"
       "                 ^\n"
       "hint: for example: group by $hostname"},
      {"select a group by limit 5", kInvalid,
       "1:19-23: expected a field after 'group by', found 'limit'\n"
       "select a group by limit 5\n"
       "                  ^~~~~\n"
       "hint: for example: group by $hostname"},
      {"select a order", kInvalid,
       "1:15: expected a select item after 'order by', found end of query\n"
       "select a order\n"
       "              ^\n"
       "hint: for example: order by count($line)"},
      {"select a order by", kInvalid,
       "1:18: expected a select item after 'order by', found end of query\n"
       "select a order by\n"
       "                 ^\n"
       "hint: for example: order by count($line)"},
      {"select a rorder by", kInvalid,
       "1:19: expected a select item after 'rorder by', found end of query\n"
       "select a rorder by\n"
       "                  ^\n"
       "hint: for example: order by count($line)"},
      {"select a limit", kInvalid,
       "1:15: expected a row count after 'limit', found end of query\n"
       "select a limit\n"
       "              ^\n"
       "hint: for example: limit 10"},
      {"select foo from bar limit set foo = bar;", kInvalid,
       "1:27-29: expected a row count after 'limit', found 'set'\n"
       "select foo from bar limit set foo = bar;\n"
       "                          ^~~\n"
       "hint: for example: limit 10"},
      {"select a logformat", kInvalid,
       "1:19: expected a log format name after 'logformat', found end of "
       "query\n"
       "select a logformat\n"
       "                  ^\n"
       "hint: for example: logformat json, or logformat regex '(?P<ip>\\S+) "
       "(?P<rest>.*)'"},
      {"select a order by b", kInvalid,
       "1:19: 'b' is not a select item or group field\n"
       "select a order by b\n"
       "                  ^\n"
       "hint: order by 'b' must name a select item, an alias or a group field: "
       "a"},
      {"select count($time) order by COUNT($time)", kInvalid,
       "1:30-41: 'COUNT($time)' is not a select item or group field\n"
       "select count($time) order by COUNT($time)\n"
       "                             ^~~~~~~~~~~~\n"
       "hint: did you mean 'count($time)'? order by 'COUNT($time)' must name "
       "a select item, an alias or a group field: count($time), $time"},
      {"select count(x),x order by b", kInvalid,
       "1:28: 'b' is not a select item or group field\n"
       "select count(x),x order by b\n"
       "                           ^\n"
       "hint: order by 'b' must name a select item, an alias or a group field: "
       "count(x), x"},
      {"select a interval x", kInvalid,
       "1:19: invalid interval 'x'\n"
       "select a interval x\n"
       "                  ^\n"
       "hint: give seconds (interval 5) or a duration with a unit: 500ms, "
       "30s, 2m, 1h (at most a year)"},
      {"select a limit x", kInvalid,
       "1:16: 'limit' needs a non-negative integer, found 'x'\n"
       "select a limit x\n"
       "               ^\n"
       "hint: limit 0 prints only the header; leave out 'limit' for every "
       "row"},
      {"select a limit -1", kInvalid,
       "1:16-17: 'limit' needs a non-negative integer, found '-1'\n"
       "select a limit -1\n"
       "               ^~\n"
       "hint: limit 0 prints only the header; leave out 'limit' for every "
       "row"},
      {"select a outfile", kInvalid,
       "1:17: expected a file path after 'outfile', found end of query\n"
       "select a outfile\n"
       "                ^\n"
       "hint: for example: outfile result.csv, or outfile append \"my "
       "results.csv\""},
      {"select a outfile x y", kInvalid,
       "1:20: unexpected 'y'\n"
       "select a outfile x y\n"
       "                   ^\n"
       "hint: 'outfile' takes exactly one value"},
      {"select a set $x", kInvalid,
       "1:16: expected '=' in the 'set' assignment, found end of query\n"
       "select a set $x\n"
       "               ^\n"
       "hint: for example: set $mask = maskdigits($time)"},
      {"select a set $x == 1", kInvalid,
       "1:18: expected a value after '=', found '='\n"
       "select a set $x == 1\n"
       "                 ^\n"
       "hint: 'set' assigns with a single '='"},
      {"select a set x = 1", kInvalid,
       "1:14: 'set' assigns $variables, not 'x'\n"
       "select a set x = 1\n"
       "             ^\n"
       "hint: write: set $x = ..."},
      {"select a set \"$x\" = 1", kInvalid,
       "1:14-17: expected an assignment after 'set', found '\"$x\"'\n"
       "select a set \"$x\" = 1\n"
       "             ^~~~\n"
       "hint: a 'set' target is a bare $variable, not a \"string\": set $x = "
       "1"},
      {"select a set $a = 1, \"$x\" = 1", kInvalid,
       "1:22-25: unexpected '\"$x\"'\n"
       "select a set $a = 1, \"$x\" = 1\n"
       "                     ^~~~\n"
       "hint: a 'set' target is a bare $variable, not a \"string\": set $x = "
       "1"},
      {"select COUNT(a)", kInvalid,
       "1:8-12: unknown aggregation 'COUNT'\n"
       "select COUNT(a)\n"
       "       ^~~~~\n"
       "hint: did you mean 'count'? aggregation names are case-sensitive"},
      {"select count(a))", kInvalid,
       "1:16: unexpected ')'\n"
       "select count(a))\n"
       "               ^\n"
       "hint: this ')' has no matching '('"},
      {"select count((a)", kInvalid,
       "1:14-16: expected ')' to close the aggregation, found '(a)'\n"
       "select count((a)\n"
       "             ^~~\n"
       "hint: an aggregation takes one field, for example: count($line)"},
      {"select a set $x = foo(y)", kInvalid,
       "1:19-21: unknown function 'foo'\n"
       "select a set $x = foo(y)\n"
       "                  ^~~\n"
       "hint: known functions: md5sum, maskdigits, regex, time, bucket, "
       "window, duration, bytes, lower, upper, len, substr, split, "
       "format_time, "
       "template, cidr, ip_in, lookup, coalesce, isnull"},
      {"select a set $x = md5sum(makedigits($line))", kInvalid,
       "1:26-35: unknown function 'makedigits'\n"
       "select a set $x = md5sum(makedigits($line))\n"
       "                         ^~~~~~~~~~\n"
       "hint: did you mean 'maskdigits'?"},
      {"select a set $x = md5sum$y)", kInvalid,
       "1:27: unexpected ')'\n"
       "select a set $x = md5sum$y)\n"
       "                          ^\n"
       "hint: this ')' has no matching '('"},
      {"select a set $x = md5sum(y)z)", kInvalid,
       "1:28-29: unexpected 'z)'\n"
       "select a set $x = md5sum(y)z)\n"
       "                           ^~\n"
       "hint: separate items with a space or a comma"},
      {"select a set $x = ()", kInvalid,
       "1:20: expected a value after '(', found ')'\n"
       "select a set $x = ()\n"
       "                   ^\n"
       "hint: for example: set $ms = (end - start) * 1000"},
      {"select a set $x = md5sum(", kInvalid,
       "1:26: expected a function argument, found end of query\n"
       "select a set $x = md5sum(\n"
       "                         ^\n"
       "hint: for example: md5sum($line)"},
      {"select a set $x = md5sum(y z)", kInvalid,
       "1:28-29: expected ')' to close the function call, found 'z)'\n"
       "select a set $x = md5sum(y z)\n"
       "                           ^~\n"
       "hint: arguments are separated by ',', for example: regex(path, "
       "'^/api/(\\w+)')"},
  });
}

// In DTail an empty `where` parses; in mapr it is an error.
TEST(ParseTest, RejectsEmptyWhere) {
  CheckErrors({
      {"select foo from bar where", kInvalid,
       "1:26: expected a condition after 'where', found end of query\n"
       "select foo from bar where\n"
       "                         ^\n"
       "hint: for example: where lifetimeConnections >= 3"},
      {"select foo where group by foo", kInvalid,
       "1:18-22: expected a condition after 'where', found 'group'\n"
       "select foo where group by foo\n"
       "                 ^~~~~\n"
       "hint: for example: where lifetimeConnections >= 3"},
  });
}

// Queries DTail silently misreads (extra tokens after a clause, a broken
// outfile, an unknown log format): mapr rejects them with a positioned
// error (docs/compatibility.md, "Grammar").
TEST(ParseTest, SetExpressions) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select $x set $x = (a - b) * 2 + coalesce(c, 'n/a') / "
                 "lower(d), $y = e"));
  ASSERT_EQ(q.set.size(), 2u);
  ASSERT_TRUE(q.set[0].expr.has_value());
  const ast::SetExpr& sum = *q.set[0].expr;
  EXPECT_EQ(sum.kind, ast::SetExpr::Kind::kBinary);
  EXPECT_EQ(sum.token.text, "+");
  ASSERT_EQ(sum.args.size(), 2u);
  EXPECT_EQ(sum.args[0].token.text, "*");
  EXPECT_EQ(sum.args[0].args[0].token.text, "-");
  EXPECT_EQ(sum.args[1].token.text, "/");
  EXPECT_EQ(sum.args[1].args[0].kind, ast::SetExpr::Kind::kCall);
  EXPECT_EQ(sum.args[1].args[0].token.text, "coalesce");
  ASSERT_EQ(sum.args[1].args[0].args.size(), 2u);
  EXPECT_EQ(sum.args[1].args[0].args[1].token, Str("n/a"));
  EXPECT_TRUE(q.set[0].functions.empty());
  EXPECT_EQ(q.set[0].operand.text, "");
  // A plain value or chain keeps the old form.
  EXPECT_FALSE(q.set[1].expr.has_value());
  EXPECT_EQ(q.set[1].operand.text, "e");
  EXPECT_EQ(ast::Unparse(q),
            "select $x set $x = (a - b) * 2 + coalesce(c, \"n/a\") / lower(d), "
            "$y = e");
  // Left to right at equal precedence; parentheses kept where needed.
  for (std::string_view text :
       {"select $x set $x = a - b - c", "select $x set $x = a - (b - c)",
        "select $x set $x = a / (b * c)", "select $x set $x = a * b / c",
        "select $x set $x = len(split(p, '/', 2)) * 8",
        "select $x set $x = md5sum(a + b)",
        "select $x set $x = coalesce(a, b, c)", "select $x set $x = (a)",
        "select $x set $x = (md5sum((a)))"}) {
    ASSERT_OK_AND_ASSIGN(ast::Query parsed, ParseClean(text));
    ASSERT_OK_AND_ASSIGN(ast::Query again, ParseClean(ast::Unparse(parsed)));
    ast::ClearSpans(&parsed);
    ast::ClearSpans(&again);
    EXPECT_EQ(again, parsed) << text;
  }
  // Parentheses around a plain value or chain leave the plain form.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select $x set $x = (md5sum((a)))"));
  EXPECT_FALSE(q.set[0].expr.has_value());
  EXPECT_EQ(ast::Unparse(q), "select $x set $x = md5sum(a)");
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select $x set $x = a - b - c"));
  EXPECT_EQ(q.set[0].expr->args[0].token.text, "-");  // (a - b) - c
  EXPECT_EQ(ast::Unparse(q), "select $x set $x = a - b - c");
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select $x set $x = a - (b - c)"));
  EXPECT_EQ(ast::Unparse(q), "select $x set $x = a - (b - c)");
  // An operator stands alone: a-b is one bareword.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select $x set $x = a-b"));
  EXPECT_FALSE(q.set[0].expr.has_value());
  EXPECT_EQ(q.set[0].operand.text, "a-b");
}

TEST(ParseTest, WhereOperandsMayBeExpressions) {
  ASSERT_OK_AND_ASSIGN(
      ast::Query q,
      ParseClean("select a where (end - start) * 1000 > 100 and lower(m) eq "
                 "\"get\" and substr(p, 1, 2) ne x and (b > 1 or c < 2)"));
  ASSERT_TRUE(q.where.has_value());
  ASSERT_EQ(q.where->children.size(), 4u);
  // An operator after the parentheses: an expression, not a group.
  const ast::Expr& ms = q.where->children[0];
  ASSERT_TRUE(ms.lhs_expr.has_value());
  EXPECT_EQ(ms.lhs_expr->token.text, "*");
  EXPECT_EQ(ms.lhs_expr->args[0].token.text, "-");
  EXPECT_EQ(ms.lhs.text, "(end - start) * 1000");
  EXPECT_FALSE(ms.rhs_expr.has_value());
  EXPECT_EQ(ms.rhs.text, "100");
  // A call of one field is stored as `agg(field)` is; the planner tells a
  // function from an aggregation by its name.
  const ast::Expr& get = q.where->children[1];
  EXPECT_FALSE(get.lhs_expr.has_value());
  ASSERT_TRUE(get.lhs_aggregation.has_value());
  EXPECT_EQ(get.lhs_aggregation->text, "lower");
  EXPECT_EQ(get.lhs.text, "m");
  // A call of several arguments is an expression.
  const ast::Expr& sub = q.where->children[2];
  ASSERT_TRUE(sub.lhs_expr.has_value());
  EXPECT_EQ(sub.lhs_expr->kind, ast::SetExpr::Kind::kCall);
  EXPECT_EQ(sub.lhs_expr->args.size(), 3u);
  EXPECT_EQ(sub.rhs.text, "x");
  // No operator after the parentheses: a group of conditions.
  EXPECT_EQ(q.where->children[3].kind, ast::ExprKind::kOr);
  // An expression on the right, and both sides.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a where a + b > c * 2"));
  ASSERT_TRUE(q.where->lhs_expr.has_value());
  ASSERT_TRUE(q.where->rhs_expr.has_value());
  EXPECT_EQ(q.where->rhs.text, "c * 2");
  EXPECT_EQ(ast::Unparse(q), "select a where a + b > c * 2");
  // Parentheses that hold a plain value or a call of one field drop.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a where (a) > (lower(b))"));
  EXPECT_FALSE(q.where->lhs_expr.has_value());
  EXPECT_FALSE(q.where->rhs_expr.has_value());
  EXPECT_EQ(ast::Unparse(q), "select a where a > lower(b)");
  // A dash inside a word is no operator; one between spaces is.
  ASSERT_OK_AND_ASSIGN(q, ParseClean("select a where a-b > -1"));
  EXPECT_FALSE(q.where->lhs_expr.has_value());
  EXPECT_EQ(q.where->lhs.text, "a-b");
  EXPECT_EQ(q.where->rhs.text, "-1");
}

TEST(ParseTest, RejectsBadWhereExpressions) {
  CheckErrors({
      {"select a having count(a) + 1 > 2", kInvalid,
       "1:17-28: 'having' compares select items, aliases and group fields, "
       "not expressions\n"
       "select a having count(a) + 1 > 2\n"
       "                ^~~~~~~~~~~~\n"
       "hint: compute the value with 'set' and select an aggregate of it"},
      {"select a where len(a, 2) > 1", kInvalid,
       "1:23: len() takes 1 argument, not 2\n"
       "select a where len(a, 2) > 1\n"
       "                      ^\n"
       "hint: write: len(x)"},
      {"select a where lower(a) + > 1", kInvalid,
       "1:27: expected a value after the operator, found '>'\n"
       "select a where lower(a) + > 1\n"
       "                          ^\n"
       "hint: an operator stands between two values: end - start"},
      {"select a where lowr(a) eq \"x\"", kInvalid,
       "1:16-19: unknown function 'lowr'\n"
       "select a where lowr(a) eq \"x\"\n"
       "               ^~~~\n"
       "hint: did you mean 'lower'?"},
      {"select a where len() > 1", kInvalid,
       "1:16-20: len() needs a value\n"
       "select a where len() > 1\n"
       "               ^~~~~\n"
       "hint: write: len(x)"},
      // An aggregation is still no `where` operand.
      {"select a where p99(a) > 1", kInvalid,
       "1:16-21: an aggregation cannot be a 'where' operand: 'where' filters "
       "lines before they are aggregated\n"
       "select a where p99(a) > 1\n"
       "               ^~~~~~\n"
       "hint: to filter groups, use 'having': having p99(a) > ..."},
  });
}

TEST(ParseTest, RejectsBadSetExpressions) {
  CheckErrors({
      {"select $x set $x = a +", kInvalid,
       "1:23: expected a value after the operator, found end of query\n"
       "select $x set $x = a +\n"
       "                      ^\n"
       "hint: an operator stands between two values: end - start"},
      {"select $x set $x = a * (b", kInvalid,
       "1:26: expected ')' to close '(', found end of query\n"
       "select $x set $x = a * (b\n"
       "                         ^\n"
       "hint: operators stand alone between spaces: (end - start)"},
      {"select $x set $x = coalesce(a)", kInvalid,
       "1:20-27: coalesce() takes two or more values\n"
       "select $x set $x = coalesce(a)\n"
       "                   ^~~~~~~~\n"
       "hint: for example: coalesce(user, remote_user, \"-\")"},
      {"select $x set $x = regex(a + b, c + d)", kInvalid,
       "1:33-37: the arguments of regex() after its value are literals, not "
       "expressions\n"
       "select $x set $x = regex(a + b, c + d)\n"
       "                                ^~~~~\n"
       "hint: compute the value in a set step of its own"},
      {"select $x set $x = substr(a, 0)", kInvalid,
       "1:30: expected a whole number other than 0 as an argument of "
       "substr(), found '0'\n"
       "select $x set $x = substr(a, 0)\n"
       "                             ^\n"
       "hint: positions count from 1; negative ones from the end: "
       "substr(x, -3) is the last three bytes"},
      {"select $x set $x = split(a, b, 1)", kInvalid,
       "1:29: the separator of split() must be a non-empty 'quoted' string\n"
       "select $x set $x = split(a, b, 1)\n"
       "                            ^\n"
       "hint: write: split(x, 'sep', i)"},
      {"select $x set $x = substr(a, 1, -2)", kInvalid,
       "1:33-34: the length of substr() cannot be negative\n"
       "select $x set $x = substr(a, 1, -2)\n"
       "                                ^~\n"
       "hint: write: substr(x, start, length)"},
      {"select $x set $x = lower(a, 1)", kInvalid,
       "1:29: lower() takes 1 argument, not 2\n"
       "select $x set $x = lower(a, 1)\n"
       "                            ^\n"
       "hint: write: lower(x)"},
  });
}

TEST(ParseTest, RejectsSilentDTailMisreadings) {
  CheckErrors({
      {"select percentile(latency, 95) group by *", kInvalid,
       "1:28-29: percentile() takes one argument\n"
       "select percentile(latency, 95) group by *\n"
       "                           ^~\n"
       "hint: write p95(latency) for that percentile of the values (DTail's "
       "percentile() takes one field: a group's sum ranked)"},
      {"select PERCENTILE( x ,99.9)", kInvalid,
       "1:23-26: PERCENTILE() takes one argument\n"
       "select PERCENTILE( x ,99.9)\n"
       "                      ^~~~\n"
       "hint: write p99.9(x) for that percentile of the values (DTail's "
       "percentile() takes one field: a group's sum ranked)"},
      // Not a percentile rank after the comma, or not DTail's percentile():
      // the general hint.
      {"select percentile(x, y)", kInvalid,
       "1:22: percentile() takes one argument\n"
       "select percentile(x, y)\n"
       "                     ^\n"
       "hint: write percentile(x)"},
      {"select my_percentile(x, 95)", kInvalid,
       "1:8-20: unknown aggregation 'my_percentile'\n"
       "select my_percentile(x, 95)\n"
       "       ^~~~~~~~~~~~~\n"
       "hint: did you mean 'percentile'?"},
      {"select max(x, 95)", kInvalid,
       "1:15-16: max() takes one argument\n"
       "select max(x, 95)\n"
       "              ^~\n"
       "hint: write max(x)"},
      // An order key names a select item.
      {"select p95(x) order by percentile(x, 95)", kInvalid,
       "1:24-40: 'percentile(x,95)' is not a select item or group field\n"
       "select p95(x) order by percentile(x, 95)\n"
       "                       ^~~~~~~~~~~~~~~~~\n"
       "hint: order by 'percentile(x,95)' must name a select item, an alias "
       "or a group field: p95(x), x"},
      // DTail reads `group bu ip` as two fields, bu and ip.
      {"select count(ip) group bu ip", kInvalid,
       "1:24-25: unknown word 'bu' after 'group'\n"
       "select count(ip) group bu ip\n"
       "                       ^~\n"
       "hint: did you mean 'group by'? (to group by a field named 'bu', "
       "write 'group by bu ...')"},
      {"select count(ip) GROUP  Bt ip,host", kInvalid,
       "1:25-26: unknown word 'Bt' after 'group'\n"
       "select count(ip) GROUP  Bt ip,host\n"
       "                        ^~\n"
       "hint: did you mean 'group by'? (to group by a field named 'Bt', "
       "write 'group by Bt ...')"},
      // The fork's dmap4 step 2: `reverse` was ignored.
      {"from STATS select count($time),$time,max($goroutines),avg("
       "$goroutines),min($goroutines) group by $time order by "
       "avg($goroutines) reverse outfile append:dmap4.csv.tmp",
       kInvalid,
       "1:130-136: unexpected 'reverse'\n"
       "...),min($goroutines) group by $time order by avg($goroutines) "
       "reverse outfile append:dmap4.csv.tmp\n"
       "                                                               "
       "^~~~~~~\n"
       "hint: 'order by' takes keys separated by commas, each optionally "
       "followed by asc or desc"},
      {"select count($time) order by count($time) reverse", kInvalid,
       "1:43-49: unexpected 'reverse'\n"
       "select count($time) order by count($time) reverse\n"
       "                                          ^~~~~~~\n"
       "hint: 'order by' takes keys separated by commas, each optionally "
       "followed by asc or desc"},
      {"select a order by a desc desc", kInvalid,
       "1:26-29: unexpected 'desc'\n"
       "select a order by a desc desc\n"
       "                         ^~~~\n"
       "hint: 'asc' and 'desc' may only follow a key of 'order by'"},
      {"select a limit 5 6", kInvalid,
       "1:18: unexpected '6'\n"
       "select a limit 5 6\n"
       "                 ^\n"
       "hint: 'limit' takes exactly one value"},
      {"select a interval 5 6", kInvalid,
       "1:21: unexpected '6'\n"
       "select a interval 5 6\n"
       "                    ^\n"
       "hint: 'interval' takes exactly one value"},
      {"select a logformat generic x", kInvalid,
       "1:28: unexpected 'x'\n"
       "select a logformat generic x\n"
       "                           ^\n"
       "hint: 'logformat' takes a format name and, for some formats, one "
       "'quoted' argument: logformat fields ','"},
      {"select a multiline java python", kInvalid,
       "1:25-30: unexpected 'python'\n"
       "select a multiline java python\n"
       "                        ^~~~~~\n"
       "hint: 'multiline' takes one rule: a 'quoted' regular expression or "
       "a built-in name (java, python, go, stacktrace, indented)"},
      {"select a multiline where x > 1", kInvalid,
       "1:20-24: expected an event rule after 'multiline', found 'where'\n"
       "select a multiline where x > 1\n"
       "                   ^~~~~\n"
       "hint: for example: multiline '^\\d{4}-' (a line the regex matches "
       "starts an event), or multiline java (python, go, stacktrace, "
       "indented)"},
      {"select a multiline go multiline java", kInvalid,
       "1:23-31: duplicate 'multiline' clause\n"
       "select a multiline go multiline java\n"
       "                      ^~~~~~~~~\n"
       "hint: each clause may appear once; the first 'multiline' is at 1:10"},
      // B14: DTail's outfile errors said "Invalid query: Invalid query: ".
      {"select a outfile x y", kInvalid,
       "1:20: unexpected 'y'\n"
       "select a outfile x y\n"
       "                   ^\n"
       "hint: 'outfile' takes exactly one value"},
      {"select a outfile append group by a", kInvalid,
       "1:25-29: expected a file path after 'outfile append', found 'group'\n"
       "select a outfile append group by a\n"
       "                        ^~~~~\n"
       "hint: for example: outfile append result.csv"},
      // B18: an unknown format fell back to generic.
      {"select a logformat foo", kInvalid,
       "1:20-22: unknown log format 'foo'\n"
       "select a logformat foo\n"
       "                   ^~~\n"
       "hint: known log formats: auto, clf, combined, csv, default, "
       "fields, generic, generickv, journal, json, jsonl, logfmt, ndjson, "
       "pattern, "
       "regex, "
       "syslog"},
      {"select a logformat Mimecast", kInvalid,
       "1:20-27: unknown log format 'Mimecast'\n"
       "select a logformat Mimecast\n"
       "                   ^~~~~~~~\n"
       "hint: known log formats: auto, clf, combined, csv, default, "
       "fields, generic, generickv, journal, json, jsonl, logfmt, ndjson, "
       "pattern, "
       "regex, "
       "syslog"},
      // DTail reads `count(a)b` as one item named `count(a)b`.
      {"select count(a)b", kInvalid,
       "1:16: unexpected 'b'\n"
       "select count(a)b\n"
       "               ^\n"
       "hint: separate items with a space or a comma"},
      {"select a`b`", kInvalid,
       "1:9-11: unexpected '`b`'\n"
       "select a`b`\n"
       "        ^~~\n"
       "hint: separate items with a space or a comma"},
  });
}

TEST(ParseTest, AcceptsLogformatInAnyCase) {
  EXPECT_THAT(ParseAndPlan("select a logformat CSV"), IsOk());
  EXPECT_THAT(ParseAndPlan("select a logformat GenericKV"), IsOk());
}

TEST(ParseTest, RejectsHavingAndOrderErrors) {
  CheckErrors({
      {"select a having", kInvalid,
       "1:16: expected a condition after 'having', found end of query\n"
       "select a having\n"
       "               ^\n"
       "hint: for example: having count($line) > 10"},
      {"select a having ", kInvalid,
       "1:17: expected a condition after 'having', found end of query\n"
       "select a having \n"
       "                ^\n"
       "hint: for example: having count($line) > 10"},
      {"select a having order by a", kInvalid,
       "1:17-21: expected a condition after 'having', found 'order'\n"
       "select a having order by a\n"
       "                ^~~~~\n"
       "hint: for example: having count($line) > 10"},
      {"select a having a > 1 having a > 2", kInvalid,
       "1:23-28: duplicate 'having' clause\n"
       "select a having a > 1 having a > 2\n"
       "                      ^~~~~~\n"
       "hint: each clause may appear once; the first 'having' is at 1:10"},
      {"select count(a) as n group by a having foo > 1", kInvalid,
       "1:40-42: 'foo' is not a select item, alias or group field\n"
       "select count(a) as n group by a having foo > 1\n"
       "                                       ^~~\n"
       "hint: 'having' compares select items, their aliases, group fields, "
       "aggregations such as count($line), numbers and \"strings\"; here: n, "
       "a"},
      {"select count(a) as n group by a having n > 1 and nn eq \"x\"", kInvalid,
       "1:50-51: 'nn' is not a select item, alias or group field\n"
       "select count(a) as n group by a having n > 1 and nn eq \"x\"\n"
       "                                                 ^~\n"
       "hint: 'having' compares select items, their aliases, group fields, "
       "aggregations such as count($line), numbers and \"strings\"; here: n, "
       "a"},
      {"select count(a) having coun(a) > 1", kInvalid,
       "1:24-27: unknown aggregation 'coun'\n"
       "select count(a) having coun(a) > 1\n"
       "                       ^~~~\n"
       "hint: did you mean 'count'?"},
      {"select count(a) having count(a) > \"1\"", kInvalid,
       "1:35-37: \"1\" is a string; numeric comparisons take numbers or "
       "fields\n"
       "select count(a) having count(a) > \"1\"\n"
       "                                  ^~~\n"
       "hint: compare strings with eq, ne, contains, hasprefix or hassuffix"},
      {"select count(a) having count(a) =~ max(a)", kInvalid,
       "1:36-41: the pattern of '=~' must be a 'quoted' string\n"
       "select count(a) having count(a) =~ max(a)\n"
       "                                   ^~~~~~\n"
       "hint: for example: $hostname =~ '^web'"},
      {"select a where count(a) > 1", kInvalid,
       "1:16-23: an aggregation cannot be a 'where' operand: 'where' filters "
       "lines before they are aggregated\n"
       "select a where count(a) > 1\n"
       "               ^~~~~~~~\n"
       "hint: to filter groups, use 'having': having count(a) > ..."},
      {"select a, b rorder by a, b desc", kInvalid,
       "1:28-31: 'desc' contradicts 'rorder'\n"
       "select a, b rorder by a, b desc\n"
       "                           ^~~~\n"
       "hint: 'rorder' sorts ascending; write 'order by ... desc', or drop "
       "'desc'"},
      {"select a, b order by a, c", kInvalid,
       "1:25: 'c' is not a select item or group field\n"
       "select a, b order by a, c\n"
       "                        ^\n"
       "hint: order by 'c' must name a select item, an alias or a group field: "
       "a, b"},
      {"select a order by a b", kInvalid,
       "1:21: unexpected 'b'\n"
       "select a order by a b\n"
       "                    ^\n"
       "hint: 'order by' takes keys separated by commas, each optionally "
       "followed by asc or desc"},
      {"select count(b), a order by count(a)", kInvalid,
       "1:29-36: 'count(a)' is not a select item or group field\n"
       "select count(b), a order by count(a)\n"
       "                            ^~~~~~~~\n"
       "hint: did you mean 'count(b)'? order by 'count(a)' must name a select "
       "item, an alias or a group field: count(b), a, b"},
  });
}

TEST(ParseTest, RejectsOtherErrors) {
  CheckErrors({
      {"select a select b", kInvalid,
       "1:10-15: duplicate 'select' clause\n"
       "select a select b\n"
       "         ^~~~~~\n"
       "hint: each clause may appear once; the first 'select' is at 1:1"},
      {"select a from b where x > 1\nFROM c", kInvalid,
       "2:1-4: duplicate 'from' clause\n"
       "FROM c\n"
       "^~~~\n"
       "hint: each clause may appear once; the first 'from' is at 1:10"},
      {"select a group by a order by a group b", kInvalid,
       "1:32-36: duplicate 'group' clause\n"
       "select a group by a order by a group b\n"
       "                               ^~~~~\n"
       "hint: each clause may appear once; the first 'group' is at 1:10"},
      {"select a order by a rorder by a", kInvalid,
       "1:21-26: duplicate 'order' clause\n"
       "select a order by a rorder by a\n"
       "                    ^~~~~~\n"
       "hint: each clause may appear once; the first 'order' is at 1:10"},
      {"select a rorder by a desc", kInvalid,
       "1:22-25: 'desc' contradicts 'rorder'\n"
       "select a rorder by a desc\n"
       "                     ^~~~\n"
       "hint: 'rorder' sorts ascending; write 'order by ... desc', or drop "
       "'desc'"},
      {"select a where x eq \"abc", kInvalid,
       "1:21-24: unterminated string\n"
       "select a where x eq \"abc\n"
       "                    ^~~~\n"
       "hint: strings have no escapes and end at the next '\"'"},
      {"select a where x eq \"abc\n  group by a", kInvalid,
       "1:21-24: unterminated string\n"
       "select a where x eq \"abc\n"
       "                    ^~~~\n"
       "hint: strings have no escapes and end at the next '\"'"},
      {"select `abc from x", kInvalid,
       "1:8-18: unterminated backtick name\n"
       "select `abc from x\n"
       "       ^~~~~~~~~~~\n"
       "hint: a backticked name must end with a backtick"},
      {"select a outfile \"x", kInvalid,
       "1:18-19: unterminated string\n"
       "select a outfile \"x\n"
       "                 ^~\n"
       "hint: strings have no escapes and end at the next '\"'"},
      {std::string_view("select a\0", 9), kInvalid,
       "1:9: unexpected control character 0x00\n"
       "select a \n"
       "        ^\n"
       "hint: a query may not contain control characters; only spaces, tabs "
       "and newlines separate words"},
      {std::string_view("select a where x eq 1\0 limit 1", 30), kInvalid,
       "1:22: unexpected control character 0x00\n"
       "select a where x eq 1  limit 1\n"
       "                     ^\n"
       "hint: a query may not contain control characters; only spaces, tabs "
       "and newlines separate words"},
      {"select a\x1b[31m", kInvalid,
       "1:9: unexpected control character 0x1B\n"
       "select a [31m\n"
       "        ^\n"
       "hint: a query may not contain control characters; only spaces, tabs "
       "and newlines separate words"},
      {"select a where x = 1", kInvalid,
       "1:18: expected a comparison operator, found '='\n"
       "select a where x = 1\n"
       "                 ^\n"
       "hint: did you mean '=='?"},
      {"select a where (x > 1", kInvalid,
       "1:22: expected ')' to close '(', found end of query\n"
       "select a where (x > 1\n"
       "                     ^"},
      {"select a where (x > 1))", kInvalid,
       "1:23: unexpected ')'\n"
       "select a where (x > 1))\n"
       "                      ^\n"
       "hint: this ')' has no matching '('"},
      {"select a where ()", kInvalid,
       "1:17: expected a condition after '(', found ')'\n"
       "select a where ()\n"
       "                ^"},
      {"select a where not", kInvalid,
       "1:19: expected a condition after 'not', found end of query\n"
       "select a where not\n"
       "                  ^"},
      {"select a where x > 1 and", kInvalid,
       "1:25: expected a condition after 'and', found end of query\n"
       "select a where x > 1 and"
       "\n"
       "                        ^"},
      {"select a where x > 1 or limit 1", kInvalid,
       "1:25-29: expected a condition after 'or', found 'limit'\n"
       "select a where x > 1 or limit 1\n"
       "                        ^~~~~"},
      {"select a as", kInvalid,
       "1:12: expected a column name after 'as', found end of query\n"
       "select a as\n"
       "           ^\n"
       "hint: quote unusual names with backticks: as `my column`"},
      {"select a as from b", kInvalid,
       "1:13-16: expected a column name after 'as', found 'from'\n"
       "select a as from b\n"
       "            ^~~~\n"
       "hint: quote unusual names with backticks: as `my column`"},
      {"select avgg(x)", kInvalid,
       "1:8-11: unknown aggregation 'avgg'\n"
       "select avgg(x)\n"
       "       ^~~~\n"
       "hint: did you mean 'avg'?"},
      {"select mode(x)", kInvalid,
       "1:8-11: unknown aggregation 'mode'\n"
       "select mode(x)\n"
       "       ^~~~\n"
       "hint: known aggregations: count, rate, sum, min, max, last, first, "
       "avg, "
       "len, "
       "percentage, percentile, median, pN, dcount, topk, rare, histogram, "
       "stddev, variance, stddevp, "
       "variancep, cumsum"},
      {"select p101(x)", kInvalid,
       "1:8-11: 'p101': a percentile is from p0 to p100\n"
       "select p101(x)\n"
       "       ^~~~\n"
       "hint: write p99, p99.9 or median"},
      {"select p100.5(x)", kInvalid,
       "1:8-13: 'p100.5': a percentile is from p0 to p100\n"
       "select p100.5(x)\n"
       "       ^~~~~~\n"
       "hint: write p99, p99.9 or median"},
      {"select percentile95(x)", kInvalid,
       "1:8-19: unknown aggregation 'percentile95'\n"
       "select percentile95(x)\n"
       "       ^~~~~~~~~~~~\n"
       "hint: write p95 for that percentile of the values (percentile() is "
       "DTail's rank of a group's sum)"},
      {"select pN(x)", kInvalid,
       "1:8-9: unknown aggregation 'pN'\n"
       "select pN(x)\n"
       "       ^~\n"
       "hint: pN stands for p0 to p100: write p99, p99.9 or median"},
      {"selct a", kInvalid,
       "1:1-5: expected a clause keyword, found 'selct'\n"
       "selct a\n"
       "^~~~~\n"
       "hint: did you mean 'select'?"},
      {"select a from b grup by c", kInvalid,
       "1:17-20: unexpected 'grup'\n"
       "select a from b grup by c\n"
       "                ^~~~\n"
       "hint: did you mean 'group'?"},
      {"select a interval 5x", kInvalid,
       "1:19-20: invalid interval '5x'\n"
       "select a interval 5x\n"
       "                  ^~\n"
       "hint: give seconds (interval 5) or a duration with a unit: 500ms, "
       "30s, 2m, 1h (at most a year)"},
      {"select a interval -5", kInvalid,
       "1:19-20: invalid interval '-5'\n"
       "select a interval -5\n"
       "                  ^~\n"
       "hint: give seconds (interval 5) or a duration with a unit: 500ms, "
       "30s, 2m, 1h (at most a year)"},
      {"select a interval 1000000h", kInvalid,
       "1:19-26: invalid interval '1000000h'\n"
       "select a interval 1000000h\n"
       "                  ^~~~~~~~\n"
       "hint: give seconds (interval 5) or a duration with a unit: 500ms, "
       "30s, 2m, 1h (at most a year)"},
      {"select a limit 99999999999999999999", kInvalid,
       "1:16-35: 'limit' needs a non-negative integer, found "
       "'99999999999999999999'\n"
       "select a limit 99999999999999999999\n"
       "               ^~~~~~~~~~~~~~~~~~~~\n"
       "hint: limit 0 prints only the header; leave out 'limit' for every "
       "row"},
      {"select a from `a|b`", kInvalid,
       "1:15-19: invalid table name 'a|b'\n"
       "select a from `a|b`\n"
       "              ^~~~~\n"
       "hint: a table name is the text after MAPREDUCE: up to the next '|'"},
      {"select a from ``", kInvalid,
       "1:15-16: invalid table name ''\n"
       "select a from ``\n"
       "              ^~\n"
       "hint: a table name is the text after MAPREDUCE: up to the next '|'"},
  });
}

TEST(ParseTest, ReportsEveryPlannerError) {
  CheckErrors({
      {"select avgg(x), count(y) order by z set y = 1", kInvalid,
       "1:8-11: unknown aggregation 'avgg'\n"
       "select avgg(x), count(y) order by z set y = 1\n"
       "       ^~~~\n"
       "hint: did you mean 'avg'?\n"
       "\n"
       "1:41: 'set' assigns $variables, not 'y'\n"
       "select avgg(x), count(y) order by z set y = 1\n"
       "                                        ^\n"
       "hint: write: set $y = ...\n"
       "\n"
       "1:35: 'z' is not a select item or group field\n"
       "select avgg(x), count(y) order by z set y = 1\n"
       "                                  ^\n"
       "hint: order by 'z' must name a select item, an alias or a group field: "
       "count(y), y"},
  });
}

TEST(ParseTest, MultiLineQueryErrorsPointAtTheirLine) {
  CheckErrors({
      {"select a\n  from b\n  where x foo 1", kInvalid,
       "3:11-13: expected a comparison operator, found 'foo'\n"
       "  where x foo 1\n"
       "          ^~~\n"
       "hint: operators: == != < <= > >= eq ne ieq ine contains ncontains "
       "lacks icontains nicontains hasprefix nhasprefix hassuffix nhassuffix "
       "=~ !~ in"},
      {"select a,\n       avgg(b)\n  from STATS", kInvalid,
       "2:8-11: unknown aggregation 'avgg'\n"
       "       avgg(b)\n"
       "       ^~~~\n"
       "hint: did you mean 'avg'?"},
      {"select a from b\r\n  grop by c", kInvalid,
       "2:3-6: unexpected 'grop'\n"
       "  grop by c\n"
       "  ^~~~\n"
       "hint: did you mean 'group'?"},
  });
  absl::Status s = ParseAndPlan("select a\n  from b\n  where x foo 1");
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{28, 3, 3, 11}));
}

TEST(ParseTest, LongLineErrorsAreCut) {
  CheckErrors({
      {"from STATS select count($line),last($time),avg($goroutines),min("
       "concurrentConnections),max(lifetimeConnections) group by $hostname "
       "where lifetimeConnections >= 3 and $time eq \"1002-071949\" and "
       "fooooooooooooooooooooooooooo bar 3",
       kInvalid,
       "1:223-225: expected a comparison operator, found 'bar'\n"
       "...where lifetimeConnections >= 3 and $time eq \"1002-071949\" and "
       "fooooooooooooooooooooooooooo bar 3\n"
       "                                                                      "
       "                        ^~~\n"
       "hint: operators: == != < <= > >= eq ne ieq ine contains ncontains "
       "lacks icontains nicontains hasprefix nhasprefix hassuffix nhassuffix "
       "=~ !~ in"},
      {"select avgg(x), a00000000000000000000, a11111111111111111111, "
       "a22222222222222222222, a33333333333333333333, a44444444444444444444",
       kInvalid,
       "1:8-11: unknown aggregation 'avgg'\n"
       "select avgg(x), a00000000000000000000, a11111111111111111111, "
       "a22222222222222222222, a3333333333...\n"
       "       ^~~~\n"
       "hint: did you mean 'avg'?"},
  });
}

TEST(ParseTest, ErrorsCarryTheSourceSpan) {
  struct Case {
    std::string_view query;
    SourceSpan span;
  };
  const Case kCases[] = {
      {"", {0, 0, 1, 1}},
      {"select a from b c", {16, 1, 1, 17}},
      {"select a where x foo 1", {17, 3, 1, 18}},
      {"select a where \"x\" == 1", {15, 3, 1, 16}},  // Planner.
      {"select COUNT(a)", {7, 5, 1, 8}},              // Planner.
      {"select a\n  from b c", {18, 1, 2, 10}},
      {"select a where x eq \"abc", {20, 4, 1, 21}},
      {"select a set $x = md5sum(", {25, 0, 1, 26}},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(GetSourceSpan(ParseAndPlan(c.query)), c.span) << c.query;
  }
}

TEST(ParseTest, ErrorsThroughQueryCompile) {
  absl::StatusOr<Query> q = Query::Compile("select a where x foo 1");
  EXPECT_THAT(q, StatusIs(kInvalid,
                          StartsWith("1:18-20: expected a comparison operator, "
                                     "found 'foo'\n")));
  EXPECT_EQ(GetSourceSpan(q.status()), (SourceSpan{17, 3, 1, 18}));
  q = Query::Compile("select a logformat foo");
  EXPECT_THAT(q, StatusIs(kInvalid, StartsWith("1:20-22: unknown log format "
                                               "'foo'\n")));
}

// ---- Limits ----------------------------------------------------------------

TEST(ParseTest, RejectsQueryLongerThanMaxQueryBytes) {
  ParseLimits limits;
  limits.max_query_bytes = 20;
  CheckErrors({{"select a from STATS where x > 1", kInvalid,
                "1:1: query is 31 bytes, more than the limit of 20\n"
                "select a from STATS where x > 1\n"
                "^\n"
                "hint: raise CompileOptions::max_query_bytes"}},
              limits);
  EXPECT_THAT(ParseAndPlan("select a from STATS", limits), IsOk());

  // The default limit, 64 KiB; the snippet shows the start of the query.
  std::string text = "select a where x > 1" + std::string(70000, ' ');
  EXPECT_THAT(
      ParseAndPlan(text),
      StatusIs(kInvalid, Eq("1:1: query is 70020 bytes, more than the limit of "
                            "65536\n"
                            "select a where x > 1" +
                            std::string(kMaxSnippetWidth - 20, ' ') +
                            "...\n"
                            "^\n"
                            "hint: raise CompileOptions::max_query_bytes")));
  CompileOptions options;
  options.max_query_bytes = 100000;
  EXPECT_THAT(Query::Compile(text, options), IsOk());
}

TEST(ParseTest, NestingUpToMaxDepthIsAccepted) {
  std::string parens =
      "select a where " + std::string(64, '(') + "x > 1" + std::string(64, ')');
  EXPECT_THAT(ParseAndPlan(parens), IsOk());
  std::string nots = "select a where ";
  for (int i = 0; i < 64; ++i) nots += "not ";
  EXPECT_THAT(ParseAndPlan(nots + "x > 1"), IsOk());
}

TEST(ParseTest, RejectsDeepNestingWithAClearError) {
  ParseLimits limits;
  limits.max_depth = 2;
  CheckErrors(
      {
          {"select a where not (x > 1 or not y > 2)", kInvalid,
           "1:30-32: nesting deeper than 2 levels\n"
           "select a where not (x > 1 or not y > 2)\n"
           "                             ^~~\n"
           "hint: raise CompileOptions::max_depth, or simplify the "
           "expression"},
          {"select a where ((( x > 1 )))", kInvalid,
           "1:18: nesting deeper than 2 levels\n"
           "select a where ((( x > 1 )))\n"
           "                 ^\n"
           "hint: raise CompileOptions::max_depth, or simplify the "
           "expression"},
          {"select a set $x = md5sum(maskdigits(md5sum(y)))", kInvalid,
           "1:37-42: nesting deeper than 2 levels\n"
           "select a set $x = md5sum(maskdigits(md5sum(y)))\n"
           "                                    ^~~~~~\n"
           "hint: raise CompileOptions::max_depth, or simplify the "
           "expression"},
      },
      limits);
  // Exactly two levels.
  EXPECT_THAT(ParseAndPlan("select a where not (x > 1 or y > 2)", limits),
              IsOk());
  EXPECT_THAT(ParseAndPlan("select a where (x > 1) or not y > 2", limits),
              IsOk());
  EXPECT_THAT(ParseAndPlan("select a set $x = md5sum(maskdigits(y))", limits),
              IsOk());
}

TEST(ParseTest, TenThousandParenthesesFailCleanly) {
  std::string text = "select a where " + std::string(10000, '(') + "x > 1" +
                     std::string(10000, ')');
  absl::Status s = ParseAndPlan(text);
  // The 65th '(' is underlined; the snippet is cut around it.
  EXPECT_THAT(
      s, StatusIs(kInvalid, Eq("1:80: nesting deeper than 64 levels\n..." +
                               std::string(kMaxSnippetWidth, '(') + "...\n" +
                               std::string(51, ' ') +
                               "^\n"
                               "hint: raise CompileOptions::max_depth, or "
                               "simplify the expression")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{79, 1, 1, 80}));
}

// The lookaheads that tell an expression operand or a set expression
// (parentheses, nested calls) count against the nesting limit too: a query
// of the most bytes allowed fails cleanly, not on the stack.
TEST(ParseTest, DeepLookaheadsFailCleanly) {
  const size_t n = ParseLimits().max_query_bytes - 40;
  for (const std::string& text :
       {"select a where " + std::string(n, '('),
        "select a where " + std::string(n / 2, '(') + "a + 1", [&] {
          std::string t = "select $x set $x = ";
          while (t.size() + 2 < n) t += "f(";
          return t;
        }()}) {
    EXPECT_THAT(ParseAndPlan(text),
                StatusIs(kInvalid, HasSubstr("nesting deeper than 64 levels")))
        << text.substr(0, 40);
  }
}

TEST(ParseTest, HundredThousandNotsFailCleanly) {
  std::string text = "select a where ";
  for (int i = 0; i < 100000; ++i) text += "not ";
  text += "x > 1";
  // Too long for the default max_query_bytes; raise it to reach the depth
  // check.
  ParseLimits limits;
  limits.max_query_bytes = 1 << 20;
  absl::Status s = ParseAndPlan(text, limits);
  std::string window;
  for (int i = 0; i < 24; ++i) window += "not ";
  EXPECT_THAT(
      s, StatusIs(kInvalid, Eq("1:272-274: nesting deeper than 64 levels\n..." +
                               window + "...\n" + std::string(51, ' ') +
                               "^~~\n"
                               "hint: raise CompileOptions::max_depth, or "
                               "simplify the expression")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{271, 3, 1, 272}));
  EXPECT_THAT(ParseAndPlan(text), StatusIs(kInvalid, HasSubstr("bytes")));
}

TEST(ParseTest, RejectsTooManyItems) {
  std::string text = "select f0";
  for (int i = 1; i < 2000; ++i) text += ",f" + std::to_string(i);
  absl::Status s = ParseAndPlan(text);
  size_t offset = text.find(",f1024,") + 1;
  EXPECT_THAT(
      s, StatusIs(kInvalid, StartsWith("1:" + std::to_string(offset + 1) + "-" +
                                       std::to_string(offset + 5) +
                                       ": more than 1024 select items\n")));
  EXPECT_THAT(s, StatusIs(kInvalid, HasSubstr("\nhint: raise "
                                              "CompileOptions::max_items")));
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{offset, 5, 1, offset + 1}));

  ParseLimits limits;
  limits.max_items = 2;
  CheckErrors(
      {
          {"select a b c", kInvalid,
           "1:12: more than 2 select items\n"
           "select a b c\n"
           "           ^\n"
           "hint: raise CompileOptions::max_items"},
          {"select a where x > 1 y > 2 (z > 3)", kInvalid,
           "1:29-33: more than 2 where comparisons\n"
           "select a where x > 1 y > 2 (z > 3)\n"
           "                            ^~~~~\n"
           "hint: raise CompileOptions::max_items"},
          {"select a set $a = 1, $b = 2, $c = 3", kInvalid,
           "1:30-35: more than 2 set assignments\n"
           "select a set $a = 1, $b = 2, $c = 3\n"
           "                             ^~~~~~\n"
           "hint: raise CompileOptions::max_items"},
          {"select a group by a, b, c", kInvalid,
           "1:25: more than 2 group-by fields\n"
           "select a group by a, b, c\n"
           "                        ^\n"
           "hint: raise CompileOptions::max_items"},
      },
      limits);
  EXPECT_THAT(ParseAndPlan("select a b group by a b", limits), IsOk());
}

// ---- More error cases: no select, long tokens, hints by context
// -----------------------------------------------------------------

TEST(ParseTest, RejectsQueryWithoutSelect) {
  CheckErrors({
      {"from STATS where x > 1", kInvalid,
       "1:1-4: query has no 'select' clause\n"
       "from STATS where x > 1\n"
       "^~~~\n"
       "hint: add the values to compute, for example: select count($line)"},
      {"\n  group by a limit 3", kInvalid,
       "2:3-7: query has no 'select' clause\n"
       "  group by a limit 3\n"
       "  ^~~~~\n"
       "hint: add the values to compute, for example: select count($line)"},
  });
}

TEST(ParseTest, LongUnexpectedTokenIsShortenedInTheMessage) {
  const std::string token(45, 'y');
  const std::string query = "select a limit 1 " + token;
  EXPECT_THAT(
      ParseAndPlan(query),
      StatusIs(kInvalid, Eq("1:18-62: unexpected '" + std::string(37, 'y') +
                            "...'\n" + query + "\n" + std::string(17, ' ') +
                            "^" + std::string(44, '~') +
                            "\nhint: 'limit' takes exactly one value")));
  // Forty bytes are still shown whole.
  const std::string forty = "select a limit 1 " + std::string(40, 'z');
  EXPECT_THAT(ParseAndPlan(forty),
              StatusIs(kInvalid, StartsWith("1:18-57: unexpected '" +
                                            std::string(40, 'z') + "'\n")));
}

TEST(ParseTest, EndOfQueryHintsDependOnTheContext) {
  CheckErrors({
      {"select a limit 1 ASC", kInvalid,
       "1:18-20: unexpected 'ASC'\n"
       "select a limit 1 ASC\n"
       "                 ^~~\n"
       "hint: 'asc' and 'desc' may only follow a key of 'order by'"},
      // After a comma nothing is glued: the clause's own hint applies.
      {"select a from STATS,x", kInvalid,
       "1:21: unexpected 'x'\n"
       "select a from STATS,x\n"
       "                    ^\n"
       "hint: 'from' takes exactly one table name"},
      {"select a group by b\"c\"", kInvalid,
       "1:20-22: unexpected '\"c\"'\n"
       "select a group by b\"c\"\n"
       "                   ^~~\n"
       "hint: separate items with a space or a comma"},
      {"select a logformat csv x", kInvalid,
       "1:24: unexpected 'x'\n"
       "select a logformat csv x\n"
       "                       ^\n"
       "hint: 'logformat' takes a format name and, for some formats, one "
       "'quoted' argument: logformat fields ','"},
      // DEL is a control character too; the snippet shows it as a space.
      {"select a limit 1\x7f", kInvalid,
       "1:17: unexpected control character 0x7F\n"
       "select a limit 1 \n"
       "                ^\n"
       "hint: a query may not contain control characters; only spaces, tabs "
       "and newlines separate words"},
  });
}

// Regression: the shortened token was cut at byte 37 even inside a UTF-8
// sequence, so the message was invalid UTF-8 and Python's binding raised
// UnicodeDecodeError instead of mapr.QueryError.
TEST(ParseTest, ShortenedTokenIsCutBetweenCharacters) {
  std::string e_acute = "\xc3\xa9";  // é, two bytes
  std::string token;
  for (int i = 0; i < 30; ++i) token += e_acute;
  const std::string query = "select a limit 1 " + token;
  std::string shown;
  for (int i = 0; i < 18; ++i) shown += e_acute;  // 36 bytes, not 37
  EXPECT_THAT(ParseAndPlan(query),
              StatusIs(kInvalid,
                       StartsWith("1:18-77: unexpected '" + shown + "...'\n")));
  // Three- and four-byte characters too.
  for (std::string_view ch : {"\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    std::string long_token;
    for (int i = 0; i < 20; ++i) long_token += ch;
    absl::Status s = ParseAndPlan("select a limit 1 " + long_token);
    ASSERT_FALSE(s.ok());
    const std::string message(s.message());
    size_t open = message.find('\'');
    size_t dots = message.find("...'");
    ASSERT_NE(dots, std::string::npos) << message;
    std::string shown_part = message.substr(open + 1, dots - open - 1);
    EXPECT_EQ(shown_part.size() % ch.size(), 0u) << message;
    EXPECT_LE(shown_part.size(), 37u);
    EXPECT_GT(shown_part.size(), 37u - ch.size());
  }
}

// ---- AST helpers
// ---------------------------------------------------------------

TEST(AstTest, BarewordNamesAndReservedWords) {
  for (std::string_view word : {"select", "FROM", "Where", "and", "OR", "not",
                                "as", "logformat", "rorder"}) {
    EXPECT_TRUE(ast::IsReservedWord(word)) << word;
    EXPECT_FALSE(ast::IsBarewordName(word)) << word;
  }
  for (std::string_view word : {"selects", "count", "desc", "asc", "by", ""}) {
    EXPECT_FALSE(ast::IsReservedWord(word)) << word;
  }
  for (std::string_view name :
       {"a", "$line", "*", "a.b-c", "status:code", "\xc3\xa9t\xc3\xa9"}) {
    EXPECT_TRUE(ast::IsBarewordName(name)) << name;
  }
  for (std::string_view name :
       {"", "a b", "a,b", "a\"b", "a`b", "f(x)", "a)", "a<b", "a>b", "a=b",
        "a!", "tab\there", "del\x7f"}) {
    EXPECT_FALSE(ast::IsBarewordName(name)) << name;
  }
}

TEST(AstTest, AppendTokenQuotesWhatABarewordCannotHold) {
  auto text = [](const ast::Token& t) {
    std::string out;
    ast::AppendToken(t, &out);
    return out;
  };
  EXPECT_EQ(text(Bare("status")), "status");
  EXPECT_EQ(text(Bare("")), "");
  // A hand-built bareword that is reserved or holds a separator is
  // backticked, so the text parses back to the same field.
  EXPECT_EQ(text(Bare("a b")), "`a b`");
  EXPECT_EQ(text(Bare("from")), "`from`");
  EXPECT_EQ(text(Tick("status")), "`status`");
  EXPECT_EQ(text(Str("free beer")), "\"free beer\"");

  ast::Query q;
  q.select = {Item(Bare("a b")), Item(Bare("x"), Bare("count"))};
  q.group_by = {Bare("where")};
  const std::string unparsed = ast::Unparse(q);
  EXPECT_EQ(unparsed, "select `a b`,count(x) group by `where`");
  ASSERT_OK_AND_ASSIGN(ast::Query back, ParseClean(unparsed));
  EXPECT_EQ(back.select[0].field.text, "a b");
  EXPECT_EQ(back.group_by[0].text, "where");
}

// The round-trip tests rely on operator==: queries that differ anywhere,
// spans aside, must compare unequal.
TEST(AstTest, QueriesThatDifferAnywhereCompareUnequal) {
  constexpr std::string_view kBase =
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default";
  // Long queries are split across lines on purpose (adjacent literals).
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::string_view kVariants[] = {
      // select: field, aggregation, alias, number of items
      "select c, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, sum(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as m from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select `a`, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      // from
      "select a, count(b) as n from U where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      // where: operator, operands, operand kind, shape
      "select a, count(b) as n from T where x < 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where w > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 2 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq s "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 or y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and not y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      // set: target, function, operand
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $u = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = maskdigits(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(q) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = z group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      // group by
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a, b order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      // order: key, aggregation, direction, reverse
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by a interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by count(b) interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n asc interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a rorder by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat default",
      // interval, limit, outfile, logformat
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 6 limit 3 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 4 "
      "outfile \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile append \"o.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"p.csv\" logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "logformat default",
      "select a, count(b) as n from T where x > 1 and y eq \"s\" "
      "set $v = md5sum(z) group by a order by n interval 5 limit 3 "
      "outfile \"o.csv\" logformat generic",
  };
  // NOLINTEND(bugprone-suspicious-missing-comma)
  ASSERT_OK_AND_ASSIGN(ast::Query base, ParseClean(kBase));
  // Equal: a second parse of the same text, and of the same query with other
  // spacing and keyword case (spans cleared), are separate trees.
  ASSERT_OK_AND_ASSIGN(ast::Query again, ParseClean(kBase));
  EXPECT_EQ(again, base);
  EXPECT_EQ(base, again);
  std::string respaced = absl::StrReplaceAll(
      absl::string_view(kBase.data(), kBase.size()),
      {{" ", "  "}, {"select", "SELECT"}, {"group by", "GROUP BY"}});
  ASSERT_OK_AND_ASSIGN(ast::Query other_spelling, ParseClean(respaced));
  EXPECT_EQ(other_spelling, base) << respaced;
  for (std::string_view variant : kVariants) {
    ASSERT_OK_AND_ASSIGN(ast::Query q, ParseClean(variant));
    EXPECT_NE(q, base) << variant;
    EXPECT_NE(base, q) << variant;
  }
  // Spans count when they are kept: the same query shifted by one space.
  ASSERT_OK_AND_ASSIGN(ast::Query a, Parse(kBase));
  ASSERT_OK_AND_ASSIGN(ast::Query b, Parse(" " + std::string(kBase)));
  EXPECT_NE(a, b);
  ast::ClearSpans(&a);
  ast::ClearSpans(&b);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace mapr::parser
