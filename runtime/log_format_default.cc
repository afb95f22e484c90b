// The `default` log format: DTail's own lines (dtail-reference §3.3).
//
//   INFO|time|pid|caller|cpus|goroutines|cgocalls|loadavg|uptime|MAPREDUCE:T|k=v|...
//
// The whole line is always scanned: a later token without '=' rejects the
// line and later duplicate keys win. The parser decides at NewParser time
// which positional tokens are needed and builds a small key table, so the hot
// loop is memchr for '|' and '=' plus one key compare per token.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "mapr/log_format.h"
#include "runtime/key_table.h"
#include "runtime/log_formats.h"
#include "runtime/scan.h"

namespace mapr::runtime {
namespace {

constexpr std::string_view kInfo = "INFO";
constexpr std::string_view kMapreduce = "MAPREDUCE:";
// Tokens 0..9 are positional; key=value tokens start at index 10.
constexpr size_t kNumPositional = 10;
// The length of a `YYYYMMDD-HHMMSS` time, which also gives $date etc.
constexpr size_t kFullTimeLength = 15;
// Up to this many keys are matched by a linear scan, beyond it by hash.

// A positional variable: a whole token, or a slice of a 15-byte $time.
struct PositionalVariable {
  std::string_view name;
  uint8_t token;
  bool time_slice;  // If set, [begin, begin + length) of a 15-byte token.
  uint8_t begin;
  uint8_t length;
};

constexpr std::array<PositionalVariable, 14> kPositional = {{
    {"$severity", 0, false, 0, 0},
    {"$loglevel", 0, false, 0, 0},
    {"$time", 1, false, 0, 0},
    {"$date", 1, true, 0, 8},
    {"$hour", 1, true, 9, 2},
    {"$minute", 1, true, 11, 2},
    {"$second", 1, true, 13, 2},
    {"$pid", 2, false, 0, 0},
    {"$caller", 3, false, 0, 0},
    {"$cpus", 4, false, 0, 0},
    {"$goroutines", 5, false, 0, 0},
    {"$cgocalls", 6, false, 0, 0},
    {"$loadavg", 7, false, 0, 0},
    {"$uptime", 8, false, 0, 0},
}};

inline bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         std::memcmp(s.data(), prefix.data(), prefix.size()) == 0;
}

// Maps the requested key=value keys to their column. Names are views into
// strings owned by the parser.
class DefaultParser : public LogFormatParser {
 public:
  explicit DefaultParser(std::span<const std::string> fields)
      : names_(fields.begin(), fields.end()), columns_(fields.size()) {
    // A field requested twice is produced once and copied (aliases_).
    for (uint32_t i = 0; i < names_.size(); ++i) {
      const std::string& name = names_[i];
      bool duplicate = false;
      for (uint32_t j = 0; j < i; ++j) {
        if (names_[j] == name) {
          aliases_.push_back(Alias{i, j});
          duplicate = true;
          break;
        }
      }
      if (duplicate) continue;
      bool positional = false;
      for (const PositionalVariable& v : kPositional) {
        if (v.name == name) {
          positional_.push_back(Positional{&v, i});
          positional = true;
          break;
        }
      }
      // Anything else, a `$foo` included, is a key=value key.
      if (!positional) keys_.Add(names_[i], i);
    }
    keys_.Finish();
  }
  DefaultParser(const DefaultParser&) = delete;
  DefaultParser& operator=(const DefaultParser&) = delete;

  void ParseBatch(std::span<const std::string_view> lines, FieldBatch& fields,
                  LineOutcome* outcomes) override {
    for (size_t f = 0; f < columns_.size(); ++f) {
      columns_[f] = fields.column(f);
    }
    for (size_t row = 0; row < lines.size(); ++row) {
      LineOutcome outcome = ParseLine(lines[row], row);
      if (outcome == LineOutcome::kMalformed) {
        // Fields written before the bad token are discarded.
        for (std::string_view* column : columns_) column[row] = {};
      } else if (outcome == LineOutcome::kParsed) {
        for (const Alias& a : aliases_) {
          columns_[a.column][row] = columns_[a.source][row];
        }
      }
      outcomes[row] = outcome;
    }
  }

