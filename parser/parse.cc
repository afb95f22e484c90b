#include "parser/parse.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <new>
#include <string>
#include <tao/pegtl.hpp>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "parser/grammar.h"
#include "parser/grammar_errors.h"
#include "parser/keywords.h"
#include "parser/parse_internal.h"
#include "parser/source_span.h"
#include "util/out_of_memory.h"
#include "util/strings.h"

namespace mapr::parser {
namespace {

using namespace parse_internal;  // NOLINT(google-build-using-namespace)

// ---- Actions ---------------------------------------------------------------

// PEGTL calls Action<Rule>::apply when Rule matches. The grammar
// (parser/grammar.h) holds no state; the actions build the AST in `State`
// bottom-up: a token rule leaves its token in st.tok, and the rule that
// consumes it (a select item, an operand, a clause) moves it into the AST
// and resets what it took, so that nothing leaks into the next construct
// (clauses come in any order). Actions never fail: errors are the grammar's
// must<> rules (parser/grammar_errors.h) or checks that throw a SyntaxError
// (Fail) with a span, caught at Parse()'s PEGTL boundary.

template <typename Rule>
struct Action : pegtl::nothing<Rule> {};

// Barewords are kept as written: names are case-sensitive, and numbers are
// read by the planner, which knows whether a place wants one.
template <>
struct Action<g::tok_bare> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.tok = ast::Token{ast::TokenKind::kBareword, in.string(), st.SpanOf(in)};
  }
};
template <>
struct Action<g::path_bare> : Action<g::tok_bare> {};
template <>
struct Action<g::interval_value> : Action<g::tok_bare> {};
template <>
struct Action<g::limit_value> : Action<g::tok_bare> {};
template <>
struct Action<g::table_star> : Action<g::tok_bare> {};

// `name`: the backticks are dropped; the kind remembers them, so that the
// planner never reads a backticked word as a number or keyword.
template <>
struct Action<g::tok_tick> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    std::string_view s(in.begin(), in.size());
    st.tok = ast::Token{ast::TokenKind::kBackticked,
                        std::string(s.substr(1, s.size() - 2)), st.SpanOf(in)};
  }
};

// "text" or 'text': the quotes are dropped. Neither has escapes (the
// grammar ends each at its next quote), so a pattern's backslashes reach
// RE2 unchanged.
template <>
struct Action<g::tok_string> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    std::string_view s(in.begin(), in.size());
    st.tok = ast::Token{ast::TokenKind::kString,
                        std::string(s.substr(1, s.size() - 2)), st.SpanOf(in)};
  }
};

// `name(`: the name's token (a function's or an aggregation's).
template <typename Input>
ast::Token CallName(const Input& in, const State& st) {
  return ast::Token{ast::TokenKind::kBareword,
                    std::string(in.begin(), in.size() - 1),
                    st.SpanOf(in.begin(), in.size() - 1)};
}

// An aggregation's `name(`. `count()` has no field: `tok` becomes an empty
// token just after '('.
template <typename Input>
ast::Token OpenCall(const Input& in, State& st) {
  st.tok = ast::Token{ast::TokenKind::kBareword, "", st.SpanOf(in.end(), 0)};
  return CallName(in, st);
}

template <>
struct Action<g::agg_open> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.aggregation = OpenCall(in, st);
  }
};

template <>
struct Action<g::inner_agg_open> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.inner_aggregation = OpenCall(in, st);
  }
};

template <>
struct Action<g::agg_param_value> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.agg_param =
        ast::Token{ast::TokenKind::kBareword, in.string(), st.SpanOf(in)};
  }
};

// The item's field, saved before an alias (also a token) overwrites `tok`.
template <>
struct Action<g::item_expr> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.item_field = st.tok;
  }
};

template <>
struct Action<g::alias_name> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.alias = st.tok;
  }
};

