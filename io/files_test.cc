#include "mapr/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/input.h"
#include "mapr/query.h"
#include "tests/testing/compress.h"
#include "tests/testing/files.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"

namespace mapr {
namespace {

using ::mapr::testing::Gzip;
using ::mapr::testing::Stats;
using ::mapr::testing::StatusIs;
using ::mapr::testing::TestOptions;
using ::mapr::testing::WriteFile;
using ::mapr::testing::Zstd;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

// last() makes the result depend on the order of the lines, and $file on
// which input each line came from.
constexpr char kQuery[] =
    "from STATS select $file,host,count($line),last(seq),avg(goroutines),"
    "max(conns) group by $file,host";

// `n` STATS lines numbered from `first`, spread over seven hosts.
std::string StatsLines(int first, int n) {
  std::string out;
  for (int i = first; i < first + n; ++i) {
    absl::StrAppend(
        &out,
        Stats(absl::StrCat("host=h", i % 7, "|seq=", i, "|goroutines=", i % 13,
                           "|conns=", i * 7 % 101)),
        "\n");
  }
  return out;
}

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat(
               "mapr_files_test_", getpid(), "_",
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const {
    return (dir_ / name).string();
  }
  std::string Write(const std::string& name, const std::string& content) {
    WriteFile(dir_ / name, content);
    return Path(name);
  }

  // Four inputs, plain and compressed, that a small min_chunk_bytes cuts
  // into many ranges.
  std::vector<std::string> WriteMix() {
    return {Write("a.log", StatsLines(0, 3000)),
            Write("b.log.gz", Gzip(StatsLines(3000, 2000))),
            Write("c.zst", Zstd(StatsLines(5000, 1500))),
            Write("d.log", StatsLines(6500, 5000))};
  }

  static Query Compile(const char* text = kQuery) {
    absl::StatusOr<Query> q = Query::Compile(text);
    EXPECT_TRUE(q.ok()) << q.status();
    return *q;
  }

  // The result of pushing the files one after another into one aggregator,
  // each as its own source.
  static std::string Reference(const Query& query,
                               const std::vector<std::string>& paths) {
    absl::StatusOr<Aggregator> agg = Aggregator::Create(query, TestOptions());
    EXPECT_TRUE(agg.ok()) << agg.status();
    for (size_t i = 0; i < paths.size(); ++i) {
      EXPECT_TRUE(PushFile(*agg, paths[i], static_cast<SourceId>(i)).ok());
    }
    EXPECT_TRUE(agg->FinishInput().ok());
    absl::StatusOr<ResultTable> r = agg->TakeResult();
    EXPECT_TRUE(r.ok()) << r.status();
    return r->ToCsv();
  }

  static FilesOptions Options(int threads) {
    FilesOptions options;
    options.threads = threads;
    options.aggregator = TestOptions();
    options.min_chunk_bytes = 16 << 10;
    return options;
  }

  std::filesystem::path dir_;
};

TEST_F(FilesTest, SameResultForAnyThreadCountAndMixOfInputs) {
  const std::vector<std::string> paths = WriteMix();
  const Query query = Compile();
  const std::string want = Reference(query, paths);
  ASSERT_THAT(want, HasSubstr("c.zst,h6,"));
  for (int threads = 1; threads <= 5; ++threads) {
    SCOPED_TRACE(threads);
    FilesReport report;
    absl::StatusOr<ResultTable> r =
        QueryFiles(query, paths, Options(threads), &report);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->ToCsv(), want);
    EXPECT_EQ(r->stats().lines_read, 11500u);
    EXPECT_EQ(report.inputs_ok, 4u);
    EXPECT_EQ(report.inputs_failed, 0u);
    EXPECT_TRUE(report.problems.empty());
  }
}

TEST_F(FilesTest, AByteOrderMarkAtAFileStartIsSkippedForEveryFormat) {
  const std::string bom = "\xEF\xBB\xBF";
  struct Case {
    const char* query;
    std::string content;
    const char* want;
  } cases[] = {
      {"select host,sum(n) group by host logformat csv",
       bom + "host,n\na,1\nb,2\na,3\n",
       "host,sum(n)\na,4.000000\nb,2.000000\n"},
      {"select host,sum(n) group by host logformat json",
       bom + "{\"host\":\"a\",\"n\":1}\n{\"host\":\"a\",\"n\":2}\n",
       "host,sum(n)\na,3.000000\n"},
      {"select host,count($line) group by host logformat generickv",
       bom + "host=a\nhost=a\n", "host,count($line)\na,2\n"},
      {"select $line,count($line) group by $line logformat generic", bom + "x",
       "$line,count($line)\nx,1\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    const Query query = Compile(c.query);
    for (const std::string& path :
         {Write("bom.log", c.content), Write("bom.log.gz", Gzip(c.content))}) {
      absl::StatusOr<ResultTable> r = QueryFiles(query, {path}, Options(2));
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->ToCsv(), c.want) << path;
      EXPECT_EQ(r->stats().lines_malformed, 0u);
      EXPECT_EQ(Reference(query, {path}), c.want) << path;
    }
  }
  // Only a file's first bytes: a mark after a newline is part of its line,
  // for any cut of the file into ranges.
  std::string lines;
  for (int i = 0; i < 4000; ++i) absl::StrAppend(&lines, bom, "k", i % 3, "\n");
  const Query query =
      Compile("select $line,count($line) group by $line logformat generic");
  const std::string path = Write("marks.log", bom + "k0\n" + lines);
  const std::string want = Reference(query, {path});
  EXPECT_THAT(want, HasSubstr(bom + "k0,1334\n"));
  EXPECT_THAT(want, HasSubstr("\nk0,1\n"));  // The first line, unmarked.
  for (int threads : {1, 2, 3}) {
    absl::StatusOr<ResultTable> r = QueryFiles(query, {path}, Options(threads));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->ToCsv(), want) << threads;
  }
}

