#include "examples/query_plugin/access_log_format.h"

#include <array>
#include <string>
#include <vector>

namespace access_log {
namespace {

constexpr std::array<std::string_view, 7> kFields = {
    "remote", "time", "method", "path", "status", "bytes", "latency"};

class Parser : public mapr::LogFormatParser {
 public:
  // index_[i]: which access-log field the i-th requested field is.
  explicit Parser(std::vector<int> index) : index_(std::move(index)) {}

  void ParseBatch(std::span<const std::string_view> lines,
                  mapr::FieldBatch& fields,
                  mapr::LineOutcome* outcomes) override {
    for (size_t row = 0; row < lines.size(); ++row) {
      std::array<std::string_view, kFields.size()> v;
      if (!Split(lines[row], v)) {
        outcomes[row] = mapr::LineOutcome::kMalformed;
        continue;
      }
      for (size_t i = 0; i < index_.size(); ++i) {
        if (index_[i] >= 0) fields.column(i)[row] = v[index_[i]];
      }
      outcomes[row] = mapr::LineOutcome::kParsed;
    }
  }

 private:
  // remote - - [time] "method path proto" status bytes latency
  static bool Split(std::string_view l,
                    std::array<std::string_view, kFields.size()>& v) {
    size_t sp = l.find(' ');
    size_t lb = l.find('[');
    size_t rb = l.find(']', lb);
    size_t q1 = l.find('"', rb);
    size_t q2 = l.find('"', q1 + 1);
    if (sp == l.npos || lb == l.npos || rb == l.npos || q1 == l.npos ||
        q2 == l.npos) {
      return false;
    }
    v[0] = l.substr(0, sp);
    v[1] = l.substr(lb + 1, rb - lb - 1);
    std::string_view req = l.substr(q1 + 1, q2 - q1 - 1);
    size_t m = req.find(' ');
    if (m == req.npos) return false;
    v[2] = req.substr(0, m);
    std::string_view rest = req.substr(m + 1);
    v[3] = rest.substr(0, rest.find(' '));
    std::string_view tail = l.substr(q2 + 1);
    for (size_t i = 4; i < kFields.size(); ++i) {
      size_t b = tail.find_first_not_of(' ');
      if (b == tail.npos) return false;
      tail = tail.substr(b);
      size_t e = tail.find(' ');
      v[i] = tail.substr(0, e);
      tail = e == tail.npos ? std::string_view() : tail.substr(e);
    }
    return true;
  }

  std::vector<int> index_;
};

class Format : public mapr::LogFormat {
 public:
  std::string name() const override { return "accesslog"; }
  std::optional<std::vector<std::string>> variables() const override {
    return std::vector<std::string>{};  // Only mapr's common $variables.
  }
  absl::StatusOr<std::unique_ptr<mapr::LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    std::vector<int> index;
    for (const std::string& f : fields) {
      int found = -1;
      for (size_t i = 0; i < kFields.size(); ++i) {
        if (kFields[i] == f) found = static_cast<int>(i);
      }
      index.push_back(found);  // Unknown fields stay missing.
    }
    return std::make_unique<Parser>(std::move(index));
  }
};

}  // namespace

absl::Status Register() {
  static const absl::Status status =
      mapr::RegisterLogFormat(std::make_shared<Format>());
  return status;
}

}  // namespace access_log
