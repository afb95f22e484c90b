#include "parser/regex.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "re2/re2.h"

namespace mapr::parser {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

TEST(RewriteNamedGroups, RewritesOnlyNamedGroups) {
  EXPECT_EQ(RewriteNamedGroups("(?<ip>\\S+) (?P<user>\\w+)"),
            "(?P<ip>\\S+) (?P<user>\\w+)");
  // Lookbehinds stay (RE2 rejects them with its own message).
  EXPECT_EQ(RewriteNamedGroups("(?<=a)(?<!b)"), "(?<=a)(?<!b)");
  // An escaped '(' and a class holding "(?<" are not groups.
  EXPECT_EQ(RewriteNamedGroups("\\(?<a>"), "\\(?<a>");
  EXPECT_EQ(RewriteNamedGroups("[(?<a>]"), "[(?<a>]");
  EXPECT_EQ(RewriteNamedGroups("[]](?<a>x)"), "[]](?P<a>x)");
  EXPECT_EQ(RewriteNamedGroups("[^]](?<a>x)"), "[^]](?P<a>x)");
  EXPECT_EQ(RewriteNamedGroups("[[:alpha:]](?<a>x)"), "[[:alpha:]](?P<a>x)");
  // A trailing backslash or "(?<" at the very end is left for RE2.
  EXPECT_EQ(RewriteNamedGroups("ab\\"), "ab\\");
  EXPECT_EQ(RewriteNamedGroups("(?<"), "(?<");
}

TEST(CompilePattern, NamedGroupsInBothSpellings) {
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re = CompilePattern(
      "(?<method>[A-Z]+) (?P<path>\\S+)", kDefaultMaxRegexMemory);
  ASSERT_TRUE(re.ok()) << re.status();
  EXPECT_EQ((*re)->NamedCapturingGroups().at("method"), 1);
  EXPECT_EQ((*re)->NamedCapturingGroups().at("path"), 2);
}

TEST(CompilePattern, CaseInsensitiveFlag) {
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
      CompilePattern("(?i)error", kDefaultMaxRegexMemory);
  ASSERT_TRUE(re.ok());
  EXPECT_TRUE(RE2::PartialMatch("an ERROR here", **re));
}

TEST(CompilePattern, ErrorsQuoteRe2sReason) {
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
      CompilePattern("(ab", kDefaultMaxRegexMemory);
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(re.status().message(),
            "invalid regular expression: missing ): (ab");
  re = CompilePattern("a(?<=b)", kDefaultMaxRegexMemory);
  ASSERT_FALSE(re.ok());
  EXPECT_THAT(re.status().message(),
              HasSubstr("invalid regular expression: invalid perl operator"));
}

TEST(CompilePattern, MemoryBound) {
  // 1000 repetitions of any Unicode letter: beyond RE2's default 8 MiB.
  absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
      CompilePattern("\\pL{1000}", kDefaultMaxRegexMemory);
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().message(),
            "regular expression needs more than 8388608 bytes to compile (RE2: "
            "pattern too large - compile failed)");
  EXPECT_TRUE(CompilePattern("\\pL{10}", kDefaultMaxRegexMemory).ok());
  // The bound is the caller's.
  EXPECT_FALSE(CompilePattern("\\pL{10}", 4 << 10).ok());
}

TEST(LiteralPattern, PlainTextAndEscapedPunctuation) {
  EXPECT_THAT(LiteralPattern("GET /index"),
              Optional(std::string("GET /index")));
  EXPECT_THAT(LiteralPattern("a\\.b\\/c"), Optional(std::string("a.b/c")));
  EXPECT_THAT(LiteralPattern(""), Optional(std::string("")));
  EXPECT_EQ(LiteralPattern("a.b"), std::nullopt);
  EXPECT_EQ(LiteralPattern("\\d"), std::nullopt);
  EXPECT_EQ(LiteralPattern("(?i)x"), std::nullopt);
  EXPECT_EQ(LiteralPattern("^x"), std::nullopt);
  EXPECT_EQ(LiteralPattern("x\\"), std::nullopt);
}

// Whatever LiteralPattern accepts matches exactly where RE2 does.
TEST(LiteralPattern, AgreesWithRe2) {
  const char* patterns[] = {"GET /index", "a\\.b", "x y", "", "\\-\\]"};
  const char* texts[] = {"GET /index.html", "a.b", "axb", "x y z", "", "-]",
                         "nothing"};
  for (const char* p : patterns) {
    std::optional<std::string> literal = LiteralPattern(p);
    ASSERT_TRUE(literal.has_value()) << p;
    RE2 re(p);
    for (const char* t : texts) {
      EXPECT_EQ(std::string_view(t).find(*literal) != std::string_view::npos,
                RE2::PartialMatch(t, re))
          << p << " on " << t;
    }
  }
}

}  // namespace
}  // namespace mapr::parser
