// The `syslog` log format (runtime/log_format_syslog.cc): RFC 5424, RFC 3164
// and rsyslog's file formats, the rules of docs/query-language.md ("syslog")
// and the malformed lines.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "tests/testing/field_batch.h"
#include "tests/testing/parsed_rows.h"

namespace mapr::runtime {
namespace {

using ::mapr::testing::TestFieldBatch;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

using Row = ::mapr::testing::ParsedRow;

const std::vector<std::string> kAll = {"pri",  "facility", "severity",
                                       "time", "host",     "app",
                                       "pid",  "msgid",    "msg"};

std::unique_ptr<LogFormatParser> MakeParser(
    const std::vector<std::string>& fields) {
  std::shared_ptr<const LogFormat> format = FindLogFormat("syslog");
  EXPECT_NE(format, nullptr);
  absl::StatusOr<std::unique_ptr<LogFormatParser>> parser =
      format->NewParser(fields);
  EXPECT_TRUE(parser.ok()) << parser.status();
  return *std::move(parser);
}

// Parses `lines` as one batch with `parser`. Checks the FieldBatch
// contract: no null empty value, and every value of a parsed line points
// into the line or into batch memory.
std::vector<Row> ParseWith(LogFormatParser& parser,
                           const std::vector<std::string>& fields,
                           const std::vector<std::string>& lines) {
  TestFieldBatch batch(fields.size());
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return ::mapr::testing::ParseRows(
      parser, batch, fields, views,
      {.check_pointers = true, .only_parsed_fields = true});
}

std::vector<Row> Parse(const std::vector<std::string>& fields,
                       const std::vector<std::string>& lines) {
  std::unique_ptr<LogFormatParser> parser = MakeParser(fields);
  return ParseWith(*parser, fields, lines);
}

Row ParseOne(const std::vector<std::string>& fields, const std::string& line) {
  return Parse(fields, {line})[0];
}

Row ParseAll(const std::string& line) { return ParseOne(kAll, line); }

// ------------------------------------------------------- RFC 5424, 6.5

TEST(SyslogLogFormatTest, Rfc5424Example1NoStructuredDataWithBom) {
  Row r = ParseAll(
      "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - "
      "\xEF\xBB\xBF'su root' failed for lonvick on /dev/pts/8");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      r.fields,
      UnorderedElementsAre(
          Pair("pri", "34"), Pair("facility", "auth"), Pair("severity", "crit"),
          Pair("time", "2003-10-11T22:14:15.003Z"),
          Pair("host", "mymachine.example.com"), Pair("app", "su"),
          Pair("msgid", "ID47"),
          Pair("msg", "'su root' failed for lonvick on /dev/pts/8")));
}

TEST(SyslogLogFormatTest, Rfc5424Example2NilValues) {
  Row r = ParseAll(
      "<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% "
      "It's time to make the do-nuts.");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields, UnorderedElementsAre(
                            Pair("pri", "165"), Pair("facility", "local4"),
                            Pair("severity", "notice"),
                            Pair("time", "2003-08-24T05:14:15.000003-07:00"),
                            Pair("host", "192.0.2.1"), Pair("app", "myproc"),
                            Pair("pid", "8710"),
                            Pair("msg", "%% It's time to make the do-nuts.")));
}

const std::vector<std::string> kSdFields = {
    "msg", "sd.exampleSDID@32473.iut", "sd.exampleSDID@32473.eventSource",
    "sd.exampleSDID@32473.eventID", "sd.examplePriority@32473.class"};

TEST(SyslogLogFormatTest, Rfc5424Example3StructuredDataAndBomMessage) {
  const std::string line =
      "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 "
      "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\" "
      "eventID=\"1011\"] \xEF\xBB\xBF"
      "An application event log entry...";
  Row r = ParseOne(kSdFields, line);
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(
                  Pair("msg", "An application event log entry..."),
                  Pair("sd.exampleSDID@32473.iut", "3"),
                  Pair("sd.exampleSDID@32473.eventSource", "Application"),
                  Pair("sd.exampleSDID@32473.eventID", "1011")));
  r = ParseAll(line);
  EXPECT_THAT(r.fields, UnorderedElementsAre(
                            Pair("pri", "165"), Pair("facility", "local4"),
                            Pair("severity", "notice"),
                            Pair("time", "2003-10-11T22:14:15.003Z"),
                            Pair("host", "mymachine.example.com"),
                            Pair("app", "evntslog"), Pair("msgid", "ID47"),
                            Pair("msg", "An application event log entry...")));
}

