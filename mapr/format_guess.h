// mapr/format_guess.h: which built-in log format a line looks like, as
// `logformat auto` decides it, and a guess over a sample of lines for
// `mapr --explain` (the pick, its evidence and the runner-up).
//
// `logformat auto` decides for each line on its own, by its shape alone,
// so the result is the same for any split of the input: a JSON object is
// `json`; a syslog <PRI>, BSD or RFC 3339 timestamp and host is `syslog`;
// DTail's `INFO|...|MAPREDUCE:TABLE|...` is `default`; an access-log line
// is `combined` (with referer and user agent) or `clf`; `k=v|k=v` is
// `generickv`; `key=value key2=value` is `logfmt`; anything else is
// `generic`. `csv`, `fields`, `regex` and `pattern` are never guessed: a
// CSV line says nothing without its header, and the others need an
// argument.
//
// Example:
//   std::vector<std::string_view> sample = {R"({"level":"info"})",
//                                           R"({"level":"warn"})",
//                                           "ts=1 level=info"};
//   mapr::FormatGuess g = mapr::GuessLogFormat(sample);
//   // g.format == "json", g.lines == 2, g.runner_up == "logfmt",
//   // g.runner_up_lines == 1, g.sampled == 3
#ifndef MAPR_MAPR_FORMAT_GUESS_H_
#define MAPR_MAPR_FORMAT_GUESS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mapr/export.h"

namespace mapr {

// The format `logformat auto` reads `line` with (a line without its line
// ending; leading and trailing blanks are ignored): one of json, syslog,
// default, combined, clf, generickv, logfmt, generic.
MAPR_EXPORT std::string_view AutoFormatOf(std::string_view line);

struct FormatGuess {
  // The format most sampled lines have ("" when no line is sampled; ties
  // go to the format listed first in AutoFormatOf), and how many have it.
  std::string format;
  uint64_t lines = 0;
  // The next most common format, "" if every line had the pick.
  std::string runner_up;
  uint64_t runner_up_lines = 0;
  // The non-blank lines looked at.
  uint64_t sampled = 0;
  // What the pick's lines look like, one phrase ("JSON objects, one per
  // line").
  std::string evidence;
};

// The guess over `lines` (blank lines are skipped).
MAPR_EXPORT FormatGuess GuessLogFormat(std::span<const std::string_view> lines);

}  // namespace mapr

#endif  // MAPR_MAPR_FORMAT_GUESS_H_
