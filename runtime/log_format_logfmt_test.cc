// The `logfmt` format (runtime/log_format_logfmt.cc). Example lines are
// from Heroku's router docs, Go's log/slog TextHandler and logrus.
#include <cstddef>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "tests/testing/field_batch.h"
#include "tests/testing/logfmt_reference.h"
#include "tests/testing/parsed_rows.h"

namespace mapr::runtime {
namespace {

using ::mapr::testing::TestFieldBatch;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

using Row = ::mapr::testing::ParsedRow;

std::vector<Row> Parse(const std::vector<std::string>& fields,
                       const std::vector<std::string>& lines,
                       size_t* allocations = nullptr) {
  auto parser = NewLogfmtLogFormat()->NewParser(fields);
  EXPECT_TRUE(parser.ok()) << parser.status();
  TestFieldBatch batch(fields.size());
  std::vector<std::string_view> views(lines.begin(), lines.end());
  std::vector<Row> rows =
      ::mapr::testing::ParseRows(**parser, batch, fields, views);
  if (allocations != nullptr) *allocations = batch.num_allocations();
  return rows;
}

Row ParseOne(const std::vector<std::string>& fields, const std::string& line,
             size_t* allocations = nullptr) {
  return Parse(fields, {line}, allocations)[0];
}

TEST(LogfmtLogFormatTest, NameDescriptionAndOpenVariables) {
  auto format = NewLogfmtLogFormat();
  EXPECT_EQ(format->name(), "logfmt");
  EXPECT_FALSE(format->description().empty());
  EXPECT_EQ(format->variables(), std::nullopt);  // Keys are open-ended.
  EXPECT_NE(FindLogFormat("logfmt"), nullptr);
}

TEST(LogfmtLogFormatTest, HerokuRouterLine) {
  // devcenter.heroku.com/articles/http-routing, "Heroku router log format".
  size_t allocations = 0;
  Row row =
      ParseOne({"at", "method", "path", "host", "request_id", "fwd", "dyno",
                "connect", "service", "status", "bytes", "protocol"},
               "at=info method=GET path=\"/\" host=myapp.herokuapp.com "
               "request_id=8601b555-6a83-4c12-8269-97c8e32cdb22 "
               "fwd=\"204.204.204.204\" dyno=web.1 connect=1ms service=18ms "
               "status=200 bytes=13",
               &allocations);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(
                  Pair("at", "info"), Pair("method", "GET"), Pair("path", "/"),
                  Pair("host", "myapp.herokuapp.com"),
                  Pair("request_id", "8601b555-6a83-4c12-8269-97c8e32cdb22"),
                  Pair("fwd", "204.204.204.204"), Pair("dyno", "web.1"),
                  Pair("connect", "1ms"), Pair("service", "18ms"),
                  Pair("status", "200"), Pair("bytes", "13")));
  EXPECT_EQ(allocations, 0u);  // No escapes: views into the line.
}

TEST(LogfmtLogFormatTest, GoSlogAndLogrusLines) {
  std::vector<Row> rows =
      Parse({"time", "level", "msg", "user.id", "animal", "number"},
            {"time=2023-10-24T10:00:00.000Z level=INFO msg=\"hello world\" "
             "user.id=42",
             "time=\"2015-03-26T01:27:38-04:00\" level=debug msg=\"Started "
             "observing beach\" animal=walrus number=8"});
  EXPECT_THAT(
      rows[0].fields,
      UnorderedElementsAre(Pair("time", "2023-10-24T10:00:00.000Z"),
                           Pair("level", "INFO"), Pair("msg", "hello world"),
                           Pair("user.id", "42")));
  EXPECT_THAT(
      rows[1].fields,
      UnorderedElementsAre(Pair("time", "2015-03-26T01:27:38-04:00"),
                           Pair("level", "debug"),
                           Pair("msg", "Started observing beach"),
                           Pair("animal", "walrus"), Pair("number", "8")));
}

TEST(LogfmtLogFormatTest, QuotedEscapesAreDecoded) {
  size_t allocations = 0;
  Row row = ParseOne({"msg", "err", "u", "odd"},
                     "msg=\"say \\\"hi\\\"\\n\\tback\\\\slash \\/\" "
                     "err=\"caf\\u00e9 \\ud83d\\ude00 \\ud800x\" "
                     "u=\"\\u12\" odd=\"\\x41\\q\"",
                     &allocations);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(
                  Pair("msg", "say \"hi\"\n\tback\\slash /"),
                  Pair("err", "caf\xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBDx"),
                  // Not \uXXXX, unknown escapes: kept as they are.
                  Pair("u", "\\u12"), Pair("odd", "\\x41\\q")));
  EXPECT_EQ(allocations, 4u);
}

