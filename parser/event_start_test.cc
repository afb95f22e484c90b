#include "parser/event_start.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace mapr::parser {
namespace {

// The lines of `text` that the rule `name` says start an event.
std::vector<std::string> Starts(std::string_view name, std::string_view text) {
  absl::StatusOr<std::shared_ptr<const EventStart>> rule =
      EventStart::Builtin(name);
  EXPECT_TRUE(rule.ok()) << rule.status();
  std::vector<std::string> out;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    if ((*rule)->Starts(std::string_view(line.data(), line.size()))) {
      out.emplace_back(line);
    }
  }
  return out;
}

// A logback line with an exception, as logback prints it: the message, the
// exception's line, its frames, a cause with "... N more", a suppressed one.
constexpr std::string_view kJava =
    "2024-05-01 12:00:00.123 ERROR [main] c.e.App - request failed\n"
    "java.lang.IllegalStateException: boom\n"
    "\tat com.example.App.run(App.java:10)\n"
    "\tat com.example.App.main(App.java:4)\n"
    "\tSuppressed: java.io.IOException: close failed\n"
    "\t\tat com.example.Res.close(Res.java:7)\n"
    "\t\t... 2 more\n"
    "Caused by: java.lang.NullPointerException\n"
    "\tat com.example.Db.query(Db.java:99)\n"
    "\t... 1 common frames omitted\n"
    "2024-05-01 12:00:01.000 INFO  [main] c.e.App - retrying\n"
    "org.example.CustomError\n"
    "\n"
    "2024-05-01 12:00:02.000 WARN  [main] c.e.App - Exception handling done";

TEST(EventStartTest, Java) {
  EXPECT_EQ(Starts("java", kJava),
            (std::vector<std::string>{
                "2024-05-01 12:00:00.123 ERROR [main] c.e.App - request failed",
                "2024-05-01 12:00:01.000 INFO  [main] c.e.App - retrying",
                "2024-05-01 12:00:02.000 WARN  [main] c.e.App - Exception "
                "handling done"}));
}

// Python's logging.exception() and a chained traceback.
constexpr std::string_view kPython =
    "2024-05-01 12:00:00,001 ERROR app: lookup failed\n"
    "Traceback (most recent call last):\n"
    "  File \"app.py\", line 3, in <module>\n"
    "    lookup()\n"
    "KeyError: 'user'\n"
    "\n"
    "During handling of the above exception, another exception occurred:\n"
    "\n"
    "Traceback (most recent call last):\n"
    "  File \"app.py\", line 5, in <module>\n"
    "requests.exceptions.ConnectionError: refused\n"
    "INFO:root:still here\n"
    "KeyboardInterrupt\n"
    "WARNING: disk almost full";

TEST(EventStartTest, Python) {
  EXPECT_EQ(Starts("python", kPython),
            (std::vector<std::string>{
                "2024-05-01 12:00:00,001 ERROR app: lookup failed",
                "INFO:root:still here", "WARNING: disk almost full"}));
}

// A Go panic as the runtime prints it.
constexpr std::string_view kGo =
    "2024/05/01 12:00:00 serving on :8080\n"
    "panic: runtime error: index out of range [5] with length 3\n"
    "\n"
    "goroutine 7 [running]:\n"
    "main.handler(0xc000010000, {0x7b1e58, 0xc00007e0f0})\n"
    "\t/src/main.go:12 +0x1d\n"
    "net/http.(*conn).serve(0xc000118000, {0x7b1e58, 0xc00007e0f0})\n"
    "\t/usr/lib/go/src/net/http/server.go:1995 +0x612\n"
    "created by net/http.(*Server).Serve in goroutine 1\n"
    "\t/usr/lib/go/src/net/http/server.go:3089 +0x5ed\n"
    "exit status 2\n"
    "fatal error: all goroutines are asleep - deadlock!\n"
    "\n"
    "goroutine 1 [chan receive]:\n"
    "main.main()\n"
    "2024/05/01 12:00:05 GET /health took 3ms";

TEST(EventStartTest, Go) {
  EXPECT_EQ(Starts("go", kGo),
            (std::vector<std::string>{
                "2024/05/01 12:00:00 serving on :8080",
                "panic: runtime error: index out of range [5] with length 3",
                "fatal error: all goroutines are asleep - deadlock!",
                "2024/05/01 12:00:05 GET /health took 3ms"}));
}

TEST(EventStartTest, StacktraceIsTheThreeTogether) {
  for (std::string_view text : {kJava, kPython, kGo}) {
    std::vector<std::string> all = Starts("stacktrace", text);
    for (std::string_view one : {"java", "python", "go"}) {
      // Every line the union calls a start, each built-in calls one too.
      std::vector<std::string> single = Starts(one, text);
      for (const std::string& line : all) {
        EXPECT_NE(std::find(single.begin(), single.end(), line), single.end())
            << one << ": " << line;
      }
    }
  }
  EXPECT_EQ(Starts("stacktrace", kGo).size(), 4u);
  EXPECT_EQ(Starts("stacktrace", kJava).size(), 3u);
}

TEST(EventStartTest, Indented) {
  EXPECT_EQ(Starts("indented", "a\n b\n\tc\n\nd\r\n  \ne"),
            (std::vector<std::string>{"a", "d\r", "e"}));
}

TEST(EventStartTest, PatternMatchesStarts) {
  absl::StatusOr<std::shared_ptr<const EventStart>> rule =
      EventStart::FromPattern(R"(^\d{4}-)", 8 << 20);
  ASSERT_TRUE(rule.ok()) << rule.status();
  EXPECT_TRUE((*rule)->Starts("2024-05-01 x"));
  EXPECT_TRUE((*rule)->Starts("2024-05-01 x\r"));
  EXPECT_FALSE((*rule)->Starts("  2024-05-01 x"));
  EXPECT_FALSE((*rule)->Starts(""));
  EXPECT_EQ((*rule)->text(), R"(^\d{4}-)");
  EXPECT_FALSE((*rule)->builtin());
  // A carriage return is not part of what the rule sees.
  absl::StatusOr<std::shared_ptr<const EventStart>> end =
      EventStart::FromPattern(R"(x$)", 8 << 20);
  ASSERT_TRUE(end.ok());
  EXPECT_TRUE((*end)->Starts("ax\r"));
}

TEST(EventStartTest, Errors) {
  absl::StatusOr<std::shared_ptr<const EventStart>> bad =
      EventStart::FromPattern("(ab", 8 << 20);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "invalid regular expression: missing ): (ab");
  absl::StatusOr<std::shared_ptr<const EventStart>> none =
      EventStart::Builtin("ruby");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(), "no built-in event rule 'ruby'");
}

}  // namespace
}  // namespace mapr::parser
