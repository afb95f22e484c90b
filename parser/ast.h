// The typed syntax tree of a mapr query, built by the PEGTL actions in
// parse.cc. Every node carries the byte span of its source text so the planner
// can point at the exact spot when it rejects something. The AST is purely
// syntactic: names (aggregations, functions, log formats) are kept as written
// and validated by the planner.
#ifndef MAPR_PARSER_AST_H_
#define MAPR_PARSER_AST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mapr::ast {

// A byte range in the query text.
struct Span {
  uint32_t offset = 0;
  uint32_t length = 0;
  friend bool operator==(const Span&, const Span&) = default;
};

// How a token was written.
enum class TokenKind : uint8_t {
  kBareword,    // status, $line, *, 100, 1002-071949
  kBackticked,  // `count($time)`: always a plain name
  kString,      // "text" or 'text': a literal
};

// One token: a field name, a literal, a number.
struct Token {
  TokenKind kind = TokenKind::kBareword;
  std::string text;  // Without the backticks or quotes.
  Span span;
  friend bool operator==(const Token&, const Token&) = default;
};

struct SelectItem {
  // Set for `agg(field)`: the aggregation name as written (validated later).
  std::optional<Token> aggregation;
  // Set for `cumsum(agg(field))`: the inner aggregation, `agg`.
  std::optional<Token> inner_aggregation;
  // Set for `agg(field, n)`: the aggregation's argument, `10` in
  // topk(x, 10) (a bareword; the planner reads it).
  std::optional<Token> parameter;
  // The field; empty text for `count()`.
  Token field;
  std::optional<Token> alias;
  Span span;
  friend bool operator==(const SelectItem&, const SelectItem&) = default;
};

// A `set` value with arithmetic or coalesce(): `(end - start) * 1000`; also
// an operand of `where`.
struct SetExpr {
  enum class Kind : uint8_t {
    kOperand,  // token: a field, a number or a string
    kCall,     // token: the function's name; args: its arguments
    kBinary,   // token: the operator (+ - * /); args: {left, right}
  };
  Kind kind = Kind::kOperand;
  Token token;
  std::vector<SetExpr> args;
  friend bool operator==(const SetExpr&, const SetExpr&) = default;
};

enum class ExprKind : uint8_t { kCompare, kAnd, kOr, kNot };

struct Expr {
  ExprKind kind = ExprKind::kCompare;
  // kCompare only: the operator as written (lower-cased) and the operands.
  Token op;
  Token lhs;
  Token rhs;
  // Set when the operand is an aggregation call `agg(field)` (then lhs/rhs
  // is the field): `having` names select items this way; `where` rejects it.
  std::optional<Token> lhs_aggregation;
  std::optional<Token> rhs_aggregation;
  // Set when the operand is an expression (`a + b`, `substr(x, 1, 2)`):
  // then lhs/rhs is a bareword of its canonical text, spanning it.
  std::optional<SetExpr> lhs_expr;
  std::optional<SetExpr> rhs_expr;
  // `in` only (op "in", rhs empty): the listed values, strings or
  // barewords (numbers), in the order written.
  std::vector<Token> list;
  // kAnd/kOr: two or more; kNot: one.
  std::vector<Expr> children;
  Span span;
  friend bool operator==(const Expr&, const Expr&) = default;
};

struct Assignment {
  Token target;
  // Set when the value is an expression (then functions, function_args and
  // operand are empty); a chain of calls on one value uses those instead.
  std::optional<SetExpr> expr;
  // Function names, outermost first: md5sum(maskdigits(x)) = {md5sum,
  // maskdigits}.
  std::vector<Token> functions;
  // The arguments of each function after its first (literals), parallel to
  // `functions`: regex(x, 'a(b)') = {{'a(b)'}}.
  std::vector<std::vector<Token>> function_args;
  Token operand;
  Span span;
  friend bool operator==(const Assignment&, const Assignment&) = default;
};

struct FromClause {
  Token table;  // `*` for every table.
  Span span;
  friend bool operator==(const FromClause&, const FromClause&) = default;
};

struct OrderKey {
  // The key as written: an aggregation call or a field.
  std::optional<Token> aggregation;
  // Set for `cumsum(agg(field))`: the inner aggregation.
  std::optional<Token> inner_aggregation;
  // Set for `agg(field, n)`: topk(x, 3).
  std::optional<Token> parameter;
  Token field;
  Span span;
  // `asc` or `desc` if given.
  std::optional<Token> direction;
  friend bool operator==(const OrderKey&, const OrderKey&) = default;
};

struct OrderClause {
  bool reverse = false;  // `rorder`
  // One or more, separated by commas.
  std::vector<OrderKey> keys;
  Span span;
  friend bool operator==(const OrderClause&, const OrderClause&) = default;
};

struct OutfileClause {
  bool append = false;
  Token path;  // Always TokenKind::kString, however it was written.
  Span span;
  friend bool operator==(const OutfileClause&, const OutfileClause&) = default;
};

// A whole query. Each clause appears at most once; `span` of a clause covers
// its keyword and arguments.
struct Query {
  std::vector<SelectItem> select;
  Span select_span;
  std::optional<FromClause> from;
  std::optional<Expr> where;
  Span where_span;
  std::vector<Assignment> set;
  Span set_span;
  std::vector<Token> group_by;
  Span group_span;
  std::optional<Expr> having;
  Span having_span;
  std::optional<OrderClause> order;
  std::optional<Token> interval;  // As written: 5, 5s, 2m.
  std::optional<Token> limit;     // As written.
  std::optional<OutfileClause> outfile;
  std::optional<Token> logformat;
  // `logformat regex '...'`: the format's argument (a string).
  std::optional<Token> logformat_argument;
  // `multiline RULE`: a string (a regex) or a bareword (a built-in).
  std::optional<Token> multiline;
  friend bool operator==(const Query&, const Query&) = default;
};

// Writes `q` back as canonical query text that parses to an equal AST up to
// spans: clauses in a fixed order, single spaces, fields quoted with
// backticks only where needed.
std::string Unparse(const Query& q);

// A compact single-line dump for tests and debugging.
std::string DebugString(const Expr& e);

// The canonical text of a set or `where` expression: the fewest
// parentheses that parse back to the same tree.
std::string ExprText(const SetExpr& e);

// Appends the text of `t` as it must be written in a query (quoted,
// backticked or bare).
void AppendToken(const Token& t, std::string* out);

// True if `name` can be written as a bareword (no quoting needed) in a field
// position.
bool IsBarewordName(std::string_view name);

// True if `word` (any case) is reserved: a clause keyword or one of
// and/or/not/as.
bool IsReservedWord(std::string_view word);

// Removes spans so two ASTs can be compared for structure only.
void ClearSpans(Query* q);

}  // namespace mapr::ast

#endif  // MAPR_PARSER_AST_H_
