// The examples of the public headers (mapr/*.h) and of README.md's
// Embedding section, compiled and run. Each example below is the header's
// code, line for line (between "clang-format off/on" so that it stays so);
// ExamplesTest.EveryHeaderExampleIsHere reads the headers and fails when an
// example there is no longer the code here. mapr/c_api.h's example is C and
// lives in c_api_header_example.c.
#include <lzma.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/mapr.h"
#include "tests/testing/status_matchers.h"

namespace {

using ::testing::ElementsAre;

constexpr char kStatsLine[] =
    "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
    "currentConnections=0|lifetimeConnections=1";

// ---------------------------------------------------------- mapr/query.h

int QueryExample() {
  // clang-format off
  absl::StatusOr<mapr::Query> q = mapr::Query::Compile(
      "from STATS select count($line) group by $hostname");
  if (!q.ok()) { std::cerr << q.status().message() << "\n"; return 2; }
  for (const std::string& w : q->warnings()) {
    std::cerr << "warning: " << w << "\n";
  }
  // clang-format on
  return 0;
}

TEST(HeaderExamplesTest, Query) { EXPECT_EQ(QueryExample(), 0); }

// ----------------------------------------------------- mapr/aggregator.h

absl::StatusOr<mapr::ResultTable> AggregatorExample(const mapr::Query& query) {
  // clang-format off
  absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(query);
  if (!agg.ok()) return agg.status();
  std::vector<std::string_view> lines = {"a", "b"};
  absl::Status s = agg->PushLines(lines);  // any number of batches
  s.Update(agg->FinishInput());
  absl::StatusOr<mapr::ResultTable> result = agg->TakeResult();
  // clang-format on
  if (!s.ok()) return s;
  return result;
}

TEST(HeaderExamplesTest, Aggregator) {
  ASSERT_OK_AND_ASSIGN(mapr::Query query,
                       mapr::Query::Compile("select count($line) group by *"));
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable r, AggregatorExample(query));
  EXPECT_EQ(r.ToCsv(), "count($line)\n2\n");
}

TEST(HeaderExamplesTest, RunQuery) {
  // clang-format off
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable r,
                       mapr::RunQuery("select count($line) group by *",
                                      {"a", "b"}));
  EXPECT_EQ(r.ToCsv(), "count($line)\n2\n");
  // clang-format on
}

// -------------------------------------------------------- mapr/result.h

absl::Status ResultExample(mapr::Aggregator& aggregator) {
  // clang-format off
  absl::StatusOr<mapr::ResultTable> r = aggregator.TakeResult();
  if (!r.ok()) return r.status();
  std::fputs(r->ToCsv().c_str(), stdout);
  std::printf("%llu lines aggregated\n",
              (unsigned long long)r->stats().lines_aggregated);
  // clang-format on
  return absl::OkStatus();
}

TEST(HeaderExamplesTest, Result) {
  ASSERT_OK_AND_ASSIGN(mapr::Query query,
                       mapr::Query::Compile("select count($line) group by *"));
  ASSERT_OK_AND_ASSIGN(mapr::Aggregator aggregator,
                       mapr::Aggregator::Create(query));
  ASSERT_OK(aggregator.PushBytes("a\nb\nc"));
  ASSERT_OK(aggregator.FinishInput());
  ::testing::internal::CaptureStdout();
  absl::Status s = ResultExample(aggregator);
  std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_OK(s);
  EXPECT_EQ(out, "count($line)\n3\n3 lines aggregated\n");
}

void LineCountersExample(const mapr::LineCounters& stats) {
  // clang-format off
  for (const mapr::LineCounterField& f : mapr::kLineCounterFields) {
    std::printf("%.*s: %llu\n", static_cast<int>(f.name.size()),
                f.name.data(),
                static_cast<unsigned long long>(stats.*f.value));
  }
  // clang-format on
}

