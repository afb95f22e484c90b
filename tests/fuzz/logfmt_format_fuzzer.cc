// libFuzzer target: the `logfmt` log format over arbitrary bytes. The first
// byte picks the requested fields; the rest is split into lines. Checks the
// FieldBatch contract (a written value is never an empty view with a null
// pointer, and points into its line or into batch memory), that outcomes and
// values equal those of the plain byte-by-byte reference
// (tests/testing/logfmt_reference.h), and that a parser without fields
// classifies lines the same.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/testing/field_batch.h"
#include "tests/testing/logfmt_reference.h"

namespace {

using ::mapr::testing::TestFieldBatch;

const std::vector<std::string> kFields = {
    "a", "msg", "level", "", "a", "\"", "k", "b=c", "user.id", "x y", "ab"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::vector<std::string> fields = kFields;
  std::rotate(fields.begin(), fields.begin() + data[0] % fields.size(),
              fields.end());
  fields.resize((data[0] >> 4) % (fields.size() + 1));
  const std::vector<std::string_view> lines =
      mapr::fuzz::LinesAfterFirstByte(data, size);
  auto format = mapr::FindLogFormat("logfmt");
  if (format == nullptr) __builtin_trap();
  auto parser = format->NewParser(fields);
  auto bare = format->NewParser({});
  if (!parser.ok() || !bare.ok()) __builtin_trap();
  TestFieldBatch batch(fields.size());
  std::vector<mapr::LineOutcome> outcomes(lines.size());
  (*parser)->ParseBatch(lines, batch, outcomes.data());
  TestFieldBatch none(0);
  std::vector<mapr::LineOutcome> bare_outcomes(lines.size());
  (*bare)->ParseBatch(lines, none, bare_outcomes.data());
  if (bare_outcomes != outcomes) __builtin_trap();
  std::vector<std::optional<std::string>> want;
  for (size_t r = 0; r < lines.size(); ++r) {
    if (mapr::testing::ReferenceLogfmt(lines[r], fields, &want) !=
        outcomes[r]) {
      __builtin_trap();
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      const std::string_view v = batch.column(f)[r];
      if (v.data() == nullptr) {
        if (!v.empty() || want[f].has_value()) __builtin_trap();
        continue;
      }
      if (!want[f].has_value() || v != *want[f]) __builtin_trap();
      const char* b = lines[r].data();
      const bool in_line =
          v.data() >= b && v.data() + v.size() <= b + lines[r].size();
      const bool static_value = v.empty() || v == "true";
      if (!in_line && !static_value && !batch.Owns(v)) __builtin_trap();
    }
  }
  return 0;
}
