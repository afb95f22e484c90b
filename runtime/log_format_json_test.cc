// The `json` / `ndjson` log format (runtime/log_format_json.cc): field
// lookup, values, duplicates, malformed lines, size and depth, and the
// padding contract on every way lines reach the parser (run it under the
// asan preset too: the buffers here end exactly where the contract says).
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/input.h"
#include "mapr/log_format.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "mapr/turbo_aggregate.h"
#include "runtime/log_formats.h"
#include "tests/testing/allocation_counter.h"
#include "tests/testing/field_batch.h"
#include "tests/testing/files.h"
#include "tests/testing/parsed_rows.h"
#include "tests/testing/status_matchers.h"

namespace mapr::runtime {
namespace {

using ::mapr::testing::TestFieldBatch;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// One line in a heap block of exactly its size plus `padding` zero bytes,
// so that reading further is a heap overflow that ASan reports.
class ExactLine {
 public:
  ExactLine(std::string_view text, size_t padding)
      : bytes_(new char[text.size() + padding]), size_(text.size()) {
    std::copy(text.begin(), text.end(), bytes_.get());
    std::fill_n(bytes_.get() + text.size(), padding, '\0');
  }
  std::string_view view() const { return {bytes_.get(), size_}; }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t size_;
};

using Row = ::mapr::testing::ParsedRow;

// Parses `lines` as one batch, each in a buffer of its own with `padding`
// bytes after it, and the batch promising that padding. Checks the
// FieldBatch contract for every value: not empty with a null pointer, and
// pointing into its line or into batch memory.
std::vector<Row> ParseLines(const std::vector<std::string>& fields,
                            const std::vector<std::string>& lines,
                            size_t padding = 0,
                            const char* format_name = "json") {
  std::shared_ptr<const LogFormat> format = FindLogFormat(format_name);
  EXPECT_NE(format, nullptr);
  absl::StatusOr<std::unique_ptr<LogFormatParser>> parser =
      format->NewParser(fields);
  EXPECT_TRUE(parser.ok()) << parser.status();
  std::vector<ExactLine> buffers;
  buffers.reserve(lines.size());
  std::vector<std::string_view> views;
  for (const std::string& line : lines) {
    buffers.emplace_back(line, padding);
    views.push_back(buffers.back().view());
  }
  TestFieldBatch batch(fields.size(), padding);
  return ::mapr::testing::ParseRows(
      **parser, batch, fields, views,
      {.check_pointers = true, .preset = LineOutcome::kHeader});
}

Row ParseOne(const std::vector<std::string>& fields, const std::string& line,
             size_t padding = 0) {
  return ParseLines(fields, {line}, padding)[0];
}

// Selects the baseline (SSE2) or the AVX2 build of the json parser for the
// parsers a test creates; skips the test if the CPU has no AVX2 build.
class ParserBuild {
 public:
  explicit ParserBuild(bool baseline)
      : skip_(!UseBaselineJsonParserForTesting(baseline) && !baseline) {}
  ~ParserBuild() { UseBaselineJsonParserForTesting(false); }
  bool skip() const { return skip_; }

 private:
  const bool skip_;
};

std::string BuildName(bool baseline) { return baseline ? "Baseline" : "Avx2"; }

// Every test of the parser runs with and without padding (in place, and
// through the parser's own padded copy), and with each build of the parser.
class JsonLogFormatTest
    : public ::testing::TestWithParam<std::tuple<size_t, bool>> {
 protected:
  void SetUp() override {
    build_.emplace(std::get<1>(GetParam()));
    if (build_->skip()) GTEST_SKIP() << "no AVX2 build for this CPU";
  }
  void TearDown() override { build_.reset(); }
  size_t Padding() const { return std::get<0>(GetParam()); }
  Row One(const std::vector<std::string>& fields, const std::string& line) {
    return ParseOne(fields, line, Padding());
  }
  std::vector<Row> Lines(const std::vector<std::string>& fields,
                         const std::vector<std::string>& lines) {
    return ParseLines(fields, lines, Padding());
  }

 private:
  std::optional<ParserBuild> build_;
};

INSTANTIATE_TEST_SUITE_P(
    PaddingAndBuild, JsonLogFormatTest,
    ::testing::Combine(::testing::Values(size_t{0}, kLinePadding),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<size_t, bool>>& p) {
      return std::string(std::get<0>(p.param) == 0 ? "Copied" : "InPlace") +
             BuildName(std::get<1>(p.param));
    });

// ------------------------------------------------------------ registration

TEST(JsonLogFormatRegistryTest, JsonAndNdjsonAreRegistered) {
  for (const char* name : {"json", "ndjson", "jsonl", "JSON", "NDJSON"}) {
    std::shared_ptr<const LogFormat> format = FindLogFormat(name);
    ASSERT_NE(format, nullptr) << name;
    EXPECT_FALSE(format->description().empty());
    // Any key may be a field, so unknown $variables are never warned about.
    EXPECT_EQ(format->variables(), std::nullopt);
  }
  EXPECT_EQ(FindLogFormat("json")->name(), "json");
  EXPECT_EQ(FindLogFormat("ndjson")->name(), "ndjson");
  EXPECT_EQ(FindLogFormat("jsonl")->name(), "jsonl");
}

TEST(JsonLogFormatRegistryTest, NdjsonParsesLikeJson) {
  const std::vector<std::string> fields = {"a", "b.c", "d"};
  const std::vector<std::string> lines = {
      R"({"a":"x","b":{"c":[1, 2]},"d":true})", "[1]", "", R"({"a":1,"a":2})"};
  std::vector<Row> json = ParseLines(fields, lines, 0, "json");
  std::vector<Row> ndjson = ParseLines(fields, lines, 0, "ndjson");
  ASSERT_EQ(json.size(), ndjson.size());
  for (size_t r = 0; r < json.size(); ++r) {
    EXPECT_EQ(json[r].outcome, ndjson[r].outcome) << r;
    EXPECT_EQ(json[r].fields, ndjson[r].fields) << r;
  }
}

// --------------------------------------------------------------- fast path

// A padded batch's lines go through the hand-written walk (which gives up
// on what it does not know) and unpadded ones through simdjson's: both
// must give every line the same outcome and values. The padding here is
// hostile, as the next line's bytes are in a real batch: quotes, brackets
// and a backslash right after the line's last byte.
// Parses `line` where it is, on a batch that promises kLinePadding bytes
// after it (the fast path's input), those bytes being `after` repeated:
// hostile, as the next line's bytes are in a real batch. Adds to
// *give_ups the lines the fast path left to simdjson's walk.
Row ParseInPlace(const std::vector<std::string>& fields,
                 const std::string& line, const std::string& after,
                 uint64_t* give_ups = nullptr) {
  std::string buffer = line;
  while (buffer.size() < line.size() + kLinePadding) buffer += after;
  const std::string_view view(buffer.data(), line.size());
  absl::StatusOr<std::unique_ptr<LogFormatParser>> parser =
      FindLogFormat("json")->NewParser(fields);
  EXPECT_TRUE(parser.ok()) << parser.status();
  TestFieldBatch batch(fields.size(), kLinePadding);
  Row row{LineOutcome::kHeader, {}};
  const uint64_t before = JsonFastPathGiveUpsForTesting();
  (*parser)->ParseBatch({&view, 1}, batch, &row.outcome);
  if (give_ups != nullptr)
    *give_ups += JsonFastPathGiveUpsForTesting() - before;
  if (row.outcome != LineOutcome::kParsed) return row;
  for (size_t f = 0; f < fields.size(); ++f) {
    const std::string_view v = batch.column(f)[0];
    if (v.data() != nullptr) row.fields[fields[f]] = std::string(v);
  }
  return row;
}

class JsonLogFormatFastPathTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    build_.emplace(GetParam());
    if (build_->skip()) GTEST_SKIP() << "no AVX2 build for this CPU";
  }
  void TearDown() override { build_.reset(); }

