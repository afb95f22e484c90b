// The planner's `set` clause: function calls and their literal arguments,
// expressions, time layouts and bucket widths (planner_internal.h).
#include "parser/planner_internal.h"

namespace mapr::parser::planner_internal {

namespace {

// The planner's errors and pattern compiler, as a function's bind hook
// sees them.
class PlannerBindContext final : public plan::BindContext {
 public:
  explicit PlannerBindContext(Planner& planner) : planner_(planner) {}
  void Error(ast::Span span, std::string message, std::string hint) override {
    planner_.Error(span, std::move(message), std::move(hint));
  }
  std::shared_ptr<const re2::RE2> Pattern(const ast::Token& pattern,
                                          std::string_view what) override {
    return planner_.Pattern(pattern, what);
  }
  absl::StatusOr<std::string> ReadLookupFile(std::string_view path) override {
    return planner_.ReadLookupFile(path);
  }
  void AddFingerprint(std::string text) override {
    planner_.AddFingerprint(std::move(text));
  }

 private:
  Planner& planner_;
};

bool IsString(const ast::SetExpr& e) {
  return e.kind == ast::SetExpr::Kind::kOperand &&
         e.token.kind == ast::TokenKind::kString;
}

}  // namespace

// True if a call of `function` wrote its literal before the value
// (lookup('hosts.csv', x, 'col'): the table first), which the function
// allows (FunctionInfo::first_literal_may_lead).
bool Planner::LiteralLeads(std::string_view function, bool value_quoted,
                           bool first_quoted, size_t literals) const {
  const plan::FunctionInfo* f = FindFunction(function);
  return f != nullptr && f->first_literal_may_lead && literals >= 2 &&
         value_quoted && !first_quoted;
}

// The function called `name` in the planner's catalog, or null.
const plan::FunctionInfo* Planner::FindFunction(std::string_view name) const {
  for (const plan::FunctionInfo* f : context_.functions) {
    if (f->name == name) return f;
  }
  return nullptr;
}

// A call's step: its function (an unknown name is an error with the
// nearest) bound to its literal arguments by the function's own bind hook,
// which checks them and reports errors under them.
bool Planner::MakeFunctionStep(const ast::Token& name,
                               const std::vector<ast::Token>& args,
                               plan::FunctionStep* fs) {
  const plan::FunctionInfo* info = FindFunction(name.text);
  if (info == nullptr) {
    std::vector<std::string_view> names;
    for (const plan::FunctionInfo* f : context_.functions) {
      names.push_back(f->name);
    }
    std::string_view close = ClosestMatch(name.text, names);
    Error(name.span, absl::StrCat("unknown function '", name.text, "'"),
          close.empty()
              ? absl::StrCat(
                    "known functions: ",
                    absl::StrJoin(names, ", ",
                                  [](std::string* out, std::string_view n) {
                                    out->append(n);
                                  }))
              : absl::StrCat("did you mean '", util::ToAbsl(close), "'?"));
    return false;
  }
  const size_t max_args = info->extra_args + info->optional_args;
  if (info->expression_only || args.size() < info->extra_args ||
      args.size() > max_args) {
    ast::Span span = name.span;
    if (args.size() > max_args) span = args[max_args].span;
    std::string takes = absl::StrCat(info->extra_args + 1);
    if (info->optional_args > 0) {
      absl::StrAppend(&takes, " or ", max_args + 1);
    }
    Error(span,
          info->expression_only
              ? absl::StrCat(name.text, "() takes two or more values")
              : absl::StrCat(name.text, "() takes ", takes,
                             max_args == 0 ? " argument" : " arguments",
                             ", not ", args.size() + 1),
          absl::StrCat("write: ", util::ToAbsl(info->usage)));
    return false;
  }
  fs->info = info;
  if (info->bind == nullptr) return true;
  PlannerBindContext bind(*this);
  return info->bind(args, bind, &fs->binding);
}

// The source span of a whole expression, from its leftmost token to its
// rightmost (and a call's closing parenthesis).
ast::Span Planner::SetExprSpan(const ast::SetExpr& e) {
  uint32_t begin = e.token.span.offset;
  uint32_t end = e.token.span.offset + e.token.span.length;
  for (const ast::SetExpr& a : e.args) {
    const ast::Span s = SetExprSpan(a);
    begin = std::min(begin, s.offset);
    end = std::max(end, s.offset + s.length);
  }
  if (e.kind == ast::SetExpr::Kind::kCall) ++end;
  return ast::Span{begin, end - begin};
}

// Appends the postfix program of `e` (operands, operators, calls) to
// `out`; false after an error in it.
bool Planner::CompileExpr(const ast::SetExpr& e,
                          std::vector<plan::ExprOp>* out) {
  plan::ExprOp op;
  switch (e.kind) {
    case ast::SetExpr::Kind::kOperand: {
      double v;
      if (e.token.kind == ast::TokenKind::kString ||
          (e.token.kind == ast::TokenKind::kBareword &&
           util::ParseNumber(e.token.text, &v))) {
        op.kind = plan::ExprOp::Kind::kLiteral;
        op.text = e.token.text;
      } else {
        op.kind = plan::ExprOp::Kind::kField;
        op.field = Intern(e.token.text);
      }
      out->push_back(std::move(op));
      return true;
    }
    case ast::SetExpr::Kind::kBinary: {
      bool ok = CompileExpr(e.args[0], out);
      ok &= CompileExpr(e.args[1], out);
      const std::string& o = e.token.text;
      op.kind = o == "+"   ? plan::ExprOp::Kind::kAdd
                : o == "-" ? plan::ExprOp::Kind::kSubtract
                : o == "*" ? plan::ExprOp::Kind::kMultiply
                           : plan::ExprOp::Kind::kDivide;
      out->push_back(std::move(op));
      return ok;
    }
    case ast::SetExpr::Kind::kCall:
      break;
  }
  if (const plan::FunctionInfo* f = FindFunction(e.token.text);
      f != nullptr && f->expression_only) {
    bool ok = true;
    for (const ast::SetExpr& arg : e.args) ok &= CompileExpr(arg, out);
    if (e.args.size() < 2) {
      Error(e.token.span,
            absl::StrCat(e.token.text, "() takes two or more values"),
            "for example: coalesce(user, remote_user, \"-\")");
      return false;
    }
    op.kind = plan::ExprOp::Kind::kCoalesce;
    op.args = static_cast<uint32_t>(e.args.size());
    out->push_back(std::move(op));
    return ok;
  }
  if (e.args.size() >= 2 &&
      LiteralLeads(e.token.text, IsString(e.args[0]), IsString(e.args[1]),
                   e.args.size() - 1)) {
    // lookup('hosts.csv', key, 'column'): the table written first.
    ast::SetExpr swapped = e;
    std::swap(swapped.args[0], swapped.args[1]);
    return CompileExpr(swapped, out);
  }
  // A catalog function: its value may be an expression, the arguments
  // after it are literals.
  bool ok = CompileExpr(e.args[0], out);
  std::vector<ast::Token> args;
  for (size_t i = 1; i < e.args.size(); ++i) {
    if (e.args[i].kind != ast::SetExpr::Kind::kOperand) {
      Error(SetExprSpan(e.args[i]),
            absl::StrCat("the arguments of ", e.token.text,
                         "() after its value are literals, not expressions"),
            "compute the value in a set step of its own");
      return false;
    }
    args.push_back(e.args[i].token);
  }
  op.kind = plan::ExprOp::Kind::kFunction;
  ok &= MakeFunctionStep(e.token, args, &op.function);
  if (ok && op.function.info->group_field_only) {
    Error(SetExprSpan(e),
          absl::StrCat(e.token.text, "() is not a value to compute with"),
          "give it a set step of its own: set $w = window($time, 5m, 1m) "
          "... group by $w");
    return false;
  }
  out->push_back(std::move(op));
  return ok;
}

// The `set` steps in the order written: each target a $variable, its value
// a chain of calls on one operand or an expression program.
void Planner::PlanSet() {
  for (const ast::Assignment& a : q_.set) {
    plan::SetStep step;
    bool ok = true;
    if (a.target.kind == ast::TokenKind::kString || a.target.text.empty() ||
        a.target.text[0] != '$') {
      Error(a.target.span,
            absl::StrCat("'set' assigns $variables, not '", a.target.text, "'"),
            absl::StrCat("write: set $",
                         a.target.text.empty() || a.target.text[0] == '$'
                             ? "name"
                             : a.target.text,
                         " = ..."));
      ok = false;
    }
    if (a.expr) {
      ok &= CompileExpr(*a.expr, &step.program);
      if (!ok) continue;
      step.target = Intern(a.target.text);
      p_.fields[step.target].assigned = true;
      p_.sets.push_back(std::move(step));
      continue;
    }
    // The innermost call written with its first literal leading,
    // `lookup('t.csv', key, 'column')`: the value is that literal's place.
    ast::Token src = a.operand;
    const std::vector<std::vector<ast::Token>>* function_args =
        &a.function_args;
    std::vector<std::vector<ast::Token>> swapped;
    if (const size_t k = a.functions.size() - 1;
        !a.functions.empty() && k < a.function_args.size() &&
        !a.function_args[k].empty() &&
        LiteralLeads(a.functions[k].text, src.kind == ast::TokenKind::kString,
                     a.function_args[k][0].kind == ast::TokenKind::kString,
                     a.function_args[k].size())) {
      swapped = a.function_args;
      std::swap(src, swapped[k][0]);
      function_args = &swapped;
    }
    for (size_t k = a.functions.size(); k-- > 0;) {
      static const std::vector<ast::Token> kNoArgs;
      const std::vector<ast::Token>& args =
          k < function_args->size() ? (*function_args)[k] : kNoArgs;
      plan::FunctionStep fs;
      if (!MakeFunctionStep(a.functions[k], args, &fs)) {
        ok = false;
        continue;
      }
      if (fs.info->group_field_only) {
        if (k != 0) {
          Error(a.functions[k].span,
                absl::StrCat(a.functions[k].text, "() cannot be the value of ",
                             a.functions[k - 1].text, "()"),
                "give it a set step of its own: set $w = window($time, 5m, "
                "1m) ... group by $w");
          ok = false;
          continue;
        }
        window_calls_.push_back({a.target.text, a.functions[k]});
      }
      step.functions.push_back(std::move(fs));
    }
    double v;
    if (src.kind == ast::TokenKind::kString) {
      step.source.kind = plan::Operand::Kind::kString;
      step.source.text = src.text;
    } else if (src.kind == ast::TokenKind::kBareword &&
               util::ParseNumber(src.text, &v)) {
      step.source.kind = plan::Operand::Kind::kNumber;
      step.source.number = v;
      step.source.text = src.text;
    } else {
      step.source.kind = plan::Operand::Kind::kField;
      step.source.field = Intern(src.text);
    }
    if (!ok) continue;
    step.target = Intern(a.target.text);
    p_.fields[step.target].assigned = true;
    p_.sets.push_back(std::move(step));
  }
}

}  // namespace mapr::parser::planner_internal
