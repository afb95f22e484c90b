// Bad-input catalogue: broken and hostile log lines (README.md, "Lines").
//
// Lines are never errors: every case checks the exact result rows and the
// exact counters that account for each line (mapr/result.h, LineCounters).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/options.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::Stats;
using ::mapr::testing::StatusIs;
using ::mapr::testing::TestOptions;
using ::testing::Eq;

// One row per distinct line, with its length: shows exactly which bytes
// each line kept.
constexpr std::string_view kLines =
    "select $line,count($line),len($line) group by $line logformat generic";

absl::StatusOr<Aggregator> Make(
    std::string_view query, const AggregatorOptions& options = TestOptions()) {
  absl::StatusOr<Query> q = Query::Compile(query);
  if (!q.ok()) return q.status();
  return Aggregator::Create(*q, options);
}

// Pushes `chunks` with PushBytes, finishes and returns the result.
absl::StatusOr<ResultTable> RunBytes(
    std::string_view query, const std::vector<std::string_view>& chunks,
    const AggregatorOptions& options = TestOptions()) {
  absl::StatusOr<Aggregator> agg = Make(query, options);
  if (!agg.ok()) return agg.status();
  for (std::string_view chunk : chunks) {
    if (absl::Status s = agg->PushBytes(chunk); !s.ok()) return s;
  }
  if (absl::Status s = agg->FinishInput(); !s.ok()) return s;
  return agg->TakeResult();
}

// Pushes `lines` with PushLines, finishes and returns the result.
absl::StatusOr<ResultTable> RunLines(
    std::string_view query, const std::vector<std::string_view>& lines,
    const AggregatorOptions& options = TestOptions()) {
  absl::StatusOr<Aggregator> agg = Make(query, options);
  if (!agg.ok()) return agg.status();
  if (absl::Status s = agg->PushLines(lines); !s.ok()) return s;
  if (absl::Status s = agg->FinishInput(); !s.ok()) return s;
  return agg->TakeResult();
}

LineCounters Counters(uint64_t read, uint64_t aggregated) {
  LineCounters c;
  c.lines_read = read;
  c.lines_aggregated = aggregated;
  return c;
}

// ------------------------------------------------------------- line endings

TEST(BadLinesTest, LastLineWithoutNewlineIsKeptByFinishInput) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kLines));
  ASSERT_OK(agg.PushBytes("one\ntw"));
  ASSERT_OK(agg.PushBytes("o\nthree"));
  // Before the end of input, "three" may still be continued.
  ASSERT_OK_AND_ASSIGN(ResultTable before, agg.Snapshot());
  EXPECT_EQ(before.ToCsv(),
            "$line,count($line),len($line)\n"
            "one,1,3.000000\n"
            "two,1,3.000000\n");
  EXPECT_EQ(agg.stats(), Counters(2, 2));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line),len($line)\n"
            "one,1,3.000000\n"
            "three,1,5.000000\n"
            "two,1,3.000000\n");
  EXPECT_EQ(r.stats(), Counters(3, 3));
}

TEST(BadLinesTest, LastLineWithoutNewlineIsKeptByEndSource) {
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kLines));
  ASSERT_OK(agg.PushBytes("a\nb", /*source=*/1));
  ASSERT_OK(agg.PushBytes("c", /*source=*/2));
  ASSERT_OK(agg.EndSource(1));
  // Source 2's "c" is not finished by source 1's end, nor joined with "b".
  EXPECT_EQ(agg.stats(), Counters(2, 2));
  ASSERT_OK(agg.PushBytes("d\n", /*source=*/2));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line),len($line)\n"
            "a,1,1.000000\n"
            "b,1,1.000000\n"
            "cd,1,2.000000\n");
}