TEST(HeaderExamplesTest, LineCounterFields) {
  mapr::LineCounters stats;
  stats.lines_read = 3;
  stats.lines_aggregated = 2;
  stats.lines_filtered = 1;
  ::testing::internal::CaptureStdout();
  LineCountersExample(stats);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "lines_read: 3\nlines_too_long: 0\nlines_table_mismatch: 0\n"
            "lines_ignored: 0\nlines_malformed: 0\nlines_unmatched: "
            "0\nlines_header: 0\n"
            "lines_filtered: 1\nlines_without_value: 0\n"
            "lines_aggregated: 2\nvalues_unparsed: 0\n");
}

// ------------------------------------------------------- mapr/outfile.h

void OutfileExample(const mapr::Query& query, const mapr::ResultTable& result) {
  // clang-format off
  if (query.outfile()) {
    absl::Status s = mapr::WriteOutfile(query, result);
    if (!s.ok()) std::cerr << s.message() << "\n";
  }
  // clang-format on
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(HeaderExamplesTest, Outfile) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "header_examples_outfile";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "r.csv").string();
  ASSERT_OK_AND_ASSIGN(
      mapr::Query query,
      mapr::Query::Compile("select count($line) group by * outfile \"" + path +
                           "\""));
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable result,
                       mapr::RunQuery(query.text(), {"a"}));
  OutfileExample(query, result);
  EXPECT_EQ(ReadAll(path), "count($line)\n1\n");
  EXPECT_EQ(ReadAll(path + ".query"), query.text());
}

// -------------------------------------------------------- mapr/status.h

absl::Mutex g_highlight_mu;
std::vector<std::pair<size_t, size_t>> g_highlights
    ABSL_GUARDED_BY(g_highlight_mu);

void Highlight(size_t offset, size_t length) {
  absl::MutexLock lock(&g_highlight_mu);
  g_highlights.emplace_back(offset, length);
}

void StatusExample(std::string_view text) {
  // clang-format off
  absl::StatusOr<mapr::Query> q = mapr::Query::Compile(text);
  if (!q.ok()) {
    std::optional<mapr::SourceSpan> span = mapr::GetSourceSpan(q.status());
    if (span.has_value()) Highlight(span->offset, span->length);
  }
  // clang-format on
}

TEST(HeaderExamplesTest, Status) {
  StatusExample("select count($line)");
  StatusExample("select avgg(x)");
  absl::MutexLock lock(&g_highlight_mu);
  EXPECT_THAT(g_highlights, ElementsAre(std::make_pair(7u, 4u)));
}

// ---------------------------------------------------- mapr/log_format.h

// clang-format off
class NginxFormat : public mapr::LogFormat {
 public:
  std::string name() const override { return "nginx"; }
  absl::StatusOr<std::unique_ptr<mapr::LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override;
};
// clang-format on

// Every line is parsed; no field of its own (only the common variables,
// which the engine fills).
class NginxParser : public mapr::LogFormatParser {
 public:
  void ParseBatch(std::span<const std::string_view> lines,
                  mapr::FieldBatch& /*fields*/,
                  mapr::LineOutcome* outcomes) override {
    for (size_t i = 0; i < lines.size(); ++i) {
      outcomes[i] = mapr::LineOutcome::kParsed;
    }
  }
};

absl::StatusOr<std::unique_ptr<mapr::LogFormatParser>> NginxFormat::NewParser(
    std::span<const std::string> /*fields*/) const {
  return std::make_unique<NginxParser>();
}

absl::StatusOr<mapr::ResultTable> LogFormatExample() {
  // clang-format off
  absl::Status s = mapr::RegisterLogFormat(std::make_shared<NginxFormat>());
  auto q = mapr::Query::Compile("select count($line) logformat nginx");
  // clang-format on
  if (!s.ok()) return s;
  if (!q.ok()) return q.status();
  return mapr::RunQuery(q->text(), {"GET /", "GET /a"});
}

TEST(HeaderExamplesTest, LogFormat) {
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable r, LogFormatExample());
  // Grouped by the first item's field, $line: one group per line.
  EXPECT_EQ(r.ToCsv(), "count($line)\n1\n1\n");
}

