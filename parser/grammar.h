// The PEGTL grammar of the mapr query language (docs/query-language.md,
// "Grammar"). Private to parser/: included by parse.cc and grammar_test.cc
// only.
//
// Every point where the parser commits (a `must<>`) names its own rule, and
// grammar_errors.h gives each one a message; the control class in parse.cc
// static_asserts that none is missing.
#ifndef MAPR_PARSER_GRAMMAR_H_
#define MAPR_PARSER_GRAMMAR_H_

#include <tao/pegtl.hpp>

namespace mapr::parser::grammar {

using tao::pegtl::any;
using tao::pegtl::at;
using tao::pegtl::eof;
using tao::pegtl::istring;
using tao::pegtl::must;
using tao::pegtl::not_at;
using tao::pegtl::not_one;
using tao::pegtl::one;
using tao::pegtl::opt;
using tao::pegtl::plus;
using tao::pegtl::range;
using tao::pegtl::ranges;
using tao::pegtl::seq;
using tao::pegtl::sor;
using tao::pegtl::star;
using tao::pegtl::string;
using tao::pegtl::ascii::space;

// ---- Lexical rules ---------------------------------------------------------

// Optional whitespace, and separators between list items (a comma is a
// separator like a space, as in DTail).
struct sp : star<space> {};
struct list_sep : star<sor<space, one<','>>> {};
// Between the items of a select, set or group-by list at least one space or
// comma is required: DTail reads `count(a)b` as one token, so splitting it
// into two items would silently change the query.
struct item_sep : plus<sor<space, one<','>>> {};

// Characters of a bareword: anything but whitespace, control characters and
// the punctuation the grammar uses.
struct control_char : sor<range<0, 31>, one<127>> {};
struct name_char
    : seq<not_at<control_char>,
          not_one<' ', ',', '"', '`', '(', ')', '<', '>', '=', '!'>> {};
// Characters of a bareword outfile path.
struct path_char : seq<not_at<control_char>, not_one<' ', ',', '"'>> {};
// Characters of an aggregation or function name.
struct ident_char : ranges<'a', 'z', 'A', 'Z', '0', '9', '_', '_'> {};

template <typename Word>
struct keyword : seq<Word, not_at<name_char>> {};

struct kw_select : keyword<istring<'s', 'e', 'l', 'e', 'c', 't'>> {};
struct kw_from : keyword<istring<'f', 'r', 'o', 'm'>> {};
struct kw_where : keyword<istring<'w', 'h', 'e', 'r', 'e'>> {};
struct kw_set : keyword<istring<'s', 'e', 't'>> {};
struct kw_group : keyword<istring<'g', 'r', 'o', 'u', 'p'>> {};
struct kw_order : keyword<istring<'o', 'r', 'd', 'e', 'r'>> {};
struct kw_rorder : keyword<istring<'r', 'o', 'r', 'd', 'e', 'r'>> {};
struct kw_interval : keyword<istring<'i', 'n', 't', 'e', 'r', 'v', 'a', 'l'>> {
};
struct kw_limit : keyword<istring<'l', 'i', 'm', 'i', 't'>> {};
struct kw_outfile : keyword<istring<'o', 'u', 't', 'f', 'i', 'l', 'e'>> {};
struct kw_logformat
    : keyword<istring<'l', 'o', 'g', 'f', 'o', 'r', 'm', 'a', 't'>> {};
struct kw_multiline
    : keyword<istring<'m', 'u', 'l', 't', 'i', 'l', 'i', 'n', 'e'>> {};
struct kw_having : keyword<istring<'h', 'a', 'v', 'i', 'n', 'g'>> {};
struct kw_by : keyword<istring<'b', 'y'>> {};
struct kw_and : keyword<istring<'a', 'n', 'd'>> {};
struct kw_or : keyword<istring<'o', 'r'>> {};
struct kw_not : keyword<istring<'n', 'o', 't'>> {};
struct kw_as : keyword<istring<'a', 's'>> {};
struct kw_asc : keyword<istring<'a', 's', 'c'>> {};
struct kw_desc : keyword<istring<'d', 'e', 's', 'c'>> {};
struct kw_append : keyword<istring<'a', 'p', 'p', 'e', 'n', 'd'>> {};

struct clause_keyword : sor<kw_select, kw_from, kw_where, kw_set, kw_group,
                            kw_having, kw_order, kw_rorder, kw_interval,
                            kw_limit, kw_outfile, kw_logformat, kw_multiline> {
};
struct reserved : sor<clause_keyword, kw_and, kw_or, kw_not, kw_as> {};

// A bareword that is not a reserved word. It may contain a single quote
// (`don't`) but not start with one: that starts a raw string.
struct bareword : seq<not_at<reserved>, not_at<one<'\''>>, plus<name_char>> {};

// `name`: backticks make any text a plain name.
struct backtick_close : one<'`'> {};
struct backtick_body : star<not_one<'`'>> {};
struct backticked : seq<one<'`'>, backtick_body, must<backtick_close>> {};

// "text": a literal without escapes.
struct quote_close : one<'"'> {};
struct string_body : star<not_one<'"'>> {};
struct quoted : seq<one<'"'>, string_body, must<quote_close>> {};

// 'text': a raw literal without escapes, for text that holds '"' or '\'
// (regular expressions).
struct squote_close : one<'\''> {};
struct squote_body : star<not_one<'\''>> {};
struct squoted : seq<one<'\''>, squote_body, must<squote_close>> {};

// The token rules that the actions capture. Each context has its own rule so
// that actions and error messages attach to the right place.
struct tok_bare : bareword {};
struct tok_tick : backticked {};
struct tok_string : sor<quoted, squoted> {};
struct field : sor<tok_tick, tok_bare> {};

// ---- select ----------------------------------------------------------------

// p99.9: a name may end in a decimal fraction.
struct agg_name : seq<plus<ident_char>, opt<one<'.'>, plus<ranges<'0', '9'>>>> {
};
struct agg_open : seq<agg_name, one<'('>> {};
struct agg_close : one<')'> {};
struct agg_call : seq<agg_open, sp, opt<field>, sp, must<agg_close>> {};
// A select item may wrap one aggregation in another: cumsum(count($line))
// (the planner says which outer ones take an aggregation).
struct inner_agg_open : seq<agg_name, one<'('>> {};
struct inner_agg_call
    : seq<inner_agg_open, sp, opt<field>, sp, must<agg_close>> {};
// An aggregation's second argument, a count: topk(x, 10) (the planner says
// which aggregations take one).
struct agg_param_value : bareword {};
struct agg_param : seq<one<','>, sp, must<agg_param_value>> {};
struct select_agg_call
    : seq<agg_open, sp,
          opt<sor<inner_agg_call, seq<field, opt<sp, agg_param>>>>, sp,
          must<agg_close>> {};
struct alias_name : sor<tok_tick, tok_bare> {};
struct alias : seq<kw_as, sp, must<alias_name>> {};
struct item_expr : sor<select_agg_call, field> {};
struct select_item : seq<item_expr, opt<sp, alias>> {};
struct select_first_item : select_item {};
struct select_clause
    : seq<kw_select, sp, must<select_first_item>, star<item_sep, select_item>> {
};

// ---- from ------------------------------------------------------------------

struct table_star : seq<one<'*'>, not_at<name_char>> {};
struct table_name : sor<table_star, tok_tick, tok_bare> {};
struct from_clause : seq<kw_from, sp, must<table_name>> {};

// ---- where -----------------------------------------------------------------

struct cmp_word : sor<istring<'n', 'c', 'o', 'n', 't', 'a', 'i', 'n', 's'>,
                      istring<'c', 'o', 'n', 't', 'a', 'i', 'n', 's'>,
                      istring<'l', 'a', 'c', 'k', 's'>,
                      istring<'n', 'h', 'a', 's', 'p', 'r', 'e', 'f', 'i', 'x'>,
                      istring<'h', 'a', 's', 'p', 'r', 'e', 'f', 'i', 'x'>,
                      istring<'n', 'h', 'a', 's', 's', 'u', 'f', 'f', 'i', 'x'>,
                      istring<'h', 'a', 's', 's', 'u', 'f', 'f', 'i', 'x'>,
                      istring<'n', 'i', 'c', 'o', 'n', 't', 'a', 'i', 'n', 's'>,
                      istring<'i', 'c', 'o', 'n', 't', 'a', 'i', 'n', 's'>,
                      istring<'i', 'e', 'q'>, istring<'i', 'n', 'e'>,
                      istring<'e', 'q'>, istring<'n', 'e'>> {};
struct cmp_symbol
    : sor<string<'=', '~'>, string<'!', '~'>, string<'=', '='>,
          string<'!', '='>, string<'<', '='>, string<'=', '<'>,
          string<'>', '='>, string<'=', '>'>, one<'<'>, one<'>'>> {};
struct compare_op : sor<cmp_symbol, keyword<cmp_word>> {};
// An aggregation call is an operand of `having` (select items); the planner
// rejects it in `where`. A reserved word before '(' is not one: `or(a > 1)`.
struct operand_call : seq<not_at<reserved>, agg_call> {};
// An operand may be an arithmetic expression or a function call
// (operand_expr, the set expression grammar below), told apart without
// actions by what follows its first value: an operator (`a + b > 3`,
// `(end - start) * 1000 > 5`, `(end - start) > 5`), or a call whose
// parentheses hold more than one field (`substr(x, 1, 3) eq "ab"`). A call
// of one field (`lower(m) eq "get"`, `count($line) > 5`) is an operand_call:
// the planner tells functions from aggregations by name.
struct operand_expr;
struct operand_expr_start;
struct operand
    : sor<operand_expr, tok_string, operand_call, tok_tick, tok_bare> {};
struct lhs_operand : operand {};
// After the operator a '(' can only open an expression: `a <= (b)`.
struct operand_expr_value;
struct rhs_operand : sor<seq<at<one<'('>>, operand_expr_value>, operand> {};
// `x in ("a", "b", 200)`: a list of literals (strings or bare numbers).
struct kw_in : keyword<istring<'i', 'n'>> {};
struct in_item : sor<tok_string, tok_bare> {};
struct in_first : in_item {};
struct in_next : in_item {};
struct in_close : one<')'> {};
struct in_list
    : seq<one<'('>, sp, must<in_first>, star<sp, one<','>, sp, must<in_next>>,
          sp, must<in_close>> {};
struct in_open : in_list {};
struct in_tail : seq<kw_in, sp, must<in_open>> {};
struct compare_tail : sor<in_tail, seq<compare_op, sp, must<rhs_operand>>> {};
struct comparison : seq<lhs_operand, sp, must<compare_tail>> {};

struct condition;
struct paren_close : one<')'> {};
struct paren_condition;
struct paren_expr
    : seq<one<'('>, sp, must<paren_condition>, sp, must<paren_close>> {};
struct negation;
struct not_operand;
struct negation : seq<kw_not, sp, must<not_operand>> {};
// A '(' opens a condition unless it opens an operand expression.
struct term
    : sor<negation, seq<not_at<operand_expr_start>, paren_expr>, comparison> {};
struct not_operand : term {};
struct and_operand : term {};
struct and_tail
    : sor<seq<sp, kw_and, sp, must<and_operand>>, seq<list_sep, term>> {};
struct conjunction : seq<term, star<and_tail>> {};
struct or_operand : conjunction {};
struct or_tail : seq<sp, kw_or, sp, must<or_operand>> {};
struct condition : seq<conjunction, star<or_tail>> {};
struct paren_condition : condition {};
struct where_condition : condition {};
struct where_clause : seq<kw_where, sp, must<where_condition>> {};

// ---- having ----------------------------------------------------------------

// The condition grammar of `where`; its operands name select items, aliases
// and group fields (checked by the planner).
struct having_condition : condition {};
struct having_clause : seq<kw_having, sp, must<having_condition>> {};

// ---- set -------------------------------------------------------------------

struct func_name : plus<ident_char> {};
struct func_open : seq<func_name, one<'('>> {};
struct func_close : one<')'> {};
struct func_arg;
// The arguments after the first are literals: regex(f, 're').
struct func_extra_arg : sor<tok_string, tok_tick, tok_bare> {};
struct func_more_args : seq<one<','>, sp, must<func_extra_arg>, sp> {};
struct func_call : seq<func_open, sp, must<func_arg>, sp, star<func_more_args>,
                       must<func_close>> {};
struct set_value : sor<tok_string, func_call, tok_tick, tok_bare> {};
struct func_arg : set_value {};

// Set expressions: + - * / (the usual precedence, left to right) and
// parentheses over values and calls, and coalesce(a, b, ...). An operator
// stands alone between spaces (or before '('): `a-b` is one bareword, as
// field names and timestamps have dashes.
struct arith_follow : sor<space, one<'('>, eof> {};
struct add_op : seq<one<'+', '-'>, at<arith_follow>> {};
struct mul_op : seq<one<'*', '/'>, at<arith_follow>> {};
struct expr_inner;
struct expr_paren_close : one<')'> {};
struct expr_paren
    : seq<one<'('>, sp, must<expr_inner>, sp, must<expr_paren_close>> {};
struct expr_func_open : seq<func_name, one<'('>> {};
struct expr_call_arg;
struct expr_more_args : seq<one<','>, sp, must<expr_call_arg>, sp> {};
struct expr_call : seq<expr_func_open, sp, must<expr_call_arg>, sp,
                       star<expr_more_args>, must<func_close>> {};
struct expr_operand : sor<tok_string, tok_tick, tok_bare> {};
struct expr_atom : sor<expr_paren, expr_call, expr_operand> {};
struct mul_operand : expr_atom {};
struct mul_tail : seq<sp, mul_op, sp, must<mul_operand>> {};
struct expr_product : seq<expr_atom, star<mul_tail>> {};
struct add_operand : expr_product {};
struct add_tail : seq<sp, add_op, sp, must<add_operand>> {};
struct expr_sum : seq<expr_product, star<add_tail>> {};
struct expr_inner : expr_sum {};
struct expr_call_arg : expr_sum {};
struct set_expr : expr_sum {};
// What makes a value an expression (looked at without actions): an
// opening '(', coalesce(, a call whose argument is one, or a value
// followed by an operator.
struct expr_start;
struct expr_start_nested;
struct expr_start : sor<one<'('>, seq<TAO_PEGTL_STRING("coalesce"), one<'('>>,
                        seq<func_name, one<'('>, sp, expr_start_nested>,
                        seq<set_value, sp, sor<add_op, mul_op>>> {};
// A call's argument (its nesting is counted there: parse_internal.h).
struct expr_start_nested : expr_start {};

// ---- expressions as `where` operands (see operand above) -------------------

// Balanced parentheses and the quoted text in them, matched without
// actions and without raising (a lookahead).
struct peek_quoted : seq<one<'"'>, star<not_one<'"'>>, one<'"'>> {};
struct peek_squoted : seq<one<'\''>, star<not_one<'\''>>, one<'\''>> {};
struct peek_parens;
// What follows a '(' (its nesting is counted there: parse_internal.h).
struct peek_inside : seq<star<sor<peek_quoted, peek_squoted, peek_parens,
                                  not_one<'(', ')', '"', '\''>>>,
                         one<')'>> {};
struct peek_parens : seq<one<'('>, peek_inside> {};
struct peek_backticked : seq<one<'`'>, star<not_one<'`'>>, one<'`'>> {};
struct peek_value : sor<peek_quoted, peek_squoted, peek_backticked, bareword> {
};
struct peek_arith : sor<add_op, mul_op> {};
struct operand_expr_start
    : sor<seq<peek_parens, sp, sor<peek_arith, compare_op, kw_in>>,
          seq<not_at<reserved>, func_name, one<'('>, sp,
              not_at<opt<field>, sp, one<')'>>>,
          seq<not_at<reserved>, func_name, peek_parens, sp, peek_arith>,
          seq<peek_value, sp, peek_arith>> {};
struct operand_expr_value : expr_sum {};
struct operand_expr : seq<at<operand_expr_start>, operand_expr_value> {};

struct set_target : sor<tok_tick, tok_bare> {};
struct set_equals : one<'='> {};
struct set_rhs : sor<seq<at<expr_start>, set_expr>, set_value> {};
struct assignment : seq<set_target, sp, must<set_equals>, sp, must<set_rhs>> {};
struct first_assignment : assignment {};
struct set_clause
    : seq<kw_set, sp, must<first_assignment>, star<item_sep, assignment>> {};

// ---- group by --------------------------------------------------------------

struct group_field : field {};
struct group_first_field : group_field {};
struct group_clause : seq<kw_group, sp, opt<kw_by, sp>, must<group_first_field>,
                          star<item_sep, group_field>> {};

// ---- order by --------------------------------------------------------------

struct order_key : item_expr {};
struct order_direction : sor<kw_asc, kw_desc> {};
struct order_keyword : sor<kw_rorder, kw_order> {};
// One key and its direction. Keys after the first follow a comma; a comma
// before a clause keyword (`order by n, limit 5`) still separates clauses.
struct order_first_key : seq<must<order_key>, opt<sp, order_direction>> {};
struct order_next_key : seq<order_key, opt<sp, order_direction>> {};
struct order_more : seq<sp, one<','>, sp, order_next_key> {};
struct order_clause : seq<order_keyword, sp, opt<kw_by, sp>, order_first_key,
                          star<order_more>> {};

// ---- interval, limit, outfile, logformat -----------------------------------

struct value_token : seq<not_at<reserved>, plus<name_char>> {};
struct interval_value : value_token {};
struct interval_clause : seq<kw_interval, sp, must<interval_value>> {};
struct limit_value : value_token {};
struct limit_clause : seq<kw_limit, sp, must<limit_value>> {};

struct path_bare : seq<not_at<reserved>, plus<path_char>> {};
struct outfile_path : sor<tok_string, path_bare> {};
struct outfile_append_path : outfile_path {};
// `outfile append` with nothing after it (trailing whitespace included) is a
// path named append.
struct outfile_append
    : seq<kw_append, plus<space>, not_at<sp, eof>, must<outfile_append_path>> {
};
struct outfile_target : sor<outfile_append, outfile_path> {};
struct outfile_clause : seq<kw_outfile, sp, must<outfile_target>> {};

struct logformat_name : sor<tok_tick, tok_bare> {};
// `logformat regex '(?P<ip>\S+) ...'`, `logformat fields ','`.
struct logformat_argument : sor<tok_string> {};
struct logformat_clause
    : seq<kw_logformat, sp, must<logformat_name>, opt<sp, logformat_argument>> {
};

// `multiline '^\d{4}-'` (a line the regex matches starts an event) or
// `multiline java` (a built-in rule, parser/event_start.h).
struct multiline_rule : sor<tok_string, tok_tick, tok_bare> {};
struct multiline_clause : seq<kw_multiline, sp, must<multiline_rule>> {};

// ---- query -----------------------------------------------------------------

struct clause
    : sor<select_clause, from_clause, where_clause, set_clause, group_clause,
          having_clause, order_clause, interval_clause, limit_clause,
          outfile_clause, logformat_clause, multiline_clause> {};
struct first_clause : clause {};
struct end_of_query : eof {};
struct query : seq<sp, must<first_clause>, star<list_sep, clause>, list_sep,
                   must<end_of_query>> {};

}  // namespace mapr::parser::grammar

#endif  // MAPR_PARSER_GRAMMAR_H_
