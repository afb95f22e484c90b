#include "parser/ast.h"

#include <cctype>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "parser/keywords.h"

namespace mapr::ast {
namespace {

bool IsNameChar(unsigned char c) {
  if (c < 32 || c == 127) return false;
  switch (c) {
    case ' ':
    case ',':
    case '"':
    case '`':
    case '(':
    case ')':
    case '<':
    case '>':
    case '=':
    case '!':
      return false;
    default:
      return true;
  }
}

// A field, or `agg(field)` when `aggregation` is set, `agg(inner(field))`
// when `inner` is set too, `agg(field,arg)` when `parameter` is.
void AppendKey(const std::optional<Token>& aggregation,
               const std::optional<Token>& inner, const Token& field,
               std::string* out,
               const std::optional<Token>& parameter = std::nullopt) {
  if (aggregation) absl::StrAppend(out, aggregation->text, "(");
  if (inner) absl::StrAppend(out, inner->text, "(");
  AppendToken(field, out);
  if (inner) out->append(")");
  if (parameter) absl::StrAppend(out, ",", parameter->text);
  if (aggregation) out->append(")");
}

void AppendSetExpr(const SetExpr& e, std::string* out);

// A comparison's operand: an expression, `agg(field)` or a field.
void AppendOperand(const std::optional<SetExpr>& expr,
                   const std::optional<Token>& aggregation, const Token& field,
                   std::string* out) {
  if (expr) {
    AppendSetExpr(*expr, out);
  } else {
    AppendKey(aggregation, std::nullopt, field, out);
  }
}

void AppendComparison(const Expr& e, std::string* out) {
  AppendOperand(e.lhs_expr, e.lhs_aggregation, e.lhs, out);
  absl::StrAppend(out, " ", e.op.text, " ");
  if (e.op.text == "in") {
    out->push_back('(');
    for (size_t i = 0; i < e.list.size(); ++i) {
      if (i > 0) out->append(", ");
      AppendToken(e.list[i], out);
    }
    out->push_back(')');
    return;
  }
  AppendOperand(e.rhs_expr, e.rhs_aggregation, e.rhs, out);
}

void AppendExpr(const Expr& e, bool parenthesize_compound, std::string* out) {
  switch (e.kind) {
    case ExprKind::kCompare:
      AppendComparison(e, out);
      return;
    case ExprKind::kNot:
      out->append("not ");
      AppendExpr(e.children[0], true, out);
      return;
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      if (parenthesize_compound) out->push_back('(');
      const char* sep = e.kind == ExprKind::kAnd ? " and " : " or ";
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i > 0) out->append(sep);
        const Expr& c = e.children[i];
        // An `or` inside an `and` needs parentheses; anything compound
        // inside an `or` gets them too for readability.
        AppendExpr(c, c.kind == ExprKind::kOr || c.kind == ExprKind::kAnd, out);
      }
      if (parenthesize_compound) out->push_back(')');
      return;
    }
  }
}

void ClearSetExprSpans(SetExpr* e) {
  e->token.span = {};
  for (SetExpr& a : e->args) ClearSetExprSpans(&a);
}

void ClearExprSpans(Expr* e) {
  e->span = {};
  e->op.span = {};
  e->lhs.span = {};
  e->rhs.span = {};
  for (Token& t : e->list) t.span = {};
  if (e->lhs_aggregation) e->lhs_aggregation->span = {};
  if (e->rhs_aggregation) e->rhs_aggregation->span = {};
  if (e->lhs_expr) ClearSetExprSpans(&*e->lhs_expr);
  if (e->rhs_expr) ClearSetExprSpans(&*e->rhs_expr);
  for (Expr& c : e->children) ClearExprSpans(&c);
}

// 2 for * and /, 1 for + and -.
int Precedence(const SetExpr& e) {
  return e.token.text == "*" || e.token.text == "/" ? 2 : 1;
}

// Writes `e` with the fewest parentheses that parse back to the same tree
// (operators of equal precedence group to the left).
void AppendSetExpr(const SetExpr& e, std::string* out) {
  switch (e.kind) {
    case SetExpr::Kind::kOperand:
      AppendToken(e.token, out);
      return;
    case SetExpr::Kind::kCall:
      absl::StrAppend(out, e.token.text, "(");
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendSetExpr(e.args[i], out);
      }
      out->push_back(')');
      return;
    case SetExpr::Kind::kBinary: {
      const int p = Precedence(e);
      for (size_t i = 0; i < 2; ++i) {
        const SetExpr& side = e.args[i];
        const bool wrap =
            side.kind == SetExpr::Kind::kBinary &&
            (Precedence(side) < p || (i == 1 && Precedence(side) == p));
        if (i == 1) absl::StrAppend(out, " ", e.token.text, " ");
        if (wrap) out->push_back('(');
        AppendSetExpr(side, out);
        if (wrap) out->push_back(')');
      }
      return;
    }
  }
}

}  // namespace

bool IsReservedWord(std::string_view word) {
  for (std::string_view r : parser::kReservedWords) {
    if (word.size() == r.size() &&
        absl::EqualsIgnoreCase(absl::string_view(word.data(), word.size()),
                               absl::string_view(r.data(), r.size()))) {
      return true;
    }
  }
  return false;
}

