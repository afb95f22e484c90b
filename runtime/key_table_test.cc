#include "runtime/key_table.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mapr::runtime {
namespace {

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
  EXPECT_EQ(t.Find("a"), KeyTable::kNotFound);
  EXPECT_EQ(t.Find(""), KeyTable::kNotFound);
}

TEST(KeyTableTest, FindsEveryKeyAndOnlyThose) {
  const std::vector<std::string> keys = {"status", "latency", "a", "path"};
  KeyTable t = Build(keys);
  EXPECT_FALSE(t.empty());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(t.Find(keys[i]), 100 + i) << keys[i];
  }
  // Same length, first and last byte as a key (same slot), other middle.
  EXPECT_EQ(t.Find("stutus"), KeyTable::kNotFound);
  EXPECT_EQ(t.Find("patH"), KeyTable::kNotFound);
  EXPECT_EQ(t.Find("statuses"), KeyTable::kNotFound);
  EXPECT_EQ(t.Find(""), KeyTable::kNotFound);
  EXPECT_EQ(t.Find("b"), KeyTable::kNotFound);
}

TEST(KeyTableTest, KeysSharingASlotAreToldApartByAScan) {
  const std::vector<std::string> keys = {"abz", "acz", "adz", "q"};
  KeyTable t = Build(keys);
  EXPECT_EQ(t.Find("abz"), 100u);
  EXPECT_EQ(t.Find("acz"), 101u);
  EXPECT_EQ(t.Find("adz"), 102u);
  EXPECT_EQ(t.Find("q"), 103u);
  EXPECT_EQ(t.Find("aez"), KeyTable::kNotFound);
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
    EXPECT_EQ(t.Find(keys[i]), 100 + i) << keys[i];
  }
  EXPECT_EQ(t.Find("awk"), KeyTable::kNotFound);
  EXPECT_EQ(t.Find("unique_key_namf"), KeyTable::kNotFound);
}

TEST(KeyTableTest, EmptyKeyIsAKeyLikeAnyOther) {
  const std::vector<std::string> keys = {"", "x"};
  KeyTable t = Build(keys);
  EXPECT_EQ(t.Find(""), 100u);
  EXPECT_EQ(t.Find("x"), 101u);
}

TEST(KeyTableTest, DuplicateKeysFindTheFirst) {
  const std::vector<std::string> keys = {"k", "k"};
  KeyTable t = Build(keys);
  EXPECT_EQ(t.Find("k"), 100u);
}

}  // namespace
}  // namespace mapr::runtime