TEST(BadLinesTest, CrlfEndingsAreTrimmed) {
  ASSERT_OK_AND_ASSIGN(ResultTable r,
                       RunBytes(kLines, {"a\r\nbb\r", "\ncc\r\n\r\nlast\r"}));
  // The blank line ("\r\n") is a line too: the empty line (generic counts
  // it, docs/query-language.md, "generic").
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line),len($line)\n"
            ",1,0.000000\n"
            "a,1,1.000000\n"
            "bb,1,2.000000\n"
            "cc,1,2.000000\n"
            "last,1,4.000000\n");
  EXPECT_EQ(r.stats(), Counters(5, 5));
  // PushLines trims a "\r" the host left on its lines in the same way.
  ASSERT_OK_AND_ASSIGN(ResultTable lines, RunLines(kLines, {"a\r", "a"}));
  EXPECT_EQ(lines.ToCsv(), "$line,count($line),len($line)\na,2,1.000000\n");
}

TEST(BadLinesTest, LoneCrIsNotALineEnding) {
  // Only '\n' ends a line: "x\ry\rz" (old Mac endings) is one line, whose
  // inner '\r's are kept; a '\r' at either end is trimmed as whitespace.
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunBytes(kLines, {"x\ry\rz\n\ra\r\n\r"}));
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line),len($line)\n"
            ",1,0.000000\n"
            "a,1,1.000000\n"
            "\"x\ry\rz\",1,5.000000\n");
  EXPECT_EQ(r.stats(), Counters(3, 3));
}

TEST(BadLinesTest, LoneCrInsideAValueMakesItNonNumeric) {
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunBytes("from STATS select h,count(v),sum(v) group by h",
               {Stats("h=a|v=1\r|w=2") + "\n" + Stats("h=a|v=2") + "\r\n"}));
  // "1\r" is not numeric (no surrounding spaces, docs/query-language.md,
  // "What is a number"); the line still counts for count(v).
  EXPECT_EQ(r.ToCsv(), "h,count(v),sum(v)\na,2,2.000000\n");
  EXPECT_EQ(r.stats(), Counters(2, 2));
}

// ------------------------------------------------------------- odd bytes

TEST(BadLinesTest, NulBytesInsideLinesAreData) {
  using std::string_view_literals::operator""sv;
  ASSERT_OK_AND_ASSIGN(ResultTable r,
                       RunBytes(kLines, {"a\0b\nab\n\0\na\0b\n"sv}));
  EXPECT_EQ(r.num_rows(), 3u);
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line),len($line)\n"
            "\0,1,1.000000\n"
            "a\0b,2,3.000000\n"
            "ab,1,2.000000\n"sv);
  EXPECT_EQ(r.stats(), Counters(4, 4));
}

TEST(BadLinesTest, NulBytesInDefaultFormatFields) {
  using std::string_view_literals::operator""sv;
  const std::string good = Stats("h=a|v=1");
  // A NUL inside the table marker: the line is not a STATS line. A NUL in a
  // value: the value is not numeric. A NUL instead of '=': a malformed token.
  const std::string marker(
      "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STA\0TS|"
      "h=a|v=5"sv);
  const std::string value = Stats("h=a|v=2\0"sv);
  const std::string token = Stats(
      "h=a|v\0"
      "3"sv);
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunLines("from STATS select h,count($line),sum(v) group by h",
               {good, marker, value, token}));
  EXPECT_EQ(r.ToCsv(), "h,count($line),sum(v)\na,2,1.000000\n");
  LineCounters c = Counters(4, 2);
  c.lines_table_mismatch = 1;
  c.lines_malformed = 1;
  EXPECT_EQ(r.stats(), c);
}

TEST(BadLinesTest, InvalidUtf8IsKeptByteForByte) {
  // Lines are bytes: invalid UTF-8 (a lone continuation byte, a truncated
  // sequence, an overlong form, 0xFF) groups and renders as given in CSV;
  // JSON, which must be valid UTF-8, replaces each ill-formed subpart by
  // U+FFFD.
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunBytes("select $line,count($line) group by $line logformat generic",
               {"\x80\n\xe2\x82\n\xc0\xaf\n\xff\n\xe2\x82\xac\n\x80\n"}));
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line)\n"
            "\x80,2\n"
            "\xc0\xaf,1\n"
            "\xe2\x82,1\n"
            "\xe2\x82\xac,1\n"
            "\xff,1\n");
  EXPECT_EQ(r.ToNdjson(),
            "{\"$line\":\"\\ufffd\",\"count($line)\":2}\n"
            "{\"$line\":\"\\ufffd\\ufffd\",\"count($line)\":1}\n"
            "{\"$line\":\"\\ufffd\",\"count($line)\":1}\n"
            "{\"$line\":\"\xe2\x82\xac\",\"count($line)\":1}\n"
            "{\"$line\":\"\\ufffd\",\"count($line)\":1}\n");
  EXPECT_EQ(r.stats(), Counters(6, 6));
}

