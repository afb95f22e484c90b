// The `clf` and `combined` formats (runtime/log_format_access.cc). Example
// lines are from the Apache httpd log-file docs and nginx's default
// `combined` format.
#include <cstddef>
#include <map>
#include <memory>
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
#include "tests/testing/access_reference.h"
#include "tests/testing/field_batch.h"
#include "tests/testing/parsed_rows.h"

namespace mapr::runtime {
namespace {

using ::mapr::testing::TestFieldBatch;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

using Row = ::mapr::testing::ParsedRow;  // The present values.

const std::vector<std::string> kAllFields = {
    "ip",   "ident",    "user",   "time",  "request", "method",
    "path", "protocol", "status", "bytes", "referer", "agent"};

// Parses `lines` as one batch; checks that every written value is missing
// (null) or points into its line or into batch memory.
// With `padded`, each line is copied into a buffer followed by kLinePadding
// bytes of quotes, brackets, spaces and backslashes, and the batch promises
// that padding (the parser then reads whole 16-byte blocks past a field's
// end); the result must not change.
std::vector<Row> ParseOnce(std::string_view format_name,
                           const std::vector<std::string>& fields,
                           const std::vector<std::string>& lines, bool padded,
                           size_t* allocations) {
  std::shared_ptr<const LogFormat> format = FindLogFormat(format_name);
  EXPECT_NE(format, nullptr);
  auto parser = format->NewParser(fields);
  EXPECT_TRUE(parser.ok()) << parser.status();
  TestFieldBatch batch(fields.size(), padded ? kLinePadding : 0);
  std::vector<std::string> copies;
  for (const std::string& line : lines) {
    std::string copy = line;
    for (size_t i = 0; i < kLinePadding; ++i) copy.push_back("\" [] \\"[i % 6]);
    copies.push_back(std::move(copy));
  }
  std::vector<std::string_view> views;
  for (size_t i = 0; i < lines.size(); ++i) {
    views.emplace_back(
        padded ? std::string_view(copies[i]).substr(0, lines[i].size())
               : std::string_view(lines[i]));
  }
  std::vector<Row> rows =
      ::mapr::testing::ParseRows(**parser, batch, fields, views);
  if (allocations != nullptr) *allocations = batch.num_allocations();
  return rows;
}

std::vector<Row> Parse(std::string_view format_name,
                       const std::vector<std::string>& fields,
                       const std::vector<std::string>& lines,
                       size_t* allocations = nullptr) {
  std::vector<Row> rows =
      ParseOnce(format_name, fields, lines, /*padded=*/false, allocations);
  EXPECT_TRUE(rows ==
              ParseOnce(format_name, fields, lines, /*padded=*/true, nullptr))
      << "a padded batch parses differently";
  return rows;
}

Row ParseOne(std::string_view format_name,
             const std::vector<std::string>& fields, const std::string& line,
             size_t* allocations = nullptr) {
  return Parse(format_name, fields, {line}, allocations)[0];
}

// The Apache docs' examples (httpd.apache.org/docs/2.4/logs.html).
constexpr char kApacheClf[] =
    "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "
    "\"GET /apache_pb.gif HTTP/1.0\" 200 2326";
constexpr char kApacheCombined[] =
    "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "
    "\"GET /apache_pb.gif HTTP/1.0\" 200 2326 "
    "\"http://www.example.com/start.html\" "
    "\"Mozilla/4.08 [en] (Win98; I ;Nav)\"";

TEST(AccessLogFormatTest, NamesDescriptionsAndVariables) {
  auto clf = NewClfLogFormat();
  auto combined = NewCombinedLogFormat();
  EXPECT_EQ(clf->name(), "clf");
  EXPECT_EQ(combined->name(), "combined");
  EXPECT_FALSE(clf->description().empty());
  EXPECT_FALSE(combined->description().empty());
  EXPECT_THAT(
      clf->variables(),
      Optional(ElementsAre("ip", "ident", "user", "time", "request", "method",
                           "path", "protocol", "status", "bytes")));
  EXPECT_THAT(combined->variables(), Optional(ElementsAreArray(kAllFields)));
  // Both are registered.
  EXPECT_NE(FindLogFormat("clf"), nullptr);
  EXPECT_NE(FindLogFormat("COMBINED"), nullptr);
}

TEST(AccessLogFormatTest, ApacheClfExample) {
  Row row = ParseOne("clf", kAllFields, kApacheClf);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  // ident is `-`: missing. referer and agent are not clf fields.
  EXPECT_THAT(
      row.fields,
      UnorderedElementsAre(
          Pair("ip", "127.0.0.1"), Pair("user", "frank"),
          Pair("time", "10/Oct/2000:13:55:36 -0700"),
          Pair("request", "GET /apache_pb.gif HTTP/1.0"), Pair("method", "GET"),
          Pair("path", "/apache_pb.gif"), Pair("protocol", "HTTP/1.0"),
          Pair("status", "200"), Pair("bytes", "2326")));
}

TEST(AccessLogFormatTest, ApacheCombinedExample) {
  size_t allocations = 0;
  Row row = ParseOne("combined", kAllFields, kApacheCombined, &allocations);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      row.fields,
      UnorderedElementsAre(
          Pair("ip", "127.0.0.1"), Pair("user", "frank"),
          Pair("time", "10/Oct/2000:13:55:36 -0700"),
          Pair("request", "GET /apache_pb.gif HTTP/1.0"), Pair("method", "GET"),
          Pair("path", "/apache_pb.gif"), Pair("protocol", "HTTP/1.0"),
          Pair("status", "200"), Pair("bytes", "2326"),
          Pair("referer", "http://www.example.com/start.html"),
          Pair("agent", "Mozilla/4.08 [en] (Win98; I ;Nav)")));
  // Nothing was escaped, so every value is a view into the line.
  EXPECT_EQ(allocations, 0u);
}

TEST(AccessLogFormatTest, ClfReadsCombinedLinesAndIgnoresTheRest) {
  Row row =
      ParseOne("clf", {"status", "bytes", "referer", "agent"}, kApacheCombined);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("status", "200"),
                                               Pair("bytes", "2326")));
}