// ---------------------------------- mapr/line_splitter.h, turbo_aggregate.h

absl::Status LineSplitterExample(int fd,
                                 mapr::TurboAggregate::Producer& producer) {
  // clang-format off
  mapr::LineSplitter splitter;
  char buf[64 * 1024];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) {
    absl::Status s = producer.PushLines(splitter.Split({buf, size_t(n)}));
    if (!s.ok()) return s;
  }
  if (auto last = splitter.Finish()) return producer.PushLines({&*last, 1});
  // clang-format on
  return absl::OkStatus();
}

absl::Mutex g_tables_mu;
std::vector<std::string> g_tables ABSL_GUARDED_BY(g_tables_mu);

void PrintTable(const mapr::ResultTable& result, bool is_final) {
  absl::MutexLock lock(&g_tables_mu);
  g_tables.push_back((is_final ? "final\n" : "interval\n") + result.ToTable());
}

void ReadFile(const std::string& path,
              std::unique_ptr<mapr::TurboAggregate::Producer> producer) {
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr) << path;
  EXPECT_OK(LineSplitterExample(fileno(f), *producer));
  std::fclose(f);
  EXPECT_OK(producer->Finish());
}

absl::Status TurboAggregateExample(const mapr::Query& query,
                                   const std::string& path) {
  // clang-format off
  auto turbo = mapr::TurboAggregate::Create(query, {}, PrintTable);
  if (!turbo.ok()) return turbo.status();
  auto producer = (*turbo)->AddProducer(/*source=*/1);  // one per input
  if (!producer.ok()) return producer.status();
  std::thread reader(ReadFile, path, *std::move(producer));  // PushLine...
  absl::Status s = (*turbo)->FinishInput();  // waits for the producers
  reader.join();
  // clang-format on
  return s;
}

TEST(HeaderExamplesTest, LineSplitterAndTurboAggregate) {
  const std::string path = ::testing::TempDir() + "/header_examples.log";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    // Three lines, the last without a final newline (LineSplitter::Finish).
    out << kStatsLine << "\n" << kStatsLine << "\nnoise\n" << kStatsLine;
  }
  ASSERT_OK_AND_ASSIGN(
      mapr::Query query,
      mapr::Query::Compile("from STATS select count($line),"
                           "max(lifetimeConnections) group by *"));
  ASSERT_OK(TurboAggregateExample(query, path));
  absl::MutexLock lock(&g_tables_mu);
  ASSERT_FALSE(g_tables.empty());
  EXPECT_EQ(g_tables.back(),
            "final\n"
            " count($line) | max(lifetimeConnections) \n"
            "--------------|--------------------------\n"
            "            3 |                 1.000000 \n");
}

// ------------------------------------------------------------ mapr/input.h