TEST(SyslogLogFormatTest, Rfc5424Example4OnlyStructuredDataHasNoMsg) {
  Row r = ParseOne(
      kSdFields,
      "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 "
      "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\" "
      "eventID=\"1011\"][examplePriority@32473 class=\"high\"]");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(
                  Pair("sd.exampleSDID@32473.iut", "3"),
                  Pair("sd.exampleSDID@32473.eventSource", "Application"),
                  Pair("sd.exampleSDID@32473.eventID", "1011"),
                  Pair("sd.examplePriority@32473.class", "high")));
}

TEST(SyslogLogFormatTest, Rfc5424AllNilValues) {
  Row r = ParseAll("<14>1 - - - - - -");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(Pair("pri", "14"), Pair("facility", "user"),
                                   Pair("severity", "info")));
  // An empty MSG after the space is present but empty; mapr trims a line's
  // trailing white space, so this only happens with a BOM.
  r = ParseOne({"msg"}, "<14>1 - - - - - - \xEF\xBB\xBF");
  EXPECT_THAT(r.fields, ElementsAre(Pair("msg", "")));
}

TEST(SyslogLogFormatTest, Rfc5424RsyslogProtocol23Lines) {
  // rsyslog's RSYSLOG_SyslogProtocol23Format of a message logger(1) sent to
  // /dev/log: two spaces before the text, which msg does not keep.
  Row r = ParseAll(
      "<38>1 2026-12-01T14:38:25.671883+00:00 vm sshd 28360 - -  Accepted "
      "publickey for root from 192.0.2.7 port 51122 ssh2");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      r.fields,
      UnorderedElementsAre(
          Pair("pri", "38"), Pair("facility", "auth"), Pair("severity", "info"),
          Pair("time", "2026-12-01T14:38:25.671883+00:00"), Pair("host", "vm"),
          Pair("app", "sshd"), Pair("pid", "28360"),
          Pair("msg",
               "Accepted publickey for root from 192.0.2.7 port 51122 "
               "ssh2")));
  // util-linux logger --rfc5424, as sent.
  r = ParseOne(
      {"app", "msgid", "sd.timeQuality.tzKnown", "sd.req@32473.path", "msg"},
      R"(<131>1 2026-12-01T14:38:44.755968+00:00 vm webapp - REQ )"
      R"([timeQuality tzKnown="1" isSynced="0"][req@32473 ms="12" )"
      R"(path="/api/a\"b"] request failed)");
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(Pair("app", "webapp"), Pair("msgid", "REQ"),
                                   Pair("sd.timeQuality.tzKnown", "1"),
                                   Pair("sd.req@32473.path", "/api/a\"b"),
                                   Pair("msg", "request failed")));
}

TEST(SyslogLogFormatTest, Rfc5424OnlyStripsALeadingBom) {
  EXPECT_THAT(ParseOne({"msg"}, "<14>1 - - - - - - a\xEF\xBB\xBF").fields,
              ElementsAre(Pair("msg", "a\xEF\xBB\xBF")));
  EXPECT_THAT(ParseOne({"msg"}, "<14>1 - - - - - - \xEF\xBB").fields,
              ElementsAre(Pair("msg", "\xEF\xBB")));
  // The spaces after a BOM are not kept either (a fuzzer finding).
  EXPECT_THAT(ParseOne({"msg"}, "<14>1 - - - - - - \xEF\xBB\xBF  text").fields,
              ElementsAre(Pair("msg", "text")));
}

// ------------------------------------------------- structured data