TEST(AccessLogFormatTest, NginxDefaultCombinedLines) {
  // nginx: '$remote_addr - $remote_user [$time_local] "$request" $status
  // $body_bytes_sent "$http_referer" "$http_user_agent"'.
  std::vector<Row> rows = Parse(
      "combined",
      {"ip", "user", "method", "path", "status", "bytes", "referer", "agent"},
      {"93.180.71.3 - - [17/May/2015:08:05:32 +0000] \"GET "
       "/downloads/product_1 HTTP/1.1\" 304 0 \"-\" \"Debian APT-HTTP/1.3 "
       "(0.8.16~exp12ubuntu10.21)\"",
       "203.0.113.7 - admin [24/Oct/2023:10:00:00 +0200] \"POST /api/v1/items"
       "?page=2&sort=desc HTTP/2.0\" 201 512 \"https://example.com/app\" "
       "\"Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 "
       "Firefox/118.0\""});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      rows[0].fields,
      UnorderedElementsAre(
          Pair("ip", "93.180.71.3"), Pair("method", "GET"),
          Pair("path", "/downloads/product_1"), Pair("status", "304"),
          Pair("bytes", "0"),
          Pair("agent", "Debian APT-HTTP/1.3 (0.8.16~exp12ubuntu10.21)")));
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      rows[1].fields,
      UnorderedElementsAre(Pair("ip", "203.0.113.7"), Pair("user", "admin"),
                           Pair("method", "POST"),
                           Pair("path", "/api/v1/items?page=2&sort=desc"),
                           Pair("status", "201"), Pair("bytes", "512"),
                           Pair("referer", "https://example.com/app"),
                           Pair("agent",
                                "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) "
                                "Gecko/20100101 Firefox/118.0")));
}

TEST(AccessLogFormatTest, DashIsMissingInEveryField) {
  Row row = ParseOne("combined", kAllFields, "- - - [-] \"-\" - - \"-\" \"-\"");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, IsEmpty());
  // Apache's %b writes `-` for a response without a body.
  row = ParseOne("clf", {"status", "bytes"},
                 "10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"HEAD / "
                 "HTTP/1.1\" 304 -");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("status", "304")));
  // Only a lone dash is missing.
  row = ParseOne("combined", {"referer", "agent"},
                 "h - - [t] \"GET / HTTP/1.1\" 200 1 \"--\" \"-x\"");
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("referer", "--"), Pair("agent", "-x")));
}