// A high surrogate is a pair only with a following `\uXXXX`: six bytes
// that merely end in "udc00" are not one (a fuzzer finding).
TEST(LogfmtLogFormatTest, HighSurrogateNeedsABackslashUBehindIt) {
  size_t allocations = 0;
  Row row = ParseOne({"m"}, "m=\"\\ud83d!ude00\"", &allocations);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("m", "\xEF\xBF\xBD!ude00")));
}

TEST(LogfmtLogFormatTest, EscapedBackslashBeforeTheClosingQuote) {
  Row row = ParseOne({"a", "b"}, "a=\"x\\\\\" b=\"y\\\\\\\" z\"");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("a", "x\\"), Pair("b", "y\\\" z")));
}

TEST(LogfmtLogFormatTest, EmptyValuesBareKeysAndDuplicates) {
  Row row = ParseOne({"a", "b", "c", "d", "e", "f"},
                     "a= b=\"\" c d=1 d=2 e=1 e f=x f=");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  // `a=` and `b=""` are present and empty; a bare key is true; the later
  // duplicate wins, a bare one too.
  EXPECT_THAT(
      row.fields,
      UnorderedElementsAre(Pair("a", ""), Pair("b", ""), Pair("c", "true"),
                           Pair("d", "2"), Pair("e", "true"), Pair("f", "")));
  // At the end of the line.
  EXPECT_THAT(ParseOne({"k"}, "x=1 k=").fields, ElementsAre(Pair("k", "")));
  EXPECT_THAT(ParseOne({"k"}, "x=1 k").fields, ElementsAre(Pair("k", "true")));
}

TEST(LogfmtLogFormatTest, ValuesMayHoldEqualsAndQuotes) {
  Row row = ParseOne({"url", "eq", "q", "next"},
                     "url=/a?b=c&d=e eq==x q=ab\"cd next=1");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("url", "/a?b=c&d=e"), Pair("eq", "=x"),
                                   Pair("q", "ab\"cd"), Pair("next", "1")));
}

TEST(LogfmtLogFormatTest, RunsOfWhitespaceSeparate) {
  Row row = ParseOne({"a", "b", "c"}, "a=1   b=2\t\tc=\"x  y\"");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("a", "1"), Pair("b", "2"),
                                               Pair("c", "x  y")));
}

TEST(LogfmtLogFormatTest, TextAfterAClosingQuoteStartsTheNextPair) {
  Row row = ParseOne({"a", "b"}, "a=\"x\"b=2");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("a", "x"), Pair("b", "2")));
}

TEST(LogfmtLogFormatTest, FreeTextWordsAreBareKeys) {
  Row row = ParseOne({"hello", "\"free", "a"}, "\"free text\" hello a=1");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("hello", "true"),
                                   Pair("\"free", "true"), Pair("a", "1")));
}

TEST(LogfmtLogFormatTest, UnterminatedQuoteIsMalformed) {
  const std::vector<std::string> lines = {
      "a=1 msg=\"never closed",
      "a=1 msg=\"escaped at the end\\\"",
      "a=1 msg=\"",
  };
  for (const auto& fields :
       {std::vector<std::string>{}, std::vector<std::string>{"a", "msg"}}) {
    std::vector<Row> rows = Parse(fields, lines);
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(rows[i].outcome, LineOutcome::kMalformed) << lines[i];
      // `a`, written before the bad quote, is dropped too.
      EXPECT_THAT(rows[i].fields, IsEmpty()) << lines[i];
    }
  }
}

TEST(LogfmtLogFormatTest, CountOnlyClassifiesLikeAFullParse) {
  const std::vector<std::string> lines = {
      "",       "plain words only", "a=\"b\" c=\"d",
      "a=x\"y", "a=\"x\"\"",        "a=\"\\\"\"",
      "\"",     "k=\"v\" \"",       "k=\"v\" x=\"",
  };
  std::vector<Row> none = Parse({}, lines);
  std::vector<Row> some = Parse({"a", "k", "zzz"}, lines);
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(none[i].outcome, some[i].outcome) << lines[i];
  }
  // A '"' that does not open a value never makes a line malformed.
  EXPECT_EQ(none[3].outcome, LineOutcome::kParsed);
  EXPECT_EQ(none[4].outcome, LineOutcome::kParsed);
  EXPECT_EQ(none[6].outcome, LineOutcome::kParsed);
  EXPECT_EQ(none[2].outcome, LineOutcome::kMalformed);
  EXPECT_EQ(none[8].outcome, LineOutcome::kMalformed);
}

