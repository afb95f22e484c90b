#include "runtime/key_table.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "mapr/log_format.h"
#include "runtime/log_formats.h"
#include "tests/testing/field_batch.h"

namespace mapr::runtime {
namespace {

// One call site for every lookup of the tests: Find is always_inline, and
// gcov counts the branches of each inlined copy apart (each EXPECT's copy
// would take one way only).
[[gnu::noinline]] uint32_t Find(const KeyTable& t, std::string_view key) {
  return t.Find(key);
}

// The table keeps views of the names: `keys` must outlive it.
KeyTable Build(const std::vector<std::string>& keys) {
  KeyTable t;
  for (size_t i = 0; i < keys.size(); ++i) {
    t.Add(keys[i], static_cast<uint32_t>(100 + i));
  }
  t.Finish();
  return t;
}

TEST(KeyTableTest, EmptyTableFindsNothing) {
  const std::vector<std::string> keys;
  KeyTable t = Build(keys);
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(Find(t, "a"), KeyTable::kNotFound);
  EXPECT_EQ(Find(t, ""), KeyTable::kNotFound);
}

TEST(KeyTableTest, FindsEveryKeyAndOnlyThose) {
  const std::vector<std::string> keys = {"status", "latency", "a", "path"};
  KeyTable t = Build(keys);
  EXPECT_FALSE(t.empty());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(Find(t, keys[i]), 100 + i) << keys[i];
  }
  // Same length, first and last byte as a key (same slot), other middle.
  EXPECT_EQ(Find(t, "stutus"), KeyTable::kNotFound);
  EXPECT_EQ(Find(t, "patH"), KeyTable::kNotFound);
  EXPECT_EQ(Find(t, "statuses"), KeyTable::kNotFound);
  EXPECT_EQ(Find(t, ""), KeyTable::kNotFound);
  EXPECT_EQ(Find(t, "b"), KeyTable::kNotFound);
}

TEST(KeyTableTest, KeysSharingASlotAreToldApartByAScan) {
  const std::vector<std::string> keys = {"abz", "acz", "adz", "q"};
  KeyTable t = Build(keys);
  EXPECT_EQ(Find(t, "abz"), 100u);
  EXPECT_EQ(Find(t, "acz"), 101u);
  EXPECT_EQ(Find(t, "adz"), 102u);
  EXPECT_EQ(Find(t, "q"), 103u);
  EXPECT_EQ(Find(t, "aez"), KeyTable::kNotFound);
}

TEST(KeyTableTest, ManyKeysSharingSlotsUseTheMap) {
  std::vector<std::string> keys;
  // 12 keys over 4 slots (3 per slot) and one key with a slot of its own.
  for (char first : {'a', 'b', 'c', 'd'}) {
    for (char middle : {'x', 'y', 'z'}) {
      keys.push_back(std::string{first, middle, 'k'});
    }
  }
  keys.push_back("unique_key_name");
  ASSERT_GT(keys.size(), KeyTable::kMaxLinearKeys);
  KeyTable t = Build(keys);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(Find(t, keys[i]), 100 + i) << keys[i];
  }
  EXPECT_EQ(Find(t, "awk"), KeyTable::kNotFound);
  EXPECT_EQ(Find(t, "unique_key_namf"), KeyTable::kNotFound);
}

TEST(KeyTableTest, EmptyKeyIsAKeyLikeAnyOther) {
  const std::vector<std::string> keys = {"", "x"};
  KeyTable t = Build(keys);
  EXPECT_EQ(Find(t, ""), 100u);
  EXPECT_EQ(Find(t, "x"), 101u);
}

TEST(KeyTableTest, DuplicateKeysFindTheFirst) {
  const std::vector<std::string> keys = {"k", "k"};
  KeyTable t = Build(keys);
  EXPECT_EQ(Find(t, "k"), 100u);
}

TEST(KeyTableTest, MayHaveLengthCountsLongKeysAsOneLength) {
  const std::vector<std::string> keys = {"ab", std::string(70, 'k')};
  KeyTable t = Build(keys);
  EXPECT_TRUE(t.MayHaveLength(2));
  EXPECT_FALSE(t.MayHaveLength(3));
  EXPECT_FALSE(t.MayHaveLength(0));
  EXPECT_TRUE(t.MayHaveLength(63));
  EXPECT_TRUE(t.MayHaveLength(1000));
  EXPECT_FALSE(t.MayHaveLength(62));
}