TEST(AccessLogFormatTest, EscapedQuotesAreUnescapedIntoBatchMemory) {
  // Apache writes `"` as \" and `\` as \\ inside quoted fields.
  size_t allocations = 0;
  Row row = ParseOne(
      "combined", {"agent", "referer", "path"},
      "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /a\\\"b HTTP/1.1\" "
      "200 5 \"-\" \"Mozilla/5.0 \\\"quoted\\\" back\\\\slash\"",
      &allocations);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      row.fields,
      UnorderedElementsAre(Pair("agent", "Mozilla/5.0 \"quoted\" back\\slash"),
                           Pair("path", "/a\"b")));
  EXPECT_EQ(allocations, 2u);  // agent and the request.
}

TEST(AccessLogFormatTest, EscapedBackslashBeforeTheClosingQuote) {
  // `\\"` is an escaped backslash, then the closing quote.
  Row row = ParseOne("combined", {"referer", "agent"},
                     "h - - [t] \"GET / HTTP/1.1\" 200 1 \"a\\\\\" \"b\"");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("referer", "a\\"), Pair("agent", "b")));
  // `\\\"` is an escaped backslash and an escaped quote: still inside.
  row = ParseOne("combined", {"referer", "agent"},
                 "h - - [t] \"GET / HTTP/1.1\" 200 1 \"a\\\\\\\" z\" \"b\"");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("referer", "a\\\" z"),
                                               Pair("agent", "b")));
}

TEST(AccessLogFormatTest, NginxHexEscapesStayAsTheyAre) {
  // nginx writes `"` as \x22; only \" and \\ are unescaped.
  Row row = ParseOne("combined", {"agent"},
                     "h - - [t] \"GET / HTTP/1.1\" 200 1 \"-\" "
                     "\"say \\x22hi\\x22 \\n\"");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("agent", "say \\x22hi\\x22 \\n")));
}

TEST(AccessLogFormatTest, Ipv6AndHostNames) {
  std::vector<Row> rows =
      Parse("clf", {"ip", "status"},
            {"2001:db8::1 - - [10/Oct/2000:13:55:36 -0700] \"GET / "
             "HTTP/1.1\" 200 1",
             "::ffff:192.0.2.128 - - [t] \"GET / HTTP/1.1\" 404 2",
             "client-7.example.org - - [t] \"GET / HTTP/1.1\" 500 3"});
  EXPECT_THAT(rows[0].fields, UnorderedElementsAre(Pair("ip", "2001:db8::1"),
                                                   Pair("status", "200")));
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("ip", "::ffff:192.0.2.128"),
                                   Pair("status", "404")));
  EXPECT_THAT(rows[2].fields,
              UnorderedElementsAre(Pair("ip", "client-7.example.org"),
                                   Pair("status", "500")));
}

TEST(AccessLogFormatTest, RequestsThatDoNotSplitLeaveMethodPathProtocol) {
  const std::vector<std::string> fields = {"request", "method", "path",
                                           "protocol", "status"};
  std::vector<Row> rows = Parse(
      "combined", fields,
      {// nginx's log of a TLS handshake sent to a plain-HTTP port.
       std::string("198.51.100.9 - - [24/Oct/2023:10:00:01 +0000] ") +
           "\"\\x16\\x03\\x01\\x00\\xA5\\x01\\x00\\x00\" 400 157 \"-\" \"-\"",
       // The same bytes raw.
       "h - - [t] \"\x16\x03\x01\" 400 0 \"-\" \"-\"",
       // No request line at all.
       "h - - [t] \"\" 408 0 \"-\" \"-\"", "h - - [t] \"-\" 408 0 \"-\" \"-\"",
       // HTTP/0.9: two parts.
       "h - - [t] \"GET /\" 200 0 \"-\" \"-\"",
       // Spaces in the path: the first and last space split.
       "h - - [t] \"GET /a b c HTTP/1.1\" 400 0 \"-\" \"-\""});
  ASSERT_EQ(rows.size(), 6u);
  for (const Row& row : rows) EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[0].fields,
              UnorderedElementsAre(
                  Pair("request", "\\x16\\x03\\x01\\x00\\xA5\\x01\\x00\\x00"),
                  Pair("status", "400")));
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("request", "\x16\x03\x01"),
                                   Pair("status", "400")));
  EXPECT_THAT(rows[2].fields,
              UnorderedElementsAre(Pair("request", ""), Pair("status", "408")));
  EXPECT_THAT(rows[3].fields, ElementsAre(Pair("status", "408")));
  EXPECT_THAT(rows[4].fields, UnorderedElementsAre(Pair("request", "GET /"),
                                                   Pair("status", "200")));
  EXPECT_THAT(rows[5].fields,
              UnorderedElementsAre(
                  Pair("request", "GET /a b c HTTP/1.1"), Pair("method", "GET"),
                  Pair("path", "/a b c"), Pair("protocol", "HTTP/1.1"),
                  Pair("status", "400")));
}

