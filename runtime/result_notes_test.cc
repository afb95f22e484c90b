#include "runtime/result_notes.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/result.h"

namespace mapr::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The notes' texts.
std::vector<std::string> Texts(const ResultFacts& f) {
  std::vector<std::string> out;
  for (const ResultNote& n : ResultNotes(f)) out.push_back(n.text);
  return out;
}

ResultFacts Facts(LineCounters stats) {
  ResultFacts f;
  f.stats = stats;
  f.log_format = "default";
  f.max_line_bytes = size_t{1} << 20;
  return f;
}

TEST(ResultNotesTest, AHealthyRunHasNone) {
  LineCounters s;
  s.lines_read = 10;
  s.lines_table_mismatch = 3;
  s.lines_aggregated = 7;
  ResultFacts f = Facts(s);
  f.table = "STATS";
  f.fields = {{"x", 7, 0, ""}};
  EXPECT_THAT(Texts(f), IsEmpty());
}

TEST(ResultNotesTest, NoInputAtAllIsSaid) {
  const std::vector<ResultNote> notes = ResultNotes(Facts(LineCounters()));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].code, "empty_input");
  EXPECT_EQ(notes[0].text,
            "the input had no lines, so the result is empty; is it the file "
            "you meant?");
}

TEST(ResultNotesTest, ValuesThatAreNotNumbersAreNamedPerField) {
  LineCounters s;
  s.lines_read = 10;
  s.lines_aggregated = 10;
  ResultFacts f = Facts(s);
  f.log_format = "logfmt";
  f.fields = {
      {"service", 10, 9, "18ms"}, {"status", 10, 0, ""}, {"bytes", 10, 1, "-"}};
  const std::vector<ResultNote> notes = ResultNotes(f);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].code, "values_not_numeric");
  EXPECT_EQ(notes[0].text,
            "9 values of field 'service' were not a number (such as '18ms') "
            "and counted as missing in its numeric aggregates; read durations "
            "and sizes with duration() and bytes() in a set");
  EXPECT_EQ(notes[1].text,
            "1 value of field 'bytes' was not a number (such as '-') and "
            "counted as missing in its numeric aggregates; read durations and "
            "sizes with duration() and bytes() in a set");
}

TEST(ResultNotesTest, AShareOfUnparsableLinesIsNamed) {
  // The case: 500 access lines read, 2000 ssh lines dropped.
  LineCounters s;
  s.lines_read = 2500;
  s.lines_malformed = 2000;
  s.lines_aggregated = 500;
  ResultFacts f = Facts(s);
  f.log_format = "combined";
  f.inputs_without_parsed_lines = {"OpenSSH_2k.log"};
  EXPECT_THAT(
      Texts(f),
      ElementsAre("2000 of 2500 lines (80.0 %) could not be parsed by log "
                  "format combined and are not in the result; are other "
                  "logs mixed in?",
                  "no line of OpenSSH_2k.log could be parsed by log format "
                  "combined; is that its format?"));
  // 1 % exactly is tolerated; just over it is not. Unmatched lines count.
  s = LineCounters();
  s.lines_read = 1000;
  s.lines_unmatched = 10;
  s.lines_aggregated = 990;
  EXPECT_THAT(Texts(Facts(s)), IsEmpty());
  s.lines_read = 1001;
  s.lines_unmatched = 11;
  EXPECT_THAT(Texts(Facts(s)),
              ElementsAre(testing::StartsWith("11 of 1001 lines (1.1 %)")));
  // Lines of another table or ignored by the format are not unparsable.
  s = LineCounters();
  s.lines_read = 100;
  s.lines_ignored = 50;
  s.lines_table_mismatch = 40;
  s.lines_aggregated = 10;
  EXPECT_THAT(Texts(Facts(s)), IsEmpty());
}

TEST(ResultNotesTest, UnreadableTimes) {
  LineCounters s;
  s.lines_read = 10;
  s.lines_aggregated = 10;
  s.values_unparsed = 1;
  EXPECT_THAT(Texts(Facts(s)),
              testing::ElementsAre(
                  "1 value was not a time, number, duration, size or IP "
                  "address that time(), bucket(), window(), duration(), "
                  "bytes(), cidr() or ip_in() could read, or not numbers for "
                  "+ - * / (or a "
                  "divisor of 0), and stayed missing; check the layout "
                  "(time(x, '%Y-%m-%d ...')), the unit or the operands"));
  s.values_unparsed = 3;
  EXPECT_THAT(Texts(Facts(s)),
              testing::ElementsAre(testing::StartsWith("3 values were not")));
}

