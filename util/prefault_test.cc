#include "util/prefault.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mapr::util {
namespace {

using ::testing::Each;
using ::testing::ElementsAreArray;

TEST(PrefaultForWriteTest, KeepsTheContents) {
  // Unaligned on both ends, over several pages; then a span too small to
  // be prefaulted, and none at all.
  constexpr size_t kBytes = size_t{1} << 20;
  std::unique_ptr<uint8_t[]> buffer(new uint8_t[kBytes]);
  for (size_t i = 0; i < kBytes; ++i) buffer[i] = static_cast<uint8_t>(i * 7);
  PrefaultForWrite(buffer.get() + 3, kBytes - 10);
  PrefaultForWrite(buffer.get() + 5, 100);
  PrefaultForWrite(nullptr, kBytes);
  for (size_t i = 0; i < kBytes; ++i) {
    ASSERT_EQ(buffer[i], static_cast<uint8_t>(i * 7)) << i;
  }
}

// ResizePrefaulted is v.resize(n, value) whatever the steps: growing one
// element at a time (the column of a group table), by large jumps past the
// capacity, across prefault steps, and shrinking.
TEST(ResizePrefaultedTest, IsResize) {
  std::vector<int64_t> got, want;
  auto resize = [&](size_t n, int64_t value) {
    ResizePrefaulted(got, n, value);
    want.resize(n, value);
    ASSERT_THAT(got, ElementsAreArray(want)) << n;
  };
  for (size_t n = 1; n <= 70000; ++n) {
    ResizePrefaulted(got, n, static_cast<int64_t>(n));
    want.resize(n, static_cast<int64_t>(n));
    // Written like a column: the new group's state.
    got.back() = want.back() = -static_cast<int64_t>(n);
  }
  ASSERT_THAT(got, ElementsAreArray(want));
  resize(200000, 5);
  resize(1000, 6);
  resize(1000, 7);
  resize(kPrefaultStepBytes / sizeof(int64_t) * 3 + 1, 8);
  resize(0, 9);
  resize(3, 10);
}

TEST(ResizePrefaultedTest, GrowsGeometrically) {
  // Doubling, so that a million appends copy each element O(1) times.
  std::vector<uint8_t> v;
  size_t reallocations = 0;
  for (size_t n = 1; n <= size_t{1} << 20; ++n) {
    const uint8_t* before = v.data();
    ResizePrefaulted(v, n, uint8_t{1});
    reallocations += v.data() != before;
  }
  EXPECT_LE(reallocations, 22u);
  EXPECT_THAT(v, Each(1));
}

}  // namespace
}  // namespace mapr::util