// Writes `text` xz-compressed to `path` (the examples read "app.log.xz" from
// the working directory).
void WriteXz(const std::string& path, std::string_view text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  size_t pos = 0;
  ASSERT_EQ(lzma_easy_buffer_encode(
                6, LZMA_CHECK_CRC64, nullptr,
                reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << out;
}

void PushFileExample(mapr::Aggregator& aggregator) {
  // clang-format off
  absl::Status s = mapr::PushFile(aggregator, "app.log.xz");
  if (!s.ok()) std::cerr << s.message() << "\n";  // names the file
  // clang-format on
}

absl::StatusOr<mapr::LineCounters> ReadLinesExample(
    mapr::Aggregator& aggregator) {
  // clang-format off
  mapr::InputCounters counters;
  auto in = mapr::OpenInput({.path = "app.log.xz"}, &counters);
  if (!in.ok()) return in.status();
  mapr::LineSplitter splitter(/*max_line_bytes=*/1 << 20);
  absl::Status s = mapr::ReadLines(**in, splitter,
      [&](std::span<const std::string_view> lines) {
        return aggregator.PushLines(lines);
      }, &counters);
  mapr::LineCounters stats = aggregator.stats();
  mapr::CountTooLongLines(splitter.too_long_lines(), stats);
  // clang-format on
  if (!s.ok()) return s;
  return stats;
}

TEST(HeaderExamplesTest, Input) {
  WriteXz("app.log.xz", std::string("a\nb\n") + kStatsLine + "\n");
  ASSERT_OK_AND_ASSIGN(
      mapr::Query query,
      mapr::Query::Compile("from STATS select count($line) group by *"));
  ASSERT_OK_AND_ASSIGN(mapr::Aggregator pushed,
                       mapr::Aggregator::Create(query));
  ::testing::internal::CaptureStderr();
  PushFileExample(pushed);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(pushed.stats().lines_read, 3u);

  ASSERT_OK_AND_ASSIGN(mapr::Aggregator read, mapr::Aggregator::Create(query));
  ASSERT_OK_AND_ASSIGN(mapr::LineCounters stats, ReadLinesExample(read));
  EXPECT_EQ(stats.lines_read, 3u);
  EXPECT_EQ(stats.lines_table_mismatch, 2u);

  // A damaged file: the message names it.
  WriteXz("app.log.xz", "a\n");
  std::filesystem::resize_file("app.log.xz",
                               std::filesystem::file_size("app.log.xz") - 1);
  ASSERT_OK_AND_ASSIGN(mapr::Aggregator damaged,
                       mapr::Aggregator::Create(query));
  ::testing::internal::CaptureStderr();
  PushFileExample(damaged);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "app.log.xz: unexpected end of xz data\n");
}

// ----------------------------------------------------------- mapr/files.h

absl::StatusOr<mapr::ResultTable> QueryFilesExample(const mapr::Query& query) {
  // clang-format off
  mapr::FilesOptions options;
  options.threads = 4;
  options.on_problem = [](const mapr::InputProblem& p) {
    std::cerr << p.name << ": " << p.status.message() << "\n";
  };
  absl::StatusOr<mapr::ResultTable> result = mapr::QueryFiles(
      query, {"app.log", "app.log.*.gz"}, options);
  // clang-format on
  return result;
}

// ---------------------------------------------------------- mapr/journal.h

absl::Status JournalExample(mapr::Aggregator& aggregator) {
  // clang-format off
  mapr::JournalSpec spec;
  spec.files = {"system.journal"};
  auto reader = mapr::JournalReader::Open(spec);
  if (!reader.ok()) return reader.status();
  absl::Status s = (*reader)->ReadAll(
      [&](std::span<const std::string_view> lines) {
        return aggregator.PushLines(lines);
      });
  // clang-format on
  return s;
}

TEST(HeaderExamplesTest, Journal) {
  auto q = mapr::Query::Compile("select count($line) logformat journal");
  ASSERT_TRUE(q.ok()) << q.status();
  auto agg = mapr::Aggregator::Create(*q);
  ASSERT_TRUE(agg.ok()) << agg.status();
  // No such file here: the error names it (or says what the build lacks).
  absl::Status s = JournalExample(*agg);
  if (mapr::JournalSupported()) {
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
    EXPECT_THAT(std::string(s.message()),
                ::testing::HasSubstr("journal file system.journal"));
  } else {
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  }
}

TEST(HeaderExamplesTest, Files) {
  ASSERT_OK_AND_ASSIGN(
      mapr::Query query,
      mapr::Query::Compile("from STATS select count($line) group by *"));
  std::ofstream("app.log", std::ios::binary | std::ios::trunc)
      << kStatsLine << "\n";
  std::filesystem::remove("app.log.1.gz");
  ::testing::internal::CaptureStderr();
  absl::StatusOr<mapr::ResultTable> r = QueryFilesExample(query);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "app.log.*.gz: no file matches this pattern\n");
  ASSERT_OK(r);
  EXPECT_EQ(r->ToCsv(), "count($line)\n1\n");
}

