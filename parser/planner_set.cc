// The planner's `set` clause: function calls and their literal arguments,
// expressions, time layouts and bucket widths (planner_internal.h).
#include "parser/planner_internal.h"

namespace mapr::parser::planner_internal {

bool Planner::MakeFunctionStep(const ast::Token& name,
                               const std::vector<ast::Token>& args,
                               plan::FunctionStep* fs) {
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names;
    for (const plan::FunctionInfo& f : plan::Functions()) {
      names.push_back(f.name);
    }
    return names;
  }();
  std::optional<plan::FunctionKind> f = plan::LookupFunction(name.text);
  if (!f) {
    std::string_view close = ClosestMatch(name.text, kNames);
    Error(name.span, absl::StrCat("unknown function '", name.text, "'"),
          close.empty()
              ? absl::StrCat(
                    "known functions: ",
                    absl::StrJoin(kNames, ", ",
                                  [](std::string* out, std::string_view n) {
                                    out->append(n);
                                  }))
              : absl::StrCat("did you mean '", util::ToAbsl(close), "'?"));
    return false;
  }
  const plan::FunctionInfo& info = plan::GetFunctionInfo(*f);
  const size_t max_args = info.extra_args + info.optional_args;
  if (*f == plan::FunctionKind::kCoalesce || args.size() < info.extra_args ||
      args.size() > max_args) {
    ast::Span span = name.span;
    if (args.size() > max_args) span = args[max_args].span;
    std::string takes = absl::StrCat(info.extra_args + 1);
    if (info.optional_args > 0) {
      absl::StrAppend(&takes, " or ", max_args + 1);
    }
    Error(span,
          *f == plan::FunctionKind::kCoalesce
              ? std::string("coalesce() takes two or more values")
              : absl::StrCat(name.text, "() takes ", takes,
                             max_args == 0 ? " argument" : " arguments",
                             ", not ", args.size() + 1),
          absl::StrCat("write: ", util::ToAbsl(info.usage)));
    return false;
  }
  fs->kind = *f;
  switch (*f) {
    case plan::FunctionKind::kRegex:
      fs->regex = Pattern(args[0], "regex()");
      return fs->regex != nullptr;
    case plan::FunctionKind::kTime:
      return args.empty() || TimeLayout(args[0], &fs->layout);
    case plan::FunctionKind::kFormatTime:
      return TimeLayout(args[0], &fs->layout, /*writes=*/true);
    case plan::FunctionKind::kBucket:
      return BucketWidth(args[0], fs);
    case plan::FunctionKind::kSubstr:
      return IntegerArg(args[0], name, /*nonzero=*/true, &fs->start) &&
             (args.size() < 2 ||
              (IntegerArg(args[1], name, /*nonzero=*/false, &fs->length) &&
               NonNegative(args[1], name, fs->length)));
    case plan::FunctionKind::kSplit:
      if (args[0].kind != ast::TokenKind::kString || args[0].text.empty()) {
        Error(args[0].span,
              "the separator of split() must be a non-empty 'quoted' string",
              absl::StrCat("write: ", util::ToAbsl(info.usage)));
        return false;
      }
      fs->separator = args[0].text;
      return IntegerArg(args[1], name, /*nonzero=*/true, &fs->start);
    default:
      return true;
  }
}

bool Planner::IntegerArg(const ast::Token& t, const ast::Token& fn,
                         bool nonzero, int64_t* out) {
  int64_t v;
  if (t.kind != ast::TokenKind::kBareword ||
      !absl::SimpleAtoi(util::ToAbsl(t.text), &v) || (nonzero && v == 0) ||
      v > (int64_t{1} << 40) || v < -(int64_t{1} << 40)) {
    Error(t.span,
          absl::StrCat("expected a whole number",
                       nonzero ? " other than 0" : "", " as an argument of ",
                       fn.text, "(), found '", t.text, "'"),
          "positions count from 1; negative ones from the end: "
          "substr(x, -3) is the last three bytes");
    return false;
  }
  *out = v;
  return true;
}

bool Planner::NonNegative(const ast::Token& t, const ast::Token& fn,
                          int64_t v) {
  if (v >= 0) return true;
  Error(t.span,
        absl::StrCat("the length of ", fn.text, "() cannot be negative"),
        "write: substr(x, start, length)");
  return false;
}

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
  if (e.token.text == "coalesce") {
    bool ok = true;
    for (const ast::SetExpr& arg : e.args) ok &= CompileExpr(arg, out);
    if (e.args.size() < 2) {
      Error(e.token.span, "coalesce() takes two or more values",
            "for example: coalesce(user, remote_user, \"-\")");
      return false;
    }
    op.kind = plan::ExprOp::Kind::kCoalesce;
    op.args = static_cast<uint32_t>(e.args.size());
    out->push_back(std::move(op));
    return ok;
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
  out->push_back(std::move(op));
  return ok;
}

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
    for (size_t k = a.functions.size(); k-- > 0;) {
      static const std::vector<ast::Token> kNoArgs;
      const std::vector<ast::Token>& args =
          k < a.function_args.size() ? a.function_args[k] : kNoArgs;
      plan::FunctionStep fs;
      if (!MakeFunctionStep(a.functions[k], args, &fs)) {
        ok = false;
        continue;
      }
      step.functions.push_back(std::move(fs));
    }
    const ast::Token& src = a.operand;
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

