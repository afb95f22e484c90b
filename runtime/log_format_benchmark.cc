// Throughput of the built-in log formats on full batches.
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/aggregator_internal.h"
#include "benchmark/benchmark.h"
#include "mapr/aggregator.h"
#include "mapr/log_format.h"
#include "mapr/query.h"
#include "runtime/log_formats.h"

namespace mapr::runtime {
namespace {

class BenchFieldBatch : public FieldBatch {
 public:
  explicit BenchFieldBatch(size_t num_fields, size_t line_padding = 0)
      : columns_(num_fields, std::vector<std::string_view>(kMaxBatchRows)),
        line_padding_(line_padding) {}
  size_t num_fields() const override { return columns_.size(); }
  std::string_view* column(size_t field) override {
    return columns_[field].data();
  }
  char* Allocate(size_t n) override {
    scratch_.resize(n);
    return scratch_.data();
  }
  size_t line_padding() const override { return line_padding_; }

 private:
  std::vector<std::vector<std::string_view>> columns_;
  std::string scratch_;
  size_t line_padding_;
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

// ~190-byte nginx `combined` lines: varying addresses, paths, statuses,
// sizes, referers and user agents.
std::vector<std::string> CombinedLines() {
  static const char* const kPaths[] = {"/", "/index.html", "/api/v1/orders",
                                       "/static/app.3f9c2a.js",
                                       "/images/logo.png?v=2"};
  static const char* const kAgents[] = {
      "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 "
      "Firefox/118.0",
      "curl/8.4.0",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) "
      "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 "
      "Safari/604.1"};
  static const char* const kStatuses[] = {"200", "200", "200",
                                          "304", "404", "500"};
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    lines.push_back("203.0." + std::to_string(i % 256) + "." +
                    std::to_string(i * 7 % 256) +
                    " - - [24/Oct/2023:10:" + std::to_string(10 + i % 50) +
                    ":" + std::to_string(10 + i % 49) + " +0000] \"GET " +
                    kPaths[i % 5] + " HTTP/1.1\" " + kStatuses[i % 6] + " " +
                    std::to_string(i * 37 % 20000) +
                    " \"https://example.com/\" \"" + kAgents[i % 3] + "\"");
  }
  return lines;
}

// ~200-byte Heroku router lines in logfmt.
std::vector<std::string> LogfmtLines() {
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    lines.push_back(
        "at=info method=GET path=\"/api/items/" + std::to_string(i % 100) +
        "\" host=myapp.herokuapp.com request_id=8601b555-6a83-4c12-8269-" +
        std::to_string(100000000000 + i) + " fwd=\"204.204." +
        std::to_string(i % 256) + ".7\" dyno=web." + std::to_string(i % 4) +
        " connect=" + std::to_string(i % 3) + "ms service=" +
        std::to_string(i % 97) + "ms status=" + (i % 10 == 0 ? "500" : "200") +
        " bytes=" + std::to_string(i * 37 % 20000) + " protocol=https");
  }
  return lines;
}

// /var/log/syslog lines as rsyslog writes them (no PRI, BSD timestamp),
// ~100-170 bytes, from a few programs.
std::vector<std::string> SyslogFileLines() {
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    const std::string day = std::to_string(1 + i % 28);
    const std::string ts = "Dec " + std::string(day.size() == 1 ? " " : "") +
                           day + " 14:" + std::to_string(10 + i % 50) + ":" +
                           std::to_string(10 + i % 49) + " web-01 ";
    const std::string pid = std::to_string(1000 + i * 7 % 30000);
    switch (i % 4) {
      case 0:
        lines.push_back(ts + "sshd[" + pid +
                        "]: Accepted publickey for deploy from 192.0.2." +
                        std::to_string(i % 250) +
                        " port 51122 ssh2: ED25519 SHA256:4nq0xTQ2b");
        break;
      case 1:
        lines.push_back(ts + "CRON[" + pid +
                        "]: (root) CMD (command -v debian-sa1 > /dev/null && "
                        "debian-sa1 1 1)");
        break;
      case 2:
        lines.push_back(ts + "kernel: [" + std::to_string(100000 + i) +
                        ".123456] usb 1-1: new high-speed USB device number " +
                        std::to_string(i % 9) + " using xhci_hcd");
        break;
      default:
        lines.push_back(ts + "systemd[1]: Started session-" +
                        std::to_string(i) + ".scope - Session of User deploy.");
    }
  }
  return lines;
}