TEST(SyslogLogFormatTest, SdParamValuesAreUnescaped) {
  // RFC 5424 6.3.3: \" \\ \] stand for the character; any other backslash
  // is kept with the character after it.
  Row r = ParseOne({"sd.a.q", "sd.a.b", "sd.a.c", "sd.a.n", "sd.a.e"},
                   R"(<13>1 - - - - - [a q="say \"hi\"" b="C:\\dir\\" )"
                   R"(c="[x\]" n="a\nb\x" e=""] m)");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields, UnorderedElementsAre(
                            Pair("sd.a.q", R"(say "hi")"),
                            Pair("sd.a.b", R"(C:\dir\)"), Pair("sd.a.c", "[x]"),
                            Pair("sd.a.n", R"(a\nb\x)"), Pair("sd.a.e", "")));
}

TEST(SyslogLogFormatTest, SdUnescapedCloseBracketInsideQuotesIsKept) {
  Row r = ParseOne({"sd.a.k", "msg"}, R"(<13>1 - - - - - [a k="x]y"] m)");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(Pair("sd.a.k", "x]y"), Pair("msg", "m")));
}

TEST(SyslogLogFormatTest, SdLaterDuplicateWins) {
  Row r = ParseOne({"sd.a.k", "sd.b.k"},
                   R"(<13>1 - - - - - [a k="1" k="2"][b k="3"][a k="4"])");
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(Pair("sd.a.k", "4"), Pair("sd.b.k", "3")));
  // The later value wins even when only the earlier one was escaped.
  r = ParseOne({"sd.a.k"}, R"(<13>1 - - - - - [a k="\"" k="plain"])");
  EXPECT_THAT(r.fields, ElementsAre(Pair("sd.a.k", "plain")));
}

TEST(SyslogLogFormatTest, SdIdsAndNamesWithDotsMatchTheWholeKey) {
  // `sd.origin.x.ip` is SD-ID `origin.x` with param `ip`, or SD-ID `origin`
  // with param `x.ip`: both spellings of the line match it.
  Row r = ParseOne({"sd.origin.x.ip", "sd.origin.ip"},
                   R"(<13>1 - - - - - [origin.x ip="1"][origin ip="2"])");
  EXPECT_THAT(r.fields, UnorderedElementsAre(Pair("sd.origin.x.ip", "1"),
                                             Pair("sd.origin.ip", "2")));
  r = ParseOne({"sd.origin.x.ip"}, R"(<13>1 - - - - - [origin x.ip="3"])");
  EXPECT_THAT(r.fields, ElementsAre(Pair("sd.origin.x.ip", "3")));
}

TEST(SyslogLogFormatTest, SdElementWithoutParams) {
  Row r = ParseOne({"sd.b.k", "msg"},
                   R"(<13>1 - - - - - [a][b k="v"][timeQuality] hello)");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(Pair("sd.b.k", "v"), Pair("msg", "hello")));
}

TEST(SyslogLogFormatTest, ASpaceEndsTheStructuredData) {
  // RFC 5424 6.3.5 example 3 calls `[a ...] [b ...]` invalid structured
  // data; as a whole message it is valid: one SD-ELEMENT, then the MSG.
  Row r = ParseOne({"sd.a.k", "sd.b.k", "msg"},
                   R"(<13>1 - - - - - [a k="v"] [b k="w"])");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields, UnorderedElementsAre(Pair("sd.a.k", "v"),
                                             Pair("msg", R"([b k="w"])")));
}

TEST(SyslogLogFormatTest, SdFieldsAreMissingOnOtherLines) {
  std::vector<Row> rows =
      Parse({"sd.a.k", "sd.", "sd.a", "a.k"},
            {R"(<13>1 - - - - - [a k="v"])", R"(<13>1 - - - - - [b k="v"])",
             "<13>Oct 11 22:14:15 host app: [a k=\"v\"]"});
  EXPECT_THAT(rows[0].fields, ElementsAre(Pair("sd.a.k", "v")));
  EXPECT_THAT(rows[1].fields, IsEmpty());
  EXPECT_THAT(rows[2].fields, IsEmpty());
  for (const Row& r : rows) EXPECT_EQ(r.outcome, LineOutcome::kParsed);
}

// ------------------------------------------------- RFC 3164, 5.4

