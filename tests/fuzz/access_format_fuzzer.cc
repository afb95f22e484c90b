// libFuzzer target: the `clf` and `combined` log formats over arbitrary
// bytes. The first byte picks the format and the requested fields; the rest
// is split into lines. Checks the FieldBatch contract (a written value is
// never an empty view with a null pointer, and points into its line or into
// batch memory), that outcomes and values equal those of the plain reference
// (tests/testing/access_reference.h), that a parser without fields
// classifies lines the same, and that a line combined parses is one clf
// parses with the same values.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/testing/access_reference.h"
#include "tests/testing/field_batch.h"

namespace {

using ::mapr::testing::TestFieldBatch;

const std::vector<std::string> kAllFields = {
    "ip",       "ident",  "user",  "time",    "request", "method", "path",
    "protocol", "status", "bytes", "referer", "agent",   "nope",   "status"};

// Parses `lines` with `format` into `batch`; returns the outcomes.
std::vector<mapr::LineOutcome> Run(const mapr::LogFormat& format,
                                   const std::vector<std::string>& fields,
                                   const std::vector<std::string_view>& lines,
                                   TestFieldBatch* batch) {
  auto parser = format.NewParser(fields);
  if (!parser.ok()) __builtin_trap();
  std::vector<mapr::LineOutcome> outcomes(lines.size());
  (*parser)->ParseBatch(lines, *batch, outcomes.data());
  return outcomes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool combined = (data[0] & 1) != 0;
  std::vector<std::string> fields = kAllFields;
  // Rotate and cut the field list so every subset order gets tried.
  const size_t rotate = (data[0] >> 1) % fields.size();
  std::rotate(fields.begin(), fields.begin() + rotate, fields.end());
  fields.resize(1 + (data[0] >> 4) % fields.size());
  const std::vector<std::string_view> lines =
      mapr::fuzz::LinesAfterFirstByte(data, size);
  auto format = mapr::FindLogFormat(combined ? "combined" : "clf");
  auto clf = mapr::FindLogFormat("clf");
  if (format == nullptr || clf == nullptr) __builtin_trap();
  TestFieldBatch batch(fields.size());
  const std::vector<mapr::LineOutcome> outcomes =
      Run(*format, fields, lines, &batch);
  TestFieldBatch bare(0);
  if (Run(*format, {}, lines, &bare) != outcomes) __builtin_trap();
  // The same lines in buffers of exactly line + kLinePadding bytes (ASan
  // catches a read past them), the padding full of quotes, brackets, spaces
  // and backslashes, in a batch that promises it: the same result.
  std::vector<std::unique_ptr<char[]>> buffers;
  std::vector<std::string_view> padded_lines;
  for (std::string_view line : lines) {
    buffers.push_back(
        std::make_unique<char[]>(line.size() + mapr::kLinePadding));
    char* b = buffers.back().get();
    if (!line.empty()) std::memcpy(b, line.data(), line.size());
    for (size_t i = 0; i < mapr::kLinePadding; ++i) {
      b[line.size() + i] = "\" [] \\"[i % 6];
    }
    padded_lines.emplace_back(b, line.size());
  }
  TestFieldBatch padded(fields.size(), mapr::kLinePadding);
  if (Run(*format, fields, padded_lines, &padded) != outcomes) {
    __builtin_trap();
  }
  for (size_t r = 0; r < lines.size(); ++r) {
    if (outcomes[r] != mapr::LineOutcome::kParsed) continue;
    for (size_t f = 0; f < fields.size(); ++f) {
      const std::string_view a = batch.column(f)[r];
      const std::string_view b = padded.column(f)[r];
      if ((a.data() == nullptr) != (b.data() == nullptr) || a != b) {
        __builtin_trap();
      }
    }
  }
  TestFieldBatch as_clf(fields.size());
  const std::vector<mapr::LineOutcome> clf_outcomes =
      Run(*clf, fields, lines, &as_clf);
  std::vector<std::optional<std::string>> want;
  for (size_t r = 0; r < lines.size(); ++r) {
    if (mapr::testing::ReferenceAccess(lines[r], combined, fields, &want) !=
        outcomes[r]) {
      __builtin_trap();
    }
    if (outcomes[r] != mapr::LineOutcome::kParsed) continue;
    if (clf_outcomes[r] != mapr::LineOutcome::kParsed) __builtin_trap();
    for (size_t f = 0; f < fields.size(); ++f) {
      const std::string_view v = batch.column(f)[r];
      if (v.data() == nullptr) {
        if (!v.empty() || want[f].has_value()) __builtin_trap();
      } else {
        if (!want[f].has_value() || v != *want[f]) __builtin_trap();
        const char* b = lines[r].data();
        const bool in_line =
            v.data() >= b && v.data() + v.size() <= b + lines[r].size();
        if (!in_line && !v.empty() && !batch.Owns(v)) __builtin_trap();
      }
      // clf gives the same values, without referer and agent.
      const std::string_view c = as_clf.column(f)[r];
      const bool combined_only = fields[f] == "referer" || fields[f] == "agent";
      if (combined_only
              ? c.data() != nullptr
              : (c.data() == nullptr) != (v.data() == nullptr) || c != v) {
        __builtin_trap();
      }
    }
  }
  return 0;
}
