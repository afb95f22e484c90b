// The parser's state and PEGTL control (error messages, nesting limits),
// shared by parse.cc (the actions and Parse()) and parse_hints.cc (the
// helpers that word its errors). Private to parser/: only those files
// include it. Everything here may throw SyntaxError, which Parse() catches.
#ifndef MAPR_PARSER_PARSE_INTERNAL_H_
#define MAPR_PARSER_PARSE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tao/pegtl.hpp>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "parser/ast.h"
#include "parser/grammar.h"
#include "parser/grammar_errors.h"
#include "parser/parse.h"
#include "parser/source_span.h"
#include "util/strings.h"

namespace mapr::parser::parse_internal {

namespace pegtl = tao::pegtl;
namespace g = grammar;
using util::ToAbsl;

// The only exception type our actions and control throw; caught in Parse().
struct SyntaxError {
  QueryError error;
};

enum Clause : uint32_t {
  kSelect,
  kFrom,
  kWhere,
  kSet,
  kGroup,
  kHaving,
  kOrder,
  kInterval,
  kLimit,
  kOutfile,
  kLogformat,
  kMultiline,
  kNumClauses,
};

inline constexpr const char* kClauseNames[kNumClauses] = {
    "select", "from",     "where", "set",     "group",     "having",
    "order",  "interval", "limit", "outfile", "logformat", "multiline"};

struct State {
  std::string_view text;
  ParseLimits limits;
  ast::Query query;

  // The last token matched by tok_bare/tok_tick/tok_string.
  ast::Token tok;
  ast::Token item_field;
  std::optional<ast::Token> aggregation;
  // A select item's inner aggregation: `count` in cumsum(count($line)).
  std::optional<ast::Token> inner_aggregation;
  // A select item's aggregation argument: `10` in topk(x, 10).
  std::optional<ast::Token> agg_param;
  std::optional<ast::Token> alias;
  std::vector<ast::Expr> exprs;
  ast::Token lhs, op, rhs;
  // The values of an `in` list, in order.
  std::vector<ast::Token> in_list;
  // The aggregation of an `agg(field)` operand (having).
  std::optional<ast::Token> lhs_aggregation, rhs_aggregation;
  // An expression operand (operand_expr), and those of the comparison.
  std::optional<ast::SetExpr> operand_expr, lhs_expr, rhs_expr;
  ast::Token set_target;
  // The innermost value of a `set` right-hand side.
  ast::Token operand;
  std::vector<ast::Token> functions;
  std::vector<std::vector<ast::Token>> function_args;
  // Indexes into `functions` of the calls whose ')' is still to come.
  std::vector<size_t> open_calls;
  // A set expression being built: finished subexpressions, the operators
  // met, and per open call its name and where its arguments start in
  // `expr_stack`.
  std::vector<ast::SetExpr> expr_stack;
  std::vector<ast::Token> expr_ops;
  std::vector<std::pair<ast::Token, size_t>> expr_calls;
  std::optional<ast::SetExpr> set_expr;
  std::optional<ast::Token> direction;
  std::vector<ast::OrderKey> order_keys;
  bool reverse = false;
  bool append = false;
  size_t comparisons = 0;

  size_t depth = 0;
  // Nesting inside the lookaheads (PeekDepthControl), counted on its own:
  // a lookahead scans ahead of the parse, so the levels it sees are also
  // counted by the parse when it gets there.
  size_t peek_depth = 0;
  // Where each paren_expr, negation or func_call being tried starts.
  std::vector<size_t> openers;
  size_t open_quote = 0;
  Clause last_clause = kNumClauses;
  size_t clause_offset[kNumClauses] = {};
  bool seen[kNumClauses] = {};