TEST(SyslogLogFormatTest, Rfc3164Example1) {
  Row r = ParseAll(
      "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on "
      "/dev/pts/8");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(
                  Pair("pri", "34"), Pair("facility", "auth"),
                  Pair("severity", "crit"), Pair("time", "Oct 11 22:14:15"),
                  Pair("host", "mymachine"), Pair("app", "su"),
                  Pair("msg", "'su root' failed for lonvick on /dev/pts/8")));
}

TEST(SyslogLogFormatTest, Rfc3164Example2AsRelayedAndAsSent) {
  Row r = ParseAll("<13>Feb  5 17:32:18 10.0.0.99 Use the BFG!");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(
                  Pair("pri", "13"), Pair("facility", "user"),
                  Pair("severity", "notice"), Pair("time", "Feb  5 17:32:18"),
                  Pair("host", "10.0.0.99"), Pair("msg", "Use the BFG!")));
  // As the device sent it: no PRI and no timestamp is not syslog.
  EXPECT_EQ(ParseAll("Use the BFG!").outcome, LineOutcome::kMalformed);
}

TEST(SyslogLogFormatTest, Rfc3164Example3TimestampWithZoneAndYear) {
  // "CST 1987" is not part of a BSD timestamp: CST is read as the
  // HOSTNAME and "1987" starts the content, which has no TAG.
  const std::string content =
      "%% It's time to make the do-nuts.  %%  Ingredients: Mix=OK, Jelly=OK # "
      "Devices: Mixer=OK, Jelly_Injector=OK, Frier=OK # Transport: "
      "Conveyer1=OK, Conveyer2=OK # %%";
  Row r = ParseAll("<165>Aug 24 05:34:00 CST 1987 mymachine myproc[10]: " +
                   content);
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(
                  Pair("pri", "165"), Pair("facility", "local4"),
                  Pair("severity", "notice"), Pair("time", "Aug 24 05:34:00"),
                  Pair("host", "CST"),
                  Pair("msg", "1987 mymachine myproc[10]: " + content)));
}

TEST(SyslogLogFormatTest, Rfc3164Example4PriWithoutTimestampIsAllContent) {
  const std::string content =
      "1990 Oct 22 10:52:01 TZ-6 scapegoat.dmz.example.org 10.1.2.3 sched[0]: "
      "That's All Folks!";
  Row r = ParseAll("<0>" + content);
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields, UnorderedElementsAre(
                            Pair("pri", "0"), Pair("facility", "kern"),
                            Pair("severity", "emerg"), Pair("msg", content)));
  // The same message as a relay passes it on.
  r = ParseAll("<0>Oct 22 10:52:12 scapegoat " + content);
  EXPECT_THAT(r.fields,
              UnorderedElementsAre(
                  Pair("pri", "0"), Pair("facility", "kern"),
                  Pair("severity", "emerg"), Pair("time", "Oct 22 10:52:12"),
                  Pair("host", "scapegoat"), Pair("msg", content)));
}

// ------------------------------------------------- files and TAGs

