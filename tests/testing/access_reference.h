// A plain reference of the `clf` and `combined` log formats
// (docs/query-language.md, "clf and combined"), against which the parser in
// runtime/log_format_access.cc is checked: by its unit test on random lines
// and by the access fuzzer. It reads quoted fields byte by byte and finds
// everything else with std::string_view::find.
#ifndef MAPR_TESTS_TESTING_ACCESS_REFERENCE_H_
#define MAPR_TESTS_TESTING_ACCESS_REFERENCE_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"

namespace mapr::testing {

// `host ident user [time] "request" status bytes`, for combined followed by
// ` "referer" "agent"`, then the end or a space and anything. host, ident,
// status and bytes are non-empty and hold no space; user runs to the first
// " [" after ident; time to the first ']'; a quoted field to the first '"'
// that no backslash escapes (a backslash escapes the byte after it). The
// request, referer and agent have `\"` and `\\` unescaped. The request
// splits at its first and last space (fewer than two: no method, path or
// protocol). A value that is exactly "-" is missing. Sets (*values)[i] to
// the value of names[i] (nullopt: missing or not a field of the format).
inline LineOutcome ReferenceAccess(
    std::string_view line, bool combined, const std::vector<std::string>& names,
    std::vector<std::optional<std::string>>* values) {
  values->assign(names.size(), std::nullopt);
  size_t p = 0;
  // A token up to the next space (kept: the space is not consumed).
  auto token = [&](std::string_view* out) {
    const size_t sp = line.find(' ', p);
    const size_t e = sp == std::string_view::npos ? line.size() : sp;
    if (e == p) return false;
    *out = line.substr(p, e - p);
    p = e;
    return true;
  };
  auto skip = [&](std::string_view s) {
    if (line.substr(p, s.size()) != s) return false;
    p += s.size();
    return true;
  };
  // A quoted field's text (escapes kept); p is after its opening quote.
  auto quoted = [&](std::string_view* out) {
    const size_t open = p;
    bool escaped = false;
    for (; p < line.size(); ++p) {
      if (escaped) {
        escaped = false;
      } else if (line[p] == '\\') {
        escaped = true;
      } else if (line[p] == '"') {
        *out = line.substr(open, p - open);
        ++p;
        return true;
      }
    }
    return false;
  };
  auto unescape = [](std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 1 < s.size() &&
          (s[i + 1] == '"' || s[i + 1] == '\\')) {
        ++i;
      }
      out.push_back(s[i]);
    }
    return out;
  };
  std::string_view ip, ident, user, time, request, status, bytes, referer,
      agent;
  if (!token(&ip) || !skip(" ") || !token(&ident) || !skip(" ")) {
    return LineOutcome::kMalformed;
  }
  const size_t bracket = line.find(" [", p);
  if (bracket == std::string_view::npos) return LineOutcome::kMalformed;
  user = line.substr(p, bracket - p);
  p = bracket + 2;
  const size_t close = line.find(']', p);
  if (close == std::string_view::npos) return LineOutcome::kMalformed;
  time = line.substr(p, close - p);
  p = close + 1;
  if (!skip(" \"") || !quoted(&request) || !skip(" ") || !token(&status) ||
      !skip(" ") || !token(&bytes)) {
    return LineOutcome::kMalformed;
  }
  if (combined) {
    if (!skip(" \"") || !quoted(&referer) || !skip(" \"") || !quoted(&agent) ||
        (p != line.size() && line[p] != ' ')) {
      return LineOutcome::kMalformed;
    }
  }
  const std::string request_text = unescape(request);
  std::optional<std::string> method, path, protocol;
  const size_t first = request_text.find(' ');
  const size_t last = request_text.rfind(' ');
  if (first != std::string::npos && first != last) {
    method = request_text.substr(0, first);
    path = request_text.substr(first + 1, last - first - 1);
    protocol = request_text.substr(last + 1);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    std::optional<std::string> v;
    const std::string& n = names[i];
    if (n == "ip") v = std::string(ip);
    if (n == "ident") v = std::string(ident);
    if (n == "user") v = std::string(user);
    if (n == "time") v = std::string(time);
    if (n == "request") v = request_text;
    if (n == "method") v = method;
    if (n == "path") v = path;
    if (n == "protocol") v = protocol;
    if (n == "status") v = std::string(status);
    if (n == "bytes") v = std::string(bytes);
    if (combined && n == "referer") v = unescape(referer);
    if (combined && n == "agent") v = unescape(agent);
    if (v == "-") v.reset();
    (*values)[i] = v;
  }
  return LineOutcome::kParsed;
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_ACCESS_REFERENCE_H_