TEST_F(FilesTest, InputsWithoutAParsedLineAreNamed) {
  const std::string access =
      Write("access.log",
            "::1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 9\n");
  std::string ssh_lines;
  for (int i = 0; i < 3000; ++i) {
    absl::StrAppend(&ssh_lines,
                    "Dec 10 06:55:46 LabSZ sshd[24200]: reverse "
                    "mapping checking failed\n");
  }
  const std::string ssh = Write("ssh.log", ssh_lines);
  const std::string empty = Write("empty.log", "");
  const Query query = Compile("select count($line) group by * logformat clf");
  for (int threads : {1, 3}) {
    FilesOptions options = Options(threads);
    options.min_chunk_bytes = 4096;  // ssh.log in several ranges.
    FilesReport report;
    absl::StatusOr<ResultTable> r =
        QueryFiles(query, {access, ssh, empty}, options, &report);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->stats().lines_malformed, 3000u);
    EXPECT_THAT(report.inputs_without_parsed_lines, ElementsAre(ssh))
        << threads;
  }
}

TEST_F(FilesTest, TheFirstUnparsableLineIsNumberedInItsInput) {
  const std::string good =
      "::1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 9\n";
  const std::string first = Write("first.log", good + good);
  // Line 401 is too long (dropped by the splitter, still a line), line 601
  // the first that does not parse, 20 more further on.
  std::string text;
  for (int i = 1; i <= 800; ++i) {
    if (i == 401) {
      text += std::string(300, 'x') + "\n";
    } else if (i == 601 || (i > 700 && i <= 720)) {
      text += "Dec 10 06:55:46 LabSZ sshd[24200]: not an access line\n";
    } else {
      text += good;
    }
  }
  const std::string second = Write("second.log", text);
  const Query query = Compile("select count($line) group by * logformat clf");
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(threads);
    FilesOptions options = Options(threads);
    options.min_chunk_bytes = 4096;  // second.log in several ranges.
    options.aggregator.max_line_bytes = 200;
    FilesReport report;
    absl::StatusOr<ResultTable> r =
        QueryFiles(query, {first, second}, options, &report);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->stats().lines_malformed, 21u);
    EXPECT_EQ(r->stats().lines_too_long, 1u);
    EXPECT_EQ(report.first_unparsable_input, second);
    EXPECT_EQ(report.first_unparsable_line, 601u);
    bool named = false;
    for (const ResultNote& n : r->notes()) {
      if (n.code != "lines_unparsable") continue;
      named = true;
      EXPECT_THAT(n.text, HasSubstr(absl::StrCat("(the first is line 601 of ",
                                                 second, ")")));
    }
    EXPECT_TRUE(named);
  }
  // Every line parses: no line is named.
  FilesReport report;
  ASSERT_TRUE(QueryFiles(query, {first}, Options(1), &report).ok());
  EXPECT_EQ(report.first_unparsable_line, 0u);
  EXPECT_EQ(report.first_unparsable_input, "");
}