 private:
  std::optional<ParserBuild> build_;
};

INSTANTIATE_TEST_SUITE_P(Build, JsonLogFormatFastPathTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return BuildName(p.param);
                         });

TEST_P(JsonLogFormatFastPathTest, AgreesWithSimdjsonOnTrickyLines) {
  const std::vector<std::string> fields = {"a",   "b",     "a.b", "b.0",
                                           "b.1", "c.d.e", "x",   ""};
  // Long literals are split across lines on purpose (adjacent
  // literals).
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::vector<std::string> lines = {
      R"({"a":1})", R"({"a":1 })", R"( { "a" : "x" , "b" : [1, 2] } )",
      R"({"a":"x\"y"})", R"({"b":"x\"y","a":2})", R"({"a":1,})", R"({"a":1}})",
      R"({"a":1} x)", R"({"a":[}})", R"({"b":[}},"a":1})", R"({"b":{:}})",
      R"({"b":[:]})", R"({"a":tru})", R"({"a":true})",
      R"({"a":false,"x":null})", R"({"a":null})", R"({"a":nul})", R"({"a":-})",
      R"({"a":01})", R"({"a":1.})", R"({"a":1e})", R"({"a":1e+5})",
      R"({"a":-0.5E-3})", R"({"a":1"x"})", R"({"a":"x"1})", R"({"b":x})",
      R"({"b":x\"y})", R"({"b":[x\"]})", R"({"b":["\\"]})",
      R"({"x":[x\"],"a":1})", R"({"a":{"b":1},"a":2})",
      R"({"a":2,"a":{"b":1}})", R"({"a.b":1,"a":{"b":2}})",
      R"({"a":{"b":2},"a.b":1})", R"({"b":[1,2,3]})", R"({"b":[ "q" , 2 ]})",
      R"({"b":[1,]})", R"({"b":[,1]})", R"({"b":[]})", R"({"b":[ ]})",
      R"({"a":"unclosed})", R"({"a":1,"b":"unclosed})", R"({"a":"abc\")",
      R"({"a":"abc\\"})", "{\"\xc3\xa9\":1,\"a\":2}", "{\"a\":\"\t\"}",
      "{\"a\":1}\r", "{\"a\":1,\t\"b\":2}", "{}", "{ }", R"({"":1})",
      R"({"a"})", R"({"a":})", R"({"a" 1})", R"({"a":1 "b":2})", R"({1:2})",
      R"({"a":[[[[]]]]})", R"({"a":{"b":{"c":1}}})",
      R"({"c":{"d":{"e":"deep"}}})", R"({"c":{"d":{"e":{"f":1}}}})",
      R"({"b":{"0":"k"},"a":"x"})", R"({"b":[{"a":1},"s"]})",
      R"({"c":{"d":[1]},"c":{"d":{"e":3}}})", R"({"c":5,"c":{"d":{"e":6}}})",
      R"({"a":"a string long enough to cross two sixteen-byte loads","b":1})",
      R"({"time":"2026-12-01T00:00:00.004Z","level":"info","service":"x",)"
      R"("http":{"method":"GET","status":200,"bytes":15356},"a":38.828})",
      R"({"a":1}{"a":2})", R"({"a":1,"a":"two"})", R"({"a\u0062":1})",
      R"({"a":"\u00e9"})", R"({"a":{"b":"x\ny"}})", "{\"a\":1", "{\"a\"",
      "{\"a\":[1,{\"b\":\"]}\"}],\"b\":2}", "{\"a\":\"}\",\"b\":\"{\"}",
      // Skipped containers: brackets inside strings, across 16- and 32-byte
      // chunks, unclosed strings and brackets.
      R"({"z":{"k":"}]{[","l":[1,{"m":"]"}],"n":"aaaaaaaaaaaaaaaaaaaaaaaa{"},"a":1})",
      R"({"z":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"a":2})",
      R"({"z":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"a":2})",
      R"({"z":{"s":"a string longer than thirty-two bytes, with } and ] in it"},"a":3})",
      R"({"z":{"s":"unclosed }","a":1})", R"({"z":{"s":"x"},"a":1)",
      R"({"z":{"a":"0123456789012345678901234567890"},"a":{"b":"x"}})",
      R"({"z":["]","[","{","}"],"a":"]"})", R"({"z":{}})", R"({"z":[]})",
      // Numbers read: digit runs longer than a word, at the line's end.
      R"({"a":123456789012345678})", R"({"a":-123456789.123456789e+123})",
      R"({"a":12345678})", R"({"a":1.2345678})", R"({"a":0.12345678e12345678})",
      R"({"a":1E5})", R"({"a":1e+})", R"({"a":-01})", R"({"a":12345678x})",
      R"({"a":1234567)", R"({"a":1.)", R"({"a":-)", R"({"a":1e)", R"({"a":1e-)",
      R"({"a":123,"b":4.5})", R"({"a":0})", R"({"a":-0})", R"({"a":00})"};
  // NOLINTEND(bugprone-suspicious-missing-comma)
  // With nothing requested (count(*)) the fast walk only checks the root
  // object's keys and separators: the same outcomes too.
  for (const std::vector<std::string>& asked :
       {fields, std::vector<std::string>{}}) {
    for (const std::string hostile :
         {"\"}]\\\"x\n{\"a\":\"", "0123456789012345678901234567890123456789"}) {
      for (const std::string& line : lines) {
        // simdjson's walk: the lines without padding.
        const Row want = ParseOne(asked, line, 0);
        // The fast walk: the line in place, the hostile bytes after it.
        const Row got = ParseInPlace(asked, line, hostile);
        EXPECT_EQ(got.outcome, want.outcome)
            << line << " (" << asked.size() << " fields)";
        if (got.outcome != LineOutcome::kParsed) continue;
        EXPECT_EQ(got.fields, want.fields) << line;
      }
    }
  }
}