TEST(AccessLogFormatTest, TrailingFieldsAreIgnored) {
  // nginx configs often append "$http_x_forwarded_for" $request_time.
  Row row = ParseOne(
      "combined", {"status", "agent"},
      "10.1.2.3 - - [24/Oct/2023:10:00:00 +0000] \"GET / HTTP/1.1\" 200 612 "
      "\"-\" \"curl/8.4.0\" \"203.0.113.50, 10.0.0.1\" 0.004");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("status", "200"),
                                               Pair("agent", "curl/8.4.0")));
}

TEST(AccessLogFormatTest, UserNamesMayHoldSpaces) {
  Row row = ParseOne("clf", {"ident", "user", "time"},
                     "h id John Smith [t] \"GET / HTTP/1.1\" 200 1");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("ident", "id"),
                                               Pair("user", "John Smith"),
                                               Pair("time", "t")));
}

TEST(AccessLogFormatTest, MalformedLines) {
  const std::vector<std::string> lines = {
      "",
      "garbage",
      "127.0.0.1 - frank",
      // No brackets.
      std::string("127.0.0.1 - frank 10/Oct/2000:13:55:36 ") +
          "\"GET / HTTP/1.0\" 200 2326 \"-\" \"-\"",
      // No closing bracket.
      std::string("127.0.0.1 - frank [10/Oct/2000:13:55:36 ") +
          "\"GET / HTTP/1.0\" 200 2326 \"-\" \"-\"",
      // Two fields before the date.
      "127.0.0.1 - [t] \"GET / HTTP/1.0\" 200 2326 \"-\" \"-\"",
      // Unterminated request, referer, agent.
      "h - - [t] \"GET / HTTP/1.0 200 2326 \"-\" \"-",
      "h - - [t] \"GET / HTTP/1.0\" 200 2326 \"- \"-",
      "h - - [t] \"GET / HTTP/1.0\" 200 2326 \"-\" \"agent\\\"",
      // The request not quoted.
      "h - - [t] GET / HTTP/1.0 200 2326 \"-\" \"-\"",
      // No bytes; no status either.
      "h - - [t] \"GET / HTTP/1.0\" 200",
      "h - - [t] \"GET / HTTP/1.0\"",
      // CLF only: combined needs referer and agent.
      kApacheClf,
      "h - - [t] \"GET / HTTP/1.0\" 200 1 \"-\"",
      // Text glued to the agent's closing quote.
      "h - - [t] \"GET / HTTP/1.0\" 200 1 \"-\" \"a\"x",
  };
  for (const auto& fields : {std::vector<std::string>{}, kAllFields,
                             std::vector<std::string>{"status"}}) {
    std::vector<Row> rows = Parse("combined", fields, lines);
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(rows[i].outcome, LineOutcome::kMalformed) << lines[i];
      EXPECT_THAT(rows[i].fields, IsEmpty()) << lines[i];
    }
  }
  // clf needs no referer or agent, but the rest of the structure.
  std::vector<Row> rows = Parse("clf", {"status"}, lines);
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool clf_ok = i >= 7 && i != 9 && i != 10 && i != 11;
    EXPECT_EQ(rows[i].outcome,
              clf_ok ? LineOutcome::kParsed : LineOutcome::kMalformed)
        << lines[i];
  }
}

TEST(AccessLogFormatTest, NullEmptyLineIsMalformed) {
  auto parser = NewCombinedLogFormat()->NewParser({});
  ASSERT_TRUE(parser.ok());
  TestFieldBatch batch(0);
  std::string_view line;  // data() == nullptr.
  LineOutcome outcome = LineOutcome::kIgnored;
  (*parser)->ParseBatch(std::span<const std::string_view>(&line, 1), batch,
                        &outcome);
  EXPECT_EQ(outcome, LineOutcome::kMalformed);
}

