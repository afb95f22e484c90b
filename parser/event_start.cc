#include "parser/event_start.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "parser/regex.h"

namespace mapr::parser {
namespace {

// The continuation lines of each built-in (parser/event_start.h), as
// alternatives after ^. Every built-in starts with the blank line.
constexpr std::string_view kBlank = R"(\s*$)";
constexpr std::string_view kJava =
    R"(\s+at\s|\s+\.\.\.\s*\d+\s+(?:more|common frames omitted))"
    R"(|\s*Caused by:|\s+Suppressed:)"
    R"(|(?:[a-zA-Z_$][\w$]*\.)+[\w$]*(?:Exception|Error|Throwable)(?::\s|$))";
constexpr std::string_view kPython =
    R"(\s|Traceback \(most recent call last\):)"
    R"(|During handling of the above exception)"
    R"(|The above exception was the direct cause)"
    R"(|(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?)"
    R"((?:Error|Exception|Warning|Interrupt|Exit|Iteration)(?::\s|$))";
constexpr std::string_view kGo =
    R"(\s|goroutine \d+ \[|created by |\[signal |exit status \d+)"
    R"(|\.\.\.additional frames elided\.\.\.)"
    R"(|(?:[\w$.*/%-]|\(\*[\w$.%-]+\))+\(.*\)$)";
constexpr std::string_view kIndented = R"([ \t])";

std::string Continuation(std::initializer_list<std::string_view> parts) {
  std::string out =
      absl::StrCat("^(?:", absl::string_view(kBlank.data(), kBlank.size()));
  for (std::string_view part : parts) {
    absl::StrAppend(&out, "|", absl::string_view(part.data(), part.size()));
  }
  out.push_back(')');
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const EventStart>> EventStart::FromPattern(
    std::string_view pattern, int64_t max_memory) {
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
      CompilePattern(pattern, max_memory);
  if (!re.ok()) return re.status();
  return std::shared_ptr<const EventStart>(
      new EventStart(std::string(pattern), *std::move(re), false));
}

absl::StatusOr<std::shared_ptr<const EventStart>> EventStart::Builtin(
    std::string_view name) {
  std::string pattern;
  if (name == "java") {
    pattern = Continuation({kJava});
  } else if (name == "python") {
    pattern = Continuation({kPython});
  } else if (name == "go") {
    pattern = Continuation({kGo});
  } else if (name == "stacktrace") {
    pattern = Continuation({kJava, kPython, kGo});
  } else if (name == "indented") {
    pattern = Continuation({kIndented});
  } else {
    return absl::NotFoundError(
        absl::StrCat("no built-in event rule '",
                     absl::string_view(name.data(), name.size()), "'"));
  }
  // The built-ins are small and fixed: RE2's default budget is plenty.
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
      CompilePattern(pattern, kDefaultMaxRegexMemory);
  if (!re.ok()) return re.status();
  return std::shared_ptr<const EventStart>(
      new EventStart(std::string(name), *std::move(re), true));
}

}  // namespace mapr::parser