// ------------------------------------------------------------ mapr/mapr.h

TEST(HeaderExamplesTest, Umbrella) {
  // clang-format off
  absl::StatusOr<mapr::ResultTable> r = mapr::RunQuery(
      "select count($line) group by *", {"a", "b"});
  // clang-format on
  ASSERT_OK(r);
  EXPECT_EQ(r->ToCsv(), "count($line)\n2\n");
}

// ------------------------------------------------- README.md, "Embedding"

int ReadmeExample(std::span<const std::string_view> lines) {
  // clang-format off
  absl::StatusOr<mapr::Query> q = mapr::Query::Compile(
      "from STATS select count($line),avg($goroutines) group by $hostname");
  if (!q.ok()) { std::cerr << q.status().message() << "\n"; return 2; }
  absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(*q);
  if (!agg.ok()) { std::cerr << agg.status().message() << "\n"; return 1; }
  absl::Status s = agg->PushLines(lines);        // any number of batches
  s.Update(agg->FinishInput());                  // explicit end of input
  absl::StatusOr<mapr::ResultTable> r = agg->TakeResult();
  if (!r.ok()) { std::cerr << r.status().message() << "\n"; return 1; }
  std::cout << r->ToTable();                     // or ToCsv(), ToJson(), ToNdjson()
  // clang-format on
  return s.ok() ? 0 : 1;
}

TEST(HeaderExamplesTest, Readme) {
  const std::vector<std::string_view> lines = {kStatsLine, kStatsLine};
  ::testing::internal::CaptureStdout();
  const int rc = ReadmeExample(lines);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out,
            " count($line) | avg($goroutines) \n"
            "--------------|------------------\n"
            "            2 |        13.000000 \n");
}

// ------------------------------------------------- the examples are these

