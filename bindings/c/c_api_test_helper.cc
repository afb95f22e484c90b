// Test-only C++ support for c_api_test.c: a host log format, registered
// through the C++ API, whose methods throw on demand. It checks the C
// interface's promise that no exception crosses into C, whichever engine
// call the exception comes from.
#include <atomic>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mapr/log_format.h"

extern "C" {
// Modes for mapr_test_set_throw_mode.
enum {
  kNoThrow = 0,
  kThrowInParseBatch = 1,     // std::runtime_error from ParseBatch
  kThrowIntInParseBatch = 2,  // a non-std exception (int)
  kThrowBadAllocInNewParser = 3,
  kThrowInVariables = 4,  // at compile time
};
int mapr_test_register_throwing_format(void);
void mapr_test_set_throw_mode(int mode);
}

namespace {

std::atomic<int> g_mode{kNoThrow};

class ThrowingParser : public mapr::LogFormatParser {
 public:
  explicit ThrowingParser(size_t num_fields) : num_fields_(num_fields) {}

  void ParseBatch(std::span<const std::string_view> lines,
                  mapr::FieldBatch& fields,
                  mapr::LineOutcome* outcomes) override {
    if (g_mode == kThrowInParseBatch) {
      throw std::runtime_error("host parser failed");
    }
    if (g_mode == kThrowIntInParseBatch) throw 42;
    // Every requested field is the whole line.
    for (size_t row = 0; row < lines.size(); ++row) {
      for (size_t f = 0; f < num_fields_; ++f)
        fields.column(f)[row] = lines[row];
      outcomes[row] = mapr::LineOutcome::kParsed;
    }
  }

 private:
  size_t num_fields_;
};

class ThrowingFormat : public mapr::LogFormat {
 public:
  std::string name() const override { return "throwing"; }
  std::optional<std::vector<std::string>> variables() const override {
    if (g_mode == kThrowInVariables) {
      throw std::logic_error("host variables() failed");
    }
    return std::nullopt;
  }
  absl::StatusOr<std::unique_ptr<mapr::LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    if (g_mode == kThrowBadAllocInNewParser) throw std::bad_alloc();
    return std::make_unique<ThrowingParser>(fields.size());
  }
};

}  // namespace

int mapr_test_register_throwing_format(void) {
  return mapr::RegisterLogFormat(std::make_shared<ThrowingFormat>()).ok() ? 1
                                                                          : 0;
}

void mapr_test_set_throw_mode(int mode) { g_mode = mode; }