// ------------------------------------------------------------- long lines

constexpr size_t kTenMegabytes = size_t{10} << 20;

TEST(BadLinesTest, TenMegabyteLineIsTooLongByDefault) {
  const std::string huge(kTenMegabytes, 'x');
  // In 64 KiB chunks, as a reader would push it, between two short lines.
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Make(kLines));
  ASSERT_OK(agg.PushBytes("a\n"));
  for (size_t at = 0; at < huge.size(); at += 64 << 10) {
    ASSERT_OK(agg.PushBytes(std::string_view(huge).substr(at, 64 << 10)));
  }
  ASSERT_OK(agg.PushBytes("\nb\n"));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(),
            "$line,count($line),len($line)\n"
            "a,1,1.000000\n"
            "b,1,1.000000\n");
  LineCounters c = Counters(3, 2);
  c.lines_too_long = 1;
  EXPECT_EQ(r.stats(), c);

  // The same line whole through PushLines, and as the unfinished last line.
  ASSERT_OK_AND_ASSIGN(ResultTable lines, RunLines(kLines, {huge, "a"}));
  EXPECT_EQ(lines.ToCsv(), "$line,count($line),len($line)\na,1,1.000000\n");
  c = Counters(2, 1);
  c.lines_too_long = 1;
  EXPECT_EQ(lines.stats(), c);
  ASSERT_OK_AND_ASSIGN(ResultTable last, RunBytes(kLines, {"a\n", huge}));
  EXPECT_EQ(last.stats(), c);
}

TEST(BadLinesTest, TenMegabyteLineIsALineWithARaisedLimit) {
  const std::string huge(kTenMegabytes, 'x');
  AggregatorOptions options = TestOptions();
  options.max_line_bytes = kTenMegabytes;
  ASSERT_OK_AND_ASSIGN(Aggregator agg,
                       Make("select count($line),len($line),last($line) "
                            "group by * logformat generic",
                            options));
  for (size_t at = 0; at < huge.size(); at += 64 << 10) {
    ASSERT_OK(agg.PushBytes(std::string_view(huge).substr(at, 64 << 10)));
  }
  // Exactly the limit, with "\r\n": the '\r' does not count.
  ASSERT_OK(agg.PushBytes("\r\n"));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  ASSERT_EQ(r.num_rows(), 1u);
  EXPECT_EQ(r.cell(0, 0), "1");
  EXPECT_EQ(r.cell(0, 1), "10485760.000000");
  EXPECT_EQ(r.cell(0, 2), huge);
  EXPECT_EQ(r.stats(), Counters(1, 1));

  // One byte more is too long.
  ASSERT_OK_AND_ASSIGN(ResultTable over,
                       RunBytes(kLines, {huge, "x\nend"}, options));
  EXPECT_EQ(over.ToCsv(), "$line,count($line),len($line)\nend,1,3.000000\n");
  LineCounters c = Counters(2, 1);
  c.lines_too_long = 1;
  EXPECT_EQ(over.stats(), c);
}

// ------------------------------------------------------------- max_groups