void CheckItemCount(State& st, size_t count, const ast::Span& span,
                    const char* what) {
  if (count > st.limits.max_items) {
    Fail(span, absl::StrCat("more than ", st.limits.max_items, " ", what),
         "raise CompileOptions::max_items");
  }
}

// A select item takes (and clears) what its tokens left in the state.
template <>
struct Action<g::select_item> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    ast::SelectItem item;
    item.aggregation = std::move(st.aggregation);
    item.inner_aggregation = std::move(st.inner_aggregation);
    item.parameter = std::move(st.agg_param);
    item.field = std::move(st.item_field);
    item.alias = std::move(st.alias);
    item.span = st.SpanOf(in);
    st.aggregation.reset();
    st.inner_aggregation.reset();
    st.agg_param.reset();
    st.alias.reset();
    st.query.select.push_back(std::move(item));
    CheckItemCount(st, st.query.select.size(), st.SpanOf(in), "select items");
  }
};
template <>
struct Action<g::select_first_item> : Action<g::select_item> {};

// Checks that a clause appears once and remembers it for error hints.
template <typename Input>
void EnterClause(const Input& in, State& st, Clause clause) {
  ast::Span span = TokenSpanAt(st.text, st.SpanOf(in).offset);
  if (st.seen[clause]) {
    LineCol first = OffsetToLineCol(st.text, st.clause_offset[clause]);
    Fail(span, absl::StrCat("duplicate '", kClauseNames[clause], "' clause"),
         absl::StrCat("each clause may appear once; the first '",
                      kClauseNames[clause], "' is at ", first.line, ":",
                      first.column));
  }
  st.seen[clause] = true;
  st.clause_offset[clause] = span.offset;
  st.last_clause = clause;
}

// Each clause may appear once (EnterClause reports a second one, with the
// place of the first) and keeps its span for the planner's messages.
template <>
struct Action<g::select_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kSelect);
    st.query.select_span = st.SpanOf(in);
  }
};

template <>
struct Action<g::from_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kFrom);
    st.query.from = ast::FromClause{st.tok, st.SpanOf(in)};
  }
};

