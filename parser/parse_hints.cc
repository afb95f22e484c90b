// The helpers that word the parser's errors: how a token is described, the
// clause keyword a word misspells, and the hint for percentile(x, 95).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "parser/keywords.h"
#include "parser/parse_internal.h"
#include "parser/source_span.h"

namespace mapr::parser::parse_internal {

bool IsControlChar(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

std::string Describe(std::string_view text, const ast::Span& span) {
  if (span.length == 0) return "end of query";
  std::string_view tok = text.substr(span.offset, span.length);
  if (IsControlChar(tok[0])) {
    return absl::StrFormat("control character 0x%02X",
                           static_cast<unsigned char>(tok[0]));
  }
  if (tok.size() > 40) {
    // Cut at a character boundary: a split UTF-8 sequence would make the
    // message invalid UTF-8 (which Python, for one, refuses to decode).
    size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(tok[cut]) & 0xC0) == 0x80) {
      --cut;
    }
    return absl::StrCat("'", ToAbsl(tok.substr(0, cut)), "...'");
  }
  return absl::StrCat("'", ToAbsl(tok), "'");
}

std::string_view ClosestKeyword(std::string_view word) {
  static const std::vector<std::string_view> kKeywords(
      std::begin(kClauseKeywords), std::end(kClauseKeywords));
  if (word.empty() || !std::isalpha(static_cast<unsigned char>(word[0]))) {
    return {};
  }
  return ClosestMatch(word, kKeywords);
}

std::string PercentileHint(std::string_view text, size_t offset) {
  const size_t open = text.rfind('(', offset);
  if (open == std::string_view::npos || offset >= text.size() ||
      text[offset] != ',') {
    return "";
  }
  size_t name = open;
  while (name > 0 &&
         (std::isalnum(static_cast<unsigned char>(text[name - 1])) ||
          text[name - 1] == '_')) {
    --name;
  }
  if (!absl::EqualsIgnoreCase(ToAbsl(text.substr(name, open - name)),
                              "percentile")) {
    return "";
  }
  size_t at = offset + 1;
  while (at < text.size() && text[at] == ' ') ++at;
  size_t end = at;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) ||
          text[end] == '.')) {
    ++end;
  }
  if (end == at) return "";
  std::string_view field = text.substr(open + 1, offset - open - 1);
  while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
  while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
  return absl::StrCat("write p", ToAbsl(text.substr(at, end - at)), "(",
                      ToAbsl(field),
                      ") for that percentile of the values (DTail's "
                      "percentile() takes one field: a group's sum ranked)");
}

}  // namespace mapr::parser::parse_internal