bool Planner::TimeLayout(const ast::Token& t, std::string* layout,
                         bool writes) {
  const std::string_view fn = writes ? "format_time()" : "time()";
  if (t.kind != ast::TokenKind::kString) {
    Error(t.span,
          absl::StrCat("the layout of ", util::ToAbsl(fn),
                       " must be a 'quoted' string"),
          writes ? "for example: format_time($t, '%Y-%m-%d %H:%M')"
                 : "for example: time($when, '%d.%m.%Y %H:%M:%S')");
    return false;
  }
  const std::string& text = t.text;
  bool any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    size_t j = i + 1;
    // %Ez, %E*z, %E*S, %E4S, %E*f, %E4f, %E4Y, and %O variants.
    if (j < text.size() && (text[j] == 'E' || text[j] == 'O')) {
      ++j;
      if (j < text.size() && text[j] == '*') {
        ++j;
      } else {
        while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
      }
    }
    constexpr std::string_view kConversions =
        "YmdeHMSzZsaAbBhpIjyCDFTRnt%fEuUVwWgGcxXr";
    const bool known = j < text.size() &&
                       kConversions.find(text[j]) != std::string_view::npos &&
                       text[j] != 'E';
    if (!known) {
      // Columns inside the quotes: the token span covers them too.
      const uint32_t at = t.span.offset + 1 + static_cast<uint32_t>(i);
      const uint32_t length =
          static_cast<uint32_t>(std::min(j + 1, text.size()) - i);
      Error(ast::Span{at, length},
            absl::StrCat("unknown conversion '", text.substr(i, length),
                         "' in the layout of ", util::ToAbsl(fn)),
            "layouts use strftime conversions such as %Y %m %d %H %M %S "
            "%z %b %e %s %E*S (write %% for a '%')");
      return false;
    }
    any |= text[j] != '%' && text[j] != 'n' && text[j] != 't';
    i = j;
  }
  if (writes) {
    *layout = text;
    return true;
  }
  // Read back a formatted time: catches layouts such as "%Y%Y".
  const absl::Time probe = absl::FromUnixSeconds(1764598051);
  absl::Time back;
  std::string err;
  if (!any || !absl::ParseTime(util::ToAbsl(text),
                               absl::FormatTime(util::ToAbsl(text), probe,
                                                absl::UTCTimeZone()),
                               &back, &err)) {
    Error(t.span,
          absl::StrCat("the layout of time() cannot read a time: '", text, "'"),
          any ? absl::StrCat("it does not read back its own output (", err, ")")
              : "a layout needs conversions such as %Y-%m-%d %H:%M:%S");
    return false;
  }
  *layout = text;
  return true;
}

bool Planner::BucketWidth(const ast::Token& t, plan::FunctionStep* fs) {
  constexpr std::string_view kHint =
      "give a duration that divides a day (30s, 5m, 1h, 1d) or 1w for "
      "time buckets, or a positive number (100, 0.5) for numeric bins";
  if (t.kind == ast::TokenKind::kString) {
    Error(t.span, "the width of bucket() is written bare, not quoted",
          "write: bucket(x, 5m) or bucket(x, 100)");
    return false;
  }
  const std::string& s = t.text;
  double number;
  if (util::ParseNumber(s, &number)) {
    if (!(number > 0) || !std::isfinite(number)) {
      Error(t.span, absl::StrCat("invalid bucket width '", s, "'"),
            std::string(kHint));
      return false;
    }
    fs->bin_width = s;
    return true;
  }
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
    ++digits;
  }
  std::string_view unit = std::string_view(s).substr(digits);
  std::optional<int64_t> n = ParseCount(std::string_view(s).substr(0, digits));
  int64_t scale = 0;
  if (unit == "w" && s == "1w") {
    // Weeks from Monday 00:00 (ISO 8601), in the timestamp's offset.
    fs->bucket_seconds = plan::kWeekSeconds;
    return true;
  }
  if (unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (unit == "d") scale = 86400;
  if (!n || *n == 0 || scale == 0 || digits > 6) {
    Error(t.span, absl::StrCat("invalid bucket width '", s, "'"),
          std::string(kHint));
    return false;
  }
  const int64_t seconds = *n * scale;
  constexpr int64_t kDay = 86400;
  if (seconds > kDay || kDay % seconds != 0) {
    // The widths of the same unit on either side that divide a day.
    std::vector<std::string> near;
    for (int64_t k = *n - 1; k >= 1; --k) {
      if (kDay % (k * scale) == 0) {
        near.push_back(absl::StrCat(k, util::ToAbsl(unit)));
        break;
      }
    }
    for (int64_t k = *n + 1; k * scale <= kDay; ++k) {
      if (kDay % (k * scale) == 0) {
        near.push_back(absl::StrCat(k, util::ToAbsl(unit)));
        break;
      }
    }
    Error(t.span, absl::StrCat("bucket width ", s, " does not divide a day"),
          absl::StrCat(
              "time buckets start at midnight, so the width must "
              "divide 24h",
              near.empty() ? "" : "; nearest: ", absl::StrJoin(near, " or ")));
    return false;
  }
  fs->bucket_seconds = seconds;
  return true;
}

}  // namespace mapr::parser::planner_internal