// An operand that parsed as an expression. One that is a plain value or a
// call of one field (`(a)`, `(lower(a))`) is stored as one, as written
// without parentheses: each operand has one canonical text.
template <>
struct Action<g::operand_expr_value> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    ast::SetExpr e = std::move(st.expr_stack.back());
    st.expr_stack.clear();
    st.aggregation.reset();
    if (e.kind == ast::SetExpr::Kind::kOperand) {
      st.tok = std::move(e.token);
      return;
    }
    if (e.kind == ast::SetExpr::Kind::kCall && e.args.size() == 1 &&
        e.args[0].kind == ast::SetExpr::Kind::kOperand &&
        e.args[0].token.kind != ast::TokenKind::kString) {
      st.aggregation = std::move(e.token);
      st.tok = std::move(e.args[0].token);
      return;
    }
    st.tok =
        ast::Token{ast::TokenKind::kBareword, ast::ExprText(e), st.SpanOf(in)};
    st.operand_expr = std::move(e);
  }
};
// A comparison's operands: each takes the token, the aggregation of an
// `agg(field)` operand (having) and the expression (an arithmetic operand)
// that its rule left, so that the right-hand side cannot see the left's.
template <>
struct Action<g::lhs_operand> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.lhs = st.tok;
    st.lhs_aggregation = std::move(st.aggregation);
    st.aggregation.reset();
    st.lhs_expr = std::move(st.operand_expr);
    st.operand_expr.reset();
  }
};
template <>
struct Action<g::rhs_operand> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.rhs = st.tok;
    st.rhs_aggregation = std::move(st.aggregation);
    st.aggregation.reset();
    st.rhs_expr = std::move(st.operand_expr);
    st.operand_expr.reset();
  }
};
// Word operators are case-blind (`EQ` is `eq`): lower-cased here, so the
// planner matches one spelling.
template <>
struct Action<g::compare_op> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    std::string op = in.string();
    for (char& c : op) c = static_cast<char>(std::tolower(c));
    st.op = ast::Token{ast::TokenKind::kBareword, std::move(op), st.SpanOf(in)};
  }
};
// `x in (...)`: the list replaces a right-hand operand; what an earlier
// comparison may have left there is cleared.
template <>
struct Action<g::kw_in> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.op = ast::Token{ast::TokenKind::kBareword, "in", st.SpanOf(in)};
    st.rhs = ast::Token{};
    st.rhs_aggregation.reset();
    st.rhs_expr.reset();
    st.in_list.clear();
  }
};
template <>
struct Action<g::in_item> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.in_list.push_back(st.tok);
    CheckItemCount(st, st.in_list.size(), st.SpanOf(in),
                   "values in an 'in' list");
  }
};
template <>
struct Action<g::in_first> : Action<g::in_item> {};
template <>
struct Action<g::in_next> : Action<g::in_item> {};
// One comparison, pushed on st.exprs for and/or/not to combine. The
// count bounds hostile queries (CompileOptions::max_items).
template <>
struct Action<g::comparison> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    ast::Expr e;
    e.kind = ast::ExprKind::kCompare;
    e.op = std::move(st.op);
    e.lhs = std::move(st.lhs);
    e.rhs = std::move(st.rhs);
    e.lhs_aggregation = std::move(st.lhs_aggregation);
    e.rhs_aggregation = std::move(st.rhs_aggregation);
    e.lhs_expr = std::move(st.lhs_expr);
    e.rhs_expr = std::move(st.rhs_expr);
    if (e.op.text == "in") e.list = std::move(st.in_list);
    st.in_list.clear();
    st.lhs_aggregation.reset();
    st.rhs_aggregation.reset();
    st.lhs_expr.reset();
    st.rhs_expr.reset();
    e.span = st.SpanOf(in);
    st.exprs.push_back(std::move(e));
    CheckItemCount(st, ++st.comparisons, st.SpanOf(in), "where comparisons");
  }
};
// `not c` wraps the comparison or group just pushed.
template <>
struct Action<g::negation> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    ast::Expr e;
    e.kind = ast::ExprKind::kNot;
    e.span = st.SpanOf(in);
    e.children.push_back(std::move(st.exprs.back()));
    st.exprs.back() = std::move(e);
  }
};

// Folds the last two expressions into one `kind` node. A chain of the same
// operator stays one node with many children (a and b and c), which keeps
// the tree shallow for long conditions and the unparsed text canonical.
void Combine(State& st, ast::ExprKind kind) {
  ast::Expr right = std::move(st.exprs.back());
  st.exprs.pop_back();
  ast::Expr& left = st.exprs.back();
  ast::Span span{left.span.offset,
                 right.span.offset + right.span.length - left.span.offset};
  if (left.kind == kind) {
    left.children.push_back(std::move(right));
    left.span = span;
    return;
  }
  ast::Expr e;
  e.kind = kind;
  e.span = span;
  e.children.push_back(std::move(left));
  e.children.push_back(std::move(right));
  st.exprs.back() = std::move(e);
}

template <>
struct Action<g::and_tail> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    Combine(st, ast::ExprKind::kAnd);
  }
};
template <>
struct Action<g::or_tail> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    Combine(st, ast::ExprKind::kOr);
  }
};
// A clause takes the one expression its condition left.
template <>
struct Action<g::where_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kWhere);
    st.query.where = std::move(st.exprs.back());
    st.exprs.clear();
    st.query.where_span = st.SpanOf(in);
  }
};
template <>
struct Action<g::having_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kHaving);
    st.query.having = std::move(st.exprs.back());
    st.exprs.clear();
    st.query.having_span = st.SpanOf(in);
  }
};