// Trims `line` and collapses each run of whitespace into one space.
std::string Normalize(std::string_view line) {
  std::string out;
  bool space = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

std::vector<std::string> ReadLines(const std::filesystem::path& path) {
  std::vector<std::string> out;
  for (const std::string& line : SplitLines(ReadAll(path))) {
    out.push_back(Normalize(line));
  }
  return out;
}

// The examples in a header: after a comment line that mentions "Example"
// and ends in ':', the comment lines indented as code (three or more spaces
// after "//" or " *"), normalized, without the comment marker.
std::vector<std::vector<std::string>> HeaderExamples(
    const std::filesystem::path& header) {
  std::vector<std::vector<std::string>> examples;
  bool in_example = false;
  for (const std::string& line : SplitLines(ReadAll(header))) {
    std::string_view body = line;
    body.remove_prefix(std::min(body.find_first_not_of(' '), body.size()));
    bool comment = false;
    for (std::string_view marker : {"//", "*"}) {
      if (!comment && body.starts_with(marker)) {
        body.remove_prefix(marker.size());
        comment = true;
      }
    }
    if (in_example && comment && body.starts_with("   ")) {
      examples.back().push_back(Normalize(body));
      continue;
    }
    const std::string text = Normalize(body);
    in_example = comment && text.find("Example") != std::string::npos &&
                 text.ends_with(':');
    if (in_example) examples.emplace_back();
  }
  return examples;
}

// The C++ code block of README.md's "## Embedding" section.
std::vector<std::string> ReadmeExampleLines(
    const std::filesystem::path& readme) {
  std::vector<std::string> out;
  bool in_section = false;
  bool in_block = false;
  for (const std::string& line : ReadLines(readme)) {
    if (line.starts_with("## ")) in_section = line == "## Embedding";
    if (!in_section) continue;
    if (!in_block) {
      in_block = line == "```c++";
      continue;
    }
    if (line == "```") break;
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// Returns "" if `example` occurs in `lines` in order, else the first line
// that does not.
std::string FirstMissingLine(const std::vector<std::string>& example,
                             const std::vector<std::string>& lines) {
  size_t at = 0;
  for (const std::string& want : example) {
    while (at < lines.size() && lines[at] != want) ++at;
    if (at == lines.size()) return want;
    ++at;
  }
  return "";
}

// ------------------------------------------------------- mapr/partial.h

absl::StatusOr<mapr::ResultTable> PartialExample(
    const std::vector<std::string>& parts) {
  // clang-format off
  absl::StatusOr<mapr::Aggregator> agg =
      mapr::Aggregator::FromPartial(parts[0]);
  if (!agg.ok()) return agg.status();
  for (size_t i = 1; i < parts.size(); ++i) {
    if (absl::Status s = agg->MergeSerialized(parts[i]); !s.ok()) return s;
  }
  absl::Status s = agg->FinishInput();
  absl::StatusOr<mapr::ResultTable> result = agg->TakeResult();
  // clang-format on
  if (!s.ok()) return s;
  return result;
}

// The partials of splits 0, 1 and 2 of `count($line)`, each over
// `lines_each` STATS lines.
void StatsPartials(size_t lines_each, std::vector<std::string>* parts) {
  ASSERT_OK_AND_ASSIGN(mapr::Query query,
                       mapr::Query::Compile("from STATS select count($line)"));
  const std::vector<std::string> lines(lines_each, std::string(kStatsLine));
  for (uint64_t split = 0; split < 3; ++split) {
    mapr::AggregatorOptions options;
    options.splits = {split, split + 1};
    ASSERT_OK_AND_ASSIGN(mapr::Aggregator agg,
                         mapr::Aggregator::Create(query, options));
    ASSERT_OK(agg.PushLines(lines));
    ASSERT_OK(agg.FinishInput());
    ASSERT_OK_AND_ASSIGN(std::string part, agg.SerializePartial());
    parts->push_back(std::move(part));
  }
}

TEST(HeaderExamplesTest, Partial) {
  std::vector<std::string> parts;
  ASSERT_NO_FATAL_FAILURE(StatsPartials(2, &parts));
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable r, PartialExample(parts));
  EXPECT_EQ(r.ToCsv(), "count($line)\n6\n");
}

// A stream of `bytes` read `chunk` bytes at a time by the example of
// mapr/partial.h's PartialFrameReader; the frames go to `frames`.
absl::Status PartialFrameReaderExample(std::string_view bytes, size_t chunk,
                                       std::vector<std::string>& frames) {
  const int fd = 0;
  char buf[4096];
  auto read = [&](int, char* into, size_t size) {
    const size_t n = std::min({size, chunk, bytes.size()});
    std::memcpy(into, bytes.data(), n);
    bytes.remove_prefix(n);
    return n;
  };
  auto Use = [&](std::string_view frame) { frames.emplace_back(frame); };
  // clang-format off
  mapr::PartialFrameReader reader;
  while (size_t n = read(fd, buf, sizeof(buf))) {
    reader.Append(std::string_view(buf, n));
    std::string_view frame;
    while (reader.Next(&frame)) Use(frame);
    if (!reader.status().ok()) return reader.status();
  }
  return reader.Finish();
  // clang-format on
}

TEST(HeaderExamplesTest, PartialFrameReader) {
  std::vector<std::string> parts;
  ASSERT_NO_FATAL_FAILURE(StatsPartials(1, &parts));
  const std::string stream = parts[0] + parts[1] + parts[2];
  std::vector<std::string> frames;
  ASSERT_OK(PartialFrameReaderExample(stream, 100, frames));
  EXPECT_EQ(frames, parts);
  frames.clear();
  EXPECT_THAT(
      PartialFrameReaderExample("not a partial", 100, frames),
      mapr::testing::StatusIs(absl::StatusCode::kInvalidArgument,
                              ::testing::HasSubstr("not a mapr partial")));
  EXPECT_TRUE(frames.empty());
}

// mapr/alert.h
absl::StatusOr<std::vector<bool>> AlertExample(
    const mapr::Query& query, const mapr::ResultTable& result) {
  // clang-format off
  absl::StatusOr<mapr::RowCondition> alert =
      mapr::RowCondition::Compile(query, "count($line) > 100");
  if (!alert.ok()) return alert.status();
  std::vector<bool> firing = alert->Evaluate(result);
  // clang-format on
  return firing;
}

TEST(HeaderExamplesTest, Alert) {
  ASSERT_OK_AND_ASSIGN(
      mapr::Query query,
      mapr::Query::Compile("select $line,count($line) group by $line"));
  std::vector<std::string> lines(101, "a");
  lines.push_back("b");
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable r,
                       mapr::RunQuery(query.text(), lines));
  ASSERT_OK_AND_ASSIGN(std::vector<bool> firing, AlertExample(query, r));
  EXPECT_THAT(firing, ElementsAre(true, false));
}

// mapr/prometheus.h
void PrometheusExample(const absl::StatusOr<mapr::ResultTable>& result) {
  // clang-format off
  absl::StatusOr<std::string> text = mapr::ToPrometheus(*result);
  if (text.ok()) std::fputs(text->c_str(), stdout);
  // clang-format on
}

TEST(HeaderExamplesTest, Prometheus) {
  absl::StatusOr<mapr::ResultTable> result =
      mapr::RunQuery("select count($line) group by *", {"a", "b"});
  ASSERT_OK(result);
  ::testing::internal::CaptureStdout();
  PrometheusExample(result);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "# HELP mapr_count_line count($line)\n"
            "# TYPE mapr_count_line gauge\n"
            "mapr_count_line 2\n");
}