// Every kind of value, well-formed or not, in every place the fast walk
// reads one (a member of the root, of a nested object, an array element;
// last or followed by another member; compact or spaced), on lines with and
// without a backslash elsewhere (the walk has a variant for each): the
// outcome and the values are simdjson's.
TEST_P(JsonLogFormatFastPathTest, AgreesWithSimdjsonInEveryPosition) {
  const std::vector<std::string> fields = {"a", "o.k", "arr.1"};
  const std::vector<std::string> values = {"1",
                                           "-1",
                                           "0",
                                           "-0",
                                           "01",
                                           "-01",
                                           "00",
                                           "1.5",
                                           "1.",
                                           ".5",
                                           "-",
                                           "--1",
                                           "1e5",
                                           "1E+5",
                                           "1e-5",
                                           "1e",
                                           "1e+",
                                           "1.5e3x",
                                           "12345678901234567890",
                                           "-0.000000001",
                                           "1x",
                                           "+1",
                                           "true",
                                           "false",
                                           "null",
                                           "tru",
                                           "nul",
                                           "falsey",
                                           "nullx",
                                           R"("s")",
                                           R"("")",
                                           R"("x\"y")",
                                           R"("x\\")",
                                           R"("unclosed)",
                                           "[1,2]",
                                           "[]",
                                           R"({"k":1})",
                                           "{}",
                                           "{:}",
                                           "[:]",
                                           "}",
                                           "]",
                                           ",",
                                           ":",
                                           "x"};
  std::vector<std::string> lines;
  for (const std::string& v : values) {
    for (const std::string prefix : {"", R"("q":"\\",)"}) {
      lines.push_back("{" + prefix + R"("a":)" + v + "}");
      lines.push_back("{" + prefix + R"("a":)" + v + R"(,"z":1})");
      lines.push_back("{" + prefix + R"( "a" : )" + v + " }");
      lines.push_back("{" + prefix + R"("o":{"k":)" + v + "}}");
      lines.push_back("{" + prefix + R"("o":{"k":)" + v + R"(,"j":2},"z":1})");
      lines.push_back("{" + prefix + R"("arr":[0,)" + v + "]}");
      lines.push_back("{" + prefix + R"("arr":[0, )" + v + R"( ,3],"z":1})");
      lines.push_back("{" + prefix + R"("arr":[)" + v + "]}");
    }
  }
  int parsed = 0, malformed = 0;
  for (const std::string hostile :
       {"\"}]\\\"x\n{\"a\":\"", "0123456789012345678901234567890123456789"}) {
    for (const std::string& line : lines) {
      const Row want = ParseOne(fields, line, 0);
      const Row got = ParseInPlace(fields, line, hostile);
      EXPECT_EQ(got.outcome, want.outcome) << line;
      parsed += want.outcome == LineOutcome::kParsed;
      malformed += want.outcome == LineOutcome::kMalformed;
      if (got.outcome != LineOutcome::kParsed) continue;
      EXPECT_EQ(got.fields, want.fields) << line;
    }
  }
  // Both outcomes are well represented.
  EXPECT_GT(parsed, 200);
  EXPECT_GT(malformed, 200);
  // Spot checks of simdjson's side, read from the JSON grammar.
  EXPECT_THAT(ParseOne(fields, R"({"q":"\\","o":{"k":-0.5e3}})").fields,
              ::testing::Contains(Pair("o.k", "-0.5e3")));
  EXPECT_EQ(ParseOne(fields, R"({"arr":[0,01]})").outcome,
            LineOutcome::kMalformed);
  EXPECT_THAT(ParseOne(fields, R"({"arr":[0, null ,3]})").fields, IsEmpty());
  EXPECT_THAT(ParseOne(fields, R"({"arr":[0, true ,3]})").fields,
              ElementsAre(Pair("arr.1", "true")));
}

// Plain lines (printable ASCII, no escapes in what is read) stay on the fast
// path, whatever the skipped values hold, and agree with simdjson's walk.
TEST_P(JsonLogFormatFastPathTest, PlainLinesStayOnTheFastPath) {
  const std::vector<std::string> fields = {"a", "b.c", "n"};
  // Long literals are split across lines on purpose (adjacent
  // literals).
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::vector<std::string> lines = {
      R"({"z":{"k":"}]{[","l":[1,{"m":"]"}],"n":"aaaaaaaaaaaaaaaaaaaaaaaa{"},"a":1})",
      "{\"z\":" + std::string(40, '[') + std::string(40, ']') + ",\"a\":2}",
      R"({"z":{"s":"a string longer than thirty-two bytes, with } and ] in it"},"a":3})",
      R"({"z":["]","[","{","}"],"a":"]","b":{"c":"}"}})",
      R"({"z":{},"y":[],"a":"x","b":{"d":[1,"]"],"c":"]"}})",
      R"({"z":"\\","a":"a backslash in a skipped string"})",
      R"({"a":123456789012345678,"n":-123456789.123456789e+123})",
      R"({"a":12345678,"n":1.2345678})",
      R"({"a":0.12345678e12345678,"n":1E5})",
      R"({"a":0,"n":-0})",
      R"( { "a" : 1 , "b" : { "c" : 2 } } )",
      R"({"time":"2026-12-01T00:00:00.004Z","level":"info","service":"x",)"
      R"("http":{"method":"GET","status":200,"bytes":15356},"a":38.828})"};
  // NOLINTEND(bugprone-suspicious-missing-comma)
  for (const std::string& line : lines) {
    const Row want = ParseOne(fields, line, 0);
    ASSERT_EQ(want.outcome, LineOutcome::kParsed) << line;
    uint64_t give_ups = 0;
    const Row got = ParseInPlace(fields, line, "9", &give_ups);
    EXPECT_EQ(give_ups, 0) << line;
    EXPECT_EQ(got.outcome, LineOutcome::kParsed) << line;
    EXPECT_EQ(got.fields, want.fields) << line;
  }
}

