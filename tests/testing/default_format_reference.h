// A plain, token-by-token reference of DTail's `default` log format
// (docs/query-language.md, "default"), against which the bitmask parser is
// checked: by its unit tests on random lines and by the format fuzzer.
#ifndef MAPR_TESTS_TESTING_DEFAULT_FORMAT_REFERENCE_H_
#define MAPR_TESTS_TESTING_DEFAULT_FORMAT_REFERENCE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"

namespace mapr::testing {

// Splits `line` at every '|'. It is parsed if it starts with INFO, has at
// least 11 tokens, token 9 starts with MAPREDUCE: and every later token
// holds a '=' (split at the first; a later duplicate key wins); a token
// without '=' makes it malformed, with no fields. Sets (*fields)[i] to the
// value of names[i] (data() == nullptr: missing), a view into `line`; the
// positional variables ($severity ... $uptime, and $date, $hour, $minute,
// $second from a 15-byte $time) never come from a key.
inline LineOutcome ReferenceDefault(std::string_view line,
                                    const std::vector<std::string>& names,
                                    std::vector<std::string_view>* fields) {
  fields->assign(names.size(), std::string_view());
  std::vector<std::string_view> tokens;
  for (size_t start = 0;;) {
    const size_t bar = line.find('|', start);
    tokens.push_back(line.substr(start, bar == std::string_view::npos
                                            ? std::string_view::npos
                                            : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  if (!line.starts_with("INFO") || tokens.size() < 11 ||
      !tokens[9].starts_with("MAPREDUCE:")) {
    return LineOutcome::kIgnored;
  }
  struct Positional {
    std::string_view name;
    size_t token;
    size_t begin, length;  // length 0: the whole token
  };
  static constexpr Positional kPositional[] = {
      {"$severity", 0, 0, 0}, {"$loglevel", 0, 0, 0},   {"$time", 1, 0, 0},
      {"$date", 1, 0, 8},     {"$hour", 1, 9, 2},       {"$minute", 1, 11, 2},
      {"$second", 1, 13, 2},  {"$pid", 2, 0, 0},        {"$caller", 3, 0, 0},
      {"$cpus", 4, 0, 0},     {"$goroutines", 5, 0, 0}, {"$cgocalls", 6, 0, 0},
      {"$loadavg", 7, 0, 0},  {"$uptime", 8, 0, 0},
  };
  for (size_t t = 10; t < tokens.size(); ++t) {
    const size_t eq = tokens[t].find('=');
    if (eq == std::string_view::npos) {
      fields->assign(names.size(), std::string_view());  // As the parser.
      return LineOutcome::kMalformed;
    }
    for (size_t f = 0; f < names.size(); ++f) {
      if (tokens[t].substr(0, eq) == names[f]) {
        (*fields)[f] = tokens[t].substr(eq + 1);
      }
    }
  }
  for (size_t f = 0; f < names.size(); ++f) {
    for (const Positional& p : kPositional) {
      if (names[f] != p.name) continue;
      const std::string_view token = tokens[p.token];
      if (p.length == 0) {
        (*fields)[f] = token;
      } else {
        (*fields)[f] = token.size() == 15 ? token.substr(p.begin, p.length)
                                          : std::string_view();
      }
    }
  }
  return LineOutcome::kParsed;
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_DEFAULT_FORMAT_REFERENCE_H_