// ---- Through the key=value formats, which inline Find into their loops

// Key=value pairs written as each format writes them.
std::string LineOf(std::string_view format,
                   const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string line;
  if (format == "json") {
    for (const auto& [k, v] : kv) {
      absl::StrAppend(&line, line.empty() ? "{" : ",", "\"", k, "\":\"", v,
                      "\"");
    }
    return line + "}";
  }
  if (format == "default") {
    line =
        "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
        "MAPREDUCE:STATS";
  }
  const char* sep = format == "logfmt" ? " " : "|";
  for (const auto& [k, v] : kv) {
    if (!line.empty()) line += sep;
    // logfmt: every other value quoted (the parser reads those apart).
    const bool quote = format == "logfmt" && (line.size() % 2 == 0);
    absl::StrAppend(&line, k, "=", quote ? "\"" : "", v, quote ? "\"" : "");
  }
  return line;
}

// The values of `fields` a format's parser finds in `line` (padded or not).
std::map<std::string, std::string> ParseWith(
    std::string_view format, const std::vector<std::string>& fields,
    const std::string& line, size_t padding) {
  std::shared_ptr<const LogFormat> f = FindLogFormat(format);
  EXPECT_NE(f, nullptr) << format;
  if (f == nullptr) return {};
  auto parser = f->NewParser(fields);
  EXPECT_TRUE(parser.ok()) << parser.status();
  if (!parser.ok()) return {};
  const std::string buffer = line + std::string(padding, '\0');
  const std::string_view view(buffer.data(), line.size());
  testing::TestFieldBatch batch(fields.size(), padding);
  LineOutcome outcome = LineOutcome::kIgnored;
  (*parser)->ParseBatch({&view, 1}, batch, &outcome);
  EXPECT_EQ(outcome, LineOutcome::kParsed) << format << ": " << line;
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string_view v = batch.column(i)[0];
    // A field requested twice has the same value (or none) in both columns.
    for (size_t j = 0; j < i; ++j) {
      if (fields[j] != fields[i]) continue;
      EXPECT_EQ(v.data() == nullptr, batch.column(j)[0].data() == nullptr)
          << format << ": " << fields[i];
      EXPECT_EQ(v, batch.column(j)[0]) << format << ": " << fields[i];
    }
    if (v.data() != nullptr) out[fields[i]] = std::string(v);
  }
  return out;
}

// Requested keys that share slots (same length, first and last byte) and
// keys on the line that fall into a requested key's slot without being
// one: each format finds exactly the requested keys' values.
TEST(KeyTableTest, FormatsFindRequestedKeysInSharedAndSingleSlots) {
  // Few keys (shared slots scanned) and many (shared slots hashed).
  std::vector<std::vector<std::string>> key_sets = {
      {"abz", "acz", "adz", "q", "status"}};
  std::vector<std::string> many = {"status", "unique_key_name"};
  for (char first : {'a', 'b', 'c', 'd'}) {
    for (char middle : {'x', 'y', 'z'}) {
      many.push_back(std::string{first, middle, 'k'});
    }
  }
  key_sets.push_back(many);
  for (const std::string format : {"generickv", "logfmt", "json", "default"}) {
    for (const std::vector<std::string>& keys : key_sets) {
      // Requested and present: values v0, v1, ...; present but not
      // requested, in the slot of a requested key: "aez", "awk" (shared
      // slots), "stutus", "unique_key_namf" (a slot of one key); "zzz" and
      // "r" (most likely a slot of none).
      std::vector<std::pair<std::string, std::string>> kv;
      std::map<std::string, std::string> want;
      for (const char* decoy :
           {"aez", "awk", "stutus", "unique_key_namf", "zzz", "r"}) {
        kv.emplace_back(decoy, "decoy");
      }
      for (size_t i = 0; i < keys.size(); ++i) {
        // The last key requested is left off the line: missing.
        if (i + 1 == keys.size()) break;
        const std::string v = absl::StrCat("v", i);
        kv.emplace_back(keys[i], v);
        want[keys[i]] = v;
      }
      const std::string line = LineOf(format, kv);
      // Requested twice: both columns get the value.
      std::vector<std::string> fields = keys;
      fields.push_back(keys[0]);
      for (size_t padding : {size_t{0}, kLinePadding}) {
        EXPECT_EQ(ParseWith(format, fields, line, padding), want)
            << format << " padding " << padding << ": " << line;
      }
    }
  }
}

}  // namespace
}  // namespace mapr::runtime
