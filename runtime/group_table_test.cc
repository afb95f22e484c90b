#include "runtime/group_table.h"

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gtest/gtest.h"

namespace mapr::runtime {
namespace {

// The table's contract: `hash` is always HashKey(key) (it rehashes with
// HashKey when it grows).
uint32_t Insert(GroupTable& t, std::string_view key, bool* created) {
  return t.FindOrInsert(key, HashKey(key), created);
}
uint32_t Find(const GroupTable& t, std::string_view key) {
  return t.Find(key, HashKey(key));
}

TEST(GroupTableTest, EmptyTableFindsNothing) {
  GroupTable t;
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(Find(t, ""), GroupTable::kNotFound);
  EXPECT_EQ(Find(t, "a"), GroupTable::kNotFound);
}

TEST(GroupTableTest, IdsAreDenseAndStableThroughGrowth) {
  GroupTable t;
  constexpr int kKeys = 20000;  // Many doublings.
  for (int i = 0; i < kKeys; ++i) {
    bool created = false;
    const std::string key = "key-" + std::to_string(i);
    ASSERT_EQ(Insert(t, key, &created), static_cast<uint32_t>(i));
    ASSERT_TRUE(created);
  }
  EXPECT_EQ(t.size(), static_cast<size_t>(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "key-" + std::to_string(i);
    bool created = true;
    EXPECT_EQ(Insert(t, key, &created), static_cast<uint32_t>(i));
    EXPECT_FALSE(created);
    EXPECT_EQ(Find(t, key), static_cast<uint32_t>(i));
    EXPECT_EQ(t.key(static_cast<uint32_t>(i)), key);
    EXPECT_EQ(t.hash(static_cast<uint32_t>(i)), HashKey(key));
  }
  EXPECT_EQ(Find(t, "key-" + std::to_string(kKeys)), GroupTable::kNotFound);
  EXPECT_EQ(Find(t, "key-"), GroupTable::kNotFound);
  EXPECT_EQ(t.size(), static_cast<size_t>(kKeys));
}

TEST(GroupTableTest, KeysAreCopiedIn) {
  GroupTable t;
  std::string buffer = "first";
  bool created;
  const uint32_t id = Insert(t, buffer, &created);
  buffer = "other";
  EXPECT_EQ(t.key(id), "first");
  EXPECT_EQ(Find(t, "first"), id);
  EXPECT_EQ(Find(t, "other"), GroupTable::kNotFound);
}

TEST(GroupTableTest, KeysStartingAtTheSameSlotAreToldApart) {
  // Keys whose hashes share the low bits probe from the same slot of the
  // first (16-slot) table; the tag and the bytes must tell them apart.
  std::vector<std::string> same_start;
  for (int i = 0; same_start.size() < 8; ++i) {
    std::string key = "c" + std::to_string(i);
    if ((HashKey(key) & 15) == 5) same_start.push_back(key);
  }
  GroupTable t;
  for (size_t i = 0; i < same_start.size(); ++i) {
    bool created = false;
    EXPECT_EQ(Insert(t, same_start[i], &created), i);
    EXPECT_TRUE(created);
  }
  for (size_t i = 0; i < same_start.size(); ++i) {
    EXPECT_EQ(Find(t, same_start[i]), i) << same_start[i];
  }
  // A key that is absent but starts its probe there too.
  for (int i = 100000;; ++i) {
    std::string key = "c" + std::to_string(i);
    if ((HashKey(key) & 15) != 5) continue;
    EXPECT_EQ(Find(t, key), GroupTable::kNotFound);
    break;
  }
}

TEST(GroupTableTest, EmptyAndBinaryKeys) {
  GroupTable t;
  const std::vector<std::string> keys = {"",
                                         std::string("a\0b", 3),
                                         std::string("a\0c", 3),
                                         "ab",
                                         "abc",
                                         std::string(1, '\0'),
                                         "\xff\xfe",
                                         std::string(300, 'x')};
  for (size_t i = 0; i < keys.size(); ++i) {
    bool created = false;
    EXPECT_EQ(Insert(t, keys[i], &created), i);
    EXPECT_TRUE(created) << i;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(Find(t, keys[i]), i);
    EXPECT_EQ(t.key(static_cast<uint32_t>(i)), keys[i]);
  }
}

TEST(GroupTableTest, MatchesAReferenceMapOnRandomKeys) {
  std::mt19937_64 rng(42);
  GroupTable t;
  std::unordered_map<std::string, uint32_t> reference;
  for (int op = 0; op < 50000; ++op) {
    // Short keys over a small alphabet: many repeats.
    std::string key(rng() % 4, ' ');
    for (char& c : key) c = static_cast<char>('a' + rng() % 6);
    bool created = false;
    const uint32_t id = Insert(t, key, &created);
    auto [it, inserted] =
        reference.try_emplace(key, static_cast<uint32_t>(reference.size()));
    ASSERT_EQ(created, inserted) << key;
    ASSERT_EQ(id, it->second) << key;
  }
  EXPECT_EQ(t.size(), reference.size());
}

TEST(GroupTableTest, ClearForgetsEveryGroupAndStartsAgainAtZero) {
  GroupTable t;
  bool created;
  for (int i = 0; i < 100; ++i) Insert(t, std::to_string(i), &created);
  t.Clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(Find(t, "7"), GroupTable::kNotFound);
  EXPECT_EQ(Insert(t, "7", &created), 0u);
  EXPECT_TRUE(created);
  EXPECT_EQ(Insert(t, "8", &created), 1u);
  EXPECT_EQ(Find(t, "7"), 0u);
  EXPECT_EQ(Find(t, "0"), GroupTable::kNotFound);
}

TEST(GroupTableTest, ReleaseFreesEverythingAndTheTableStillWorks) {
  GroupTable t;
  bool created;
  for (int i = 0; i < 100; ++i) Insert(t, std::to_string(i), &created);
  t.Release();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(Find(t, "1"), GroupTable::kNotFound);
  EXPECT_EQ(Insert(t, "1", &created), 0u);
  EXPECT_TRUE(created);
  EXPECT_EQ(Find(t, "1"), 0u);
}

TEST(GroupTableTest, ReserveKeepsEveryGroupFindable) {
  GroupTable t;
  bool created;
  Insert(t, "before", &created);
  t.Reserve(1000);
  EXPECT_EQ(Find(t, "before"), 0u);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(Insert(t, std::to_string(i), &created),
              static_cast<uint32_t>(i + 1));
  }
  t.Reserve(10);  // Smaller than the table: nothing changes.
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(Find(t, std::to_string(i)), static_cast<uint32_t>(i + 1));
  }
  EXPECT_EQ(Find(t, "before"), 0u);
}

// ---- Multi-field keys

TEST(GroupKeyTest, PartsRoundTripAndTuplesNeverCollide) {
  std::string key;
  AppendKeyPart("a,b", &key);
  AppendKeyPart("", &key);
  AppendKeyPart(std::string("\x03\0\0\0", 4), &key);  // Looks like a length.
  EXPECT_EQ(key.size(), 3u * 4 + 3 + 0 + 4);
  EXPECT_EQ(KeyPart(key, 3, 0), "a,b");
  EXPECT_EQ(KeyPart(key, 3, 1), "");
  EXPECT_EQ(KeyPart(key, 3, 2), std::string("\x03\0\0\0", 4));
  // Past the last part: no value.
  EXPECT_EQ(KeyPart(key, 3, 3).data(), nullptr);
  // A single field is the key itself, not encoded.
  EXPECT_EQ(KeyPart("plain", 1, 0), "plain");

  // ("a,b","c") and ("a","b,c") join to the same DTail text but not here.
  std::string x, y;
  AppendKeyPart("a,b", &x);
  AppendKeyPart("c", &x);
  AppendKeyPart("a", &y);
  AppendKeyPart("b,c", &y);
  EXPECT_NE(x, y);
}

TEST(GroupKeyTest, LongPartLengthsUseAllFourBytes) {
  const std::string big(70000, 'q');  // Needs the third length byte.
  std::string key;
  AppendKeyPart(big, &key);
  AppendKeyPart("tail", &key);
  EXPECT_EQ(KeyPart(key, 2, 0), big);
  EXPECT_EQ(KeyPart(key, 2, 1), "tail");
}

}  // namespace
}  // namespace mapr::runtime