  ast::Span SpanOf(const char* begin, size_t size) const {
    return ast::Span{static_cast<uint32_t>(begin - text.data()),
                     static_cast<uint32_t>(size)};
  }
  template <typename Input>
  ast::Span SpanOf(const Input& in) const {
    return SpanOf(in.begin(), in.size());
  }
};

[[noreturn]] inline void Fail(ast::Span span, std::string message,
                              std::string hint = "") {
  throw SyntaxError{QueryError{span, std::move(message), std::move(hint)}};
}

bool IsControlChar(char c);

std::string Describe(std::string_view text, const ast::Span& span);

// ---- Control: error messages and nesting limits ----------------------------

// Returns the clause keyword that `word` looks like a misspelling of, or
// empty.
std::string_view ClosestKeyword(std::string_view word);

inline constexpr char kQuotedSetTarget[] =
    "a 'set' target is a bare $variable, not a \"string\": set $x = 1";

// `percentile(x, 95)` (a quantile in other tools): the hint for the ','
// at `offset` that ends DTail's one-field percentile(): write p95(x).
std::string PercentileHint(std::string_view text, size_t offset);

template <typename Rule>
struct BaseControl : pegtl::normal<Rule> {
  template <typename Input, typename... States>
  [[noreturn]] static void raise(const Input& in, State& st) {
    static_assert(g::kError<Rule>.expected != nullptr,
                  "every must<> rule needs a message in grammar_errors.h");
    size_t offset = static_cast<size_t>(in.current() - st.text.data());
    ast::Span span = TokenSpanAt(st.text, offset);
    std::string hint = g::kError<Rule>.hint;
    // A control character (NUL, ESC...) is underlined alone and named by
    // its code: printing it raw would garble the message.
    bool control = offset < st.text.size() && IsControlChar(st.text[offset]);
    if (control) {
      span.length = 1;
      hint =
          "a query may not contain control characters; only spaces, tabs "
          "and newlines separate words";
    }
    if constexpr (std::is_same_v<Rule, g::end_of_query>) {
      std::string_view found = st.text.substr(span.offset, span.length);
      bool glued =
          offset > 0 &&
          !std::isspace(static_cast<unsigned char>(st.text[offset - 1])) &&
          st.text[offset - 1] != ',';
      std::string_view keyword = ClosestKeyword(found);
      if (control) {
        // Keep the control-character hint.
      } else if (!keyword.empty()) {
        hint = absl::StrCat("did you mean '", ToAbsl(keyword), "'?");
      } else if (found.starts_with(')')) {
        hint = "this ')' has no matching '('";
      } else if (absl::EqualsIgnoreCase(ToAbsl(found), "desc") ||
                 absl::EqualsIgnoreCase(ToAbsl(found), "asc")) {
        hint = "'asc' and 'desc' may only follow a key of 'order by'";
      } else if (st.last_clause == kSet && found.starts_with('"')) {
        hint = kQuotedSetTarget;
      } else if (glued &&
                 (st.last_clause == kSelect || st.last_clause == kSet ||
                  st.last_clause == kGroup)) {
        hint = "separate items with a space or a comma";
      } else if (st.last_clause == kOrder) {
        hint =
            "'order by' takes keys separated by commas, each optionally "
            "followed by asc or desc";
      } else if (st.last_clause == kFrom) {
        hint = "'from' takes exactly one table name";
      } else if (st.last_clause == kLogformat) {
        hint =
            "'logformat' takes a format name and, for some formats, one "
            "'quoted' argument: logformat fields ','";
      } else if (st.last_clause == kMultiline) {
        hint =
            "'multiline' takes one rule: a 'quoted' regular expression or "
            "a built-in name (java, python, go, stacktrace, indented)";
      } else if (st.last_clause == kLimit || st.last_clause == kInterval ||
                 st.last_clause == kOutfile) {
        hint = absl::StrCat("'", kClauseNames[st.last_clause],
                            "' takes exactly one value");
      }
      Fail(span, absl::StrCat("unexpected ", Describe(st.text, span)),
           std::move(hint));
    } else if constexpr (std::is_same_v<Rule, g::first_clause>) {
      if (span.length == 0) Fail(span, "empty query", std::move(hint));
      std::string_view keyword =
          ClosestKeyword(st.text.substr(span.offset, span.length));
      if (!keyword.empty() && !control) {
        hint = absl::StrCat("did you mean '", ToAbsl(keyword), "'?");
      }
    } else if constexpr (std::is_same_v<Rule, g::backtick_close> ||
                         std::is_same_v<Rule, g::quote_close> ||
                         std::is_same_v<Rule, g::squote_close>) {
      span = ast::Span{static_cast<uint32_t>(st.open_quote),
                       static_cast<uint32_t>(st.text.size() - st.open_quote)};
      Fail(span,
           std::is_same_v<Rule, g::backtick_close>
               ? "unterminated backtick name"
               : "unterminated string",
           std::move(hint));
    } else if constexpr (std::is_same_v<Rule, g::compare_tail>) {
      if (offset < st.text.size() && st.text[offset] == '=') {
        hint = "did you mean '=='?";
      }
    } else if constexpr (std::is_same_v<Rule, g::first_assignment>) {
      if (offset < st.text.size() && st.text[offset] == '"') {
        hint = kQuotedSetTarget;
      }
    } else if constexpr (std::is_same_v<Rule, g::set_rhs>) {
      if (offset < st.text.size() && st.text[offset] == '=') {
        hint = "'set' assigns with a single '='";
      }
    } else if constexpr (std::is_same_v<Rule, g::agg_close>) {
      if (std::string p = PercentileHint(st.text, offset); !p.empty()) {
        hint = std::move(p);
      }
    }
    std::string expected = g::kError<Rule>.expected;
    if constexpr (std::is_same_v<Rule, g::order_key>) {
      if (st.reverse) expected = "a select item after 'rorder by'";
    }
    Fail(span,
         absl::StrCat("expected ", expected, ", found ",
                      Describe(st.text, span)),
         std::move(hint));
  }
};

template <typename Rule>
struct Control : BaseControl<Rule> {};

// Records where a quoted string or backticked name opens, to underline it if
// it is never closed.
template <typename Rule>
struct QuoteControl : BaseControl<Rule> {
  template <typename Input>
  static void start(const Input& in, State& st) {
    st.open_quote = static_cast<size_t>(in.current() - st.text.data());
  }
};
// tok_string and tok_tick derive from quoted and backticked, so PEGTL
// invokes the control of the derived rule: specialize those.
template <>
struct Control<g::tok_string> : QuoteControl<g::tok_string> {};
template <>
struct Control<g::tok_tick> : QuoteControl<g::tok_tick> {};

// Bounds recursion (parentheses, not, function calls) so a hostile query
// cannot overflow the stack. The opening rules (paren_expr, negation,
// func_call) are attempted at every term, so they only remember where they
// start; a level counts once the opener has matched and the parser commits
// to its operand (paren_condition, not_operand, func_arg). The error
// underlines the opening '(', 'not' or function name.
template <typename Rule>
struct OpenerControl : pegtl::normal<Rule> {
  template <typename Input>
  static void start(const Input& in, State& st) {
    st.openers.push_back(static_cast<size_t>(in.current() - st.text.data()));
  }
  template <typename Input>
  static void success(const Input&, State& st) {
    st.openers.pop_back();
  }
  template <typename Input>
  static void failure(const Input&, State& st) {
    st.openers.pop_back();
  }
};
template <>
struct Control<g::paren_expr> : OpenerControl<g::paren_expr> {};
template <>
struct Control<g::negation> : OpenerControl<g::negation> {};
template <>
struct Control<g::func_call> : OpenerControl<g::func_call> {};
template <>
struct Control<g::expr_paren> : OpenerControl<g::expr_paren> {};
template <>
struct Control<g::expr_call> : OpenerControl<g::expr_call> {};

// The error of a nesting deeper than st.limits.max_depth, at `span`.
[[noreturn]] inline void FailTooDeep(ast::Span span, const State& st) {
  Fail(span,
       absl::StrCat("nesting deeper than ", st.limits.max_depth, " levels"),
       "raise CompileOptions::max_depth, or simplify the expression");
}

template <typename Rule>
struct DepthControl : BaseControl<Rule> {
  template <typename Input>
  static void start(const Input&, State& st) {
    if (++st.depth > st.limits.max_depth) {
      size_t offset = st.openers.back();
      size_t end = offset;
      while (end < st.text.size() &&
             (std::isalnum(static_cast<unsigned char>(st.text[end])) ||
              st.text[end] == '_')) {
        ++end;
      }
      FailTooDeep(
          ast::Span{static_cast<uint32_t>(offset),
                    static_cast<uint32_t>(std::max<size_t>(end - offset, 1))},
          st);
    }
  }
  template <typename Input>
  static void success(const Input&, State& st) {
    --st.depth;
  }
  template <typename Input>
  static void failure(const Input&, State& st) {
    --st.depth;
  }
};
// The lookahead that tells an operand expression from a group of
// conditions (g::operand_expr_start) scans balanced parentheses without
// actions: it counts against the same limit, so a hostile '((((...' fails
// with the nesting error instead of exhausting the stack.
// kExtra: levels allowed beyond the limit, where the parse's own error
// (which names the call) must come first.
template <typename Rule, size_t kExtra>
struct PeekDepthControl : BaseControl<Rule> {
  template <typename Input>
  static void start(const Input& in, State& st) {
    if (++st.peek_depth > st.limits.max_depth + kExtra) {
      // Just after the '(' that opened the level: point at it.
      FailTooDeep(
          ast::Span{static_cast<uint32_t>(in.current() - st.text.data() - 1),
                    1},
          st);
    }
  }
  template <typename Input>
  static void success(const Input&, State& st) {
    --st.peek_depth;
  }
  template <typename Input>
  static void failure(const Input&, State& st) {
    --st.peek_depth;
  }
};
// Parentheses: the lookahead counts them as the parse does, and fails at the
// same '('.
template <>
struct Control<g::peek_inside> : PeekDepthControl<g::peek_inside, 0> {};
// Calls: the parse's error names the call that is one too deep.
template <>
struct Control<g::expr_start_nested>
    : PeekDepthControl<g::expr_start_nested, 1> {};
template <>
struct Control<g::paren_condition> : DepthControl<g::paren_condition> {};
template <>
struct Control<g::not_operand> : DepthControl<g::not_operand> {};
template <>
struct Control<g::func_arg> : DepthControl<g::func_arg> {};
template <>
struct Control<g::expr_inner> : DepthControl<g::expr_inner> {};
template <>
struct Control<g::expr_call_arg> : DepthControl<g::expr_call_arg> {};

}  // namespace mapr::parser::parse_internal

#endif  // MAPR_PARSER_PARSE_INTERNAL_H_
