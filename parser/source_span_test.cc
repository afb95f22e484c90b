#include "parser/source_span.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/status.h"
#include "tests/testing/status_matchers.h"

namespace mapr::parser {
namespace {

using ::mapr::testing::StatusIs;
using ::testing::Eq;
using ::testing::IsEmpty;

// ---- OffsetToLineCol -------------------------------------------------------

TEST(OffsetToLineColTest, FirstLine) {
  LineCol lc = OffsetToLineCol("select a", 0);
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 1u);
  lc = OffsetToLineCol("select a", 7);
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 8u);
}

TEST(OffsetToLineColTest, EndOfInputIsOnePastTheLastColumn) {
  LineCol lc = OffsetToLineCol("select", 6);
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 7u);
}

TEST(OffsetToLineColTest, OffsetPastTheEndIsClamped) {
  LineCol lc = OffsetToLineCol("select", 100);
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 7u);
}

TEST(OffsetToLineColTest, LaterLines) {
  constexpr std::string_view kText = "select a\nfrom b\n\nwhere x";
  // The newline itself belongs to the line it ends.
  LineCol lc = OffsetToLineCol(kText, 8);
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 9u);
  lc = OffsetToLineCol(kText, 9);
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 1u);
  lc = OffsetToLineCol(kText, 14);
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 6u);
  lc = OffsetToLineCol(kText, 16);  // The empty third line.
  EXPECT_EQ(lc.line, 3u);
  EXPECT_EQ(lc.column, 1u);
  lc = OffsetToLineCol(kText, kText.size());
  EXPECT_EQ(lc.line, 4u);
  EXPECT_EQ(lc.column, 8u);
}

TEST(OffsetToLineColTest, EmptyText) {
  LineCol lc = OffsetToLineCol("", 0);
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 1u);
}

TEST(OffsetToLineColTest, ColumnsCountBytes) {
  // "é" is two bytes: the column after it is 4, not 3.
  LineCol lc = OffsetToLineCol("\xc3\xa9x", 2);
  EXPECT_EQ(lc.column, 3u);
}

// ---- RenderQueryError ------------------------------------------------------

struct RenderCase {
  std::string_view name;
  std::string_view text;
  QueryError error;
  std::string_view expected;
};

TEST(RenderQueryErrorTest, Table) {
  const RenderCase kCases[] = {
      {"span with hint",
       "select count($line),avgg($goroutines)",
       {{20, 4}, "unknown aggregation 'avgg'", "did you mean 'avg'?"},
       "1:21-24: unknown aggregation 'avgg'\n"
       "select count($line),avgg($goroutines)\n"
       "                    ^~~~\n"
       "hint: did you mean 'avg'?"},
      {"no hint, no hint line",
       "select a where (x > 1",
       {{21, 0}, "expected ')' to close '(', found end of query", ""},
       "1:22: expected ')' to close '(', found end of query\n"
       "select a where (x > 1\n"
       "                     ^"},
      {"one-byte span has no end column",
       "select a limit x",
       {{15, 1}, "bad limit", ""},
       "1:16: bad limit\n"
       "select a limit x\n"
       "               ^"},
      {"zero-length span at the end of input",
       "select",
       {{6, 0}, "expected a select item", ""},
       "1:7: expected a select item\n"
       "select\n"
       "      ^"},
      {"zero-length span at the start",
       "",
       {{0, 0}, "empty query", "write a query"},
       "1:1: empty query\n"
       "\n"
       "^\n"
       "hint: write a query"},
      {"span clipped at the end of its line",
       "select a\nfrom b",
       {{0, 15}, "whole query", ""},
       "1:1-8: whole query\n"
       "select a\n"
       "^~~~~~~~"},
      {"span clipped to one byte has no end column",
       "select a\nfrom b",
       {{7, 9}, "from a to the end", ""},
       "1:8: from a to the end\n"
       "select a\n"
       "       ^"},
      {"second line",
       "select a\n  from b c",
       {{18, 1}, "unexpected 'c'", "'from' takes exactly one table name"},
       "2:10: unexpected 'c'\n"
       "  from b c\n"
       "         ^\n"
       "hint: 'from' takes exactly one table name"},
      {"span at the newline",
       "select a\nfrom",
       {{8, 1}, "at newline", ""},
       "1:9: at newline\n"
       "select a\n"
       "        ^"},
      {"tabs become spaces so the caret lines up",
       "select\ta\twhere",
       {{9, 5}, "tabbed", ""},
       "1:10-14: tabbed\n"
       "select a where\n"
       "         ^~~~~"},
      {"control bytes become spaces",
       std::string_view("select a\0b", 10),
       {{8, 1}, "nul", ""},
       "1:9: nul\n"
       "select a b\n"
       "        ^"},
      {"span offset past the end is clamped",
       "abc",
       {{10, 0}, "past", ""},
       "1:4: past\n"
       "abc\n"
       "   ^"},
  };
  for (const RenderCase& c : kCases) {
    EXPECT_EQ(RenderQueryError(c.text, c.error), c.expected) << c.name;
  }
}

