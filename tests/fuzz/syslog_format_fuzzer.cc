// libFuzzer target: the `syslog` log format over arbitrary bytes. The first
// byte picks the requested fields (fixed fields, sd.ID.param names, an
// unknown one, duplicates); the rest is split into lines. Checks the
// FieldBatch contract (no null empty value; every value of a parsed line
// points into its line or into batch memory), that the outcome of a line
// does not depend on the requested fields, that a requested field is the
// same whatever else is requested, and a few rules of the format: pri is at
// most 191 and comes with facility and severity, and msg never starts with
// a space.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/testing/field_batch.h"

namespace {

using ::mapr::testing::TestFieldBatch;

// Index i of kPool is requested when bit i of the selector is set; the
// last two are always requested, so every run parses SD params and msg.
const std::vector<std::string> kPool = {
    "pri", "facility", "severity", "time", "host", "app", "pid", "msgid",
};
const std::vector<std::string> kAlways = {"msg", "sd.a.k", "sd.x@1.y.z", "nope",
                                          "sd.a.k"};

struct Run {
  std::vector<mapr::LineOutcome> outcomes;
  std::unique_ptr<TestFieldBatch> batch;
};

Run ParseLines(const std::vector<std::string>& fields,
               const std::vector<std::string_view>& lines) {
  auto parser = mapr::FindLogFormat("syslog")->NewParser(fields);
  if (!parser.ok()) __builtin_trap();
  Run run{std::vector<mapr::LineOutcome>(lines.size()),
          std::make_unique<TestFieldBatch>(fields.size())};
  (*parser)->ParseBatch(lines, *run.batch, run.outcomes.data());
  return run;
}

bool Equal(std::string_view a, std::string_view b) {
  return (a.data() == nullptr) == (b.data() == nullptr) && a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::vector<std::string> fields;
  for (size_t i = 0; i < kPool.size(); ++i) {
    if (data[0] & (1u << i)) fields.push_back(kPool[i]);
  }
  fields.insert(fields.end(), kAlways.begin(), kAlways.end());
  const std::vector<std::string_view> lines =
      mapr::fuzz::LinesAfterFirstByte(data, size);
  const Run run = ParseLines(fields, lines);
  const Run none = ParseLines({}, lines);
  if (none.outcomes != run.outcomes) __builtin_trap();
  // All fixed fields, in another order: the same values.
  std::vector<std::string> all(kPool.rbegin(), kPool.rend());
  all.insert(all.end(), kAlways.begin(), kAlways.end());
  const Run full = ParseLines(all, lines);
  if (full.outcomes != run.outcomes) __builtin_trap();

  for (size_t f = 0; f < fields.size(); ++f) {
    size_t g = 0;
    while (all[g] != fields[f]) ++g;
    for (size_t r = 0; r < lines.size(); ++r) {
      const std::string_view v = run.batch->column(f)[r];
      if (v.data() == nullptr && !v.empty()) __builtin_trap();
      if (run.outcomes[r] != mapr::LineOutcome::kParsed) continue;
      if (!Equal(v, full.batch->column(g)[r])) __builtin_trap();
      if (v.data() == nullptr) continue;
      const char* b = lines[r].data();
      const bool in_line = b != nullptr && v.data() >= b &&
                           v.data() + v.size() <= b + lines[r].size();
      if (!in_line && !run.batch->Owns(v)) __builtin_trap();
      if (fields[f] == "msg" && !v.empty() && v.front() == ' ')
        __builtin_trap();
    }
  }
  // pri, facility and severity come together; pri is at most 191.
  for (size_t r = 0; r < lines.size(); ++r) {
    if (full.outcomes[r] != mapr::LineOutcome::kParsed) continue;
    const size_t pri_column = all.size() - kAlways.size() - 1;  // "pri"
    const std::string_view pri = full.batch->column(pri_column)[r];
    const std::string_view facility = full.batch->column(pri_column - 1)[r];
    const std::string_view severity = full.batch->column(pri_column - 2)[r];
    if ((pri.data() == nullptr) != (facility.data() == nullptr) ||
        (pri.data() == nullptr) != (severity.data() == nullptr)) {
      __builtin_trap();
    }
    if (pri.data() == nullptr) continue;
    if (pri.empty() || pri.size() > 3) __builtin_trap();
    int value = 0;
    for (char c : pri) {
      if (c < '0' || c > '9') __builtin_trap();
      value = value * 10 + (c - '0');
    }
    if (value > 191 || (pri.size() > 1 && pri[0] == '0')) __builtin_trap();
  }
  return 0;
}