template <>
struct Action<g::set_target> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.set_target = st.tok;
  }
};
// A `set` value that is a chain of calls, `maskdigits(md5sum(x))`, is kept
// flat: st.functions lists the calls outermost first and st.open_calls the
// ones still open, so each literal argument lands on its own call however
// deep the nesting (which the grammar bounds).
template <>
struct Action<g::func_open> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.open_calls.push_back(st.functions.size());
    st.functions.push_back(CallName(in, st));
    st.function_args.emplace_back();
  }
};
// The first argument is saved before a later one (also a token) overwrites
// `tok`.
template <>
struct Action<g::func_arg> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    // Only the innermost call's first argument is a value (a call as the
    // argument has already closed and left the stack).
    if (st.open_calls.back() + 1 == st.functions.size()) st.operand = st.tok;
  }
};
template <>
struct Action<g::func_extra_arg> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.function_args[st.open_calls.back()].push_back(st.tok);
    CheckItemCount(st, st.function_args[st.open_calls.back()].size() + 1,
                   st.SpanOf(in), "function arguments");
  }
};
// ')' closes the innermost open call.
template <>
struct Action<g::func_call> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.open_calls.pop_back();
  }
};
// An expression without an operator or coalesce() (`(a)`, `(md5sum(a))`)
// is a plain value or chain of calls: stored as one, it has one canonical
// text. Fills a's chain and returns true if `e` is such a value.
bool ToChain(const ast::SetExpr& e, ast::Assignment* a) {
  std::vector<ast::Token> functions;
  std::vector<std::vector<ast::Token>> args;
  const ast::SetExpr* at = &e;
  while (at->kind == ast::SetExpr::Kind::kCall &&
         at->token.text != "coalesce") {
    functions.push_back(at->token);
    args.emplace_back();
    for (size_t i = 1; i < at->args.size(); ++i) {
      if (at->args[i].kind != ast::SetExpr::Kind::kOperand) return false;
      args.back().push_back(at->args[i].token);
    }
    at = &at->args[0];
  }
  if (at->kind != ast::SetExpr::Kind::kOperand) return false;
  a->functions = std::move(functions);
  a->function_args = std::move(args);
  a->operand = at->token;
  return true;
}

// A value with operators or coalesce() is a tree (ast::SetExpr). The
// grammar's precedence levels (mul_tail binds before add_tail) give each
// operator its operands from the stack's top: the tree follows * and /
// before + and -, left to right, without a separate precedence pass.
// Set expressions, built bottom-up on st.expr_stack.
template <>
struct Action<g::expr_operand> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    ast::SetExpr e;
    e.token = st.tok;
    st.expr_stack.push_back(std::move(e));
  }
};
template <>
struct Action<g::expr_func_open> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.expr_calls.emplace_back(CallName(in, st), st.expr_stack.size());
  }
};
// A call's arguments: the operands pushed since its '(' (expr_calls).
template <>
struct Action<g::expr_call> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    ast::SetExpr call;
    call.kind = ast::SetExpr::Kind::kCall;
    call.token = std::move(st.expr_calls.back().first);
    const size_t first = st.expr_calls.back().second;
    st.expr_calls.pop_back();
    call.args.assign(std::make_move_iterator(st.expr_stack.begin() + first),
                     std::make_move_iterator(st.expr_stack.end()));
    st.expr_stack.resize(first);
    CheckItemCount(st, call.args.size(), st.SpanOf(in), "function arguments");
    st.expr_stack.push_back(std::move(call));
  }
};
// Arithmetic: operators on expr_ops, operands on expr_stack; each *_tail
// pops an operator and its two operands into a binary node.
template <>
struct Action<g::add_op> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.expr_ops.push_back(
        ast::Token{ast::TokenKind::kBareword, in.string(), st.SpanOf(in)});
  }
};
template <>
struct Action<g::mul_op> : Action<g::add_op> {};
template <>
struct Action<g::mul_tail> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    ast::SetExpr e;
    e.kind = ast::SetExpr::Kind::kBinary;
    e.token = std::move(st.expr_ops.back());
    st.expr_ops.pop_back();
    e.args.resize(2);
    e.args[1] = std::move(st.expr_stack.back());
    st.expr_stack.pop_back();
    e.args[0] = std::move(st.expr_stack.back());
    st.expr_stack.back() = std::move(e);
  }
};
template <>
struct Action<g::add_tail> : Action<g::mul_tail> {};
template <>
struct Action<g::set_expr> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.set_expr = std::move(st.expr_stack.back());
    st.expr_stack.clear();
  }
};

