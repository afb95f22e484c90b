// The `default` log format: DTail's own lines (dtail-reference §3.3).
//
//   INFO|time|pid|caller|cpus|goroutines|cgocalls|loadavg|uptime|MAPREDUCE:T|k=v|...
//
// The whole line is always scanned: a later token without '=' rejects the
// line and later duplicate keys win. The parser decides at NewParser time
// which positional tokens are needed and builds a small key table, so the hot
// loop visits the '|' bits of 64-byte masks and does one table load per
// key=value token.
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
      if (!positional) AddKey(names_[i], i);
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
  // token). Only the '|' bits are visited: tokens 0-9 are the positional
  // fields; every later token must hold a '=' (else the whole line is
  // malformed, as in DTail), found as the lowest '=' bit between the token's
  // start and its '|'; later duplicate keys overwrite earlier ones.
  LineOutcome ParseLine(std::string_view line, size_t row) {
    return keys_.empty() ? ParseLineT<false>(line, row)
                         : ParseLineT<true>(line, row);
  }

  // kEmit: some key=value key is requested (else the tokens are only
  // checked for their '=').
  template <bool kEmit>
  LineOutcome ParseLineT(std::string_view line, size_t row) {
    if (!StartsWith(line, kInfo)) return LineOutcome::kIgnored;
    const char* const base = line.data();
    const size_t n = line.size();
    size_t ends[kNumPositional];  // ends[i]: the '|' after token i
    size_t token = 0;
    size_t token_start = 0;
    // The first '=' of the current key=value token, if already seen in an
    // earlier block.
    size_t first_eq = SIZE_MAX;
    for (size_t block = 0; block < n; block += 64) {
      uint64_t bars, eqs;
      if (n >= 64) {
        MaskBlock64(base + block, base + n, '|', '=', &bars, &eqs);
      } else {
        Mask64(base + block, n - block, '|', '=', &bars, &eqs);
      }
      if (token < kNumPositional) {
        // Positional tokens: only their ends, no '=' handling.
        while (token < kNumPositional && bars != 0) {
          ends[token++] = block + static_cast<size_t>(__builtin_ctzll(bars));
          bars &= bars - 1;
        }
        if (token < kNumPositional) continue;  // Block exhausted.
        const size_t start9 = ends[8] + 1;
        if (!StartsWith(std::string_view(base + start9, ends[9] - start9),
                        kMapreduce)) {
          return LineOutcome::kIgnored;
        }
        token_start = ends[9] + 1;
        // Drop the '=' bits up to the tenth '|'.
        const uint64_t low = uint64_t{1} << (ends[9] - block);
        eqs &= 0 - (low << 1);
      }
      while (bars != 0) {
        const uint64_t low = bars & (0 - bars);
        const uint64_t before = eqs & (low - 1);
        eqs &= 0 - (low << 1);
        if constexpr (kEmit) {
          const size_t pos = block + static_cast<size_t>(__builtin_ctzll(bars));
          if (first_eq == SIZE_MAX) {
            if (before == 0) return LineOutcome::kMalformed;
            first_eq = block + static_cast<size_t>(__builtin_ctzll(before));
          }
          EmitKeyValue(base, token_start, first_eq, pos, row);
          token_start = pos + 1;
        } else {
          if (first_eq == SIZE_MAX && before == 0) {
            return LineOutcome::kMalformed;
          }
        }
        bars ^= low;
        first_eq = SIZE_MAX;
      }
      // A '=' of the token that continues into the next block.
      if (first_eq == SIZE_MAX && eqs != 0) {
        first_eq = block + static_cast<size_t>(__builtin_ctzll(eqs));
      }
    }
    // The last token (after the last '|') ends the line.
    if (token < kNumPositional) return LineOutcome::kIgnored;
    if (first_eq == SIZE_MAX) return LineOutcome::kMalformed;
    if constexpr (kEmit) EmitKeyValue(base, token_start, first_eq, n, row);

    for (const Positional& p : positional_) {
      const PositionalVariable& v = *p.variable;
      const size_t b = v.token == 0 ? 0 : ends[v.token - 1] + 1;
      std::string_view t(base + b, ends[v.token] - b);
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
    const uint32_t column = FindKey(base + start, eq - start);
    if (column != KeyTable::kNotFound) {
      columns_[column][row] = std::string_view(base + eq + 1, end - eq - 1);
    }
  }

  // The slot of a key: its length, first and last byte.
  static size_t Slot(const char* key, size_t size) {
    if (size == 0) return 0;
    return (size * 131 + static_cast<uint8_t>(key[0]) * 31 +
            static_cast<uint8_t>(key[size - 1])) &
           255;
  }

  // Inline front of keys_: most tokens are rejected by one load, a unique
  // slot is confirmed by one compare; shared slots ask keys_.
  uint32_t FindKey(const char* key, size_t size) const {
    const uint16_t slot = slots_[Slot(key, size)];
    if (slot == kEmptySlot) return KeyTable::kNotFound;
    if (slot == kSharedSlot) return keys_.Find(std::string_view(key, size));
    const SlotKey& k = slot_keys_[slot];
    return k.name.size() == size && BytesEqual(k.name.data(), key, size)
               ? k.column
               : KeyTable::kNotFound;
  }

  static constexpr uint16_t kEmptySlot = 0xffff;
  static constexpr uint16_t kSharedSlot = 0xfffe;
  struct SlotKey {
    std::string_view name;
    uint32_t column;
  };
  void AddKey(std::string_view name, uint32_t column) {
    keys_.Add(name, column);
    uint16_t& slot = slots_[Slot(name.data(), name.size())];
    if (slot == kEmptySlot && slot_keys_.size() < kSharedSlot) {
      slot = static_cast<uint16_t>(slot_keys_.size());
      slot_keys_.push_back(SlotKey{name, column});
    } else {
      slot = kSharedSlot;
    }
  }

  const std::vector<std::string> names_;
  std::vector<Positional> positional_;
  std::vector<Alias> aliases_;
  KeyTable keys_;
  std::array<uint16_t, 256> slots_ = MakeEmptySlots();
  std::vector<SlotKey> slot_keys_;
  static constexpr std::array<uint16_t, 256> MakeEmptySlots() {
    std::array<uint16_t, 256> a{};
    for (uint16_t& v : a) v = kEmptySlot;
    return a;
  }
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