TEST_F(FilesTest, GlobsExpandSortedAndEachMatchIsASource) {
  const std::vector<std::string> paths = WriteMix();
  const Query query = Compile();
  // a.log, d.log: the glob's matches in sorted order.
  const std::string want = Reference(query, {paths[0], paths[3]});
  absl::StatusOr<ResultTable> r =
      QueryFiles(query, {Path("*.log")}, Options(2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToCsv(), want);
}

TEST_F(FilesTest, ProblemsAreReportedOnceAndTheRunGoesOn) {
  const std::string a = Write("a.log", StatsLines(0, 3000));
  const std::string full = Gzip(StatsLines(3000, 20000));
  const std::string cut = Write("cut.gz", full.substr(0, full.size() / 2));
  std::filesystem::create_directory(dir_ / "sub");
  const Query query = Compile();
  for (int threads : {1, 3}) {
    SCOPED_TRACE(threads);
    FilesOptions options = Options(threads);
    std::vector<InputProblem> seen;
    options.on_problem = [&](const InputProblem& p) { seen.push_back(p); };
    FilesReport report;
    absl::StatusOr<ResultTable> r = QueryFiles(
        query, {a, Path("missing.log"), Path("*.nothing"), Path("sub"), cut},
        options, &report);
    ASSERT_TRUE(r.ok()) << r.status();
    // The pattern while expanding, then the rest in input order.
    ASSERT_EQ(seen.size(), 4u);
    EXPECT_EQ(seen[0].name, Path("*.nothing"));
    EXPECT_THAT(seen[0].status, StatusIs(absl::StatusCode::kNotFound,
                                         "no file matches this pattern"));
    EXPECT_EQ(seen[1].name, Path("missing.log"));
    EXPECT_THAT(seen[1].status, StatusIs(absl::StatusCode::kNotFound,
                                         "No such file or directory"));
    EXPECT_EQ(seen[2].name, Path("sub"));
    EXPECT_THAT(seen[2].status, StatusIs(absl::StatusCode::kFailedPrecondition,
                                         "Is a directory"));
    EXPECT_EQ(seen[3].name, cut);
    EXPECT_THAT(seen[3].status,
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("gzip")));
    EXPECT_EQ(report.problems.size(), 4u);
    EXPECT_EQ(report.inputs_ok, 1u);
    EXPECT_EQ(report.inputs_failed, 4u);

    // The truncated file's lines before the cut count, as PushFile counts
    // them.
    absl::StatusOr<Aggregator> ref = Aggregator::Create(query, TestOptions());
    ASSERT_TRUE(ref.ok());
    ASSERT_TRUE(PushFile(*ref, a, 0).ok());
    EXPECT_THAT(PushFile(*ref, cut, 4),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("gzip")));
    ASSERT_TRUE(ref->FinishInput().ok());
    absl::StatusOr<ResultTable> want = ref->TakeResult();
    ASSERT_TRUE(want.ok());
    EXPECT_GT(want->stats().lines_read, 3000u);
    EXPECT_EQ(r->ToCsv(), want->ToCsv());
    EXPECT_EQ(r->stats().lines_read, want->stats().lines_read);
  }
}

TEST_F(FilesTest, ProgressEndsWithOneDoneReportOfEveryByteAndLine) {
  const std::vector<std::string> paths = WriteMix();
  uint64_t total = 0;
  for (const std::string& p : paths) total += std::filesystem::file_size(p);
  FilesOptions options = Options(2);
  options.progress_interval = std::chrono::milliseconds(0);
  std::vector<FilesProgress> reports;
  options.on_progress = [&](const FilesProgress& p) { reports.push_back(p); };
  absl::StatusOr<ResultTable> r = QueryFiles(Compile(), paths, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_FALSE(reports.empty());
  for (size_t i = 0; i + 1 < reports.size(); ++i) {
    EXPECT_FALSE(reports[i].done);
    EXPECT_LE(reports[i].bytes_read, reports[i + 1].bytes_read);
    EXPECT_LE(reports[i].lines, reports[i + 1].lines);
    EXPECT_LE(reports[i].elapsed, reports[i + 1].elapsed);
  }
  const FilesProgress& last = reports.back();
  EXPECT_TRUE(last.done);
  EXPECT_EQ(last.total_bytes, total);
  EXPECT_EQ(last.bytes_read, total);
  EXPECT_EQ(last.lines, 11500u);
}

TEST_F(FilesTest, AggregateFilesLeavesTheInputOpen) {
  const std::vector<std::string> paths = WriteMix();
  FilesReport report;
  absl::StatusOr<Aggregator> agg =
      AggregateFiles(Compile(), ExpandFileNames(paths), Options(3), &report);
  ASSERT_TRUE(agg.ok()) << agg.status();
  EXPECT_EQ(report.inputs_ok, 4u);
  const std::string more = StatsLines(20000, 10);
  ASSERT_TRUE(agg->PushBytes(more, 9).ok());
  ASSERT_TRUE(agg->FinishInput().ok());
  absl::StatusOr<ResultTable> r = agg->TakeResult();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stats().lines_read, 11510u);
}