 private:
  struct Positional {
    const PositionalVariable* variable;
    uint32_t column;
  };
  struct Alias {
    uint32_t column;
    uint32_t source;
  };

  // One pass over the line with 64-byte masks of '|' and '=' (no call per
  // token): tokens 0-9 are the positional fields, every later token must
  // hold a '=' (else the whole line is malformed, as in DTail), and later
  // duplicate keys overwrite earlier ones.
  LineOutcome ParseLine(std::string_view line, size_t row) {
    if (!StartsWith(line, kInfo)) return LineOutcome::kIgnored;
    const char* const base = line.data();
    const size_t n = line.size();
    std::string_view tokens[kNumPositional];
    size_t token = 0;
    size_t token_start = 0;
    size_t first_eq = SIZE_MAX;
    for (size_t block = 0; block < n; block += 64) {
      uint64_t bars, eqs;
      if (n >= 64) {
        MaskBlock64(base + block, base + n, '|', '=', &bars, &eqs);
      } else {
        Mask64(base + block, n - block, '|', '=', &bars, &eqs);
      }
      uint64_t special = bars | eqs;
      while (special != 0) {
        const int bit = __builtin_ctzll(special);
        special &= special - 1;
        const size_t pos = block + static_cast<size_t>(bit);
        if ((bars >> bit) & 1) {
          if (token < kNumPositional) {
            tokens[token] =
                std::string_view(base + token_start, pos - token_start);
            if (token == 9 && !StartsWith(tokens[9], kMapreduce)) {
              return LineOutcome::kIgnored;
            }
          } else {
            if (first_eq == SIZE_MAX) return LineOutcome::kMalformed;
            EmitKeyValue(base, token_start, first_eq, pos, row);
          }
          ++token;
          token_start = pos + 1;
          first_eq = SIZE_MAX;
        } else if (first_eq == SIZE_MAX) {
          first_eq = pos;
        }
      }
    }
    // The last token (after the last '|') ends the line.
    if (token < kNumPositional) return LineOutcome::kIgnored;
    if (first_eq == SIZE_MAX) return LineOutcome::kMalformed;
    EmitKeyValue(base, token_start, first_eq, n, row);

    for (const Positional& p : positional_) {
      const PositionalVariable& v = *p.variable;
      std::string_view t = tokens[v.token];
      if (v.time_slice) {
        if (t.size() != kFullTimeLength) continue;
        t = t.substr(v.begin, v.length);
      }
      columns_[p.column][row] = t;
    }
    return LineOutcome::kParsed;
  }

  void EmitKeyValue(const char* base, size_t start, size_t eq, size_t end,
                    size_t row) {
    if (keys_.empty()) return;
    const uint32_t column =
        keys_.Find(std::string_view(base + start, eq - start));
    if (column != KeyTable::kNotFound) {
      columns_[column][row] = std::string_view(base + eq + 1, end - eq - 1);
    }
  }

  const std::vector<std::string> names_;
  std::vector<Positional> positional_;
  std::vector<Alias> aliases_;
  KeyTable keys_;
  // fields.column(i) for the current batch.
  std::vector<std::string_view*> columns_;
};

class DefaultLogFormat : public LogFormat {
 public:
  std::string name() const override { return "default"; }
  std::optional<std::vector<std::string>> variables() const override {
    std::vector<std::string> vars;
    for (const PositionalVariable& v : kPositional) {
      vars.emplace_back(v.name);
    }
    return vars;
  }
  absl::StatusOr<std::unique_ptr<LogFormatParser>> NewParser(
      std::span<const std::string> fields) const override {
    return std::make_unique<DefaultParser>(fields);
  }
};

}  // namespace

std::shared_ptr<const LogFormat> NewDefaultLogFormat() {
  return std::make_shared<DefaultLogFormat>();
}

}  // namespace mapr::runtime
