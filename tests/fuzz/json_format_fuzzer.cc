// libFuzzer target: the `json` log format over arbitrary bytes. The first
// byte picks the requested fields (names, dotted paths, indexes); the rest
// is split into lines, each copied into a heap block of exactly its size
// (so ASan catches a read past it) or of its size plus kLinePadding (for a
// batch that promises that padding). Checks:
//   * the FieldBatch contract: a value is missing (null) or points into its
//     line or into batch memory, never an empty view with a null pointer;
//   * in place (padded) and copied (unpadded) parses, and `ndjson`, give the
//     same outcomes and values, with the fields picked and with none
//     (count(*)): a padded line takes the format's hand-written fast path
//     (which gives up to simdjson's walk on what it does not know), an
//     unpadded one simdjson's walk, so this compares the two walks (and, on
//     an AVX2 CPU, both builds of the fast path);
//   * blank lines are ignored, and only blank lines; a line malformed with
//     nothing requested is malformed with any fields requested;
//   * against simdjson's DOM parser, which validates the whole document: a
//     valid JSON object is parsed, a valid non-object is malformed, and the
//     top-level keys' values agree (the last duplicate; strings unescaped,
//     numbers equal as doubles, literals, null missing, containers JSON).
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/testing/field_batch.h"

namespace {

using ::mapr::testing::TestFieldBatch;

// The lines, each in a block of its own followed by `padding` bytes. The
// padding is hostile, as the next line's bytes are in a real batch:
// quotes, brackets and backslashes right after the line's last byte.
struct Lines {
  Lines(const std::vector<std::string_view>& text, size_t padding) {
    static constexpr std::string_view kHostile = "\"}]\\\" ,:{[";
    for (std::string_view t : text) {
      blocks.push_back(std::make_unique<char[]>(t.size() + padding + 1));
      std::copy(t.begin(), t.end(), blocks.back().get());
      for (size_t i = 0; i < padding; ++i) {
        blocks.back()[t.size() + i] = kHostile[i % kHostile.size()];
      }
      views.emplace_back(blocks.back().get(), t.size());
    }
  }
  std::vector<std::unique_ptr<char[]>> blocks;
  std::vector<std::string_view> views;
};

struct Parsed {
  std::vector<mapr::LineOutcome> outcomes;
  std::unique_ptr<TestFieldBatch> batch;
};

Parsed Parse(const char* format, const std::vector<std::string>& fields,
             const Lines& lines, size_t padding) {
  auto parser = mapr::FindLogFormat(format)->NewParser(fields);
  if (!parser.ok()) __builtin_trap();
  Parsed p{std::vector<mapr::LineOutcome>(lines.views.size()),
           std::make_unique<TestFieldBatch>(fields.size(), padding)};
  (*parser)->ParseBatch(lines.views, *p.batch, p.outcomes.data());
  // The contract, for every value of a parsed line.
  for (size_t f = 0; f < fields.size(); ++f) {
    for (size_t r = 0; r < lines.views.size(); ++r) {
      const std::string_view v = p.batch->column(f)[r];
      if (v.data() == nullptr) {
        if (!v.empty()) __builtin_trap();
        continue;
      }
      if (p.outcomes[r] != mapr::LineOutcome::kParsed) continue;
      const std::string_view line = lines.views[r];
      const bool in_line = v.data() >= line.data() &&
                           v.data() + v.size() <= line.data() + line.size();
      if (!in_line && !p.batch->Owns(v) &&
          v.data() != mapr::FieldBatch::kEmptyValue.data()) {
        __builtin_trap();
      }
    }
  }
  return p;
}

// Same outcomes, and each value the same text at the same place (relative
// to its line when it is on the line).
void ExpectSame(const Parsed& a, const Lines& la, const Parsed& b,
                const Lines& lb, size_t num_fields) {
  if (a.outcomes != b.outcomes) __builtin_trap();
  for (size_t f = 0; f < num_fields; ++f) {
    for (size_t r = 0; r < la.views.size(); ++r) {
      if (a.outcomes[r] != mapr::LineOutcome::kParsed) continue;
      const std::string_view x = a.batch->column(f)[r];
      const std::string_view y = b.batch->column(f)[r];
      if ((x.data() == nullptr) != (y.data() == nullptr) || x != y) {
        __builtin_trap();
      }
      const bool x_on = x.data() >= la.views[r].data() &&
                        x.data() <= la.views[r].data() + la.views[r].size();
      const bool y_on = y.data() >= lb.views[r].data() &&
                        y.data() <= lb.views[r].data() + lb.views[r].size();
      if (x_on != y_on) __builtin_trap();
      if (x_on &&
          x.data() - la.views[r].data() != y.data() - lb.views[r].data()) {
        __builtin_trap();
      }
    }
  }
}

bool Blank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

// The value of the last top-level `key` of a valid object, as the json
// format renders it, or nullopt for missing; "{" / "[" for containers
// (only their first byte is compared).
std::optional<std::string> DomValue(simdjson::dom::object object,
                                    std::string_view key, bool* is_number,
                                    double* number) {
  std::optional<std::string> out;
  *is_number = false;
  for (simdjson::dom::key_value_pair kv : object) {
    if (kv.key != key) continue;
    *is_number = false;
    switch (kv.value.type()) {
      case simdjson::dom::element_type::NULL_VALUE:
        out.reset();
        break;
      case simdjson::dom::element_type::STRING:
        out = std::string(std::string_view(kv.value));
        break;
      case simdjson::dom::element_type::BOOL:
        out = bool(kv.value) ? "true" : "false";
        break;
      case simdjson::dom::element_type::OBJECT:
        out = "{";
        break;
      case simdjson::dom::element_type::ARRAY:
        out = "[";
        break;
      default: {
        if (kv.value.get_double().get(*number) != simdjson::SUCCESS) {
          __builtin_trap();
        }
        *is_number = true;
        out = "";  // Compared as a double.
        break;
      }
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const std::vector<std::string> kFields = {
      "a", "b.c", "a.0", "", "b", "a.b", "x.y.z", "c", "$t", "b.c.0"};
  std::vector<std::string> fields(
      kFields.begin(), kFields.begin() + 1 + data[0] % kFields.size());
  const std::vector<std::string_view> text =
      mapr::fuzz::LinesAfterFirstByte(data, size);
  const Lines exact(text, 0);
  const Lines padded(text, mapr::kLinePadding);
  const Parsed copied = Parse("json", fields, exact, 0);
  const Parsed in_place = Parse("json", fields, padded, mapr::kLinePadding);
  ExpectSame(copied, exact, in_place, padded, fields.size());
  // On an AVX2 CPU the parsers above are the AVX2 build: the baseline
  // build's fast path (16-byte scans) must agree too.
  const bool has_avx2 = mapr::runtime::UseBaselineJsonParserForTesting(true);
  if (has_avx2) {
    const Parsed baseline = Parse("json", fields, padded, mapr::kLinePadding);
    ExpectSame(copied, exact, baseline, padded, fields.size());
  }
  mapr::runtime::UseBaselineJsonParserForTesting(false);
  const Parsed alias = Parse("ndjson", fields, exact, 0);
  ExpectSame(copied, exact, alias, exact, fields.size());
  // With nothing requested (count(*)), the fast path only checks the
  // line's shape (its root object walked with nothing to look up): the
  // same outcomes as simdjson's walk, in both builds.
  const Parsed none = Parse("json", {}, exact, 0);
  const Parsed none_in_place = Parse("json", {}, padded, mapr::kLinePadding);
  ExpectSame(none, exact, none_in_place, padded, 0);
  if (has_avx2) {
    mapr::runtime::UseBaselineJsonParserForTesting(true);
    const Parsed none_baseline = Parse("json", {}, padded, mapr::kLinePadding);
    mapr::runtime::UseBaselineJsonParserForTesting(false);
    ExpectSame(none, exact, none_baseline, padded, 0);
  }

  static simdjson::dom::parser* dom = new simdjson::dom::parser;
  for (size_t r = 0; r < text.size(); ++r) {
    const mapr::LineOutcome got = copied.outcomes[r];
    if ((got == mapr::LineOutcome::kIgnored) != Blank(text[r]))
      __builtin_trap();
    if (none.outcomes[r] == mapr::LineOutcome::kMalformed &&
        got != mapr::LineOutcome::kMalformed) {
      __builtin_trap();
    }
    if (Blank(text[r])) continue;
    simdjson::dom::element root;
    if (dom->parse(text[r].data(), text[r].size()).get(root) !=
        simdjson::SUCCESS) {
      continue;  // Invalid JSON: On-Demand may still accept what it skips.
    }
    simdjson::dom::object object;
    if (root.get_object().get(object) != simdjson::SUCCESS) {
      if (got != mapr::LineOutcome::kMalformed) __builtin_trap();
      continue;
    }
    if (got != mapr::LineOutcome::kParsed) __builtin_trap();
    for (size_t f = 0; f < fields.size(); ++f) {
      // Only names without dots are plain top-level keys.
      if (fields[f].find('.') != std::string::npos) continue;
      bool is_number = false;
      double number = 0;
      const std::optional<std::string> want =
          DomValue(object, fields[f], &is_number, &number);
      const std::string_view v = copied.batch->column(f)[r];
      if (!want.has_value()) {
        if (v.data() != nullptr) __builtin_trap();
        continue;
      }
      if (v.data() == nullptr) __builtin_trap();
      if (is_number) {
        const std::string s(v);
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        if (end != s.c_str() + s.size() || d != number) {
          __builtin_trap();
        }
      } else if (*want == "{" || *want == "[") {
        if (v.empty() || v[0] != (*want)[0]) __builtin_trap();
      } else if (v != *want) {
        __builtin_trap();
      }
    }
  }
  return 0;
}