// The fast path remembers each object's keys from the lines before (the
// usual log has the same keys in the same order); a line whose keys differ
// must still get its own keys' values, in a batch as across batches.
TEST_P(JsonLogFormatFastPathTest, KeysOfEarlierLinesDoNotLeakIntoLaterOnes) {
  const std::vector<std::string> fields = {
      "a", "ab", "abc", "x.ab", "fifteen_bytes_k", "sixteen_bytes_ke"};
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += "\"k" + std::to_string(i) + "\":0,";
  many += "\"a\":\"last\"}";
  const std::vector<std::string> lines = {
      R"({"ab":1,"a":2,"x":{"ab":3}})", R"({"a":4,"ab":5,"x":{"a":6}})",
      R"({"abc":7,"a":8,"x":{"abc":9,"ab":10}})", R"({"a":11})",
      R"({"ab":12,"a":13,"x":{"ab":14}})", R"({"a":15,"ab" : 16})",
      R"({"ab":17,"a)", R"({"ab":18,"a":19})",
      R"({"fifteen_bytes_k":20,"sixteen_bytes_ke":21})",
      R"({"fifteen_bytes_k":22,"sixteen_bytes_ke":23})",
      R"({"fifteen_bytes_":24,"sixteen_bytes_k":25})", many, many,
      R"({"k0":1,"a":"first"})",
      // The remembered text runs from the separator to the colon.
      R"({"ab":26,"a":27})", R"({"ab":28, "a":29})", R"({"ab":30,"a" :31})",
      R"({ "ab":32,"a":33})", R"({"ab":34 ,"a":35})", R"({"ab":36,"a":37})",
      R"({"ab":38,"a":39,})", R"({"ab":40,,"a":41})", R"({"ab":42"a":43})",
      R"({"x":[{"ab":44},{"ab":45}],"a":46})",
      R"({"twelve_bytes":47,"thirteen_byte":48,"a":49})",
      R"({"twelve_bytes":50,"thirteen_byte":51,"a":52})"};
  const std::vector<Row> want = ParseLines(fields, lines, 0);
  const std::vector<Row> got = ParseLines(fields, lines, kLinePadding);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < lines.size(); ++r) {
    EXPECT_EQ(got[r].outcome, want[r].outcome) << lines[r];
    EXPECT_EQ(got[r].fields, want[r].fields) << lines[r];
  }
  using Fields = std::map<std::string, std::string>;
  EXPECT_EQ(got[0].fields, (Fields{{"a", "2"}, {"ab", "1"}, {"x.ab", "3"}}));
  EXPECT_EQ(got[1].fields, (Fields{{"a", "4"}, {"ab", "5"}}));
  EXPECT_EQ(got[2].fields, (Fields{{"a", "8"}, {"abc", "7"}, {"x.ab", "10"}}));
  EXPECT_EQ(got[3].fields, (Fields{{"a", "11"}}));
  EXPECT_EQ(got[4].fields, (Fields{{"a", "13"}, {"ab", "12"}, {"x.ab", "14"}}));
  EXPECT_EQ(got[5].fields, (Fields{{"a", "15"}, {"ab", "16"}}));
  EXPECT_EQ(got[6].outcome, LineOutcome::kMalformed);
  EXPECT_EQ(got[7].fields, (Fields{{"a", "19"}, {"ab", "18"}}));
  EXPECT_EQ(got[8].fields,
            (Fields{{"fifteen_bytes_k", "20"}, {"sixteen_bytes_ke", "21"}}));
  EXPECT_EQ(got[9].fields,
            (Fields{{"fifteen_bytes_k", "22"}, {"sixteen_bytes_ke", "23"}}));
  EXPECT_EQ(got[10].fields, Fields{});
  EXPECT_EQ(got[11].fields, (Fields{{"a", "last"}}));
  EXPECT_EQ(got[12].fields, (Fields{{"a", "last"}}));
  EXPECT_EQ(got[13].fields, (Fields{{"a", "first"}}));
  for (size_t r : {14, 15, 16, 17, 18, 19}) {
    EXPECT_EQ(got[r].outcome, LineOutcome::kParsed) << lines[r];
    EXPECT_EQ(got[r].fields,
              (Fields{{"a", std::to_string(27 + 2 * (r - 14))},
                      {"ab", std::to_string(26 + 2 * (r - 14))}}))
        << lines[r];
  }
  for (size_t r : {20, 21, 22}) {
    EXPECT_EQ(got[r].outcome, LineOutcome::kMalformed) << lines[r];
  }
  EXPECT_EQ(got[23].fields, (Fields{{"a", "46"}}));
  EXPECT_EQ(got[25].fields, (Fields{{"a", "52"}}));
}

// The remembered openings are per thread: parsers of other queries that
// take turns on a thread (or that reuse a freed parser's memory) must not
// see each other's.
TEST_P(JsonLogFormatFastPathTest, ParsersTakingTurnsKeepTheirOwnKeys) {
  const std::vector<std::string> lines = {R"({"a":1,"b":2,"c":{"a":3}})",
                                          R"({"a":4,"b":5,"c":{"a":6}})"};
  const std::vector<std::string> ab = {"a", "b", "c.a"};
  const std::vector<std::string> ba = {"b", "a", "c.a"};
  using Fields = std::map<std::string, std::string>;
  const Fields want0 = {{"a", "1"}, {"b", "2"}, {"c.a", "3"}};
  const Fields want1 = {{"a", "4"}, {"b", "5"}, {"c.a", "6"}};
  std::shared_ptr<const LogFormat> format = FindLogFormat("json");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LogFormatParser> first,
                       format->NewParser(ab));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LogFormatParser> second,
                       format->NewParser(ba));
  std::vector<ExactLine> buffers;
  std::vector<std::string_view> views;
  buffers.reserve(lines.size());
  views.reserve(lines.size());
  for (const std::string& line : lines) {
    buffers.emplace_back(line, kLinePadding);
  }
  for (const ExactLine& b : buffers) views.push_back(b.view());
  auto parse = [&](LogFormatParser& parser,
                   const std::vector<std::string>& fields, size_t row) {
    TestFieldBatch batch(fields.size(), kLinePadding);
    LineOutcome outcome = LineOutcome::kHeader;
    const uint64_t give_ups = JsonFastPathGiveUpsForTesting();
    parser.ParseBatch({&views[row], 1}, batch, &outcome);
    EXPECT_EQ(outcome, LineOutcome::kParsed);
    EXPECT_EQ(JsonFastPathGiveUpsForTesting(), give_ups);
    Fields got;
    for (size_t f = 0; f < fields.size(); ++f) {
      got[fields[f]] = std::string(batch.column(f)[0]);
    }
    return got;
  };
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(parse(*first, ab, 0), want0);
    EXPECT_EQ(parse(*second, ba, 1), want1);
    EXPECT_EQ(parse(*first, ab, 1), want1);
    EXPECT_EQ(parse(*second, ba, 0), want0);
  }
  // A parser made after another was freed (perhaps at its address).
  first.reset();
  const std::vector<std::string> bca = {"b", "c.a", "a"};
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LogFormatParser> third,
                       format->NewParser(bca));
  EXPECT_EQ(parse(*third, bca, 0), want0);
  EXPECT_EQ(parse(*second, ba, 1), want1);
}

// ------------------------------------------------------------------ values

