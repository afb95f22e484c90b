// libFuzzer target: the journal input's JSON rendering (mapr/journal.h,
// AppendJournalJson) over arbitrary entries. The input is cut at 0x1e bytes
// into data items ("NAME=value", any bytes; the first piece is the cursor).
// Checks, against simdjson's DOM parser:
//   * the line is one valid JSON object whatever the bytes;
//   * each field name appears once (the header's first), and its value is
//     the item's bytes: a string when JournalValueIsText (then valid UTF-8),
//     else an array of the byte values; a name given several times is an
//     array of those forms, in order;
//   * `logformat journal` parses the line, and reads a text value of a
//     journal field name back byte for byte, and $time as the realtime
//     timestamp.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mapr/journal.h"
#include "mapr/log_format.h"
#include "tests/testing/field_batch.h"

namespace {

using ::mapr::testing::TestFieldBatch;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// `value` as AppendJournalJson must have written it.
void CheckValue(simdjson::dom::element e, std::string_view value) {
  if (mapr::JournalValueIsText(value)) {
    Check(simdjson::validate_utf8(value.data(), value.size()));
    std::string_view s;
    Check(e.get_string().get(s) == simdjson::SUCCESS);
    Check(s == value);
    return;
  }
  simdjson::dom::array a;
  Check(e.get_array().get(a) == simdjson::SUCCESS);
  Check(a.size() == value.size());
  size_t i = 0;
  for (simdjson::dom::element b : a) {
    uint64_t byte = 0;
    Check(b.get_uint64().get(byte) == simdjson::SUCCESS);
    Check(byte == static_cast<unsigned char>(value[i++]));
  }
}

// A name journald accepts: letters, digits and underscores (the reader's
// field lookup takes other bytes as paths, quotes or variables).
bool JournalName(std::string_view name) {
  for (char c : name) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

std::string_view Name(std::string_view item) {
  const size_t eq = item.find('=');
  return eq == std::string_view::npos ? std::string_view() : item.substr(0, eq);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> pieces;
  for (size_t start = 0;;) {
    const size_t end = in.find('\x1e', start);
    pieces.push_back(in.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  const std::string_view cursor = pieces[0];
  std::vector<std::string_view> items(pieces.begin() + 1, pieces.end());
  const uint64_t realtime = 1700000000000000 + size;
  std::string line;
  mapr::AppendJournalJson(cursor, realtime, 42, "0123456789abcdef", items,
                          &line);

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  Check(parser.parse(line).get(doc) == simdjson::SUCCESS);
  simdjson::dom::object obj;
  Check(doc.get_object().get(obj) == simdjson::SUCCESS);
  std::vector<std::string_view> keys;
  for (auto [key, value] : obj) {
    for (std::string_view k : keys) Check(k != key);
    keys.push_back(key);
  }
  if (!cursor.empty()) CheckValue(obj["__CURSOR"], cursor);
  std::string_view t;
  Check(obj["__REALTIME_TIMESTAMP"].get_string().get(t) == simdjson::SUCCESS);
  Check(t == std::to_string(realtime));
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string_view name = Name(items[i]);
    if (name.empty() || name == "_BOOT_ID" || name == "__CURSOR" ||
        name == "__REALTIME_TIMESTAMP" || name == "__MONOTONIC_TIMESTAMP" ||
        !mapr::JournalValueIsText(name)) {
      continue;
    }
    std::vector<std::string_view> values;
    bool first = true;
    for (size_t k = 0; k < items.size(); ++k) {
      if (Name(items[k]) != name) continue;
      if (k < i) first = false;
      values.push_back(items[k].substr(name.size() + 1));
    }
    if (!first) continue;
    simdjson::dom::element e;
    Check(obj[name].get(e) == simdjson::SUCCESS);
    if (values.size() == 1) {
      CheckValue(e, values[0]);
      // The journal format reads it back.
      if (mapr::JournalValueIsText(values[0]) && JournalName(name)) {
        const std::vector<std::string> fields = {std::string(name), "$time"};
        auto p = mapr::FindLogFormat("journal")->NewParser(fields);
        Check(p.ok());
        TestFieldBatch batch(fields.size(), 0);
        const std::string_view lines[] = {line};
        mapr::LineOutcome outcome;
        (*p)->ParseBatch(lines, batch, &outcome);
        Check(outcome == mapr::LineOutcome::kParsed);
        Check(batch.column(0)[0] == values[0]);
        Check(batch.column(1)[0] == t);
      }
      continue;
    }
    simdjson::dom::array a;
    Check(e.get_array().get(a) == simdjson::SUCCESS);
    Check(a.size() == values.size());
    size_t k = 0;
    for (simdjson::dom::element v : a) CheckValue(v, values[k++]);
  }
  return 0;
}
