// Multi-line events: the `multiline` clause's rule for where an event starts.
//
// With `multiline RULE`, the engine reads an event, not a line, as its
// unit: a line that starts an event, and every following line that does
// not, joined with '\n'. RULE is a 'quoted' regular expression (a line it
// matches anywhere starts an event; anchor it with ^) or a built-in name.
// A built-in names the lines that continue an event; every other line
// starts one:
//
//   java        "\tat com.x.Y.f(Y.java:3)", "\t... 12 more",
//               "Caused by: ...", "\tSuppressed: ...", and an exception
//               line such as "java.lang.IllegalStateException: boom"
//   python      "Traceback (most recent call last):", indented lines,
//               "During handling of the above exception, ...", "The above
//               exception was the direct cause of ...", and the exception
//               line ("ValueError: bad", "mod.CustomError")
//   go          what follows "panic: ..." or "fatal error: ...": indented
//               lines, "goroutine 7 [running]:", frames ("main.main()",
//               "net/http.(*conn).serve(0xc000)"), "created by ...",
//               "[signal ...", "exit status 2"
//   stacktrace  the three above together
//   indented    any line that starts with a space or a tab
//
// For every built-in a blank line continues an event too. The first line of
// an input always starts an event (continuation lines at its very start
// make an event of their own), so the rule is a pure function of each line:
// a reader may cut an input at any line the rule says starts an event, and
// the pieces hold the same events (io/files_plan.cc).
//
// Example:
//   absl::StatusOr<std::shared_ptr<const EventStart>> rule =
//       EventStart::Builtin("java");
//   bool starts = (*rule)->Starts("2024-05-01 ERROR failed");  // true
#ifndef MAPR_PARSER_EVENT_START_H_
#define MAPR_PARSER_EVENT_START_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "re2/re2.h"

namespace mapr::parser {

class EventStart {
 public:
  // The built-in names, for messages and docs.
  static constexpr std::string_view kBuiltinNames =
      "java, python, go, stacktrace, indented";

  // A rule whose `pattern` matches the lines that start an event. Errors:
  // InvalidArgument as CompilePattern (parser/regex.h) gives them.
  static absl::StatusOr<std::shared_ptr<const EventStart>> FromPattern(
      std::string_view pattern, int64_t max_memory);
  // The built-in `name` (lower-case); NotFound if there is none.
  static absl::StatusOr<std::shared_ptr<const EventStart>> Builtin(
      std::string_view name);

  // True if `line` (without its '\n'; a '\r' before it is ignored) starts
  // an event.
  bool Starts(std::string_view line) const {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool match = re2::RE2::PartialMatch(
        re2::StringPiece(line.data(), line.size()), *re_);
    return continuation_ ? !match : match;
  }

  // The pattern's text or the built-in's name, as the query writes it.
  const std::string& text() const { return text_; }
  bool builtin() const { return continuation_; }

 private:
  EventStart(std::string text, std::shared_ptr<const re2::RE2> re,
             bool continuation)
      : text_(std::move(text)),
        re_(std::move(re)),
        continuation_(continuation) {}

  std::string text_;
  std::shared_ptr<const re2::RE2> re_;
  // `re_` matches the lines that continue an event (a built-in).
  bool continuation_;
};

}  // namespace mapr::parser

#endif  // MAPR_PARSER_EVENT_START_H_