TEST_P(JsonLogFormatTest, ScalarsKeepTheirText) {
  Row row = One({"s", "i", "f", "e", "neg", "t", "fa", "n", "empty", "nokey"},
                R"({"s":"GET","i":200,"f":0.25,"e":1.50e3,"neg":-0.0,)"
                R"("t":true,"fa":false,"n":null,"empty":""})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  // null and absent keys are missing; "" is present and empty.
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("s", "GET"), Pair("i", "200"),
                                   Pair("f", "0.25"), Pair("e", "1.50e3"),
                                   Pair("neg", "-0.0"), Pair("t", "true"),
                                   Pair("fa", "false"), Pair("empty", "")));
}

TEST_P(JsonLogFormatTest, WhitespaceAroundTokensIsNotPartOfValues) {
  Row row = One({"a", "b", "c", "d"},
                "{ \"a\" :\t\"x y\" , \"b\"\r\n:  12 ,\"c\": [ 1 ,\n2 ] , "
                "\"d\" : { \"k\" : \"v w\" } }");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(
                              Pair("a", "x y"), Pair("b", "12"),
                              Pair("c", "[1,2]"), Pair("d", R"({"k":"v w"})")));
}

TEST_P(JsonLogFormatTest, ObjectsAndArraysAreMinifiedJson) {
  Row row = One({"o", "a", "flat", "empty_o", "empty_a"},
                R"({"o": {"x": [1, {"y": "a \" b"}], "z": null},)"
                R"( "a": [ "p" , "q" ], "flat":{"k":[1,2]},)"
                R"( "empty_o": { }, "empty_a": [ ]})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(
                  Pair("o", R"({"x":[1,{"y":"a \" b"}],"z":null})"),
                  Pair("a", R"(["p","q"])"), Pair("flat", R"({"k":[1,2]})"),
                  Pair("empty_o", "{}"), Pair("empty_a", "[]")));
}

TEST_P(JsonLogFormatTest, StringsAreUnescaped) {
  Row row =
      One({"nl", "quote", "back", "slash", "latin", "emoji", "ctl", "raw"},
          R"({"nl":"a\nb","quote":"say \"hi\"","back":"c:\\dir",)"
          R"("slash":"\/x","latin":"caf\u00e9","emoji":"\ud83d\ude00!",)"
          R"("ctl":"\t\b\f\r\u0001","raw":"caf)"
          "\xc3\xa9"
          R"("})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(
                              Pair("nl", "a\nb"), Pair("quote", "say \"hi\""),
                              Pair("back", "c:\\dir"), Pair("slash", "/x"),
                              Pair("latin", "caf\xc3\xa9"),
                              Pair("emoji", "\xf0\x9f\x98\x80!"),
                              Pair("ctl", std::string("\t\b\f\r\x01")),
                              Pair("raw", "caf\xc3\xa9")));
}

TEST_P(JsonLogFormatTest, OnlyEscapedStringsUseBatchMemory) {
  const std::string line = R"({"plain":"abc","escaped":"a\tb","n":12})";
  ExactLine exact(line, Padding());
  TestFieldBatch batch(3, Padding());
  auto parser = FindLogFormat("json")->NewParser(
      std::vector<std::string>{"plain", "escaped", "n"});
  ASSERT_TRUE(parser.ok());
  LineOutcome outcome;
  const std::string_view view = exact.view();
  (*parser)->ParseBatch({&view, 1}, batch, &outcome);
  ASSERT_EQ(outcome, LineOutcome::kParsed);
  // Plain values are views into the line itself (also when the parser
  // worked on a copy of it).
  EXPECT_EQ(batch.column(0)[0].data(), view.data() + line.find("abc"));
  EXPECT_EQ(batch.column(2)[0].data(), view.data() + line.find("12"));
  EXPECT_EQ(batch.column(1)[0], "a\tb");
  EXPECT_TRUE(batch.Owns(batch.column(1)[0]));
  EXPECT_EQ(batch.num_allocations(), 1u);
}

TEST_P(JsonLogFormatTest, InvalidRequestedValuesMakeTheLineMalformed) {
  // A value the query reads must be valid JSON; ones it skips are not
  // checked beyond simdjson's stage 1 (On-Demand).
  for (const std::string bad :
       {R"("a\qb")", R"("\ud800")", R"("\udc00x")", R"("\u12")", "tru", "nul",
        "falsey", "01", "1.", ".5", "-", "1e", "+1", "0x10", "NaN", "Infinity",
        "'x'"}) {
    const std::string line = R"({"k":)" + bad + R"(,"other":1})";
    EXPECT_EQ(One({"k"}, line).outcome, LineOutcome::kMalformed) << line;
    EXPECT_EQ(One({"other"}, line).outcome, LineOutcome::kParsed) << line;
    EXPECT_EQ(One({}, line).outcome, LineOutcome::kParsed) << line;
  }
}

// ------------------------------------------------------------------ lookup

TEST_P(JsonLogFormatTest, DottedNamesReachIntoObjectsAndArrays) {
  Row row = One(
      {"request.method", "request.headers.host", "tags.0", "tags.2", "tags.3",
       "users.1.name", "request.nokey", "tags.x", "request.method.x"},
      R"({"request":{"method":"GET","headers":{"host":"a.example"}},)"
      R"("tags":["web","prod",{"k":1}],)"
      R"("users":[{"name":"ann"},{"name":"bob"}]})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      row.fields,
      UnorderedElementsAre(Pair("request.method", "GET"),
                           Pair("request.headers.host", "a.example"),
                           Pair("tags.0", "web"), Pair("tags.2", R"({"k":1})"),
                           Pair("users.1.name", "bob")));
}

TEST_P(JsonLogFormatTest, OnlyCanonicalIndexesNameArrayElements) {
  Row row = One({"a.00", "a.+1", "a.-1", "a.1 ", "a.1", "o.0", "o.01"},
                R"({"a":["x","y"],"o":{"0":"zero","01":"one"}})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  // In an object, "0" and "01" are just keys.
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("a.1", "y"), Pair("o.0", "zero"),
                                   Pair("o.01", "one")));
}

TEST_P(JsonLogFormatTest, AKeyWithDotsIsMatchedWholeFirst) {
  // The OpenTelemetry style `http.route` key, beside a nested `http`.
  const std::vector<std::string> fields = {"http.route", "http.method"};
  for (
      const std::string line :
      {R"({"http":{"route":"/nested","method":"GET"},"http.route":"/flat"})",
       R"({"http.route":"/flat","http":{"route":"/nested","method":"GET"}})"}) {
    Row row = One(fields, line);
    EXPECT_EQ(row.outcome, LineOutcome::kParsed);
    EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("http.route", "/flat"),
                                                 Pair("http.method", "GET")))
        << line;
  }
}