TEST(SyslogLogFormatTest, VarLogSyslogLinesWithoutPri) {
  // Long lines are split across literals on purpose.
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  std::vector<Row> rows = Parse(
      kAll,
      {"Dec  1 14:00:00 myhost sshd[123]: Accepted publickey for root from "
       "192.0.2.7 port 51122 ssh2",
       "Dec 11 14:00:01 myhost CRON[4242]: (root) CMD (command -v "
       "debian-sa1 > /dev/null && debian-sa1 1 1)",
       "Jan  3 00:00:02 myhost kernel: [    0.000000] Linux version 6.1.0",
       "2026-12-01T14:00:00.123456+00:00 myhost app[1]: msg",
       "2026-12-01T14:00:00.123456+00:00 myhost systemd[1]: Started "
       "session-4.scope - Session 4 of User root."});
  // NOLINTEND(bugprone-suspicious-missing-comma)
  for (const Row& r : rows) EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[0].fields,
              UnorderedElementsAre(
                  Pair("time", "Dec  1 14:00:00"), Pair("host", "myhost"),
                  Pair("app", "sshd"), Pair("pid", "123"),
                  Pair("msg",
                       "Accepted publickey for root from 192.0.2.7 port 51122 "
                       "ssh2")));
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(
                  Pair("time", "Dec 11 14:00:01"), Pair("host", "myhost"),
                  Pair("app", "CRON"), Pair("pid", "4242"),
                  Pair("msg",
                       "(root) CMD (command -v debian-sa1 > /dev/null && "
                       "debian-sa1 1 1)")));
  EXPECT_THAT(
      rows[2].fields,
      UnorderedElementsAre(Pair("time", "Jan  3 00:00:02"),
                           Pair("host", "myhost"), Pair("app", "kernel"),
                           Pair("msg", "[    0.000000] Linux version 6.1.0")));
  EXPECT_THAT(
      rows[3].fields,
      UnorderedElementsAre(Pair("time", "2026-12-01T14:00:00.123456+00:00"),
                           Pair("host", "myhost"), Pair("app", "app"),
                           Pair("pid", "1"), Pair("msg", "msg")));
  EXPECT_EQ(rows[4].fields["app"], "systemd");
}

TEST(SyslogLogFormatTest, TagForms) {
  const std::vector<std::string> f = {"host", "app", "pid", "msg"};
  const std::string ts = "Oct 11 22:14:15 h ";
  EXPECT_THAT(ParseOne(f, ts + "app[42]: m").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("app", "app"),
                                   Pair("pid", "42"), Pair("msg", "m")));
  EXPECT_THAT(ParseOne(f, ts + "app: m").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("app", "app"),
                                   Pair("msg", "m")));
  // No space after the colon, or several: msg never starts with one.
  EXPECT_THAT(ParseOne(f, ts + "app[42]:m").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("app", "app"),
                                   Pair("pid", "42"), Pair("msg", "m")));
  EXPECT_THAT(ParseOne(f, ts + "app:   m ").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("app", "app"),
                                   Pair("msg", "m ")));
  // A TAG with nothing after it has an empty msg.
  EXPECT_THAT(ParseOne(f, ts + "app:").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("app", "app"),
                                   Pair("msg", "")));
  // Slashes stay in the name; a bracket that does not end the TAG is no pid.
  EXPECT_THAT(
      ParseOne(f, ts + "postfix/smtpd[9]: m").fields,
      UnorderedElementsAre(Pair("host", "h"), Pair("app", "postfix/smtpd"),
                           Pair("pid", "9"), Pair("msg", "m")));
  EXPECT_THAT(ParseOne(f, ts + "app[x]y: m").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("app", "app[x]y"),
                                   Pair("msg", "m")));
  EXPECT_THAT(ParseOne(f, ts + "[7]: m").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("app", ""),
                                   Pair("pid", "7"), Pair("msg", "m")));
  // No colon-terminated first word: no TAG, msg is all the rest.
  EXPECT_THAT(
      ParseOne(f, ts + "app[42] m: n").fields,
      UnorderedElementsAre(Pair("host", "h"), Pair("msg", "app[42] m: n")));
  EXPECT_THAT(ParseOne(f, ts + ": m").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("msg", ": m")));
  EXPECT_THAT(
      ParseOne(f, ts + "free text").fields,
      UnorderedElementsAre(Pair("host", "h"), Pair("msg", "free text")));
}

TEST(SyslogLogFormatTest, HostIsMissingWhenTheTagFollowsTheTimestamp) {
  // What a program sends to /dev/log: no HOSTNAME.
  const std::vector<std::string> f = {"host", "app", "pid", "msg"};
  EXPECT_THAT(
      ParseOne(f, "<13>Jun 13 16:33:35 haproxy[73411]: Proxy started.").fields,
      UnorderedElementsAre(Pair("app", "haproxy"), Pair("pid", "73411"),
                           Pair("msg", "Proxy started.")));
  EXPECT_THAT(ParseOne(f, "<13>Jun 13 16:33:35 logger: hi").fields,
              UnorderedElementsAre(Pair("app", "logger"), Pair("msg", "hi")));
  // A host and nothing else; then nothing at all.
  EXPECT_THAT(ParseOne(f, "Jun 13 16:33:35 h").fields,
              UnorderedElementsAre(Pair("host", "h"), Pair("msg", "")));
  EXPECT_THAT(ParseOne(f, "Jun 13 16:33:35").fields,
              UnorderedElementsAre(Pair("msg", "")));
}

