// libFuzzer target: built-in log formats over arbitrary bytes. The
// first byte picks the format and the requested fields; the rest is split
// into lines. Checks the FieldBatch contract: a written value is never an
// empty view with a null pointer, and every value points into its line or
// into batch memory. For `default`, the baseline (SSE2) and AVX2 builds of
// the parser must give identical outcomes and fields, equal to those of a
// plain token-by-token reference (tests/testing/), and the table filter folded
// into its scan must agree with a substring search for the marker. For
// `auto`, each line's outcome and fields must be those of the format
// AutoFormatOf names, parsing the line alone.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/format_guess.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/testing/default_format_reference.h"
#include "tests/testing/field_batch.h"

namespace {

using ::mapr::testing::TestFieldBatch;

constexpr const char* kFormats[] = {"default", "generic", "generickv", "csv",
                                    "auto"};
constexpr size_t kNumFormats = std::size(kFormats);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::shared_ptr<const mapr::LogFormat> format =
      mapr::FindLogFormat(kFormats[data[0] % kNumFormats]);
  std::vector<std::string> fields = {"$time", "$pid", "a",     "b",
                                     "",      "a",    "$date", "x y"};
  fields.resize(1 + (data[0] >> 2) % fields.size());
  auto parser = format->NewParser(fields);
  if (!parser.ok()) __builtin_trap();
  const std::vector<std::string_view> lines =
      mapr::fuzz::LinesAfterFirstByte(data, size);
  TestFieldBatch batch(fields.size());
  std::vector<mapr::LineOutcome> outcomes(lines.size());
  (*parser)->ParseBatch(lines, batch, outcomes.data());
  if (data[0] % kNumFormats == 4) {
    // auto: each line as the format AutoFormatOf names reads it alone.
    for (size_t r = 0; r < lines.size(); ++r) {
      auto alone =
          mapr::FindLogFormat(mapr::AutoFormatOf(lines[r]))->NewParser(fields);
      if (!alone.ok()) __builtin_trap();
      TestFieldBatch one(fields.size());
      mapr::LineOutcome outcome;
      (*alone)->ParseBatch({&lines[r], 1}, one, &outcome);
      if (outcome != outcomes[r]) __builtin_trap();
      if (outcome != mapr::LineOutcome::kParsed) continue;
      for (size_t f = 0; f < fields.size(); ++f) {
        const std::string_view a = batch.column(f)[r];
        const std::string_view b = one.column(f)[0];
        if ((a.data() == nullptr) != (b.data() == nullptr) || a != b) {
          __builtin_trap();
        }
      }
    }
  }
  if (data[0] % kNumFormats == 0) {
    const bool has_avx2 =
        mapr::runtime::UseBaselineDefaultParserForTesting(true);
    auto baseline = format->NewParser(fields);
    mapr::runtime::UseBaselineDefaultParserForTesting(false);
    if (!baseline.ok()) __builtin_trap();
    std::vector<std::string_view> want;
    for (size_t r = 0; r < lines.size(); ++r) {
      if (mapr::testing::ReferenceDefault(lines[r], fields, &want) !=
          outcomes[r]) {
        __builtin_trap();
      }
      if (outcomes[r] != mapr::LineOutcome::kParsed) continue;
      for (size_t f = 0; f < fields.size(); ++f) {
        const std::string_view got = batch.column(f)[r];
        if (got.data() != want[f].data() || got.size() != want[f].size()) {
          __builtin_trap();
        }
      }
    }
    // The table filter in the scan: a marker made of the first line's
    // token 9 (often a MAPREDUCE: table), else a fixed one.
    std::string marker = "|MAPREDUCE:T|";
    if (!lines.empty()) {
      std::string_view first = lines[0];
      for (int i = 0; i < 9 && first.find('|') != std::string_view::npos; ++i) {
        first.remove_prefix(first.find('|') + 1);
      }
      first = first.substr(0, first.find('|'));
      if (first.starts_with("MAPREDUCE:"))
        marker = "|" + std::string(first) + "|";
    }
    auto* table_parser =
        dynamic_cast<mapr::runtime::TableFilteringParser*>(parser->get());
    if (table_parser == nullptr) __builtin_trap();
    TestFieldBatch in_table(fields.size());
    std::vector<mapr::LineOutcome> table_outcomes(lines.size());
    auto mismatch = std::make_unique<bool[]>(lines.size());
    table_parser->ParseBatchInTable(lines, marker, in_table,
                                    table_outcomes.data(), mismatch.get());
    for (size_t r = 0; r < lines.size(); ++r) {
      const bool has = lines[r].find(marker) != std::string_view::npos;
      if (mismatch[r] != !has) __builtin_trap();
      if (!has) continue;
      if (table_outcomes[r] != outcomes[r]) __builtin_trap();
      if (outcomes[r] != mapr::LineOutcome::kParsed) continue;
      for (size_t f = 0; f < fields.size(); ++f) {
        const std::string_view a = batch.column(f)[r];
        const std::string_view b = in_table.column(f)[r];
        if (a.data() != b.data() || a.size() != b.size()) __builtin_trap();
      }
    }
    if (has_avx2) {
      TestFieldBatch other(fields.size());
      std::vector<mapr::LineOutcome> other_outcomes(lines.size());
      (*baseline)->ParseBatch(lines, other, other_outcomes.data());
      if (other_outcomes != outcomes) __builtin_trap();
      for (size_t f = 0; f < fields.size(); ++f) {
        for (size_t r = 0; r < lines.size(); ++r) {
          const std::string_view a = batch.column(f)[r];
          const std::string_view b = other.column(f)[r];
          if (a.data() != b.data() || a.size() != b.size()) __builtin_trap();
        }
      }
    }
  }
  for (size_t f = 0; f < fields.size(); ++f) {
    for (size_t r = 0; r < lines.size(); ++r) {
      std::string_view v = batch.column(f)[r];
      if (v.data() == nullptr) {
        if (!v.empty()) __builtin_trap();
        continue;
      }
      if (outcomes[r] != mapr::LineOutcome::kParsed) continue;
      const char* b = lines[r].data();
      bool in_line =
          v.data() >= b && v.data() + v.size() <= b + lines[r].size();
      // logfmt (under auto only) gives a bare key the static value "true".
      bool static_value =
          v.empty() || (data[0] % kNumFormats == 4 && v == "true" &&
                        mapr::AutoFormatOf(lines[r]) == "logfmt");
      if (!in_line && !static_value && !batch.Owns(v)) __builtin_trap();
    }
  }
  return 0;
}