// A line of `n` distinct-looking bytes, so a wrong cut shows in the diff.
std::string LongLine(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + i % 26));
  return s;
}

TEST(RenderQueryErrorTest, LongLineCutOnTheRight) {
  std::string text = LongLine(150);
  std::string expected = "1:6-8: msg\n" + text.substr(0, kMaxSnippetWidth) +
                         "...\n" + std::string(5, ' ') + "^~~";
  EXPECT_EQ(RenderQueryError(text, {{5, 3}, "msg", ""}), expected);
}

TEST(RenderQueryErrorTest, LongLineCutOnTheLeft) {
  std::string text = LongLine(150);
  // The window ends at the end of the line: bytes 54..149.
  std::string expected = "1:141-142: msg\n..." + text.substr(54) + "\n" +
                         std::string(3 + 140 - 54, ' ') + "^~";
  EXPECT_EQ(RenderQueryError(text, {{140, 2}, "msg", ""}), expected);
}

TEST(RenderQueryErrorTest, LongLineCutOnBothSides) {
  std::string text = LongLine(300);
  // The span is centred: the window starts 48 bytes before it.
  std::string expected = "1:151: msg\n..." + text.substr(102, 96) + "...\n" +
                         std::string(3 + 48, ' ') + "^\nhint: h";
  EXPECT_EQ(RenderQueryError(text, {{150, 1}, "msg", "h"}), expected);
}

TEST(RenderQueryErrorTest, LongSpanUnderlinesOnlyTheVisiblePart) {
  std::string text = LongLine(300);
  std::string rendered = RenderQueryError(text, {{150, 140}, "msg", ""});
  // The header keeps the real extent; the underline stops at the cut.
  std::string expected = "1:151-290: msg\n..." + text.substr(102, 96) +
                         "...\n" + std::string(3 + 48, ' ') + "^" +
                         std::string(47, '~');
  EXPECT_EQ(rendered, expected);
}

TEST(RenderQueryErrorTest, LongLineOnlyTheErrorLineIsCut) {
  std::string text = "select a\nwhere " + LongLine(200);
  std::string rendered = RenderQueryError(text, {{0, 6}, "msg", ""});
  EXPECT_EQ(rendered, "1:1-6: msg\nselect a\n^~~~~~");
}

