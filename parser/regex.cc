#include "parser/regex.h"

#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace mapr::parser {
namespace {

bool IsMeta(char c) {
  switch (c) {
    case '\\':
    case '.':
    case '+':
    case '*':
    case '?':
    case '(':
    case ')':
    case '|':
    case '[':
    case ']':
    case '{':
    case '}':
    case '^':
    case '$':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string RewriteNamedGroups(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size() + 8);
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    out.push_back(c);
    if (c == '\\') {
      if (i + 1 < pattern.size()) out.push_back(pattern[++i]);
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
        // [:alpha:] inside a class: copy through its closing ":]".
        size_t end = pattern.find(":]", i + 2);
        if (end != std::string_view::npos) {
          out.append(pattern.substr(i + 1, end + 1 - i));
          i = end + 1;
        }
      } else if (c == ']') {
        in_class = false;
      }
      continue;
    }
    if (c == '[') {
      in_class = true;
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') {
        out.push_back(pattern[++i]);
      }
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') {
        out.push_back(pattern[++i]);
      }
      continue;
    }
    if (c == '(' && pattern.substr(i + 1, 2) == "?<" &&
        i + 3 < pattern.size() && pattern[i + 3] != '=' &&
        pattern[i + 3] != '!') {
      out.append("?P<");
      i += 2;
    }
  }
  return out;
}

absl::StatusOr<std::shared_ptr<const re2::RE2>> CompilePattern(
    std::string_view pattern, int64_t max_memory) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(max_memory);
  const std::string rewritten = RewriteNamedGroups(pattern);
  auto re = std::make_shared<const re2::RE2>(rewritten, options);
  if (re->ok()) return re;
  if (re->error_code() == RE2::ErrorPatternTooLarge) {
    return absl::InvalidArgumentError(
        absl::StrCat("regular expression needs more than ", max_memory,
                     " bytes to compile (RE2: ", re->error(), ")"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("invalid regular expression: ", re->error()));
}

std::optional<std::string> LiteralPattern(std::string_view pattern) {
  std::string literal;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      // `\.` is a literal '.', but `\d`, `\b`, `\x41`, `\Q` mean more.
      if (i + 1 >= pattern.size()) return std::nullopt;
      const unsigned char next = static_cast<unsigned char>(pattern[i + 1]);
      if (std::isalnum(next) || next >= 0x80) return std::nullopt;
      literal.push_back(pattern[++i]);
      continue;
    }
    if (IsMeta(c)) return std::nullopt;
    literal.push_back(c);
  }
  return literal;
}

}  // namespace mapr::parser
