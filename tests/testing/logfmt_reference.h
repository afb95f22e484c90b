// A plain, byte-by-byte reference of the `logfmt` log format
// (docs/query-language.md, "logfmt"), against which the bitmask parser in
// runtime/log_format_logfmt.cc is checked: by its unit test on random lines
// and by the logfmt fuzzer.
#ifndef MAPR_TESTS_TESTING_LOGFMT_REFERENCE_H_
#define MAPR_TESTS_TESTING_LOGFMT_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"

namespace mapr::testing {

// The decoded text of a quoted value (without its quotes): \" \\ \/ \b \f
// \n \r \t and \uXXXX (a surrogate pair is one code point, a lone surrogate
// U+FFFD) are decoded; any other backslash is kept with what follows.
inline std::string ReferenceLogfmtUnquote(std::string_view s) {
  auto hex4 = [&](size_t i) -> int32_t {  // The XXXX of a \uXXXX at s[i].
    if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return -1;
    int32_t u = 0;
    for (size_t k = i + 2; k < i + 6; ++k) {
      const char c = s[k];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) return -1;
      u = u * 16 + d;
    }
    return u;
  };
  auto utf8 = [](uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out.push_back(s[i]);
      continue;
    }
    const char c = s[i + 1];
    const std::string_view simple = "\"\\/bfnrt";
    const std::string_view decoded = "\"\\/\b\f\n\r\t";
    if (const size_t k = simple.find(c); k != std::string_view::npos) {
      out.push_back(decoded[k]);
      ++i;
      continue;
    }
    const int32_t u = hex4(i);
    if (u < 0) {
      out.push_back('\\');  // The next byte is copied on the next turn.
      continue;
    }
    uint32_t cp = static_cast<uint32_t>(u);
    i += 5;
    if (cp >= 0xD800 && cp < 0xE000) {
      const int32_t low = cp < 0xDC00 ? hex4(i + 1) : -1;
      if (low >= 0xDC00 && low < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) +
             (static_cast<uint32_t>(low) - 0xDC00);
        i += 6;
      } else {
        cp = 0xFFFD;
      }
    }
    utf8(cp, &out);
  }
  return out;
}

// Reads `line` pair by pair: whitespace is any byte <= ' '; a key runs to
// '=' or whitespace; a bare key is "true"; `k=` is ""; `k="..."` runs to the
// first '"' not escaped by an odd run of backslashes (none: malformed, with
// no fields) and is unquoted; any other value runs to whitespace. The
// pair after a closing quote starts right after it. A later duplicate wins.
// Sets (*values)[i] to the value of names[i] (nullopt: missing).
inline LineOutcome ReferenceLogfmt(
    std::string_view line, const std::vector<std::string>& names,
    std::vector<std::optional<std::string>>* values) {
  values->assign(names.size(), std::nullopt);
  auto is_space = [](char c) { return static_cast<unsigned char>(c) <= ' '; };
  auto set = [&](std::string_view key, const std::string& value) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == key) (*values)[i] = value;
    }
  };
  size_t p = 0;
  const size_t n = line.size();
  while (true) {
    while (p < n && is_space(line[p])) ++p;
    if (p == n) return LineOutcome::kParsed;
    const size_t key = p;
    while (p < n && !is_space(line[p]) && line[p] != '=') ++p;
    const std::string_view name = line.substr(key, p - key);
    if (p == n || line[p] != '=') {
      set(name, "true");
      continue;
    }
    ++p;
    if (p < n && line[p] == '"') {
      const size_t open = ++p;
      bool escaped = false;
      while (p < n && (escaped || line[p] != '"')) {
        escaped = !escaped && line[p] == '\\';
        ++p;
      }
      if (p == n) {
        values->assign(names.size(), std::nullopt);
        return LineOutcome::kMalformed;
      }
      set(name, ReferenceLogfmtUnquote(line.substr(open, p - open)));
      ++p;
      continue;
    }
    const size_t value = p;
    while (p < n && !is_space(line[p])) ++p;
    set(name, std::string(line.substr(value, p - value)));
  }
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_LOGFMT_REFERENCE_H_