// RFC 5424 lines with two SD-ELEMENTs, ~190 bytes.
std::vector<std::string> Syslog5424Lines() {
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    lines.push_back(
        "<" + std::to_string(128 + i % 8) +
        ">1 2026-12-01T14:38:" + std::to_string(10 + i % 50) +
        ".755968+00:00 web-01 webapp " + std::to_string(2000 + i % 100) +
        " REQ [timeQuality tzKnown=\"1\" isSynced=\"0\"][req@32473 ms=\"" +
        std::to_string(i % 500) + "\" path=\"/api/v1/orders/" +
        std::to_string(i) + "\"] request served for user " +
        std::to_string(i % 77));
  }
  return lines;
}

// ~260-byte structured log lines as JSON loggers write them (10 keys, one
// nested object, a float, an int, a 32-hex trace id), values varying.
std::vector<std::string> JsonLines() {
  static constexpr const char* kServices[] = {
      "checkout", "cart", "search", "auth", "payments", "catalog"};
  static constexpr const char* kMethods[] = {"GET", "POST", "PUT", "DELETE"};
  std::vector<std::string> lines;
  for (size_t i = 0; i < kMaxBatchRows; ++i) {
    char trace[33];
    std::snprintf(trace, sizeof trace, "%016zx%016zx", i * 0x9e3779b97f4a7c15,
                  i * 0xc2b2ae3d27d4eb4f);
    lines.push_back(
        "{\"ts\":\"2024-05-01T12:" + std::to_string(10 + i % 50) + ":" +
        std::to_string(10 + i % 47) + "." + std::to_string(100 + i % 900) +
        "Z\",\"level\":\"" + (i % 17 == 0 ? "warn" : "info") +
        "\",\"service\":\"" + kServices[i % 6] + "\",\"host\":\"web-" +
        std::to_string(i % 32) +
        "\",\"msg\":\"request completed\",\"http\":{\"method\":\"" +
        kMethods[i % 4] + "\",\"path\":\"/api/v1/orders/" +
        std::to_string(10000 + i * 7) +
        "\",\"status\":" + (i % 23 == 0 ? "503" : "200") +
        "},\"latency_ms\":" + std::to_string(i % 250) + "." +
        std::to_string(i % 10) + ",\"bytes\":" + std::to_string(200 + i * 13) +
        ",\"trace_id\":\"" + trace + "\"}");
  }
  return lines;
}

