// Rule-level tests of the PEGTL grammar, in the style of PEGTL's own
// verify_rule: each rule is matched against a small input with no actions and
// the default control, and the outcome is one of success (with a given number
// of bytes left over), local failure (the rule does not match; the caller may
// try something else) or global failure (a must<> point raised).
#include "parser/grammar.h"

#include <string>
#include <string_view>
#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze.hpp>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parser/grammar_errors.h"
#include "parser/keywords.h"
#include "parser/plan.h"

namespace mapr::parser::grammar {
namespace {

namespace pegtl = tao::pegtl;
using ::testing::HasSubstr;

enum class Result { kSuccess, kLocalFailure, kGlobalFailure };
constexpr Result kSuccess = Result::kSuccess;
constexpr Result kLocalFailure = Result::kLocalFailure;
constexpr Result kGlobalFailure = Result::kGlobalFailure;

const char* ResultName(Result r) {
  switch (r) {
    case Result::kSuccess:
      return "success";
    case Result::kLocalFailure:
      return "local failure";
    case Result::kGlobalFailure:
      return "global failure";
  }
  return "?";
}

// Matches `Rule` at the start of `input`. On success, `remaining` bytes must
// be left unconsumed.
template <typename Rule>
::testing::AssertionResult VerifyRule(std::string_view input, Result expected,
                                      size_t remaining = 0) {
  pegtl::memory_input<> in(input.data(), input.size(), "test");
  Result actual;
  std::string detail;
  try {
    actual = pegtl::parse<Rule>(in) ? kSuccess : kLocalFailure;
  } catch (const pegtl::parse_error& e) {
    actual = kGlobalFailure;
    detail = e.what();
  }
  if (actual != expected) {
    return ::testing::AssertionFailure()
           << "input \"" << input << "\": expected " << ResultName(expected)
           << ", got " << ResultName(actual) << " " << detail;
  }
  if (actual == kSuccess && in.size() != remaining) {
    return ::testing::AssertionFailure()
           << "input \"" << input << "\": expected " << remaining
           << " bytes left, got " << in.size() << " (\""
           << std::string_view(in.current(), in.size()) << "\")";
  }
  return ::testing::AssertionSuccess();
}

// Like VerifyRule for a global failure, and checks that the rule that raised
// is `must_rule` (PEGTL names it in the message).
template <typename Rule>
::testing::AssertionResult VerifyRaises(std::string_view input,
                                        std::string_view must_rule) {
  pegtl::memory_input<> in(input.data(), input.size(), "test");
  try {
    pegtl::parse<Rule>(in);
  } catch (const pegtl::parse_error& e) {
    std::string what = e.what();
    std::string wanted = "grammar::" + std::string(must_rule);
    if (what.find(wanted) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "input \"" << input << "\": raised " << what
             << ", expected a failure of " << wanted;
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "input \"" << input << "\": did not raise";
}

TEST(GrammarTest, HasNoCyclesOrEmptyLoops) {
  EXPECT_EQ(pegtl::analyze<query>(-1), 0u);
}

// ---- Lexical rules ---------------------------------------------------------

TEST(GrammarTest, KeywordsAreCaseInsensitive) {
  EXPECT_TRUE(VerifyRule<kw_select>("select", kSuccess));
  EXPECT_TRUE(VerifyRule<kw_select>("SELECT", kSuccess));
  EXPECT_TRUE(VerifyRule<kw_select>("SeLeCt", kSuccess));
  EXPECT_TRUE(VerifyRule<kw_rorder>("RORDER", kSuccess));
  EXPECT_TRUE(VerifyRule<kw_logformat>("LogFormat", kSuccess));
  EXPECT_TRUE(VerifyRule<kw_and>("AND", kSuccess));
  EXPECT_TRUE(VerifyRule<kw_append>("Append", kSuccess));
}

TEST(GrammarTest, KeywordsEndAtAWordBoundary) {
  EXPECT_TRUE(VerifyRule<kw_select>("selectx", kLocalFailure));
  EXPECT_TRUE(VerifyRule<kw_select>("select$", kLocalFailure));
  EXPECT_TRUE(VerifyRule<kw_select>("select.x", kLocalFailure));
  EXPECT_TRUE(VerifyRule<kw_order>("orders", kLocalFailure));
  EXPECT_TRUE(VerifyRule<kw_as>("asc", kLocalFailure));
  EXPECT_TRUE(VerifyRule<kw_or>("order", kLocalFailure));
  EXPECT_TRUE(VerifyRule<kw_select>("sel", kLocalFailure));
  EXPECT_TRUE(VerifyRule<kw_select>("", kLocalFailure));
  // Punctuation ends a word.
  EXPECT_TRUE(VerifyRule<kw_select>("select x", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<kw_select>("select,x", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<kw_select>("select\tx", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<kw_not>("not(", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<kw_select>("select`a`", kSuccess, 3));
  EXPECT_TRUE(VerifyRule<kw_select>("select\"a\"", kSuccess, 3));
}

TEST(GrammarTest, ReservedWords) {
  for (std::string_view word : kReservedWords) {
    EXPECT_TRUE(VerifyRule<reserved>(word, kSuccess)) << word;
  }
  for (std::string_view word : {"WHERE", "Or"}) {
    EXPECT_TRUE(VerifyRule<reserved>(word, kSuccess)) << word;
  }
  // The clause keywords are exactly what clause_keyword matches, and the
  // grammar's hints name each of them.
  for (std::string_view word : kClauseKeywords) {
    EXPECT_TRUE(VerifyRule<clause_keyword>(word, kSuccess)) << word;
    EXPECT_THAT(kError<end_of_query>.hint, HasSubstr(std::string(word)));
  }
  for (std::string_view word : {"and", "or", "not", "as", "by", "asc"}) {
    EXPECT_FALSE(VerifyRule<clause_keyword>(word, kSuccess)) << word;
  }
  // Words that only have meaning in one position are not reserved.
  for (std::string_view word :
       {"by", "asc", "desc", "append", "eq", "contains", "count", "reverse",
        "selected", "android", "notes", "ask", "$select"}) {
    EXPECT_TRUE(VerifyRule<reserved>(word, kLocalFailure)) << word;
  }
}

TEST(GrammarTest, Barewords) {
  EXPECT_TRUE(VerifyRule<bareword>("status", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("$line", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("status.code", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("*", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("1002-071949", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("-1.5e3", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("a/b:c;d|e", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("\xc3\xa9t\xc3\xa9", kSuccess));  // UTF-8.
  // Reserved words are not barewords, but longer words starting with one
  // are, and so are the positional words.
  EXPECT_TRUE(VerifyRule<bareword>("select", kLocalFailure));
  EXPECT_TRUE(VerifyRule<bareword>("FROM", kLocalFailure));
  EXPECT_TRUE(VerifyRule<bareword>("and", kLocalFailure));
  EXPECT_TRUE(VerifyRule<bareword>("selectx", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("android", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("by", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("desc", kSuccess));
  EXPECT_TRUE(VerifyRule<bareword>("append", kSuccess));
}

TEST(GrammarTest, BarewordsEndAtPunctuation) {
  EXPECT_TRUE(VerifyRule<bareword>("a b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a,b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a(b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a)b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a=b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a<b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a>b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a!b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a\"b\"", kSuccess, 3));
  EXPECT_TRUE(VerifyRule<bareword>("a`b`", kSuccess, 3));
  EXPECT_TRUE(VerifyRule<bareword>(std::string_view("a\0b", 3), kSuccess, 2));
  EXPECT_TRUE(VerifyRule<bareword>("a\x7f", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<bareword>("", kLocalFailure));
  EXPECT_TRUE(VerifyRule<bareword>(" a", kLocalFailure));
  EXPECT_TRUE(VerifyRule<bareword>("(a", kLocalFailure));
  EXPECT_TRUE(VerifyRule<bareword>("\"a\"", kLocalFailure));
  EXPECT_TRUE(VerifyRule<bareword>("`a`", kLocalFailure));
}

TEST(GrammarTest, BacktickedNames) {
  EXPECT_TRUE(VerifyRule<tok_tick>("`a b`", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_tick>("`count($time)`", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_tick>("`from`", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_tick>("``", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_tick>("`a\"b`", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_tick>("`a`b", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<tok_tick>("a`", kLocalFailure));
  EXPECT_TRUE(VerifyRule<tok_tick>("`abc", kGlobalFailure));
  EXPECT_TRUE(VerifyRule<tok_tick>("`", kGlobalFailure));
  EXPECT_TRUE(VerifyRaises<tok_tick>("`abc", "backtick_close"));
}

TEST(GrammarTest, QuotedStrings) {
  EXPECT_TRUE(VerifyRule<tok_string>("\"free beer\"", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_string>("\"\"", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_string>("\"a,b`c\"", kSuccess));
  EXPECT_TRUE(VerifyRule<tok_string>("\"x\"y", kSuccess, 1));
  // No escapes: a backslash is a plain character and the next quote ends
  // the string.
  EXPECT_TRUE(VerifyRule<tok_string>("\"a\\\"b\"", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<tok_string>("x", kLocalFailure));
  EXPECT_TRUE(VerifyRule<tok_string>("\"abc", kGlobalFailure));
  EXPECT_TRUE(VerifyRaises<tok_string>("\"abc", "quote_close"));
}

TEST(GrammarTest, Fields) {
  EXPECT_TRUE(VerifyRule<field>("$line", kSuccess));
  EXPECT_TRUE(VerifyRule<field>("`$line`", kSuccess));
  // A quoted string is a literal, never a field.
  EXPECT_TRUE(VerifyRule<field>("\"x\"", kLocalFailure));
  EXPECT_TRUE(VerifyRule<field>("where", kLocalFailure));
}

// ---- select ----------------------------------------------------------------

TEST(GrammarTest, SelectItems) {
  EXPECT_TRUE(VerifyRule<select_item>("count($line)", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("count( $line )", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("count()", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("count(`a b`)", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("COUNT(a)", kSuccess));  // Planner.
  EXPECT_TRUE(VerifyRule<select_item>("avgg(a)", kSuccess));   // Planner.
  EXPECT_TRUE(VerifyRule<select_item>("$time", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("`count($time)`", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("count(a) as c", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("a AS `my col`", kSuccess));
  EXPECT_TRUE(VerifyRule<select_item>("a as b c", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<select_item>("count(a))", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<select_item>("count(a)b", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<select_item>("\"a\"", kLocalFailure));
  EXPECT_TRUE(VerifyRule<select_item>("from", kLocalFailure));
  EXPECT_TRUE(VerifyRule<select_item>("(a)", kLocalFailure));
}

TEST(GrammarTest, SelectItemErrors) {
  EXPECT_TRUE(VerifyRaises<select_item>("count(a", "agg_close"));
  EXPECT_TRUE(VerifyRaises<select_item>("count((a)", "agg_close"));
  EXPECT_TRUE(VerifyRaises<select_item>("count(a b)", "agg_close"));
  EXPECT_TRUE(VerifyRaises<select_item>("a as", "alias_name"));
  EXPECT_TRUE(VerifyRaises<select_item>("a as from", "alias_name"));
  EXPECT_TRUE(VerifyRaises<select_item>("a as \"x\"", "alias_name"));
}

TEST(GrammarTest, SelectClause) {
  EXPECT_TRUE(VerifyRule<select_clause>("select a", kSuccess));
  EXPECT_TRUE(VerifyRule<select_clause>("select a,b c", kSuccess));
  EXPECT_TRUE(VerifyRule<select_clause>("select a , ,b", kSuccess));
  EXPECT_TRUE(
      VerifyRule<select_clause>("SELECT count(*),avg(x) as y", kSuccess));
  // The list stops before the next clause keyword, and before whatever
  // it cannot read (the query rule reports that).
  EXPECT_TRUE(VerifyRule<select_clause>("select a from b", kSuccess, 7));
  EXPECT_TRUE(VerifyRule<select_clause>("select a,", kSuccess, 1));
  // Items need a space or comma between them.
  EXPECT_TRUE(VerifyRule<select_clause>("select count(a)b", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<select_clause>("select a`b`", kSuccess, 3));
  EXPECT_TRUE(VerifyRule<select_clause>("selectx", kLocalFailure));
  EXPECT_TRUE(VerifyRaises<select_clause>("select", "select_first_item"));
  EXPECT_TRUE(VerifyRaises<select_clause>("select from", "select_first_item"));
  EXPECT_TRUE(VerifyRaises<select_clause>("select \"a\"", "select_first_item"));
}

// ---- from ------------------------------------------------------------------

TEST(GrammarTest, FromClause) {
  EXPECT_TRUE(VerifyRule<from_clause>("from STATS", kSuccess));
  EXPECT_TRUE(VerifyRule<from_clause>("FROM stats", kSuccess));
  EXPECT_TRUE(VerifyRule<from_clause>("from *", kSuccess));
  EXPECT_TRUE(VerifyRule<from_clause>("from `a b`", kSuccess));
  EXPECT_TRUE(VerifyRule<from_clause>("from *x", kSuccess));  // A name.
  EXPECT_TRUE(VerifyRule<from_clause>("from b c", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<from_clause>("fromage", kLocalFailure));
  EXPECT_TRUE(VerifyRaises<from_clause>("from", "table_name"));
  EXPECT_TRUE(VerifyRaises<from_clause>("from where", "table_name"));
  EXPECT_TRUE(VerifyRaises<from_clause>("from \"STATS\"", "table_name"));
}

// ---- where -----------------------------------------------------------------

TEST(GrammarTest, ComparisonOperators) {
  for (std::string_view op :
       {"==",        "!=",         "<",     "<=",        "=<",
        ">",         ">=",         "=>",    "eq",        "ne",
        "contains",  "ncontains",  "lacks", "hasprefix", "nhasprefix",
        "hassuffix", "nhassuffix", "EQ",    "Contains",  "LACKS",
        "NHasSuffix"}) {
    EXPECT_TRUE(VerifyRule<compare_op>(op, kSuccess)) << op;
  }
  EXPECT_TRUE(VerifyRule<compare_op>("=", kLocalFailure));
  EXPECT_TRUE(VerifyRule<compare_op>("!", kLocalFailure));
  EXPECT_TRUE(VerifyRule<compare_op>("eqx", kLocalFailure));
  EXPECT_TRUE(VerifyRule<compare_op>("containsx", kLocalFailure));
  EXPECT_TRUE(VerifyRule<compare_op>("like", kLocalFailure));
  EXPECT_TRUE(VerifyRule<compare_op>("<>", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<compare_op>("<=1", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<compare_op>("eq\"x\"", kSuccess, 3));
}

TEST(GrammarTest, Comparisons) {
  EXPECT_TRUE(VerifyRule<comparison>("a == 1", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("a==1", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("a>=-1.5", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("w2 eq \"free beer\"", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("`a b` CONTAINS `c`", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("\"x\" == 1", kSuccess));  // Planner.
  EXPECT_TRUE(VerifyRule<comparison>("a eq \"\"", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("a == 1 b", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<comparison>("(a == 1)", kLocalFailure));
  EXPECT_TRUE(VerifyRule<comparison>("and == 1", kLocalFailure));
  EXPECT_TRUE(VerifyRaises<comparison>("a", "compare_tail"));
  EXPECT_TRUE(VerifyRaises<comparison>("a foo 1", "compare_tail"));
  EXPECT_TRUE(VerifyRaises<comparison>("a = 1", "compare_tail"));
  EXPECT_TRUE(VerifyRaises<comparison>("a <", "rhs_operand"));
  EXPECT_TRUE(VerifyRaises<comparison>("a < group", "rhs_operand"));
  EXPECT_TRUE(VerifyRaises<comparison>("a eq \"x", "quote_close"));
  EXPECT_TRUE(VerifyRule<comparison>("a in (\"x\", 2,'y')", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("a IN(1)", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("(a + 1) in (1)", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("a ieq B", kSuccess));
  EXPECT_TRUE(VerifyRule<comparison>("a nicontains \"b\"", kSuccess));
  EXPECT_TRUE(VerifyRaises<comparison>("a inx 1", "compare_tail"));
  EXPECT_TRUE(VerifyRaises<comparison>("a in", "in_open"));
  EXPECT_TRUE(VerifyRaises<comparison>("a in 1", "in_open"));
  EXPECT_TRUE(VerifyRaises<comparison>("a in ()", "in_first"));
  EXPECT_TRUE(VerifyRaises<comparison>("a in (1,)", "in_next"));
  EXPECT_TRUE(VerifyRaises<comparison>("a in (1 2)", "in_close"));
}

TEST(GrammarTest, WhereClause) {
  for (std::string_view input : {
           "where a > 1",
           "where a > 1 b < 2",
           "where a > 1, b < 2",
           "where a > 1 and b < 2",
           "where a > 1 AND b < 2 , c eq \"x\" d ne e",
           "where a > 1 or b < 2",
           "where not a > 1",
           "where not not a > 1",
           "where (a > 1)",
           "where ((a > 1))",
           "where (a > 1 or b < 2) and not (c eq \"x\")",
           "where(a>1)and(b<2)",
           "where not(a>1)",
       }) {
    EXPECT_TRUE(VerifyRule<where_clause>(input, kSuccess)) << input;
  }
  EXPECT_TRUE(VerifyRule<where_clause>("where a > 1 group by a", kSuccess, 11));
  EXPECT_TRUE(VerifyRule<where_clause>("where a > 1,", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<where_clause>("wherever", kLocalFailure));
}

TEST(GrammarTest, WhereClauseErrors) {
  EXPECT_TRUE(VerifyRaises<where_clause>("where", "where_condition"));
  EXPECT_TRUE(
      VerifyRaises<where_clause>("where group by a", "where_condition"));
  EXPECT_TRUE(VerifyRaises<where_clause>("where x", "compare_tail"));
  EXPECT_TRUE(VerifyRaises<where_clause>("where a > 1 and", "and_operand"));
  EXPECT_TRUE(VerifyRaises<where_clause>("where a > 1 or", "or_operand"));
  EXPECT_TRUE(VerifyRaises<where_clause>("where not", "not_operand"));
  EXPECT_TRUE(VerifyRaises<where_clause>("where (", "paren_condition"));
  EXPECT_TRUE(VerifyRaises<where_clause>("where (a > 1", "paren_close"));
  EXPECT_TRUE(VerifyRaises<where_clause>("where (a > 1 b", "compare_tail"));
}

// ---- set -------------------------------------------------------------------

TEST(GrammarTest, SetClause) {
  for (std::string_view input : {
           "set $a = 1", "set $a=1", "SET $a = b", "set $a = \"x y\"",
           "set $a = \"\"", "set $a = `count($time)`", "set $a = md5sum($line)",
           "set $a = maskdigits( md5sum( maskdigits($line) ) )",
           "set $a = 1, $b = 2 $c = 3",
           "set x = 1",        // The planner wants a $variable.
           "set $a = foo(y)",  // The planner knows the functions.
       }) {
    EXPECT_TRUE(VerifyRule<set_clause>(input, kSuccess)) << input;
  }
  EXPECT_TRUE(VerifyRule<set_clause>("set $a = 1 group by a", kSuccess, 11));
  EXPECT_TRUE(VerifyRule<set_clause>("set $a = f(x)y", kSuccess, 1));
  EXPECT_TRUE(VerifyRule<set_clause>("settle", kLocalFailure));
}

TEST(GrammarTest, SetClauseErrors) {
  EXPECT_TRUE(VerifyRaises<set_clause>("set", "first_assignment"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set \"$x\" = 1", "first_assignment"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x", "set_equals"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x 1", "set_equals"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x =", "set_rhs"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x == 1", "set_rhs"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x = ()", "expr_inner"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x = md5sum(", "func_arg"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x = md5sum()", "func_arg"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x = md5sum(y", "func_close"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $x = md5sum(y z)", "func_close"));
  EXPECT_TRUE(VerifyRaises<set_clause>("set $a = 1, $b", "set_equals"));
}

// ---- group, order ----------------------------------------------------------

TEST(GrammarTest, GroupClause) {
  EXPECT_TRUE(VerifyRule<group_clause>("group by a", kSuccess));
  EXPECT_TRUE(VerifyRule<group_clause>("group a", kSuccess));
  EXPECT_TRUE(VerifyRule<group_clause>("GROUP BY g1, g2 g3", kSuccess));
  EXPECT_TRUE(VerifyRule<group_clause>("group by `a b`,*", kSuccess));
  EXPECT_TRUE(VerifyRule<group_clause>("group by by", kSuccess));
  EXPECT_TRUE(VerifyRule<group_clause>("group by a order by a", kSuccess, 11));
  EXPECT_TRUE(VerifyRule<group_clause>("groups", kLocalFailure));
  EXPECT_TRUE(VerifyRaises<group_clause>("group", "group_first_field"));
  EXPECT_TRUE(VerifyRaises<group_clause>("group by", "group_first_field"));
  EXPECT_TRUE(
      VerifyRaises<group_clause>("group by limit 5", "group_first_field"));
  EXPECT_TRUE(
      VerifyRaises<group_clause>("group by \"a\"", "group_first_field"));
}

TEST(GrammarTest, OrderClause) {
  EXPECT_TRUE(VerifyRule<order_clause>("order by count($line)", kSuccess));
  EXPECT_TRUE(VerifyRule<order_clause>("order count($line)", kSuccess));
  EXPECT_TRUE(VerifyRule<order_clause>("ORDER BY a DESC", kSuccess));
  EXPECT_TRUE(VerifyRule<order_clause>("rorder by a asc", kSuccess));
  EXPECT_TRUE(VerifyRule<order_clause>("rorder a", kSuccess));
  EXPECT_TRUE(VerifyRule<order_clause>("order by `a b`", kSuccess));
  EXPECT_TRUE(VerifyRule<order_clause>("order by a reverse", kSuccess, 8));
  EXPECT_TRUE(VerifyRule<order_clause>("order by a descx", kSuccess, 6));
  EXPECT_TRUE(VerifyRule<order_clause>("order by a limit 1", kSuccess, 8));
  EXPECT_TRUE(VerifyRule<order_clause>("orderly", kLocalFailure));
  EXPECT_TRUE(VerifyRaises<order_clause>("order", "order_key"));
  EXPECT_TRUE(VerifyRaises<order_clause>("order by", "order_key"));
  EXPECT_TRUE(VerifyRaises<order_clause>("rorder by", "order_key"));
  EXPECT_TRUE(VerifyRaises<order_clause>("order by count(a", "agg_close"));
}

// ---- interval, limit, outfile, logformat -----------------------------------

TEST(GrammarTest, IntervalAndLimitClauses) {
  EXPECT_TRUE(VerifyRule<interval_clause>("interval 5", kSuccess));
  EXPECT_TRUE(VerifyRule<interval_clause>("interval 500ms", kSuccess));
  EXPECT_TRUE(VerifyRule<interval_clause>("interval x", kSuccess));  // Planner.
  EXPECT_TRUE(VerifyRule<interval_clause>("interval 5 6", kSuccess, 2));
  EXPECT_TRUE(VerifyRaises<interval_clause>("interval", "interval_value"));
  EXPECT_TRUE(
      VerifyRaises<interval_clause>("interval limit", "interval_value"));
  EXPECT_TRUE(VerifyRule<limit_clause>("limit 10", kSuccess));
  EXPECT_TRUE(VerifyRule<limit_clause>("LIMIT 0", kSuccess));
  EXPECT_TRUE(VerifyRule<limit_clause>("limit -1", kSuccess));  // Planner.
  EXPECT_TRUE(VerifyRule<limit_clause>("limit 5 6", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<limit_clause>("limits", kLocalFailure));
  EXPECT_TRUE(VerifyRaises<limit_clause>("limit", "limit_value"));
  EXPECT_TRUE(VerifyRaises<limit_clause>("limit set foo = bar", "limit_value"));
}

TEST(GrammarTest, OutfileClause) {
  for (std::string_view input : {
           "outfile result.csv",
           "outfile ./dserver1.csv.tmp",
           "outfile /tmp/a(b)=c.csv",
           "outfile \"my results.csv\"",
           "outfile append result.csv",
           "outfile APPEND result.csv",
           "outfile append \"my results.csv\"",
           "outfile append:result.csv",  // A path named append:result.csv.
           "outfile append",             // A path named append.
           "outfile append ",
           "outfile append\n",
       }) {
    EXPECT_TRUE(VerifyRule<outfile_clause>(
        input, kSuccess, input.ends_with(' ') || input.ends_with('\n') ? 1 : 0))
        << input;
  }
  EXPECT_TRUE(VerifyRule<outfile_clause>("outfile x y", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<outfile_clause>("outfile x,y", kSuccess, 2));
  EXPECT_TRUE(VerifyRule<outfile_clause>("outfiles", kLocalFailure));
  EXPECT_TRUE(VerifyRaises<outfile_clause>("outfile", "outfile_target"));
  EXPECT_TRUE(VerifyRaises<outfile_clause>("outfile group", "outfile_target"));
  EXPECT_TRUE(VerifyRaises<outfile_clause>("outfile append group by a",
                                           "outfile_append_path"));
  EXPECT_TRUE(VerifyRaises<outfile_clause>("outfile \"x", "quote_close"));
}

TEST(GrammarTest, LogformatClause) {
  EXPECT_TRUE(VerifyRule<logformat_clause>("logformat csv", kSuccess));
  EXPECT_TRUE(VerifyRule<logformat_clause>("LOGFORMAT CSV", kSuccess));
  EXPECT_TRUE(VerifyRule<logformat_clause>("logformat `csv`", kSuccess));
  EXPECT_TRUE(VerifyRule<logformat_clause>("logformat generic x", kSuccess, 2));
  EXPECT_TRUE(VerifyRaises<logformat_clause>("logformat", "logformat_name"));
  EXPECT_TRUE(
      VerifyRaises<logformat_clause>("logformat \"csv\"", "logformat_name"));
}

// ---- query -----------------------------------------------------------------

TEST(GrammarTest, Queries) {
  for (std::string_view input : {
           // Long queries are split across lines on purpose (adjacent
           // literals).
           // NOLINTBEGIN(bugprone-suspicious-missing-comma)
           "select a",
           "  select a  ",
           "\nselect a\n",
           "select a from b",
           "from STATS select count($line) group by $hostname",
           "select a,",
           "select a, group by b",
           "select a,from b",
           "select s1, `from`, count(s3) from table where w1 == 2 and w2 eq "
           "\"free beer\" group by g1, g2 order by count(s3) interval 10 "
           "limit 23 set $foo = maskdigits(bar), $baz = 12, $bay = $foo "
           "logformat generic",
           "SELECT s1 FROM table WHERE w1 == 2 GROUP g1 ORDER count(s3)",
           "select a where x == \"1\"group by a",
           // Duplicates are a semantic error reported by the actions.
           "select a select b",
       }) {
    // NOLINTEND(bugprone-suspicious-missing-comma)
    EXPECT_TRUE(VerifyRule<query>(input, kSuccess)) << input;
  }
}

TEST(GrammarTest, QueryErrors) {
  EXPECT_TRUE(VerifyRaises<query>("", "first_clause"));
  EXPECT_TRUE(VerifyRaises<query>("   ", "first_clause"));
  EXPECT_TRUE(VerifyRaises<query>("foo select bar", "first_clause"));
  EXPECT_TRUE(VerifyRaises<query>("select a from b c", "end_of_query"));
  EXPECT_TRUE(VerifyRaises<query>("select count(a))", "end_of_query"));
  EXPECT_TRUE(VerifyRaises<query>("select count(a)b", "end_of_query"));
  EXPECT_TRUE(
      VerifyRaises<query>("select a order by a desc desc", "end_of_query"));
  EXPECT_TRUE(VerifyRaises<query>("select a limit 5 6", "end_of_query"));
  EXPECT_TRUE(
      VerifyRaises<query>(std::string_view("select a\0", 9), "end_of_query"));
}

// The operator table (plan::CompareOpSpellings) and the grammar agree: every
// spelling is one compare_op, and the error hint lists each canonical one.
TEST(GrammarTest, EveryOperatorSpellingParsesAndIsInTheHint) {
  const std::string hint = std::string(kError<compare_tail>.hint) + " ";
  for (const plan::CompareOpSpelling& o : plan::CompareOpSpellings()) {
    if (o.op == plan::CompareOp::kIn) {  // It takes a list: in_tail.
      EXPECT_TRUE(VerifyRule<in_tail>("in (1)", kSuccess));
    } else {
      EXPECT_TRUE(VerifyRule<compare_op>(o.name, kSuccess)) << o.name;
    }
    if (o.name != plan::CompareOpName(o.op)) continue;  // An alias.
    EXPECT_NE(hint.find(" " + std::string(o.name) + " "), std::string::npos)
        << o.name << " is missing in the hint: " << hint;
  }
  EXPECT_TRUE(VerifyRule<compare_op>("like", kLocalFailure));
}

}  // namespace
}  // namespace mapr::parser::grammar