TEST(AccessLogFormatTest, UnknownFieldsStayMissingAndDuplicatesAreFilled) {
  const std::vector<std::string> fields = {"status", "nope", "status",
                                           "$status", "referer"};
  Row row = ParseOne("clf", fields, kApacheCombined);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, ElementsAre(Pair("status", "200")));
  auto parser = NewCombinedLogFormat()->NewParser(fields);
  ASSERT_TRUE(parser.ok());
  TestFieldBatch batch(fields.size());
  std::string_view line = kApacheCombined;
  LineOutcome outcome;
  (*parser)->ParseBatch(std::span<const std::string_view>(&line, 1), batch,
                        &outcome);
  EXPECT_EQ(batch.column(0)[0], "200");
  EXPECT_EQ(batch.column(1)[0].data(), nullptr);
  EXPECT_EQ(batch.column(2)[0], "200");
  EXPECT_EQ(batch.column(3)[0].data(), nullptr);
  EXPECT_EQ(batch.column(4)[0], "http://www.example.com/start.html");
}

TEST(AccessLogFormatTest, EmptyQuotedValuesArePresent) {
  Row row = ParseOne("combined", {"referer", "agent", "user"},
                     "h - \"\" [t] \"GET / HTTP/1.1\" 200 1 \"\" \"\"");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("referer", ""), Pair("agent", ""),
                                   Pair("user", "\"\"")));
}

// Random access-log-like lines: fields drawn from pieces rich in spaces,
// quotes, backslashes, brackets and dashes, then a few random edits.
std::vector<std::string> RandomAccessLines(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<std::string> pieces = {
      "-",   "a",  " ",        "\\",  "\"", "\\\"", "\\\\", "[",    "]",
      "GET", "/x", "HTTP/1.1", "200", "0",  "x y",  "::1",  "\\x22"};
  auto field = [&] {
    std::string f;
    for (size_t k = rng() % 4; k > 0; --k) f += pieces[rng() % pieces.size()];
    return f;
  };
  std::vector<std::string> lines;
  for (size_t i = 0; i < count; ++i) {
    std::string line = field() + " " + field() + " " + field() + " [" +
                       field() + "] \"" + field() + "\" " + field() + " " +
                       field();
    if (rng() % 4 != 0) line += " \"" + field() + "\" \"" + field() + "\"";
    if (rng() % 4 == 0) line += " " + field();
    for (size_t k = rng() % 3; k > 0 && !line.empty(); --k) {
      const size_t at = rng() % line.size();
      if (rng() % 2 == 0) {
        line.erase(at, 1);
      } else {
        line.insert(at, pieces[rng() % pieces.size()]);
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

TEST(AccessLogFormatTest, AgreesWithThePlainReferenceOnRandomLines) {
  const std::vector<std::string> lines = RandomAccessLines(20000, 15);
  size_t parsed = 0;
  for (const bool combined : {false, true}) {
    const char* name = combined ? "combined" : "clf";
    for (size_t first = 0; first < lines.size(); first += kMaxBatchRows) {
      const std::vector<std::string> batch(
          lines.begin() + static_cast<std::ptrdiff_t>(first),
          lines.begin() + static_cast<std::ptrdiff_t>(
                              std::min(lines.size(), first + kMaxBatchRows)));
      const std::vector<Row> rows = Parse(name, kAllFields, batch);
      const std::vector<Row> bare = Parse(name, {}, batch);
      std::vector<std::optional<std::string>> want;
      for (size_t r = 0; r < batch.size(); ++r) {
        const LineOutcome outcome =
            testing::ReferenceAccess(batch[r], combined, kAllFields, &want);
        ASSERT_EQ(rows[r].outcome, outcome) << name << ": " << batch[r];
        ASSERT_EQ(bare[r].outcome, outcome) << name << ": " << batch[r];
        if (outcome != LineOutcome::kParsed) continue;
        ++parsed;
        std::map<std::string, std::string> present;
        for (size_t f = 0; f < kAllFields.size(); ++f) {
          if (want[f].has_value()) present[kAllFields[f]] = *want[f];
        }
        ASSERT_EQ(rows[r].fields, present) << name << ": " << batch[r];
      }
    }
  }
  // Both outcomes are well represented.
  EXPECT_GT(parsed, 3000u);
  EXPECT_LT(parsed, 35000u);
}

}  // namespace
}  // namespace mapr::runtime