// mapr/partial_reducer.h
absl::StatusOr<mapr::ResultTable> ReducerExample(
    const std::vector<std::string>& hosts,
    const std::vector<std::string>& frames) {
  // clang-format off
  mapr::PartialReducer reducer;
  for (const std::string& host : hosts) reducer.DeclareSource(host);
  for (const std::string& frame : frames) {
    if (absl::Status s = reducer.Add(frame); !s.ok()) return s;
  }
  absl::StatusOr<mapr::ResultTable> now = reducer.Result();
  // clang-format on
  return now;
}

TEST(HeaderExamplesTest, PartialReducer) {
  ASSERT_OK_AND_ASSIGN(
      mapr::Query query,
      mapr::Query::Compile("from STATS select count($line),last($time)"));
  std::vector<std::string> frames;
  for (const char* host : {"web-2", "web-1"}) {
    mapr::AggregatorOptions options;
    options.source = host;
    ASSERT_OK_AND_ASSIGN(mapr::Aggregator agg,
                         mapr::Aggregator::Create(query, options));
    for (int delta = 0; delta < 2; ++delta) {
      ASSERT_OK(agg.PushLines({kStatsLine}));
      ASSERT_OK_AND_ASSIGN(std::string frame, agg.TakeDeltaPartial());
      frames.push_back(std::move(frame));
    }
  }
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable r,
                       ReducerExample({"web-1", "web-2"}, frames));
  EXPECT_EQ(r.ToCsv(), "count($line),last($time)\n4,1002-071143\n");
}

// mapr/catalog.h
std::string CatalogExample() {
  std::ostringstream out;
  std::streambuf* saved = std::cout.rdbuf(out.rdbuf());
  // clang-format off
  for (const mapr::CatalogEntry& f : mapr::FunctionCatalog()) {
    std::cout << f.usage << "  " << f.summary << "\n";
  }
  // clang-format on
  std::cout.rdbuf(saved);
  return out.str();
}

TEST(HeaderExamplesTest, Catalog) {
  const std::string text = CatalogExample();
  EXPECT_NE(text.find("bucket("), std::string::npos) << text;
  EXPECT_NE(text.find("duration(x)"), std::string::npos) << text;
}