TEST_P(JsonLogFormatTest, WholeKeyFirstAppliesAtEveryLevel) {
  // a.b.c: no key "a.b.c", so key "a", then in it "b.c" whole first.
  Row row = One({"a.b.c"}, R"({"a":{"b":{"c":2},"b.c":1}})");
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("a.b.c", "1")));
  // Names split only at their first dot: "a.b" then "c" is not tried.
  row = One({"a.b.c"}, R"({"a.b":{"c":3}})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, IsEmpty());
  // The whole key wins even when its value is null (missing).
  row = One({"a.b"}, R"({"a":{"b":1},"a.b":null})");
  EXPECT_THAT(row.fields, IsEmpty());
}

TEST_P(JsonLogFormatTest, QuotedSegmentsAreOneKeyDotsAndAll) {
  // nginx plus's status JSON: zone names are host names.
  const std::string line =
      R"({"server_zones":{"hg.nginx.org":{"responses":{"5xx":3,"2xx":9}},)"
      R"("hg":{"nginx.org":{"responses":{"5xx":-1}}}},"a.b":{"c":1},)"
      R"("a":{"b.c":2},"q\"x":{"y":5}})";
  const std::vector<std::string> fields = {
      R"(server_zones."hg.nginx.org".responses.5xx)",
      R"(server_zones."hg.nginx.org".responses."2xx")",
      R"("a.b".c)",
      R"(a."b.c")",
      R"("a.b")",
      R"(server_zones."hg")",
      R"(server_zones."nope.org".responses.5xx)"};
  Row row = One(fields, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(
      row.fields,
      UnorderedElementsAre(
          Pair(fields[0], "3"), Pair(fields[1], "9"), Pair(fields[2], "1"),
          Pair(fields[3], "2"), Pair(fields[4], R"({"c":1})"),
          Pair(fields[5], R"({"nginx.org":{"responses":{"5xx":-1}}})")));
  // Without quotes neither zone is reached: after "hg" the rest is tried
  // whole ("nginx.org.responses.5xx") or split at its first dot ("nginx").
  row = One({"server_zones.hg.nginx.org.responses.5xx"}, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, IsEmpty());
  // A quote that does not close a segment is part of the key.
  row = One({R"("a.b)", R"("a.b"c)"}, R"({"\"a":{"b":7},"\"a.b\"c":8})");
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair(R"("a.b)", "7"),
                                               Pair(R"("a.b"c)", "8")));
}

TEST_P(JsonLogFormatTest, AFieldAndAPathInsideItAreBothServed) {
  Row row = One({"a", "a.b", "a.c.1", "a.c"},
                R"({"a": {"b": 1, "c": [true, "x y"]} , "z": 0})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("a", R"({"b":1,"c":[true,"x y"]})"),
                                   Pair("a.b", "1"), Pair("a.c.1", "x y"),
                                   Pair("a.c", R"([true,"x y"])")));
}

TEST_P(JsonLogFormatTest, PathsThroughScalarsAreMissing) {
  Row row = One({"a.b", "s.0", "n.x"}, R"({"a":5,"s":"text","n":null})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, IsEmpty());
}

TEST_P(JsonLogFormatTest, EscapedKeysMatchTheirUnescapedText) {
  Row row = One({"ab", "x\"y", "caf\xc3\xa9", "p.q"},
                R"({"a\u0062":1,"x\"y":2,"caf\u00e9":3,"p":{"\u0071":4}})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("ab", "1"), Pair("x\"y", "2"),
                                   Pair("caf\xc3\xa9", "3"), Pair("p.q", "4")));
  // A key with a bad escape is invalid JSON wherever the walk meets it.
  EXPECT_EQ(One({"a"}, R"({"x\q":1,"a":2})").outcome, LineOutcome::kMalformed);
}

TEST_P(JsonLogFormatTest, EmptyKeysAndNames) {
  Row row = One({"", "e.", ".f"}, R"({"":"root","e":{"":"in e"},"":"later"})");
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("", "later"), Pair("e.", "in e")));
}

// --------------------------------------------------------------- duplicates

TEST_P(JsonLogFormatTest, TheLaterDuplicateKeyWins) {
  EXPECT_THAT(One({"a"}, R"({"a":1,"b":0,"a":2})").fields,
              UnorderedElementsAre(Pair("a", "2")));
  // A later null makes it missing.
  EXPECT_THAT(One({"a"}, R"({"a":1,"a":null})").fields, IsEmpty());
  // A later object replaces all that the earlier one gave.
  EXPECT_THAT(One({"a.b", "a.c"}, R"({"a":{"b":1},"a":{"c":2}})").fields,
              UnorderedElementsAre(Pair("a.c", "2")));
  EXPECT_THAT(One({"a.b"}, R"({"a":{"b":1},"a":7})").fields, IsEmpty());
  EXPECT_THAT(One({"a.b"}, R"({"a":{"b":1},"a":{"b":3}})").fields,
              UnorderedElementsAre(Pair("a.b", "3")));
  // Inside a nested object too.
  EXPECT_THAT(One({"o.k"}, R"({"o":{"k":"x","k":"y"}})").fields,
              UnorderedElementsAre(Pair("o.k", "y")));
}

TEST_P(JsonLogFormatTest, AFieldRequestedTwiceGetsTheSameValue) {
  std::vector<Row> rows =
      Lines({"a", "b", "a"}, {R"({"a":"x","b":1})", R"({"b":2})"});
  // (Row.fields is keyed by name; check the columns through a batch.)
  ExactLine line(R"({"a":"x","b":1})", Padding());
  TestFieldBatch batch(3, Padding());
  auto parser =
      FindLogFormat("json")->NewParser(std::vector<std::string>{"a", "b", "a"});
  ASSERT_TRUE(parser.ok());
  const std::string_view view = line.view();
  LineOutcome outcome;
  (*parser)->ParseBatch({&view, 1}, batch, &outcome);
  EXPECT_EQ(batch.column(0)[0], "x");
  EXPECT_EQ(batch.column(2)[0], "x");
  EXPECT_EQ(batch.column(1)[0], "1");
  EXPECT_THAT(rows[1].fields, UnorderedElementsAre(Pair("b", "2")));
}

// --------------------------------------------------------- outcomes of lines