// True if every byte of `s` belongs to a complete UTF-8 sequence (enough
// for text made of ASCII and well-formed multi-byte characters).
bool CompleteUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// Regression: the cuts of a long line fell inside UTF-8 sequences.
TEST(RenderQueryErrorTest, LongLineIsCutBetweenCharacters) {
  for (std::string_view ch : {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    for (size_t lead = 0; lead < 4; ++lead) {
      // `lead` ASCII bytes shift the characters against the cut points.
      std::string text = std::string(lead, 'a');
      for (int i = 0; i < 150; ++i) text += ch;
      for (size_t offset :
           {size_t{10}, text.size() / 2, text.size() - ch.size()}) {
        // Point at a character start.
        while ((static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) {
          ++offset;
        }
        std::string rendered = RenderQueryError(
            text, {{static_cast<uint32_t>(offset), 1}, "m", ""});
        SCOPED_TRACE(rendered);
        EXPECT_TRUE(CompleteUtf8(rendered));
        // The caret still sits under the byte the span starts at.
        std::vector<std::string> lines = absl::StrSplit(rendered, '\n');
        ASSERT_EQ(lines.size(), 3u);
        const std::string& snippet = lines[1];
        const size_t caret = lines[2].find('^');
        ASSERT_LT(caret, snippet.size());
        std::string_view shown_from_caret =
            std::string_view(snippet).substr(caret);
        std::string_view from_offset = std::string_view(text).substr(offset);
        EXPECT_EQ(shown_from_caret.substr(0, ch.size()),
                  from_offset.substr(0, ch.size()));
      }
    }
  }
}

// ---- Statuses --------------------------------------------------------------

TEST(QueryErrorStatusTest, InvalidArgumentWithSpanPayload) {
  absl::Status s = QueryErrorStatus("select a\nfrom b c",
                                    {{16, 1}, "unexpected 'c'", "one table"});
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kInvalidArgument, Eq("2:8: unexpected 'c'\n"
                                                         "from b c\n"
                                                         "       ^\n"
                                                         "hint: one table")));
  std::optional<SourceSpan> span = GetSourceSpan(s);
  ASSERT_TRUE(span.has_value());
  EXPECT_EQ(*span, (SourceSpan{16, 1, 2, 8}));
}

TEST(QueryErrorStatusTest, SeveralErrorsAreSeparatedByBlankLines) {
  absl::Status s = QueryErrorsStatus(
      "select avgg(x) order by y",
      {{{7, 4}, "unknown aggregation 'avgg'", "did you mean 'avg'?"},
       {{24, 1}, "'y' is not a select item", ""}});
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          Eq("1:8-11: unknown aggregation 'avgg'\n"
                             "select avgg(x) order by y\n"
                             "       ^~~~\n"
                             "hint: did you mean 'avg'?\n"
                             "\n"
                             "1:25: 'y' is not a select item\n"
                             "select avgg(x) order by y\n"
                             "                        ^")));
  // The payload is the first error's span.
  EXPECT_EQ(GetSourceSpan(s), (SourceSpan{7, 4, 1, 8}));
}

TEST(QueryErrorStatusTest, StatusWithoutPayloadHasNoSpan) {
  EXPECT_EQ(GetSourceSpan(absl::InvalidArgumentError("x")), std::nullopt);
  EXPECT_EQ(GetSourceSpan(absl::OkStatus()), std::nullopt);
}

// ---- TokenSpanAt -----------------------------------------------------------

TEST(TokenSpanAtTest, BarewordEndsAtSpaceOrComma) {
  EXPECT_EQ(TokenSpanAt("select abc def", 7), (ast::Span{7, 3}));
  EXPECT_EQ(TokenSpanAt("select abc,def", 7), (ast::Span{7, 3}));
  EXPECT_EQ(TokenSpanAt("select abc\ndef", 7), (ast::Span{7, 3}));
  EXPECT_EQ(TokenSpanAt("select abc", 7), (ast::Span{7, 3}));
  // Parentheses do not end a token: the caret covers `count(a)`.
  EXPECT_EQ(TokenSpanAt("select count(a) x", 7), (ast::Span{7, 8}));
}

TEST(TokenSpanAtTest, BarewordEndsAtAQuote) {
  EXPECT_EQ(TokenSpanAt("ab\"cd\"", 0), (ast::Span{0, 2}));
  EXPECT_EQ(TokenSpanAt("ab`cd`", 0), (ast::Span{0, 2}));
}

TEST(TokenSpanAtTest, QuotedTokensAreWhole) {
  EXPECT_EQ(TokenSpanAt("x eq \"a b\" y", 5), (ast::Span{5, 5}));
  EXPECT_EQ(TokenSpanAt("select `a b`,c", 7), (ast::Span{7, 5}));
  EXPECT_EQ(TokenSpanAt("\"\"", 0), (ast::Span{0, 2}));
}