// A plain value (no call, no operator) is the operand itself.
template <>
struct Action<g::set_rhs> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    if (st.functions.empty()) st.operand = st.tok;
  }
};
// One `$x = value`. A parenthesized plain value or chain (`($a)`) is
// stored as the chain it is (ToChain), so that both spellings plan alike
// and unparse to one text.
template <>
struct Action<g::assignment> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    ast::Assignment a;
    a.target = std::move(st.set_target);
    a.functions = std::move(st.functions);
    a.function_args = std::move(st.function_args);
    a.operand = std::move(st.operand);
    a.expr = std::move(st.set_expr);
    st.set_expr.reset();
    if (a.expr && ToChain(*a.expr, &a)) a.expr.reset();
    if (a.expr) a.operand = ast::Token();
    a.span = st.SpanOf(in);
    st.functions.clear();
    st.function_args.clear();
    st.query.set.push_back(std::move(a));
    CheckItemCount(st, st.query.set.size(), st.SpanOf(in), "set assignments");
  }
};
template <>
struct Action<g::first_assignment> : Action<g::assignment> {};
template <>
struct Action<g::set_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kSet);
    st.query.set_span = st.SpanOf(in);
  }
};

// Group fields are names only; whether one is a `set` variable, a format's
// field or `*` is the planner's question.
template <>
struct Action<g::group_field> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.query.group_by.push_back(st.tok);
    CheckItemCount(st, st.query.group_by.size(), st.SpanOf(in),
                   "group-by fields");
  }
};
template <>
struct Action<g::group_first_field> : Action<g::group_field> {};
// `group bu ip` is valid DTail (`by` is optional: fields bu and ip), but a
// bare word one letter from `by` before more fields is nearly always a typo
// for `group by`; a field really named so is written `group by bu ip`.
void CheckMisspeltBy(State& st, ast::Span clause) {
  const std::vector<ast::Token>& fields = st.query.group_by;
  if (fields.size() < 2 || fields[0].kind != ast::TokenKind::kBareword) return;
  const std::string_view between = std::string_view(st.text).substr(
      clause.offset + 5, fields[0].span.offset - clause.offset - 5);
  for (char c : between) {
    if (!std::isspace(static_cast<unsigned char>(c))) return;  // group by ...
  }
  std::string word = fields[0].text;
  for (char& c : word) c = static_cast<char>(std::tolower(c));
  if (word == "by" || EditDistance(word, "by") != 1) return;
  Fail(fields[0].span,
       absl::StrCat("unknown word '", fields[0].text, "' after 'group'"),
       absl::StrCat("did you mean 'group by'? (to group by a field named '",
                    fields[0].text, "', write 'group by ", fields[0].text,
                    " ...')"));
}

template <>
struct Action<g::group_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kGroup);
    st.query.group_span = st.SpanOf(in);
    CheckMisspeltBy(st, st.query.group_span);
  }
};

