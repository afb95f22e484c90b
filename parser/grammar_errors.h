// The message for every point where the grammar commits (each `must<>`).
// Private to parser/. The control class in parse.cc static_asserts that a
// rule raised at runtime has an entry here.
#ifndef MAPR_PARSER_GRAMMAR_ERRORS_H_
#define MAPR_PARSER_GRAMMAR_ERRORS_H_

#include "parser/grammar.h"

namespace mapr::parser::grammar {

struct ErrorText {
  const char* expected;  // "expected ..." part of the message.
  const char* hint;      // May be empty.
};

template <typename Rule>
inline constexpr ErrorText kError = {nullptr, nullptr};

#define MAPR_GRAMMAR_ERROR(rule, expected, hint) \
  template <>                                    \
  inline constexpr ErrorText kError<rule> = {expected, hint}

MAPR_GRAMMAR_ERROR(first_clause, "a clause keyword",
                   "a query is made of clauses such as: select count($line) "
                   "from STATS group by $hostname");
MAPR_GRAMMAR_ERROR(end_of_query, "a clause keyword",
                   "clauses start with select, from, where, set, group, "
                   "having, order, rorder, interval, limit, outfile, "
                   "logformat or multiline");
MAPR_GRAMMAR_ERROR(select_first_item, "a select item after 'select'",
                   "for example: select count($line),avg(latency)");
MAPR_GRAMMAR_ERROR(agg_close, "')' to close the aggregation",
                   "an aggregation takes one field, for example: "
                   "count($line)");
MAPR_GRAMMAR_ERROR(agg_param_value, "a count after ','",
                   "topk takes how many values to show: topk(path, 10)");
MAPR_GRAMMAR_ERROR(alias_name, "a column name after 'as'",
                   "quote unusual names with backticks: as `my column`");
MAPR_GRAMMAR_ERROR(table_name, "a table name after 'from'",
                   "for example: from STATS, or from * for every table");
MAPR_GRAMMAR_ERROR(compare_tail, "a comparison operator",
                   "operators: == != < <= > >= eq ne ieq ine contains "
                   "ncontains lacks icontains nicontains hasprefix "
                   "nhasprefix hassuffix nhassuffix =~ !~ in");
MAPR_GRAMMAR_ERROR(in_open, "'(' and a list of values after 'in'",
                   "for example: status in (500, 502, 503)");
MAPR_GRAMMAR_ERROR(in_first, "a value in the list after 'in ('",
                   "the list holds \"strings\" and numbers: "
                   "method in (\"GET\", \"HEAD\")");
MAPR_GRAMMAR_ERROR(in_next, "a value after ',' in the list",
                   "the list holds \"strings\" and numbers: "
                   "method in (\"GET\", \"HEAD\")");
MAPR_GRAMMAR_ERROR(in_close, "')' to close the list of 'in'",
                   "values are separated by ',': status in (500, 502)");
MAPR_GRAMMAR_ERROR(rhs_operand, "a value after the comparison operator",
                   "numbers and fields are bare, strings are \"quoted\" or "
                   "'quoted'");
MAPR_GRAMMAR_ERROR(paren_condition, "a condition after '('", "");
MAPR_GRAMMAR_ERROR(paren_close, "')' to close '('", "");
MAPR_GRAMMAR_ERROR(not_operand, "a condition after 'not'", "");
MAPR_GRAMMAR_ERROR(and_operand, "a condition after 'and'", "");
MAPR_GRAMMAR_ERROR(or_operand, "a condition after 'or'", "");
MAPR_GRAMMAR_ERROR(where_condition, "a condition after 'where'",
                   "for example: where lifetimeConnections >= 3");
MAPR_GRAMMAR_ERROR(having_condition, "a condition after 'having'",
                   "for example: having count($line) > 10");
MAPR_GRAMMAR_ERROR(func_arg, "a function argument",
                   "for example: md5sum($line)");
MAPR_GRAMMAR_ERROR(func_extra_arg, "a function argument after ','",
                   "for example: regex($line, 'took (\\d+)ms')");
MAPR_GRAMMAR_ERROR(func_close, "')' to close the function call",
                   "arguments are separated by ',', for example: "
                   "regex(path, '^/api/(\\w+)')");
MAPR_GRAMMAR_ERROR(expr_inner, "a value after '('",
                   "for example: set $ms = (end - start) * 1000");
MAPR_GRAMMAR_ERROR(expr_paren_close, "')' to close '('",
                   "operators stand alone between spaces: (end - start)");
MAPR_GRAMMAR_ERROR(expr_call_arg, "a function argument",
                   "for example: coalesce(user, \"-\")");
MAPR_GRAMMAR_ERROR(mul_operand, "a value after the operator",
                   "an operator stands between two values: bytes * 8");
MAPR_GRAMMAR_ERROR(add_operand, "a value after the operator",
                   "an operator stands between two values: end - start");
MAPR_GRAMMAR_ERROR(set_equals, "'=' in the 'set' assignment",
                   "for example: set $mask = maskdigits($time)");
MAPR_GRAMMAR_ERROR(set_rhs, "a value after '='",
                   "a field, a number, a \"string\" or md5sum(...) / "
                   "maskdigits(...)");
MAPR_GRAMMAR_ERROR(first_assignment, "an assignment after 'set'",
                   "for example: set $mask = maskdigits($time)");
MAPR_GRAMMAR_ERROR(group_first_field, "a field after 'group by'",
                   "for example: group by $hostname");
MAPR_GRAMMAR_ERROR(order_key, "a select item after 'order by'",
                   "for example: order by count($line)");
MAPR_GRAMMAR_ERROR(interval_value, "an interval after 'interval'",
                   "for example: interval 5 (seconds), interval 30s, "
                   "interval 2m");
MAPR_GRAMMAR_ERROR(limit_value, "a row count after 'limit'",
                   "for example: limit 10");
MAPR_GRAMMAR_ERROR(outfile_target, "a file path after 'outfile'",
                   "for example: outfile result.csv, or outfile append "
                   "\"my results.csv\"");
MAPR_GRAMMAR_ERROR(outfile_append_path, "a file path after 'outfile append'",
                   "for example: outfile append result.csv");
MAPR_GRAMMAR_ERROR(logformat_name, "a log format name after 'logformat'",
                   "for example: logformat json, or logformat regex "
                   "'(?P<ip>\\S+) (?P<rest>.*)'");
MAPR_GRAMMAR_ERROR(multiline_rule, "an event rule after 'multiline'",
                   "for example: multiline '^\\d{4}-' (a line the regex "
                   "matches starts an event), or multiline java (python, go, "
                   "stacktrace, indented)");
MAPR_GRAMMAR_ERROR(backtick_close, "a closing '`'",
                   "a backticked name must end with a backtick");
MAPR_GRAMMAR_ERROR(quote_close, "a closing '\"'",
                   "strings have no escapes and end at the next '\"'");
MAPR_GRAMMAR_ERROR(squote_close, "a closing \"'\"",
                   "'raw strings' have no escapes and end at the next \"'\"");

#undef MAPR_GRAMMAR_ERROR

}  // namespace mapr::parser::grammar

#endif  // MAPR_PARSER_GRAMMAR_ERRORS_H_