TEST(SyslogLogFormatTest, TimestampForms) {
  const std::vector<std::string> f = {"time", "host"};
  struct Case {
    std::string line, time;
  };
  for (const Case& c : std::vector<Case>{
           {"Dec  1 14:00:00 h", "Dec  1 14:00:00"},
           {"Dec 01 14:00:00 h", "Dec 01 14:00:00"},
           {"Dec 1 14:00:00 h", "Dec 1 14:00:00"},
           {"DEC  1 14:00:00 h", "DEC  1 14:00:00"},
           {"dec  1 14:00:00 h", "dec  1 14:00:00"},
           {"Dec  1 14:00:00.123 h", "Dec  1 14:00:00.123"},
           {"Dec  1 14:00:00   h", "Dec  1 14:00:00"},
           {"2026-12-01T14:00:00Z h", "2026-12-01T14:00:00Z"},
           {"2026-12-01T14:00:00 h", "2026-12-01T14:00:00"},
           {"<13>2003-08-24T05:14:15-07:00 h", "2003-08-24T05:14:15-07:00"},
       }) {
    Row r = ParseOne(f, c.line);
    EXPECT_EQ(r.outcome, LineOutcome::kParsed) << c.line;
    EXPECT_THAT(r.fields,
                UnorderedElementsAre(Pair("time", c.time), Pair("host", "h")))
        << c.line;
  }
}

TEST(SyslogLogFormatTest, PriValues) {
  // Every PRI gives facility pri/8 and severity pri%8, by these names.
  const char* const facilities[] = {
      "kern",   "user",   "mail",   "daemon", "auth",     "syslog",
      "lpr",    "news",   "uucp",   "cron",   "authpriv", "ftp",
      "ntp",    "audit",  "alert",  "clock",  "local0",   "local1",
      "local2", "local3", "local4", "local5", "local6",   "local7"};
  const char* const severities[] = {"emerg",   "alert",  "crit", "err",
                                    "warning", "notice", "info", "debug"};
  std::vector<std::string> lines;
  for (int f = 0; f < 24; ++f) {
    for (int s = 0; s < 8; ++s) {
      lines.push_back("<" + std::to_string(f * 8 + s) +
                      ">Oct 11 22:14:15 h a: m");
    }
  }
  std::vector<Row> rows = Parse({"pri", "facility", "severity"}, lines);
  ASSERT_EQ(rows.size(), 192u);
  for (int pri = 0; pri < 192; ++pri) {
    EXPECT_EQ(rows[pri].outcome, LineOutcome::kParsed);
    EXPECT_THAT(rows[pri].fields,
                UnorderedElementsAre(Pair("pri", std::to_string(pri)),
                                     Pair("facility", facilities[pri / 8]),
                                     Pair("severity", severities[pri % 8])));
  }
  // Leading zeros are tolerated and dropped.
  EXPECT_THAT(
      ParseOne({"pri", "severity"}, "<034>Oct 11 22:14:15 h a: m").fields,
      UnorderedElementsAre(Pair("pri", "34"), Pair("severity", "crit")));
  EXPECT_THAT(ParseOne({"pri"}, "<00>Oct 11 22:14:15 h a: m").fields,
              ElementsAre(Pair("pri", "0")));
}

TEST(SyslogLogFormatTest, NoPriMeansNoPriFacilitySeverity) {
  Row r = ParseOne({"pri", "facility", "severity", "app"},
                   "Oct 11 22:14:15 h a: m");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(r.fields, ElementsAre(Pair("app", "a")));
}

// ------------------------------------------------- malformed lines

