// libFuzzer target: every built-in log format over arbitrary bytes. The
// first byte picks the format and the requested fields; the rest is split
// into lines. Checks the FieldBatch contract: a written value is never an
// empty view with a null pointer, and every value points into its line or
// into batch memory. For `default`, the baseline (SSE2) and AVX2 builds of
// the parser must give identical outcomes and fields.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"
#include "runtime/log_formats.h"

namespace {

class Batch : public mapr::FieldBatch {
 public:
  explicit Batch(size_t n)
      : columns_(n, std::vector<std::string_view>(mapr::kMaxBatchRows)) {}
  size_t num_fields() const override { return columns_.size(); }
  std::string_view* column(size_t f) override { return columns_[f].data(); }
  char* Allocate(size_t n) override {
    scratch_.push_back(std::make_unique<char[]>(n == 0 ? 1 : n));
    return scratch_.back().get();
  }
  bool Owns(const char* p) const {
    for (const auto& s : scratch_) {
      if (p >= s.get() && p < s.get() + (1 << 30)) return true;
    }
    return false;
  }

 private:
  std::vector<std::vector<std::string_view>> columns_;
  std::vector<std::unique_ptr<char[]>> scratch_;
};

constexpr const char* kFormats[] = {"default", "generic", "generickv", "csv"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::shared_ptr<const mapr::LogFormat> format =
      mapr::FindLogFormat(kFormats[data[0] % 4]);
  std::vector<std::string> fields = {"$time", "$pid", "a",     "b",
                                     "",      "a",    "$date", "x y"};
  fields.resize(1 + (data[0] >> 2) % fields.size());
  auto parser = format->NewParser(fields);
  if (!parser.ok()) __builtin_trap();
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= bytes.size() && lines.size() < mapr::kMaxBatchRows) {
    size_t nl = bytes.find('\n', start);
    if (nl == std::string_view::npos) nl = bytes.size();
    lines.push_back(bytes.substr(start, nl - start));
    start = nl + 1;
  }
  Batch batch(fields.size());
  std::vector<mapr::LineOutcome> outcomes(lines.size());
  (*parser)->ParseBatch(lines, batch, outcomes.data());
  if (data[0] % 4 == 0) {
    const bool has_avx2 =
        mapr::runtime::UseBaselineDefaultParserForTesting(true);
    auto baseline = format->NewParser(fields);
    mapr::runtime::UseBaselineDefaultParserForTesting(false);
    if (!baseline.ok()) __builtin_trap();
    if (has_avx2) {
      Batch other(fields.size());
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
      bool static_empty = v.empty();
      if (!in_line && !static_empty && !batch.Owns(v.data())) __builtin_trap();
    }
  }
  return 0;
}