TEST_P(JsonLogFormatTest, NonObjectsAndBrokenLinesAreMalformed) {
  const std::vector<std::string> lines = {
      "[1,2]",
      "42",
      R"("just a string")",
      "true",
      "null",
      "hello world",
      "GET /index.html 200",
      R"({"a":1)",                   // truncated
      R"({"a":"unterminated)",       // unclosed string
      "{\"a\":\"\xff\"}",            // invalid UTF-8
      "{\"a\":\"\xc3\"}",            // truncated UTF-8 sequence
      R"({"a":1} {"b":2})",          // two objects
      R"({"a":1}})",                 // trailing brace
      R"({"a":1} x)",                // trailing garbage
      R"({"a":1,})",                 // trailing comma
      R"({"a" 1})",                  // missing colon
      R"({"a":1 "b":2})",            // missing comma
      R"({a:1})",                    // bare key
      R"({1:2})",                    // number key
      R"({"a":[1,2})",               // mismatched bracket the walk meets
      R"({"a":[{{"b":1}]})",         // unbalanced inside a read value
      R"({"a":{"b":[{{}]},"c":1})",  // the same one level down
      R"({"a":[}]})",                // an element that is a closer
      R"({"a":{"c":"x":"y"}}})",     // a value followed by ':'
      R"({"a":["x":1]]})",           // the same in an array
      R"({"a":{"b":}]}})",           // a member value that is a closer
      "{",
      "}",
  };
  for (const std::vector<std::string>& fields :
       std::vector<std::vector<std::string>>{
           {}, {"a"}, {"zzz"}, {"a.0"}, {"a.b.0"}, {"a.b", "a"}}) {
    std::vector<Row> rows = Lines(fields, lines);
    for (size_t r = 0; r < lines.size(); ++r) {
      EXPECT_EQ(rows[r].outcome, LineOutcome::kMalformed)
          << lines[r] << " with " << fields.size()
          << " fields: " << (fields.empty() ? "" : fields[0]);
    }
  }
}

TEST_P(JsonLogFormatTest, BlankLinesAreIgnored) {
  std::vector<Row> rows = Lines({"a"}, {"", " ", "\t \r", R"({"a":1})"});
  EXPECT_EQ(rows[0].outcome, LineOutcome::kIgnored);
  EXPECT_EQ(rows[1].outcome, LineOutcome::kIgnored);
  EXPECT_EQ(rows[2].outcome, LineOutcome::kIgnored);
  EXPECT_EQ(rows[3].outcome, LineOutcome::kParsed);
}

TEST_P(JsonLogFormatTest, ObjectsParseWithNothingRequested) {
  std::vector<Row> rows =
      Lines({}, {"{}", R"({"a":{"b":[1,{"c":null}]},"d":"e"})", " {\"a\":1} "});
  for (const Row& row : rows) EXPECT_EQ(row.outcome, LineOutcome::kParsed);
}

TEST_P(JsonLogFormatTest, SkippedValuesAreNotValidated) {
  // On-Demand skips a value it does not read by its brackets: a broken
  // inside of a value nobody reads does not make the line malformed.
  const std::string line = R"({"a":1,"b":{"c":[}}})";
  EXPECT_EQ(One({"a"}, line).outcome, LineOutcome::kParsed);
  EXPECT_EQ(One({}, line).outcome, LineOutcome::kParsed);
  // A container that is read is walked: its own separators are checked.
  const std::string comma = R"({"a":[1,],"b":1})";
  EXPECT_EQ(One({"b"}, comma).outcome, LineOutcome::kParsed);
  EXPECT_EQ(One({"a"}, comma).outcome, LineOutcome::kMalformed);
  EXPECT_EQ(One({"a.0"}, comma).outcome, LineOutcome::kMalformed);
}

TEST_P(JsonLogFormatTest, ValuesOfMalformedLinesAreNotUsedButLaterLinesAre) {
  std::vector<Row> rows =
      Lines({"a"}, {R"({"a":"first"} trailing)", R"({"a":"second"})"});
  EXPECT_EQ(rows[0].outcome, LineOutcome::kMalformed);
  EXPECT_EQ(rows[1].outcome, LineOutcome::kParsed);
  EXPECT_THAT(rows[1].fields, UnorderedElementsAre(Pair("a", "second")));
}

TEST_P(JsonLogFormatTest, SteadyStateParsingDoesNotAllocate) {
  // Lines of growing length, no escapes and no containers read: after the
  // first batch (which sizes the simdjson parser and the copy buffer),
  // parsing allocates nothing.
  std::vector<ExactLine> exact;
  std::vector<std::string_view> views;
  exact.reserve(kMaxBatchRows);
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    exact.emplace_back(R"({"a":")" + std::string(i % 300, 'x') + R"(","n":)" +
                           std::to_string(i) + R"(,"o":{"k":[1,2]}})",
                       Padding());
    views.push_back(exact.back().view());
  }
  const std::vector<std::string> fields = {"a", "n", "o.k.1"};
  auto parser = FindLogFormat("json")->NewParser(fields);
  ASSERT_TRUE(parser.ok());
  TestFieldBatch batch(fields.size(), Padding());
  std::vector<LineOutcome> outcomes(views.size());
  (*parser)->ParseBatch(views, batch, outcomes.data());
  const size_t before = testing::AllocationCount();
  (*parser)->ParseBatch(views, batch, outcomes.data());
  EXPECT_EQ(testing::AllocationCount(), before);
  for (LineOutcome o : outcomes) ASSERT_EQ(o, LineOutcome::kParsed);
  EXPECT_EQ(batch.column(2)[kMaxBatchRows - 1], "2");
}

// ----------------------------------------------------------- size and depth

std::string Nested(size_t depth, std::string_view leaf) {
  std::string s;
  for (size_t i = 0; i < depth; ++i) s += R"({"d":)";
  s += leaf;
  s.append(depth, '}');
  return s;
}

TEST_P(JsonLogFormatTest, DeepNestingDoesNotCrash) {
  const std::string deep_object = Nested(10000, "1");
  const std::string deep_array =
      std::string(10000, '[') + "1" + std::string(10000, ']');
  const std::string line = R"({"a":"x","deep":)" + deep_object + R"(,"arr":)" +
                           deep_array + R"(,"b":"y"})";
  // Skipped, read whole (minified) and read along a path.
  Row row = One({"a", "b"}, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, UnorderedElementsAre(Pair("a", "x"), Pair("b", "y")));
  row = One({"deep", "arr"}, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_EQ(row.fields["deep"], deep_object);
  EXPECT_EQ(row.fields["arr"], deep_array);
  row = One({"deep.d.d.d"}, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_EQ(row.fields["deep.d.d.d"], Nested(9997, "1"));
  // A path longer than the walk follows (64 levels) is matched whole at
  // the 64th level, so deeper values are missing, never a crash.
  std::string path = "deep";
  for (int i = 0; i < 200; ++i) path += ".d";
  row = One({path}, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields, IsEmpty());
  // Unbalanced deep brackets.
  EXPECT_EQ(One({"a"}, R"({"a":)" + std::string(10000, '[')).outcome,
            LineOutcome::kMalformed);
}

TEST_P(JsonLogFormatTest, TenMegabyteLine) {
  std::string big(10 << 20, 'x');
  const std::string line = R"({"first":1,"big":")" + big + R"(","last":"end"})";
  Row row = One({"last", "first"}, line);
  EXPECT_EQ(row.outcome, LineOutcome::kParsed);
  EXPECT_THAT(row.fields,
              UnorderedElementsAre(Pair("last", "end"), Pair("first", "1")));
  row = One({"big"}, line);
  EXPECT_EQ(row.fields["big"].size(), big.size());
  // The parser's memory shrinks again; a small line after it still parses.
  EXPECT_EQ(One({"a"}, R"({"a":1})").fields["a"], "1");
}

TEST_P(JsonLogFormatTest, ManyLinesOfGrowingSizeInOneBatch) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    lines.push_back(R"({"i":)" + std::to_string(i) + R"(,"pad":")" +
                    std::string(i * 7 % 5000, 'p') + R"("})");
  }
  std::vector<Row> rows = Lines({"i"}, lines);
  ASSERT_EQ(rows.size(), lines.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].outcome, LineOutcome::kParsed);
    EXPECT_EQ(rows[i].fields["i"], std::to_string(i));
  }
}