const std::vector<std::string> kMalformed = {
    "",
    "garbage",
    "Use the BFG!",
    "<999>Oct 11 22:14:15 h a: m",
    "<192>Oct 11 22:14:15 h a: m",
    "<1000>Oct 11 22:14:15 h a: m",
    "<>Oct 11 22:14:15 h a: m",
    "<ab>Oct 11 22:14:15 h a: m",
    "<-1>Oct 11 22:14:15 h a: m",
    "<34",
    "<",
    "<34 Oct 11 22:14:15 h a: m",
    // No PRI and a timestamp that is not one.
    "Foo 11 22:14:15 h a: m",
    "Oct 11 22:14 h a: m",
    "Oct 11 22:14:15x h a: m",
    "Oct 111 22:14:15 h a: m",
    "Oct  1  22:14:15 h a: m",
    "2026-12-01 14:00:00 h a: m",
    "2026-12-01T14:00 h a: m",
    // RFC 5424 headers cut short, or with an empty field.
    "<34>1 ",
    "<34>1 2003-10-11T22:14:15.003Z",
    "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47",
    "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 ",
    "<34>1 2003-10-11T22:14:15.003Z  mymachine.example.com su - ID47 - m",
    "<34>1 - - - - -",
    // Structured data that is not.
    "<34>1 - - - - - x",
    "<34>1 - - - - - -x",
    "<34>1 - - - - - [",
    "<34>1 - - - - - [a",
    "<34>1 - - - - - []",
    "<34>1 - - - - - [ a]",
    "<34>1 - - - - - [a ]",
    "<34>1 - - - - - [a k]",
    "<34>1 - - - - - [a k=]",
    "<34>1 - - - - - [a k=v]",
    "<34>1 - - - - - [a k=\"v]",
    "<34>1 - - - - - [a k=\"v\\\"]",
    "<34>1 - - - - - [a k=\"v\"",
    "<34>1 - - - - - [a k=\"v\"x]",
    "<34>1 - - - - - [a k=\"v\"  j=\"w\"]",
    "<34>1 - - - - - [a k=\"v\"]x",
    "<34>1 - - - - - [a=b]",
    "<34>1 - - - - - [a \"k\"=\"v\"]",
    "<34>1 - - - - - [a\x01 k=\"v\"]",
};

TEST(SyslogLogFormatTest, MalformedLines) {
  for (const std::vector<std::string>& fields :
       {std::vector<std::string>{}, kAll, kSdFields,
        std::vector<std::string>{"sd.a.k"}}) {
    std::vector<Row> rows = Parse(fields, kMalformed);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].outcome, LineOutcome::kMalformed)
          << "line " << i << ": " << kMalformed[i];
    }
  }
}

TEST(SyslogLogFormatTest, OutcomeDoesNotDependOnTheRequestedFields) {
  std::vector<std::string> lines = kMalformed;
  for (const std::string& l : {
           std::string("<34>1 - - - - - [a k=\"v\"] m"),
           std::string("<34>1 - - - - - -"),
           std::string("<34>Oct 11 22:14:15 h a: m"),
           std::string("<34>anything"),
           std::string("<34>  a: b"),
           std::string("<34>"),
           std::string("<34>1x"),
           std::string("<34>1"),
           std::string("<34>1000 - - - - - -"),
           std::string("Oct 11 22:14:15 h a: m"),
           std::string("2026-12-01T14:00:00Z h a: m"),
       }) {
    lines.push_back(l);
  }
  const std::vector<Row> none = Parse({}, lines);
  for (const std::vector<std::string>& fields :
       {kAll, kSdFields, std::vector<std::string>{"sd.a.k", "msg"},
        std::vector<std::string>{"facility"}}) {
    std::vector<Row> rows = Parse(fields, lines);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].outcome, none[i].outcome) << lines[i];
    }
  }
}