bool IsBarewordName(std::string_view name) {
  // A leading ' starts a raw string.
  if (name.empty() || name[0] == '\'' || IsReservedWord(name)) return false;
  for (char c : name) {
    if (!IsNameChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

void AppendToken(const Token& t, std::string* out) {
  switch (t.kind) {
    case TokenKind::kString:
      // No escapes exist: text holding '"' can only have been written (and
      // be written back) as a raw 'string'.
      if (t.text.find('"') != std::string::npos) {
        absl::StrAppend(out, "'", t.text, "'");
      } else {
        absl::StrAppend(out, "\"", t.text, "\"");
      }
      return;
    case TokenKind::kBackticked:
      absl::StrAppend(out, "`", t.text, "`");
      return;
    case TokenKind::kBareword:
      if (IsBarewordName(t.text) || t.text.empty()) {
        out->append(t.text);
      } else {
        absl::StrAppend(out, "`", t.text, "`");
      }
      return;
  }
}

std::string Unparse(const Query& q) {
  std::string out = "select ";
  for (size_t i = 0; i < q.select.size(); ++i) {
    const SelectItem& item = q.select[i];
    if (i > 0) out.append(",");
    AppendKey(item.aggregation, item.inner_aggregation, item.field, &out,
              item.parameter);
    if (item.alias) {
      out.append(" as ");
      AppendToken(*item.alias, &out);
    }
  }
  if (q.from) {
    out.append(" from ");
    AppendToken(q.from->table, &out);
  }
  if (q.where) {
    out.append(" where ");
    AppendExpr(*q.where, false, &out);
  }
  if (!q.set.empty()) {
    out.append(" set ");
    for (size_t i = 0; i < q.set.size(); ++i) {
      const Assignment& a = q.set[i];
      if (i > 0) out.append(", ");
      AppendToken(a.target, &out);
      out.append(" = ");
      if (a.expr) {
        AppendSetExpr(*a.expr, &out);
        continue;
      }
      for (const Token& f : a.functions) absl::StrAppend(&out, f.text, "(");
      AppendToken(a.operand, &out);
      for (size_t f = a.functions.size(); f-- > 0;) {
        if (f < a.function_args.size()) {
          for (const Token& arg : a.function_args[f]) {
            out.append(", ");
            AppendToken(arg, &out);
          }
        }
        out.push_back(')');
      }
    }
  }
  if (!q.group_by.empty()) {
    out.append(" group by ");
    for (size_t i = 0; i < q.group_by.size(); ++i) {
      if (i > 0) out.append(",");
      AppendToken(q.group_by[i], &out);
    }
  }
  if (q.having) {
    out.append(" having ");
    AppendExpr(*q.having, false, &out);
  }
  if (q.order) {
    out.append(q.order->reverse ? " rorder by " : " order by ");
    for (size_t i = 0; i < q.order->keys.size(); ++i) {
      const OrderKey& k = q.order->keys[i];
      if (i > 0) out.append(", ");
      AppendKey(k.aggregation, k.inner_aggregation, k.field, &out, k.parameter);
      if (k.direction) absl::StrAppend(&out, " ", k.direction->text);
    }
  }
  if (q.interval) absl::StrAppend(&out, " interval ", q.interval->text);
  if (q.limit) absl::StrAppend(&out, " limit ", q.limit->text);
  if (q.outfile) {
    out.append(q.outfile->append ? " outfile append " : " outfile ");
    AppendToken(q.outfile->path, &out);
  }
  if (q.logformat) {
    out.append(" logformat ");
    AppendToken(*q.logformat, &out);
    if (q.logformat_argument) {
      out.push_back(' ');
      AppendToken(*q.logformat_argument, &out);
    }
  }
  if (q.multiline) {
    out.append(" multiline ");
    AppendToken(*q.multiline, &out);
  }
  return out;
}

std::string DebugString(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kCompare: {
      std::string out = "(";
      AppendComparison(e, &out);
      out.append(")");
      return out;
    }
    case ExprKind::kNot:
      return absl::StrCat("not", DebugString(e.children[0]));
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      std::string out = e.kind == ExprKind::kAnd ? "and[" : "or[";
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i > 0) out.append(" ");
        out.append(DebugString(e.children[i]));
      }
      out.append("]");
      return out;
    }
  }
  return "";
}

std::string ExprText(const SetExpr& e) {
  std::string out;
  AppendSetExpr(e, &out);
  return out;
}

void ClearSpans(Query* q) {
  q->select_span = q->where_span = q->set_span = q->group_span =
      q->having_span = {};
  for (SelectItem& i : q->select) {
    i.span = {};
    i.field.span = {};
    if (i.aggregation) i.aggregation->span = {};
    if (i.inner_aggregation) i.inner_aggregation->span = {};
    if (i.parameter) i.parameter->span = {};
    if (i.alias) i.alias->span = {};
  }
  if (q->from) q->from->span = q->from->table.span = {};
  if (q->where) ClearExprSpans(&*q->where);
  if (q->having) ClearExprSpans(&*q->having);
  for (Assignment& a : q->set) {
    a.span = a.target.span = a.operand.span = {};
    if (a.expr) ClearSetExprSpans(&*a.expr);
    for (Token& f : a.functions) f.span = {};
    for (std::vector<Token>& args : a.function_args) {
      for (Token& arg : args) arg.span = {};
    }
  }
  for (Token& t : q->group_by) t.span = {};
  if (q->order) {
    q->order->span = {};
    for (OrderKey& k : q->order->keys) {
      k.span = k.field.span = {};
      if (k.aggregation) k.aggregation->span = {};
      if (k.inner_aggregation) k.inner_aggregation->span = {};
      if (k.parameter) k.parameter->span = {};
      if (k.direction) k.direction->span = {};
    }
  }
  if (q->interval) q->interval->span = {};
  if (q->limit) q->limit->span = {};
  if (q->outfile) q->outfile->span = q->outfile->path.span = {};
  if (q->logformat) q->logformat->span = {};
  if (q->logformat_argument) q->logformat_argument->span = {};
  if (q->multiline) q->multiline->span = {};
}

}  // namespace mapr::ast