TEST(TokenSpanAtTest, UnterminatedQuoteRunsToTheEnd) {
  EXPECT_EQ(TokenSpanAt("x eq \"a b", 5), (ast::Span{5, 4}));
  EXPECT_EQ(TokenSpanAt("select `a", 7), (ast::Span{7, 2}));
}

TEST(TokenSpanAtTest, SeparatorIsOneByte) {
  EXPECT_EQ(TokenSpanAt("a b", 1), (ast::Span{1, 1}));
  EXPECT_EQ(TokenSpanAt("a,b", 1), (ast::Span{1, 1}));
}

TEST(TokenSpanAtTest, AtOrPastTheEndIsEmpty) {
  EXPECT_EQ(TokenSpanAt("abc", 3), (ast::Span{3, 0}));
  EXPECT_EQ(TokenSpanAt("abc", 7), (ast::Span{3, 0}));
  EXPECT_EQ(TokenSpanAt("", 0), (ast::Span{0, 0}));
}

// ---- EditDistance / ClosestMatch -------------------------------------------

TEST(EditDistanceTest, Basics) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("avg", "avg"), 0u);
  EXPECT_EQ(EditDistance("avgg", "avg"), 1u);  // Deletion.
  EXPECT_EQ(EditDistance("av", "avg"), 1u);    // Insertion.
  EXPECT_EQ(EditDistance("sun", "sum"), 1u);   // Substitution.
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("flaw", "lawn"), 2u);
  // Case counts: callers lower-case first when they want otherwise.
  EXPECT_EQ(EditDistance("COUNT", "count"), 5u);
}

TEST(EditDistanceTest, Symmetric) {
  EXPECT_EQ(EditDistance("percentile", "percentage"),
            EditDistance("percentage", "percentile"));
}

const std::vector<std::string_view> kAggregations = {
    "count", "sum", "min",        "max",       "last",
    "avg",   "len", "percentage", "percentile"};

TEST(ClosestMatchTest, FindsTypos) {
  EXPECT_EQ(ClosestMatch("avgg", kAggregations), "avg");
  EXPECT_EQ(ClosestMatch("cout", kAggregations), "count");
  EXPECT_EQ(ClosestMatch("percentaeg", kAggregations), "percentage");
  EXPECT_EQ(ClosestMatch("md5sun", {"md5sum", "maskdigits"}), "md5sum");
}

TEST(ClosestMatchTest, CaseDifferenceIsFree) {
  EXPECT_EQ(ClosestMatch("COUNT", kAggregations), "count");
  EXPECT_EQ(ClosestMatch("Avg", kAggregations), "avg");
  // Even a two-letter word matches on case alone.
  EXPECT_EQ(ClosestMatch("EQ", {"eq", "ne"}), "eq");
}

TEST(ClosestMatchTest, ExactMatchWins) {
  EXPECT_EQ(ClosestMatch("min", kAggregations), "min");
  EXPECT_EQ(ClosestMatch("max", kAggregations), "max");
}

TEST(ClosestMatchTest, FarWordsHaveNoMatch) {
  EXPECT_THAT(ClosestMatch("frobnicate", kAggregations), IsEmpty());
  // Two-letter words allow no edit: "mx" is one away from "max".
  EXPECT_THAT(ClosestMatch("mx", kAggregations), IsEmpty());
  EXPECT_THAT(ClosestMatch("", kAggregations), IsEmpty());
  EXPECT_THAT(ClosestMatch("avg", {}), IsEmpty());
}

TEST(ClosestMatchTest, AllowedDistanceGrowsWithLengthUpToThree) {
  // A third of the word's length: 5 letters allow 1 edit, 6 allow 2.
  EXPECT_EQ(ClosestMatch("cuont", {"count"}), "");  // 2 edits.
  EXPECT_EQ(ClosestMatch("ccount", {"count"}), "count");
  EXPECT_EQ(ClosestMatch("mdsumm", {"md5sum"}), "md5sum");  // 2 edits.
  // 12 letters would allow 4, but the cap is 3.
  EXPECT_EQ(ClosestMatch("xxxxpercentage", {"percentage"}), "");
  EXPECT_EQ(ClosestMatch("xxxpercentage", {"percentage"}), "percentage");
}

}  // namespace
}  // namespace mapr::parser