TEST(SyslogLogFormatTest, ShortPriLinesAreRfc3164Content) {
  // A VERSION needs a space after it and at most 3 digits; otherwise the
  // rest after the PRI is RFC 3164 content.
  std::vector<Row> rows = Parse(
      {"pri", "time", "msg"}, {"<34>", "<34>1", "<34>1x",
                               "<34>1000 - - - - - -", "<34>0 a", "<34>  a b"});
  ASSERT_EQ(rows.size(), 6u);
  for (const Row& r : rows) EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[0].fields,
              UnorderedElementsAre(Pair("pri", "34"), Pair("msg", "")));
  EXPECT_THAT(rows[1].fields,
              UnorderedElementsAre(Pair("pri", "34"), Pair("msg", "1")));
  EXPECT_THAT(rows[2].fields,
              UnorderedElementsAre(Pair("pri", "34"), Pair("msg", "1x")));
  EXPECT_THAT(
      rows[3].fields,
      UnorderedElementsAre(Pair("pri", "34"), Pair("msg", "1000 - - - - - -")));
  EXPECT_THAT(rows[4].fields,
              UnorderedElementsAre(Pair("pri", "34"), Pair("msg", "0 a")));
  EXPECT_THAT(rows[5].fields,
              UnorderedElementsAre(Pair("pri", "34"), Pair("msg", "a b")));
}

// ------------------------------------------------- fields and batches

TEST(SyslogLogFormatTest, DuplicateAndUnknownFields) {
  Row r = ParseOne({"app", "nope", "app", "$app", "sd.a.k", "sd.a.k"},
                   R"(<13>1 - - myapp - - [a k="\"v"])");
  EXPECT_EQ(r.outcome, LineOutcome::kParsed);
  // Columns are reported by name, so both copies map to one entry; check
  // them through a batch instead.
  std::unique_ptr<LogFormatParser> parser =
      MakeParser({"app", "nope", "app", "$app", "sd.a.k", "sd.a.k"});
  TestFieldBatch batch(6);
  batch.Clear();
  std::string line = R"(<13>1 - - myapp - - [a k="\"v"])";
  std::vector<std::string_view> views = {line};
  LineOutcome outcome;
  parser->ParseBatch(views, batch, &outcome);
  EXPECT_EQ(outcome, LineOutcome::kParsed);
  EXPECT_EQ(batch.column(0)[0], "myapp");
  EXPECT_EQ(batch.column(1)[0].data(), nullptr);
  EXPECT_EQ(batch.column(2)[0], "myapp");
  EXPECT_EQ(batch.column(3)[0].data(), nullptr);
  EXPECT_EQ(batch.column(4)[0], "\"v");
  EXPECT_EQ(batch.column(5)[0], "\"v");
  EXPECT_THAT(r.fields, UnorderedElementsAre(Pair("app", "myapp"),
                                             Pair("sd.a.k", "\"v")));
}

TEST(SyslogLogFormatTest, ParserIsReusedAcrossBatches) {
  const std::vector<std::string> fields = {"severity", "sd.a.k", "app"};
  std::unique_ptr<LogFormatParser> parser = MakeParser(fields);
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<std::string> lines;
    for (size_t i = 0; i < kMaxBatchRows; ++i) {
      const int pri = static_cast<int>((i + batch) % 192);
      lines.push_back("<" + std::to_string(pri) + ">1 - - app" +
                      std::to_string(i) + " - - [a k=\"\\\\" +
                      std::to_string(i) + "\"]");
    }
    std::vector<Row> rows = ParseWith(*parser, fields, lines);
    ASSERT_EQ(rows.size(), kMaxBatchRows);
    for (size_t i = 0; i < rows.size(); ++i) {
      const char* const sev[] = {"emerg",   "alert",  "crit", "err",
                                 "warning", "notice", "info", "debug"};
      EXPECT_THAT(
          rows[i].fields,
          UnorderedElementsAre(Pair("severity", sev[((i + batch) % 192) % 8]),
                               Pair("sd.a.k", "\\" + std::to_string(i)),
                               Pair("app", "app" + std::to_string(i))));
    }
  }
}

TEST(SyslogLogFormatTest, DescribesItself) {
  std::shared_ptr<const LogFormat> format = FindLogFormat("SYSLOG");
  ASSERT_NE(format, nullptr);
  EXPECT_EQ(format->name(), "syslog");
  EXPECT_FALSE(format->description().empty());
  // Only barewords: every $variable but the common ones is unknown.
  EXPECT_THAT(format->variables(), ::testing::Optional(IsEmpty()));
}

}  // namespace
}  // namespace mapr::runtime
