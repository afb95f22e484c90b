// Throughput of the built-in log formats on full batches.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"

namespace mapr::runtime {
namespace {

class BenchFieldBatch : public FieldBatch {
 public:
  explicit BenchFieldBatch(size_t num_fields)
      : columns_(num_fields, std::vector<std::string_view>(kMaxBatchRows)) {}
  size_t num_fields() const override { return columns_.size(); }
  std::string_view* column(size_t field) override {
    return columns_[field].data();
  }
  char* Allocate(size_t n) override {
    scratch_.resize(n);
    return scratch_.data();
  }

 private:
  std::vector<std::vector<std::string_view>> columns_;
  std::string scratch_;
};

// ~215-byte DTail STATS lines with varying numbers.
std::vector<std::string> StatsLines() {
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    const std::string n = std::to_string(i % 97);
    lines.push_back("INFO|20211002-0723" + std::to_string(10 + i % 50) +
                    "|4711|stats.go:56|8|" + n +
                    "|7|0.21|471h0m21s|MAPREDUCE:STATS|" +
                    "currentConnections=" + n + "|lifetimeConnections=" +
                    std::to_string(i) + "|server=integrationtest.example.org|" +
                    "bytesSent=" + std::to_string(i * 1000) +
                    "|bytesReceived=" + std::to_string(i * 1777) +
                    "|goroutines=" + n + "|status=ok");
  }
  return lines;
}

// Runs `parser` over a full batch of StatsLines() per iteration.
void RunParser(benchmark::State& state, LogFormatParser& parser,
               size_t num_fields) {
  const std::vector<std::string> lines = StatsLines();
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  size_t bytes = 0;
  for (std::string_view line : views) bytes += line.size();
  BenchFieldBatch batch(num_fields);
  std::vector<LineOutcome> outcomes(views.size());
  for (auto _ : state) {
    parser.ParseBatch(views, batch, outcomes.data());
    benchmark::DoNotOptimize(outcomes.data());
    if (num_fields > 0) benchmark::DoNotOptimize(batch.column(0));
    benchmark::ClobberMemory();
  }
  if (outcomes[0] != LineOutcome::kParsed) state.SkipWithError("not parsed");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(views.size()));
  state.counters["bytes_per_line"] =
      static_cast<double>(bytes) / static_cast<double>(views.size());
}

void BM_ParseBatch(benchmark::State& state, const char* format_name,
                   std::vector<std::string> fields) {
  std::unique_ptr<LogFormatParser> parser =
      std::move(FindLogFormat(format_name)->NewParser(fields)).value();
  RunParser(state, *parser, fields.size());
}

// 3 key=value fields and 1 positional field.
BENCHMARK_CAPTURE(BM_ParseBatch, default_3kv_1pos, "default",
                  {"currentConnections", "lifetimeConnections", "bytesSent",
                   "$time"});
BENCHMARK_CAPTURE(BM_ParseBatch, default_none, "default", {});
BENCHMARK_CAPTURE(BM_ParseBatch, default_12_fields, "default",
                  {"currentConnections", "lifetimeConnections", "bytesSent",
                   "bytesReceived", "goroutines", "status", "server", "nokey1",
                   "nokey2", "$time", "$hour", "$pid"});
BENCHMARK_CAPTURE(BM_ParseBatch, generickv_3kv, "generickv",
                  {"currentConnections", "lifetimeConnections", "bytesSent"});

// Three key=value fields through the default format, forcing the baseline
// (SSE2) or the AVX2+BMI2 build of the parser.
void BM_DefaultParserBuild(benchmark::State& state, bool baseline) {
  const bool has_avx2 = UseBaselineDefaultParserForTesting(baseline);
  if (!baseline && !has_avx2) {
    state.SkipWithError("no AVX2/BMI2 on this CPU");
    return;
  }
  const std::vector<std::string> fields = {"currentConnections", "server",
                                           "bytesSent"};
  std::unique_ptr<LogFormatParser> parser =
      std::move(FindLogFormat("default")->NewParser(fields)).value();
  UseBaselineDefaultParserForTesting(false);
  RunParser(state, *parser, fields.size());
}
BENCHMARK_CAPTURE(BM_DefaultParserBuild, avx2, false);
BENCHMARK_CAPTURE(BM_DefaultParserBuild, baseline, true);

}  // namespace
}  // namespace mapr::runtime