TEST(ResultNotesTest, EveryLineOfAnotherTable) {
  LineCounters s;
  s.lines_read = 6117;
  s.lines_table_mismatch = 6117;
  ResultFacts f = Facts(s);
  f.table = "DPKG";
  f.fields = {{"x", 0, 0, ""}};  // No line parsed: no field note on top.
  EXPECT_THAT(Texts(f),
              ElementsAre("6117 of 6117 lines are not DTail "
                          "`|MAPREDUCE:DPKG|` lines; drop `from` for plain "
                          "logs"));
  f.table = "*";
  EXPECT_THAT(Texts(f),
              ElementsAre("6117 of 6117 lines have no DTail "
                          "`|MAPREDUCE:NAME|` table; drop `from *` for "
                          "plain logs"));
}

TEST(ResultNotesTest, NamesTheRuleThatRejectedTheMostLines) {
  LineCounters s;
  s.lines_read = 12;
  s.lines_too_long = 2;
  s.lines_ignored = 6;
  s.lines_malformed = 3;
  s.lines_filtered = 1;  // Never named, however many.
  EXPECT_THAT(
      Texts(Facts(s)),
      ElementsAre("2 lines were longer than 1M and skipped; raise "
                  "--max-line-bytes to read them",
                  "6 of 10 lines are not DTail INFO lines with a MAPREDUCE: "
                  "field, which the default log format reads; name the "
                  "format of other logs with `logformat` (json, logfmt, "
                  "combined, syslog, fields, regex '...', ...; see mapr "
                  "--help)"));
  s.lines_ignored = 0;
  ResultFacts kv = Facts(s);
  kv.log_format = "generickv";
  EXPECT_THAT(Texts(kv),
              ElementsAre(::testing::StartsWith("2 lines were longer"),
                          "3 of 10 lines could not be parsed by log format "
                          "generickv; is that the logs' format?"));
}

TEST(ResultNotesTest, WhereAndValuelessLines) {
  LineCounters s;
  s.lines_read = 5;
  s.lines_filtered = 5;
  EXPECT_THAT(Texts(Facts(s)), IsEmpty());  // An answer: nothing matched.
  s.lines_filtered = 1;
  s.lines_without_value = 4;
  EXPECT_THAT(Texts(Facts(s)),
              ElementsAre("4 of 5 lines gave no select item a value (fields "
                          "missing or not numeric)"));
}

TEST(ResultNotesTest, FieldsNeverFound) {
  LineCounters s;
  s.lines_read = 3;
  s.lines_aggregated = 3;
  ResultFacts f = Facts(s);
  f.log_format = "generickv";
  f.fields = {{"a", 3, 0, ""}, {"hots", 0, 0, ""}, {"b", 1, 0, ""}};
  EXPECT_THAT(Texts(f),
              ElementsAre("field 'hots' was not found in any of the 3 parsed "
                          "lines (log format generickv); check its name and "
                          "the log format"));
  s.lines_read = s.lines_aggregated = 1;
  f.stats = s;
  EXPECT_THAT(Texts(f),
              ElementsAre(::testing::HasSubstr("any of the 1 parsed line ")));
}

TEST(ResultNotesTest, NulBytesAndOneTooLongLine) {
  LineCounters s;
  s.lines_read = 4;
  s.lines_too_long = 1;
  s.lines_aggregated = 3;
  ResultFacts f = Facts(s);
  f.lines_with_nul = 1;
  f.max_line_bytes = 4096;
  EXPECT_THAT(Texts(f),
              ElementsAre("1 line was longer than 4K and skipped; raise "
                          "--max-line-bytes to read them",
                          "1 line contains NUL bytes; is the input a binary "
                          "file?"));
}

TEST(FormatByteSizeTest, UsesTheLargestWholeUnit) {
  EXPECT_EQ(FormatByteSize(size_t{1} << 20), "1M");
  EXPECT_EQ(FormatByteSize(size_t{3} << 30), "3G");
  EXPECT_EQ(FormatByteSize(1536), "1536");
  EXPECT_EQ(FormatByteSize(2048), "2K");
  EXPECT_EQ(FormatByteSize(100), "100");
}

}  // namespace
}  // namespace mapr::runtime