TEST(BadLinesTest, MillionDistinctKeysHitMaxGroups) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 100000;
  ASSERT_OK_AND_ASSIGN(
      Aggregator agg,
      Make("select count($line) group by $line logformat generic", options));
  const std::string message =
      "more than 100000 groups (max_groups); raise the "
      "limit or group by fewer distinct values";
  // 1M distinct keys in batches of 1000 lines. The first 100 batches make
  // exactly 100,000 groups; the 101st would create group 100,001 and fails,
  // and so does every batch after it.
  constexpr int kBatch = 1000;
  std::vector<std::string> storage(kBatch);
  std::vector<std::string_view> lines(kBatch);
  int batches_ok = 0;
  int batches_refused = 0;
  for (int b = 0; b < 1000; ++b) {
    for (int i = 0; i < kBatch; ++i) {
      storage[i] = absl::StrCat("key-", b * kBatch + i);
      lines[i] = storage[i];
    }
    const absl::Status status = agg.PushLines(lines);
    if (status.ok()) {
      EXPECT_EQ(batches_refused, 0) << "batch " << b;
      ++batches_ok;
    } else {
      EXPECT_THAT(status,
                  StatusIs(absl::StatusCode::kResourceExhausted, Eq(message)))
          << "batch " << b;
      ++batches_refused;
    }
  }
  EXPECT_EQ(batches_ok, 100);
  EXPECT_EQ(batches_refused, 900);
  // The failure is sticky (mapr/aggregator.h): lines of known keys are
  // refused too, and the counters stay those of the calls that succeeded.
  const std::vector<std::string_view> known = {"key-0"};
  EXPECT_THAT(agg.PushLines(known),
              StatusIs(absl::StatusCode::kResourceExhausted, Eq(message)));
  EXPECT_EQ(agg.stats(), Counters(100000, 100000));
  EXPECT_THAT(agg.Snapshot(),
              StatusIs(absl::StatusCode::kResourceExhausted, Eq(message)));
  EXPECT_THAT(agg.FinishInput(),
              StatusIs(absl::StatusCode::kResourceExhausted, Eq(message)));
  EXPECT_THAT(agg.TakeResult(),
              StatusIs(absl::StatusCode::kResourceExhausted, Eq(message)));
}

TEST(BadLinesTest, ExactlyMaxGroupsKeysAreFine) {
  AggregatorOptions options = TestOptions();
  options.max_groups = 100000;
  ASSERT_OK_AND_ASSIGN(
      Aggregator agg,
      Make("select count($line) group by $line logformat generic", options));
  std::vector<std::string> storage(100000);
  std::vector<std::string_view> lines(100000);
  for (int i = 0; i < 100000; ++i) {
    storage[i] = absl::StrCat("key-", i);
    lines[i] = storage[i];
  }
  ASSERT_OK(agg.PushLines(lines));
  // Known keys never fail.
  ASSERT_OK(agg.PushLines(std::span(lines).last(1000)));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.total_groups(), 100000u);
  EXPECT_EQ(r.stats(), Counters(101000, 101000));
}

// ------------------------------------------------------------- numbers

// Each group holds one value (or, for "mix", several); see
// docs/query-language.md, "What is a number" and "How results render" (a
// group with no numeric value renders 0.000000), and docs/compatibility.md
// ("Evaluation").
TEST(BadLinesTest, NumbersFollowTheStrictDecimalRule) {
  const std::vector<std::string> lines = {
      Stats("h=big|v=1e309"),  // Out of range: not numeric.
      Stats("h=negbig|v=-1e400"),
      Stats("h=negzero|v=-0"),   // Numeric: negative zero.
      Stats("h=nan|v=nan"),      // Numeric: NaN.
      Stats("h=hex|v=0x10"),     // Not numeric.
      Stats("h=under|v=1_000"),  // Not numeric.
      Stats("h=empty|v="),       // Not numeric.
      Stats("h=missing|w=1"),    // No v at all.
      Stats("h=mix|v=2"),         Stats("h=mix|v=0x10"),
      Stats("h=mix|v=4"),         Stats("h=mix|v="),
      Stats("h=mix|v=1e309"),     Stats("h=mix|v=1_000"),
      Stats("h=mix|v=-0"),
  };
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunLines("from STATS select h,count(v),sum(v),min(v),max(v),avg(v),"
               "last(v) group by h",
               views));
  EXPECT_EQ(r.ToCsv(),
            "h,count(v),sum(v),min(v),max(v),avg(v),last(v)\n"
            "big,1,0.000000,0.000000,0.000000,0.000000,1e309\n"
            "empty,1,0.000000,0.000000,0.000000,0.000000,\n"
            "hex,1,0.000000,0.000000,0.000000,0.000000,0x10\n"
            "missing,0,0.000000,0.000000,0.000000,0.000000,\n"
            // avg = (2 + 4 + -0) / 3 numeric values, not / 7 lines.
            "mix,7,6.000000,-0.000000,4.000000,2.000000,-0\n"
            "nan,1,NaN,NaN,NaN,NaN,nan\n"
            "negbig,1,0.000000,0.000000,0.000000,0.000000,-1e400\n"
            "negzero,1,-0.000000,-0.000000,-0.000000,-0.000000,-0\n"
            "under,1,0.000000,0.000000,0.000000,0.000000,1_000\n");
  EXPECT_EQ(r.stats(), Counters(15, 15));
}