// Runs `parser` over a full batch of `lines` per iteration. With
// `line_padding`, the batch promises it (the lines are std::strings, whose
// heap blocks are padded below by reserving).
void RunParserOn(benchmark::State& state, LogFormatParser& parser,
                 size_t num_fields, std::vector<std::string> lines,
                 size_t line_padding = 0) {
  for (std::string& line : lines) line.reserve(line.size() + line_padding);
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  size_t bytes = 0;
  for (std::string_view line : views) bytes += line.size();
  BenchFieldBatch batch(num_fields, line_padding);
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

// Runs `parser` over a full batch of StatsLines() per iteration.
void RunParser(benchmark::State& state, LogFormatParser& parser,
               size_t num_fields) {
  RunParserOn(state, parser, num_fields, StatsLines());
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

// json: the three fields of a Q1-like query (group by a string, two
// numbers), nothing (only classify), and a nested path; copied (no padding
// promised: the parser copies each line) or in place (padded batch).
void BM_JsonParseBatch(benchmark::State& state, std::vector<std::string> fields,
                       size_t line_padding) {
  std::unique_ptr<LogFormatParser> parser =
      std::move(FindLogFormat("json")->NewParser(fields)).value();
  RunParserOn(state, *parser, fields.size(), JsonLines(), line_padding);
}
BENCHMARK_CAPTURE(BM_JsonParseBatch, json_q1_padded,
                  {"service", "latency_ms", "bytes"}, kLinePadding);
BENCHMARK_CAPTURE(BM_JsonParseBatch, json_q1_copied,
                  {"service", "latency_ms", "bytes"}, 0);
BENCHMARK_CAPTURE(BM_JsonParseBatch, json_none_padded, {}, kLinePadding);
BENCHMARK_CAPTURE(BM_JsonParseBatch, json_nested_padded,
                  {"http.method", "http.status", "latency_ms"}, kLinePadding);

// The whole engine on a Q1-like query over JsonLines() (padded lines, as
// the `mapr` command pushes them): parse, group, count, avg and max.
void BM_JsonQ1Aggregate(benchmark::State& state) {
  absl::StatusOr<Query> query = Query::Compile(
      "select service, count($line), avg(latency_ms), max(latency_ms), "
      "avg(bytes), max(bytes) group by service logformat json");
  if (!query.ok()) {
    state.SkipWithError("query does not compile");
    return;
  }
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*query);
  if (!agg.ok()) {
    state.SkipWithError("no aggregator");
    return;
  }
  std::vector<std::string> lines = JsonLines();
  for (std::string& line : lines) line.reserve(line.size() + kLinePadding);
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  size_t bytes = 0;
  for (std::string_view line : views) bytes += line.size() + 1;
  for (auto _ : state) {
    if (!AggregatorInternal::PushPaddedLines(*agg, views, 0).ok()) {
      state.SkipWithError("push failed");
      return;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
}
BENCHMARK(BM_JsonQ1Aggregate);

void BM_ParseLines(benchmark::State& state, const char* format_name,
                   std::vector<std::string> (*make_lines)(),
                   std::vector<std::string> fields) {
  std::unique_ptr<LogFormatParser> parser =
      std::move(FindLogFormat(format_name)->NewParser(fields)).value();
  RunParserOn(state, *parser, fields.size(), make_lines());
}

// Q1-like: status to group by, bytes to average; count-only: no field.
BENCHMARK_CAPTURE(BM_ParseLines, combined_status_bytes, "combined",
                  CombinedLines, {"status", "bytes"});
BENCHMARK_CAPTURE(BM_ParseLines, combined_none, "combined", CombinedLines, {});
BENCHMARK_CAPTURE(BM_ParseLines, combined_method_path_agent, "combined",
                  CombinedLines, {"method", "path", "agent"});
BENCHMARK_CAPTURE(BM_ParseLines, clf_status_bytes, "clf", CombinedLines,
                  {"status", "bytes"});
BENCHMARK_CAPTURE(BM_ParseLines, logfmt_status_bytes_service, "logfmt",
                  LogfmtLines, {"status", "bytes", "service"});
BENCHMARK_CAPTURE(BM_ParseLines, logfmt_none, "logfmt", LogfmtLines, {});

void BM_Syslog(benchmark::State& state, bool rfc5424,
               std::vector<std::string> fields) {
  std::unique_ptr<LogFormatParser> parser =
      std::move(FindLogFormat("syslog")->NewParser(fields)).value();
  RunParserOn(state, *parser, fields.size(),
              rfc5424 ? Syslog5424Lines() : SyslogFileLines());
}
// /var/log/syslog lines.
BENCHMARK_CAPTURE(BM_Syslog, file_none, false, {});
BENCHMARK_CAPTURE(BM_Syslog, file_app, false, {"app"});
BENCHMARK_CAPTURE(BM_Syslog, file_host_time, false, {"host", "time"});
BENCHMARK_CAPTURE(BM_Syslog, file_all, false,
                  {"pri", "facility", "severity", "time", "host", "app", "pid",
                   "msgid", "msg"});
// RFC 5424 lines with structured data.
BENCHMARK_CAPTURE(BM_Syslog, rfc5424_none, true, {});
BENCHMARK_CAPTURE(BM_Syslog, rfc5424_app_severity, true, {"app", "severity"});
BENCHMARK_CAPTURE(BM_Syslog, rfc5424_sd_2, true,
                  {"sd.req@32473.ms", "sd.req@32473.path"});
BENCHMARK_CAPTURE(BM_Syslog, rfc5424_all, true,
                  {"pri", "facility", "severity", "time", "host", "app", "pid",
                   "msgid", "msg", "sd.req@32473.ms", "sd.req@32473.path"});

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

// The json fast path's two builds on the Q1 fields and on none (the count).
void BM_JsonParserBuild(benchmark::State& state, bool baseline,
                        std::vector<std::string> fields) {
  const bool has_avx2 = UseBaselineJsonParserForTesting(baseline);
  if (!baseline && !has_avx2) {
    state.SkipWithError("no AVX2/BMI2 on this CPU");
    return;
  }
  std::unique_ptr<LogFormatParser> parser =
      std::move(FindLogFormat("json")->NewParser(fields)).value();
  UseBaselineJsonParserForTesting(false);
  RunParserOn(state, *parser, fields.size(), JsonLines(), kLinePadding);
}
BENCHMARK_CAPTURE(BM_JsonParserBuild, q1_avx2, false,
                  {"service", "latency_ms", "bytes"});
BENCHMARK_CAPTURE(BM_JsonParserBuild, q1_baseline, true,
                  {"service", "latency_ms", "bytes"});
BENCHMARK_CAPTURE(BM_JsonParserBuild, none_avx2, false, {});
BENCHMARK_CAPTURE(BM_JsonParserBuild, none_baseline, true, {});

}  // namespace
}  // namespace mapr::runtime