TEST(LogfmtLogFormatTest, EmptyAndNullLinesAreParsed) {
  auto parser = NewLogfmtLogFormat()->NewParser({{"a"}});
  ASSERT_TRUE(parser.ok());
  TestFieldBatch batch(1);
  std::string_view lines[2] = {std::string_view(), "   "};
  LineOutcome outcomes[2];
  (*parser)->ParseBatch(lines, batch, outcomes);
  EXPECT_EQ(outcomes[0], LineOutcome::kParsed);
  EXPECT_EQ(outcomes[1], LineOutcome::kParsed);
  EXPECT_EQ(batch.column(0)[0].data(), nullptr);
  EXPECT_EQ(batch.column(0)[1].data(), nullptr);
}

TEST(LogfmtLogFormatTest, DuplicateRequestedFieldsAreAllFilled) {
  const std::vector<std::string> fields = {"a", "b", "a"};
  auto parser = NewLogfmtLogFormat()->NewParser(fields);
  ASSERT_TRUE(parser.ok());
  TestFieldBatch batch(fields.size());
  std::string_view line = "a=1 b=2";
  LineOutcome outcome;
  (*parser)->ParseBatch(std::span<const std::string_view>(&line, 1), batch,
                        &outcome);
  EXPECT_EQ(batch.column(0)[0], "1");
  EXPECT_EQ(batch.column(1)[0], "2");
  EXPECT_EQ(batch.column(2)[0], "1");
}

TEST(LogfmtLogFormatTest, ManyKeysGoThroughTheHashedTable) {
  // More requested keys than KeyTable scans linearly.
  std::vector<std::string> fields;
  std::string line;
  for (int i = 0; i < 20; ++i) {
    fields.push_back("key" + std::to_string(i));
    line += "key" + std::to_string(i) + "=v" + std::to_string(i) + " ";
  }
  Row row = ParseOne(fields, line);
  ASSERT_EQ(row.fields.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(row.fields["key" + std::to_string(i)], "v" + std::to_string(i));
  }
}

TEST(LogfmtLogFormatTest, AgreesWithThePlainReferenceOnRandomLines) {
  // Lines of 0-200 bytes (so pairs cross the 64-byte blocks) from an
  // alphabet rich in the bytes that matter.
  const std::string alphabet = "ab=\"\\  \tu0D8x=\"";
  const std::vector<std::string> fields = {"a", "b",   "ab",  "ba", "aa",
                                           "",  "\"a", "a\"", "bb", "x"};
  std::mt19937 rng(15);
  std::vector<std::string> lines;
  for (int i = 0; i < 20000; ++i) {
    std::string line(rng() % 200, ' ');
    for (char& c : line) c = alphabet[rng() % alphabet.size()];
    lines.push_back(std::move(line));
  }
  for (size_t first = 0; first < lines.size(); first += kMaxBatchRows) {
    const std::vector<std::string> batch(
        lines.begin() + static_cast<std::ptrdiff_t>(first),
        lines.begin() + static_cast<std::ptrdiff_t>(
                            std::min(lines.size(), first + kMaxBatchRows)));
    const std::vector<Row> rows = Parse(fields, batch);
    const std::vector<Row> bare = Parse({}, batch);
    std::vector<std::optional<std::string>> want;
    for (size_t r = 0; r < batch.size(); ++r) {
      const LineOutcome outcome =
          testing::ReferenceLogfmt(batch[r], fields, &want);
      ASSERT_EQ(rows[r].outcome, outcome) << batch[r];
      ASSERT_EQ(bare[r].outcome, outcome) << batch[r];
      std::map<std::string, std::string> present;
      for (size_t f = 0; f < fields.size(); ++f) {
        if (want[f].has_value()) present[fields[f]] = *want[f];
      }
      ASSERT_EQ(rows[r].fields, present) << batch[r];
    }
  }
}

}  // namespace
}  // namespace mapr::runtime