TEST_F(FilesTest, EngineErrorsEndTheRun) {
  const std::vector<std::string> paths = WriteMix();
  FilesOptions options = Options(2);
  options.aggregator.max_groups = 3;  // There are seven hosts.
  EXPECT_THAT(QueryFiles(Compile(), paths, options).status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("more than 3 groups")));
}

TEST_F(FilesTest, RangesThatTileAFileReadEveryLineOnce) {
  const std::string path = Write("a.log", StatsLines(0, 1000));
  const uint64_t size = std::filesystem::file_size(path);
  const Query query = Compile("from STATS select count($line),sum(seq)");
  const std::string want = Reference(query, {path});
  for (uint64_t cut :
       {uint64_t{0}, uint64_t{1}, size / 3, size / 2 + 7, size - 1, size}) {
    SCOPED_TRACE(cut);
    std::optional<Aggregator> merged;
    for (const auto& [lo, hi] :
         {std::pair<uint64_t, uint64_t>{0, cut}, {cut, size}}) {
      absl::StatusOr<LineRange> range = LineAlignedRange(path, lo, hi);
      ASSERT_TRUE(range.ok()) << range.status();
      FilesOptions options = Options(2);
      options.range = *range;
      absl::StatusOr<Aggregator> agg = AggregateFiles(query, {{path}}, options);
      ASSERT_TRUE(agg.ok()) << agg.status();
      if (!merged.has_value()) {
        merged = std::move(*agg);
      } else {
        ASSERT_TRUE(merged->Merge(std::move(*agg)).ok());
      }
    }
    ASSERT_TRUE(merged->FinishInput().ok());
    absl::StatusOr<ResultTable> r = merged->TakeResult();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->ToCsv(), want);
  }
}

TEST_F(FilesTest, RangesNeedAPlainFileAndALineIndependentFormat) {
  const std::string path = Write("a.log", StatsLines(0, 10));
  const std::string gz = Write("a.gz", Gzip(StatsLines(0, 10)));
  EXPECT_THAT(LineAlignedRange(gz, 0, 10).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("gzip-compressed")));
  EXPECT_THAT(
      LineAlignedRange(Path("missing"), 0, 10).status(),
      StatusIs(absl::StatusCode::kNotFound, "No such file or directory"));
  FilesOptions options = Options(1);
  options.range = LineRange{0, 10};
  EXPECT_THAT(AggregateFiles(Compile(), {{"-", true}}, options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not standard input")));
  EXPECT_THAT(AggregateFiles(Compile("select count($line) logformat csv"),
                             {{path}}, options)
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("keeps no state between lines")));
}

TEST_F(FilesTest, ExpandFileNames) {
  Write("b.log", "");
  Write("a.log", "");
  Write("[x].log", "");  // Exists as named: not a pattern.
  std::vector<InputProblem> problems;
  const std::vector<FileInput> inputs = ExpandFileNames(
      {Path("*.log"), "-", Path("[x].log"), Path("*.none")}, &problems);
  EXPECT_THAT(inputs, ElementsAre(Field(&FileInput::path, Path("[x].log")),
                                  Field(&FileInput::path, Path("a.log")),
                                  Field(&FileInput::path, Path("b.log")),
                                  Field(&FileInput::is_stdin, true),
                                  Field(&FileInput::path, Path("[x].log"))));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].name, Path("*.none"));
  const std::vector<FileInput> none = ExpandFileNames({});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].is_stdin);
}

}  // namespace
}  // namespace mapr