// `rorder` is DTail's ascending order; the planner checks it against an
// explicit `desc`, which the parser only records.
template <>
struct Action<g::order_keyword> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    st.reverse = in.size() == 6;  // "rorder"
  }
};
template <>
struct Action<g::order_direction> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    std::string d = in.string();
    for (char& c : d) c = static_cast<char>(std::tolower(c));
    st.direction =
        ast::Token{ast::TokenKind::kBareword, std::move(d), st.SpanOf(in)};
  }
};
// An order key names a select item as written (`count($line)`, an alias,
// `cumsum(count($line))`); the planner finds the column by that text.
template <>
struct Action<g::order_key> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    ast::OrderKey k;
    k.aggregation = std::move(st.aggregation);
    k.inner_aggregation = std::move(st.inner_aggregation);
    k.parameter = std::move(st.agg_param);
    k.field = std::move(st.tok);
    k.span = st.SpanOf(in);
    st.aggregation.reset();
    st.inner_aggregation.reset();
    st.agg_param.reset();
    st.order_keys.push_back(std::move(k));
    CheckItemCount(st, st.order_keys.size(), st.SpanOf(in), "order keys");
  }
};
// The direction after a key belongs to the last key.
template <>
struct Action<g::order_first_key> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.order_keys.back().direction = std::move(st.direction);
    st.direction.reset();
  }
};
template <>
struct Action<g::order_next_key> : Action<g::order_first_key> {};
template <>
struct Action<g::order_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kOrder);
    ast::OrderClause o;
    o.reverse = st.reverse;
    o.keys = std::move(st.order_keys);
    o.span = st.SpanOf(in);
    st.order_keys.clear();
    st.query.order = std::move(o);
  }
};

template <>
struct Action<g::interval_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kInterval);
    st.query.interval = st.tok;
  }
};
template <>
struct Action<g::limit_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kLimit);
    st.query.limit = st.tok;
  }
};
template <>
struct Action<g::kw_append> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.append = true;
  }
};
template <>
struct Action<g::outfile_path> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    // A plain path after a failed `append` attempt ("outfile append" alone
    // names a file called append).
    st.append = false;
  }
};
template <>
struct Action<g::outfile_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kOutfile);
    // A path is a literal however it is written (bare or quoted), so that
    // Unparse, which always quotes it, round-trips.
    ast::Token path = st.tok;
    path.kind = ast::TokenKind::kString;
    st.query.outfile =
        ast::OutfileClause{st.append, std::move(path), st.SpanOf(in)};
    st.append = false;
  }
};
template <>
struct Action<g::logformat_name> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.query.logformat = st.tok;
  }
};
template <>
struct Action<g::logformat_argument> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.query.logformat_argument = st.tok;
  }
};
template <>
struct Action<g::logformat_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kLogformat);
  }
};
template <>
struct Action<g::multiline_rule> {
  template <typename Input>
  static void apply(const Input&, State& st) {
    st.query.multiline = st.tok;
  }
};
template <>
struct Action<g::multiline_clause> {
  template <typename Input>
  static void apply(const Input& in, State& st) {
    EnterClause(in, st, kMultiline);
  }
};

}  // namespace

absl::StatusOr<ast::Query> Parse(std::string_view text,
                                 const ParseLimits& limits) {
  if (text.size() > limits.max_query_bytes) {
    return QueryErrorStatus(
        text.substr(0, std::min<size_t>(text.size(), 200)),
        QueryError{ast::Span{0, 0},
                   absl::StrCat("query is ", text.size(),
                                " bytes, more than the limit of ",
                                limits.max_query_bytes),
                   "raise CompileOptions::max_query_bytes"});
  }
  State st;
  st.text = text;
  st.limits = limits;
  try {
    pegtl::memory_input<pegtl::tracking_mode::lazy> in(text.data(), text.size(),
                                                       "query");
    pegtl::parse<g::query, Action, Control>(in, st);
  } catch (const SyntaxError& e) {
    return QueryErrorStatus(text, e.error);
  } catch (const std::bad_alloc&) {
    return ::mapr::util::OutOfMemoryError("parsing the query");
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat("query parser failed unexpectedly: ", e.what()));
  } catch (...) {
    return absl::InternalError("query parser failed unexpectedly");
  }
  if (!st.seen[kSelect]) {
    return QueryErrorStatus(
        text, QueryError{TokenSpanAt(text, text.find_first_not_of(" \t\r\n")),
                         "query has no 'select' clause",
                         "add the values to compute, for example: select "
                         "count($line)"});
  }
  return std::move(st.query);
}

}  // namespace mapr::parser
