// Uses the installed public C++ API broadly, so that a symbol missing from
// libmapr.so's exports (or a header missing from the install) fails the
// link or the build.
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/c_api.h"
#include "mapr/mapr.h"

namespace {

int failures = 0;

void Expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

// A host log format: "key:value" lines.
class ColonParser : public mapr::LogFormatParser {
 public:
  explicit ColonParser(std::vector<std::string> fields)
      : fields_(std::move(fields)) {}
  void ParseBatch(std::span<const std::string_view> lines,
                  mapr::FieldBatch& batch,
                  mapr::LineOutcome* outcomes) override {
    for (size_t row = 0; row < lines.size(); ++row) {
      size_t colon = lines[row].find(':');
      if (colon == std::string_view::npos) {
        outcomes[row] = mapr::LineOutcome::kMalformed;
        continue;
      }
      for (size_t f = 0; f < fields_.size(); ++f) {
        if (fields_[f] == "key") {
          batch.column(f)[row] = batch.Copy(lines[row].substr(0, colon));
        } else if (fields_[f] == "value") {
          batch.column(f)[row] = lines[row].substr(colon + 1);
        }
      }
      outcomes[row] = mapr::LineOutcome::kParsed;
    }
  }

 private:
  std::vector<std::string> fields_;
};

class ColonFormat : public mapr::LogFormat {
 public:
  std::string name() const override { return "colon"; }
  absl::StatusOr<std::unique_ptr<mapr::LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return std::make_unique<ColonParser>(
        std::vector<std::string>(fields.begin(), fields.end()));
  }
};

}  // namespace

int main() {
  // Compile and query accessors.
  Expect(mapr::RegisterLogFormat(std::make_shared<ColonFormat>()).ok(),
         "RegisterLogFormat");
  absl::StatusOr<mapr::Query> q = mapr::Query::Compile(
      "select key,count($line),sum(value) group by key order by "
      "count($line) logformat colon");
  if (!q.ok()) {
    std::fprintf(stderr, "%s\n", std::string(q.status().message()).c_str());
    return 1;
  }
  Expect(q->column_names().size() == 3, "column_names");
  Expect(q->log_format() == "colon", "log_format");
  Expect(!q->ToString().empty() && !q->Explain().empty(), "ToString/Explain");
  Expect(q->warnings().empty() && q->limit() == -1 && !q->outfile(),
         "accessors");
  Expect(mapr::FindLogFormat("colon") != nullptr, "FindLogFormat");
  Expect(mapr::LogFormatNames().size() >= 5, "LogFormatNames");

  // Errors carry a span.
  absl::StatusOr<mapr::Query> bad = mapr::Query::Compile("select avgg(x)");
  std::optional<mapr::SourceSpan> span = mapr::GetSourceSpan(bad.status());
  Expect(!bad.ok() && span && span->column == 8, "GetSourceSpan");
  absl::Status s = absl::InvalidArgumentError("x");
  mapr::SetSourceSpan(s, mapr::SourceSpan{1, 2, 3, 4});
  Expect(mapr::GetSourceSpan(s) == mapr::SourceSpan({1, 2, 3, 4}),
         "SetSourceSpan");

  // Aggregate, split into partials, merged.
  absl::StatusOr<mapr::Aggregator> a = mapr::Aggregator::Create(*q);
  absl::StatusOr<mapr::Aggregator> b = mapr::Aggregator::Create(*q);
  std::vector<std::string_view> lines = {"x:1", "y:2", "x:3", "bad"};
  Expect(a->PushLines(lines).ok(), "PushLines");
  Expect(a->PushLines(lines, /*source=*/1).ok(), "PushLines(source)");
  Expect(b->PushBytes("x:10\ny:").ok() && b->PushBytes("20").ok(), "PushBytes");
  Expect(b->EndSource().ok(), "EndSource");
  Expect(a->Snapshot().ok(), "Snapshot");
  Expect(a->Merge(std::move(*b)).ok(), "Merge");
  Expect(a->FinishInput().ok(), "FinishInput");
  absl::StatusOr<mapr::ResultTable> r = a->TakeResult();
  Expect(r.ok(), "TakeResult");
  Expect(r->ToCsv() ==
             "key,count($line),sum(value)\nx,5,18.000000\ny,3,24.000000\n",
         "ToCsv");
  Expect(
      !r->ToJson().empty() && !r->ToNdjson().empty() && !r->ToTable().empty(),
      "renderers");
  Expect(*r == *r, "operator==");
  mapr::LineCounters c = r->stats();
  c += r->stats();
  Expect(c.lines_malformed == 4 && a->stats().lines_read == 10, "counters");

  absl::StatusOr<mapr::Aggregator> d = mapr::Aggregator::Create(*q);
  Expect(d->PushLines(lines).ok() && d->TakeDelta().ok(), "TakeDelta");

  // The one-call helpers and the line splitter.
  absl::StatusOr<mapr::ResultTable> r2 =
      mapr::RunQuery("select count($line) group by *", {"a", "b"});
  Expect(r2.ok() && r2->ToCsv() == "count($line)\n2\n", "RunQuery");
  mapr::LineSplitter splitter;
  Expect(splitter.Split("a\nb").size() == 1 && splitter.Finish() == "b",
         "LineSplitter");
  Expect(!mapr::WriteOutfile(*q, *r).ok(), "WriteOutfile without outfile");
  Expect(!mapr::WriteOutfile("/nonexistent-dir/x.csv", false, *r, "").ok(),
         "WriteOutfile to a bad path");

  // The input layer (mapr/input.h): a file, a refused format, a missing
  // file (the decompressors are private dependencies of the library).
  {
    std::ofstream("consumer_input.log") << "a\nb\n";
    std::ofstream("consumer_input.lz4") << "\x04\x22\x4d\x18 not text";
    absl::StatusOr<mapr::Aggregator> e = mapr::Aggregator::Create(
        *mapr::Query::Compile("select count($line) group by *"));
    Expect(e.ok() && mapr::PushFile(*e, "consumer_input.log").ok() &&
               e->stats().lines_read == 2,
           "PushFile");
    Expect(absl::IsUnimplemented(mapr::PushFile(*e, "consumer_input.lz4")),
           "PushFile refuses lz4");
    Expect(absl::IsNotFound(mapr::PushFile(*e, "consumer_missing.log")),
           "PushFile of a missing file");
    Expect(mapr::DetectCompression(std::string_view("\xfd\x37zXZ\0", 6)) ==
               mapr::Compression::kXz,
           "DetectCompression");
  }

  // The installed header and the library agree on the version.
  Expect(std::string_view(mapr_version()) == MAPR_VERSION_STRING,
         "mapr_version() == MAPR_VERSION_STRING");

  std::printf("consumer: mapr %s %s", MAPR_VERSION_STRING,
              failures == 0 ? "OK\n" : "FAILED\n");
  std::fputs(r->ToTable().c_str(), stdout);
  return failures == 0 ? 0 : 1;
}