// ---------------------------------------------- the engine's ways in (ASan)

constexpr char kQuery[] =
    "select method, count($line), avg(ms), max(bytes) group by method "
    "logformat json";

const std::vector<std::string>& EngineLines() {
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> v;
    for (int i = 0; i < 5000; ++i) {
      // Short lines, so many end within 64 bytes of their buffer's end.
      v.push_back(R"({"method":")" + std::string(i % 3 == 0 ? "GET" : "PUT") +
                  R"(","ms":)" + std::to_string(i % 10) + R"(,"bytes":)" +
                  std::to_string(i) + "}");
      if (i % 7 == 0) v.push_back("not json");
      if (i % 11 == 0) v.push_back(R"({"method":"GET","ms":"a\tb"})");
    }
    return v;
  }();
  return lines;
}

std::string Expected() {
  // Worked out from EngineLines(): i % 3 == 0 is GET (1667 lines of i),
  // plus the escaped-ms lines (every 11th i, 455 of them) that count a
  // line but give no number. ms = i % 10, bytes = i.
  int64_t get_count = 0, put_count = 0;
  int64_t get_ms = 0, put_ms = 0, get_n = 0, put_n = 0;
  int64_t get_max = 0, put_max = 0;
  for (int i = 0; i < 5000; ++i) {
    if (i % 3 == 0) {
      ++get_count, get_ms += i % 10, ++get_n, get_max = i;
    } else {
      ++put_count, put_ms += i % 10, ++put_n, put_max = i;
    }
    if (i % 11 == 0) ++get_count;
  }
  auto avg = [](int64_t sum, int64_t n) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(sum) / n);
    return std::string(buf);
  };
  return "method,count($line),avg(ms),max(bytes)\nGET," +
         std::to_string(get_count) + "," + avg(get_ms, get_n) + "," +
         avg(get_max, 1) + "\nPUT," + std::to_string(put_count) + "," +
         avg(put_ms, put_n) + "," + avg(put_max, 1) + "\n";
}

absl::StatusOr<Query> CompileQuery() { return Query::Compile(kQuery); }

TEST(JsonLogFormatEngineTest, PushLinesOfCallerStrings) {
  ASSERT_OK_AND_ASSIGN(Query q, CompileQuery());
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  // Each line in a block of exactly its size: no padding to read.
  std::vector<ExactLine> exact;
  std::vector<std::string_view> views;
  exact.reserve(EngineLines().size());
  for (const std::string& line : EngineLines()) {
    exact.emplace_back(line, 0);
    views.push_back(exact.back().view());
  }
  ASSERT_OK(agg.PushLines(views));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), Expected());
  EXPECT_EQ(r.stats().lines_malformed, 715u);  // The "not json" lines.
}

TEST(JsonLogFormatEngineTest, PushBytesInAwkwardChunks) {
  std::string bytes;
  for (const std::string& line : EngineLines()) bytes += line + "\n";
  ASSERT_OK_AND_ASSIGN(Query q, CompileQuery());
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  // Chunks of exactly their size, cut anywhere (mid-line too).
  size_t at = 0, step = 1;
  while (at < bytes.size()) {
    const size_t n = std::min(bytes.size() - at, step);
    ExactLine chunk(std::string_view(bytes).substr(at, n), 0);
    ASSERT_OK(agg.PushBytes(chunk.view()));
    at += n;
    step = step * 7 % 997 + 1;
  }
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), Expected());
}

TEST(JsonLogFormatEngineTest, PushFileReadsPaddedBuffers) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("mapr_json_" + std::to_string(getpid()) + ".log");
  std::string bytes;
  for (const std::string& line : EngineLines()) bytes += line + "\n";
  bytes.pop_back();  // The last line has no newline.
  testing::WriteFile(path, bytes);
  ASSERT_OK_AND_ASSIGN(Query q, CompileQuery());
  ASSERT_OK_AND_ASSIGN(Aggregator agg, Aggregator::Create(q));
  ASSERT_OK(PushFile(agg, path.string()));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(ResultTable r, agg.TakeResult());
  EXPECT_EQ(r.ToCsv(), Expected());
  std::filesystem::remove(path);
}

TEST(JsonLogFormatEngineTest, TurboAggregateBatches) {
  ASSERT_OK_AND_ASSIGN(Query q, CompileQuery());
  absl::Mutex mu;
  std::string final_csv;
  TurboOptions options;
  options.worker_threads = 2;
  options.interval_ms = -1;
  options.batch_lines = 333;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<TurboAggregate> turbo,
      TurboAggregate::Create(q, options,
                             [&](const ResultTable& r, bool is_final) {
                               absl::MutexLock lock(&mu);
                               if (is_final) final_csv = r.ToCsv();
                             }));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<TurboAggregate::Producer> producer,
                       turbo->AddProducer(0));
  std::string bytes;
  for (const std::string& line : EngineLines()) bytes += line + "\n";
  for (size_t at = 0; at < bytes.size(); at += 4093) {
    ASSERT_OK(producer->PushBytes(std::string_view(bytes).substr(at, 4093)));
  }
  ASSERT_OK(producer->Finish());
  ASSERT_OK(turbo->FinishInput());
  absl::MutexLock lock(&mu);
  EXPECT_EQ(final_csv, Expected());
}

TEST(JsonLogFormatEngineTest, BlankLinesAreCountedAsIgnored) {
  ASSERT_OK_AND_ASSIGN(
      ResultTable r, RunQuery("select count($line) group by * logformat ndjson",
                              {R"({"a":1})", "", "   ", R"({"b":2})", "[]"}));
  EXPECT_EQ(r.ToCsv(), "count($line)\n2\n");
  EXPECT_EQ(r.stats().lines_ignored, 2u);
  EXPECT_EQ(r.stats().lines_malformed, 1u);
}

}  // namespace
}  // namespace mapr::runtime