TEST(BadLinesTest, NonNumericValuesGiveNoValueAndNoGroup) {
  // Without a plain field or count(), a line whose v is not numeric gives
  // no value: it is counted as without value and makes no group.
  const std::vector<std::string> lines = {
      Stats("h=big|v=1e309"), Stats("h=hex|v=0x10"), Stats("h=under|v=1_000"),
      Stats("h=empty|v="),    Stats("h=missing"),    Stats("h=nan|v=nan"),
      Stats("h=zero|v=-0"),
  };
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunLines("from STATS select sum(v),min(v),max(v),avg(v) group by h",
               views));
  EXPECT_EQ(r.ToCsv(),
            "sum(v),min(v),max(v),avg(v)\n"
            "NaN,NaN,NaN,NaN\n"
            "-0.000000,-0.000000,-0.000000,-0.000000\n");
  LineCounters c = Counters(7, 2);
  c.lines_without_value = 5;
  EXPECT_EQ(r.stats(), c);
}

TEST(BadLinesTest, NonNumericValuesAreFalseUnderFloatOperators) {
  const std::vector<std::string> lines = {
      Stats("v=1e309"), Stats("v=0x10"), Stats("v=1_000"), Stats("v="),
      Stats("w=1"),     Stats("v=nan"),  Stats("v=-0"),
  };
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  // -0 == 0; NaN is numeric and compares as in IEEE 754 (and Go): false
  // under ==, true under !=; the others are not numeric, so every float
  // comparison on them is false.
  ASSERT_OK_AND_ASSIGN(
      ResultTable eq,
      RunLines("from STATS select count($line),last(v) group by * "
               "where v == 0",
               views));
  EXPECT_EQ(eq.ToCsv(), "count($line),last(v)\n1,-0\n");
  EXPECT_EQ(eq.stats().lines_filtered, 6u);
  ASSERT_OK_AND_ASSIGN(
      ResultTable ne,
      RunLines("from STATS select count($line),last(v) group by * "
               "where v != 1",
               views));
  EXPECT_EQ(ne.ToCsv(), "count($line),last(v)\n2,-0\n");
  EXPECT_EQ(ne.stats().lines_filtered, 5u);
  // `not` sees the false condition: every line but -0.
  ASSERT_OK_AND_ASSIGN(ResultTable negated,
                       RunLines("from STATS select count($line) group by * "
                                "where not v == 0",
                                views));
  EXPECT_EQ(negated.ToCsv(), "count($line)\n6\n");
}

// ------------------------------------------------------------- regexes