// mapr/time.h
std::vector<std::pair<int64_t, double>> TimeExample(const mapr::ResultTable& r,
                                                    size_t col,
                                                    size_t value_col) {
  std::vector<std::pair<int64_t, double>> points;
  for (size_t row = 0; row < r.num_rows(); ++row) {
    // clang-format off
    std::optional<mapr::TimeInstant> t = mapr::ReadTime(r.cell(row, col));
    if (t) points.push_back({t->seconds, r.value(row, value_col)});
    // clang-format on
  }
  return points;
}

TEST(HeaderExamplesTest, Time) {
  ASSERT_OK_AND_ASSIGN(
      mapr::Query query,
      mapr::Query::Compile("select $b, count($line) set $b = bucket(t, 1h) "
                           "group by $b logformat generickv"));
  ASSERT_TRUE(query.columns()[0].is_time_bucket);
  ASSERT_OK_AND_ASSIGN(mapr::Aggregator agg, mapr::Aggregator::Create(query));
  ASSERT_OK(agg.PushLines({"t=2026-12-04T11:30:00Z", "t=2026-12-04T10:10:00Z",
                           "t=2026-12-04T10:20:00Z"}));
  ASSERT_OK(agg.FinishInput());
  ASSERT_OK_AND_ASSIGN(mapr::ResultTable r, agg.TakeResult());
  EXPECT_THAT(TimeExample(r, 0, 1),
              ElementsAre(std::pair<int64_t, double>{1796378400, 2},
                          std::pair<int64_t, double>{1796382000, 1}));
}

// mapr/format_guess.h
TEST(HeaderExamplesTest, FormatGuess) {
  // clang-format off
  std::vector<std::string_view> sample = {R"({"level":"info"})",
                                          R"({"level":"warn"})",
                                          "ts=1 level=info"};
  mapr::FormatGuess g = mapr::GuessLogFormat(sample);
  // g.format == "json", g.lines == 2, g.runner_up == "logfmt",
  // g.runner_up_lines == 1, g.sampled == 3
  // clang-format on
  EXPECT_EQ(g.format, "json");
  EXPECT_EQ(g.lines, 2u);
  EXPECT_EQ(g.runner_up, "logfmt");
  EXPECT_EQ(g.runner_up_lines, 1u);
  EXPECT_EQ(g.sampled, 3u);
  EXPECT_EQ(g.evidence, "JSON objects, one per line");
}

TEST(ExamplesTest, EveryHeaderExampleIsHere) {
  const std::filesystem::path source = MAPR_SOURCE_DIR;
  const std::filesystem::path here = source / "tests" / "header_examples";
  const std::vector<std::string> cc_lines =
      ReadLines(here / "header_examples_test.cc");
  const std::vector<std::string> c_lines =
      ReadLines(here / "c_api_header_example.c");
  int headers_with_examples = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(source / "mapr")) {
    const std::filesystem::path& header = entry.path();
    if (header.extension() != ".h") continue;
    const std::vector<std::vector<std::string>> examples =
        HeaderExamples(header);
    if (examples.empty()) continue;
    ++headers_with_examples;
    const bool is_c = header.filename() == "c_api.h";
    for (const std::vector<std::string>& example : examples) {
      EXPECT_FALSE(example.empty()) << header << ": an example without code";
      EXPECT_EQ(FirstMissingLine(example, is_c ? c_lines : cc_lines), "")
          << header << "'s example is not (any more) the code in "
          << (is_c ? "c_api_header_example.c" : "header_examples_test.cc");
    }
  }
  // mapr.h, query.h, aggregator.h, result.h, outfile.h, status.h,
  // log_format.h, line_splitter.h, turbo_aggregate.h, input.h, files.h,
  // partial.h, partial_reducer.h, prometheus.h, alert.h, catalog.h, time.h,
  // format_guess.h, journal.h and c_api.h.
  EXPECT_EQ(headers_with_examples, 20);

  const std::vector<std::string> readme =
      ReadmeExampleLines(source / "README.md");
  EXPECT_GE(readme.size(), 5u);
  EXPECT_EQ(FirstMissingLine(readme, cc_lines), "")
      << "README.md's Embedding example is not the code here";
}

}  // namespace