// Patterns that backtrack catastrophically in Perl, Python or PCRE engines
// ((a+)+$ takes 2^n steps on "aaa...ab") run in time linear in the line
// under RE2: these finish at once on a 1 MiB line and give the right
// answers. runtime/kernels_benchmark.cc (BM_RegexPathological) measures
// the time against the line length: Google Benchmark fits O(N).
TEST(BadLinesTest, CatastrophicBacktrackingPatternsStayLinear) {
  std::string line(1 << 20, 'a');
  line.back() = 'b';
  const std::vector<std::string_view> lines = {line, "aaaa", "ab"};
  AggregatorOptions options = TestOptions();
  options.max_line_bytes = 2 << 20;
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunLines("select count($line) where $line =~ '^(a+)+$' group by *", lines,
               options));
  EXPECT_EQ(r.ToCsv(), "count($line)\n1\n");
  ASSERT_OK_AND_ASSIGN(
      r, RunLines("select count($line) where $line =~ '^(a|aa)*c$' group by *",
                  lines, options));
  EXPECT_EQ(r.stats().lines_filtered, 3u);
  ASSERT_OK_AND_ASSIGN(
      r, RunLines("select $v, count($line) set $v = regex($line, '(a*)*b') "
                  "group by $v order by count($line)",
                  lines, options));
  EXPECT_EQ(r.num_rows(), 3u);
  ASSERT_OK_AND_ASSIGN(
      r, RunLines("select count($line) group by * logformat regex "
                  "'^(?P<x>(a|a)+)+$'",
                  lines, options));
  EXPECT_EQ(r.stats().lines_unmatched, 2u);
  EXPECT_EQ(r.stats().lines_aggregated, 1u);
}

// ------------------------------------------------------------- JSON lines

// logformat json: bytes that are not UTF-8 inside a JSON string make that
// line malformed (simdjson validates every line), not the batch.
TEST(BadLinesTest, InvalidUtf8InsideJsonIsMalformed) {
  const std::string bad = "{\"user\":\"al\xff\xfeice\",\"ms\":5}";
  const std::string overlong = "{\"user\":\"\xc0\xaf\",\"ms\":6}";
  const std::string good = "{\"user\":\"bob\",\"ms\":7}";
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunLines("select user, sum(ms) group by user logformat json",
               {bad, good, overlong}));
  EXPECT_EQ(r.ToCsv(), "user,sum(ms)\nbob,7.000000\n");
  EXPECT_EQ(r.stats().lines_malformed, 2u);
  EXPECT_EQ(r.stats().lines_aggregated, 1u);
}

// 10,000 nested arrays: nothing in the json format recurses over the
// input's nesting (skipping and minifying are loops), so the line is parsed
// and `a` is the minified array, 20,000 bytes; the stack stays flat.
TEST(BadLinesTest, JsonNestedTenThousandDeepIsParsedWithoutRecursion) {
  std::string deep = "{\"a\":";
  deep.append(10000, '[');
  deep.append(10000, ']');
  deep.append(",\"ms\":1}");
  std::string unclosed = "{\"a\":";
  unclosed.append(10000, '[');
  ASSERT_OK_AND_ASSIGN(
      ResultTable r,
      RunLines("select sum(ms), count(a), len(a) group by * logformat json",
               {deep, "{\"ms\":2}", unclosed}));
  EXPECT_EQ(r.ToCsv(), "sum(ms),count(a),len(a)\n3.000000,1,20000.000000\n");
  EXPECT_EQ(r.stats().lines_malformed, 1u);  // The unclosed one.
}

// A 10 MB JSON line: too long under the default 1 MiB limit (counted, not
// read); with the limit raised it is parsed like any other line.
TEST(BadLinesTest, TenMegabyteJsonLine) {
  std::string big = "{\"pad\":\"";
  big.append(10 << 20, 'x');
  big.append("\",\"nested\":{\"ms\":42},\"k\":\"v\"}");
  const std::string_view query =
      "select k, sum(nested.ms), len(pad) group by k logformat json";
  ASSERT_OK_AND_ASSIGN(ResultTable r, RunLines(query, {big, "{\"k\":\"v\"}"}));
  EXPECT_EQ(r.stats().lines_too_long, 1u);
  EXPECT_EQ(r.stats().lines_aggregated, 1u);
  AggregatorOptions options = TestOptions();
  options.max_line_bytes = 16 << 20;
  ASSERT_OK_AND_ASSIGN(r, RunLines(query, {big}, options));
  EXPECT_EQ(r.ToCsv(),
            "k,sum(nested.ms),len(pad)\nv,42.000000,10485760.000000\n");
}

}  // namespace
}  // namespace mapr
