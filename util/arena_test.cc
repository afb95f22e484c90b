#include "util/arena.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace mapr::util {
namespace {

constexpr size_t kBlock = Arena::kDefaultBlockBytes;

TEST(ArenaTest, AllocationsAreDisjointAndStayPut) {
  Arena arena;
  EXPECT_EQ(arena.bytes_used(), 0u);
  EXPECT_EQ(arena.bytes_reserved(), 0u);
  // Enough allocations to span several blocks; each is filled with its own
  // byte and must still hold it at the end.
  std::vector<std::pair<char*, size_t>> chunks;
  size_t used = 0;
  for (size_t i = 0; i < 200; ++i) {
    size_t n = 1 + (i * 997) % 4000;
    char* p = arena.Allocate(n);
    std::memset(p, static_cast<int>(i % 251), n);
    chunks.emplace_back(p, n);
    used += n;
  }
  EXPECT_EQ(arena.bytes_used(), used);
  EXPECT_GE(arena.bytes_reserved(), used);
  for (size_t i = 0; i < chunks.size(); ++i) {
    auto [p, n] = chunks[i];
    EXPECT_EQ(std::string(p, n), std::string(n, static_cast<char>(i % 251)))
        << i;
  }
}

TEST(ArenaTest, LargeAllocationGetsABlockOfItsOwn) {
  Arena arena;
  char* small = arena.Allocate(10);
  const std::string_view digits = "0123456789";
  std::memcpy(small, digits.data(), digits.size());
  char* big = arena.Allocate(3 * kBlock);
  std::memset(big, 'x', 3 * kBlock);
  EXPECT_EQ(std::string(small, 10), "0123456789");
  EXPECT_EQ(arena.bytes_reserved(), kBlock + 3 * kBlock);
}

TEST(ArenaTest, ResetReusesEveryBlockWithoutReserving) {
  Arena arena;
  // Three blocks: 40 KiB does not fit twice into one.
  for (int i = 0; i < 3; ++i) arena.Allocate(40 * 1024);
  const size_t reserved = arena.bytes_reserved();
  EXPECT_EQ(reserved, 3 * kBlock);
  for (int round = 0; round < 5; ++round) {
    arena.Reset();
    EXPECT_EQ(arena.bytes_used(), 0u);
    for (int i = 0; i < 3; ++i) {
      char* p = arena.Allocate(40 * 1024);
      std::memset(p, 'a' + i, 40 * 1024);
    }
    EXPECT_EQ(arena.bytes_used(), 3u * 40 * 1024);
    EXPECT_EQ(arena.bytes_reserved(), reserved) << "round " << round;
  }
}

TEST(ArenaTest, ResetSkipsKeptBlocksThatAreTooSmall) {
  Arena arena;
  arena.Allocate(kBlock);  // Block 0, full.
  arena.Allocate(kBlock);  // Block 1, full.
  arena.Reset();
  arena.Allocate(kBlock);  // Reuses block 0.
  // Block 1 is too small for this: a new block follows it.
  char* big = arena.Allocate(2 * kBlock);
  std::memset(big, 'b', 2 * kBlock);
  EXPECT_EQ(arena.bytes_reserved(), 4 * kBlock);
  // Reset again: the same sequence now fits the kept blocks.
  arena.Reset();
  arena.Allocate(kBlock);
  arena.Allocate(2 * kBlock);
  EXPECT_EQ(arena.bytes_reserved(), 4 * kBlock);
}

TEST(ArenaTest, ResetOfAnEmptyArena) {
  Arena arena;
  arena.Reset();
  EXPECT_EQ(arena.bytes_used(), 0u);
  EXPECT_EQ(arena.Copy("abc"), "abc");
  EXPECT_EQ(arena.bytes_reserved(), kBlock);
}

TEST(ArenaTest, BlocksMayStartSmallAndDouble) {
  Arena arena(1024);
  arena.Allocate(1000);
  EXPECT_EQ(arena.bytes_reserved(), 1024u);
  arena.Allocate(1000);  // Does not fit: the next block is twice as big.
  EXPECT_EQ(arena.bytes_reserved(), 1024u + 2048u);
  for (int i = 0; i < 200; ++i) arena.Allocate(1000);
  // Doubling stops at kDefaultBlockBytes.
  arena.Allocate(1000);
  const size_t before = arena.bytes_reserved();
  arena.Allocate(kBlock);
  EXPECT_EQ(arena.bytes_reserved(), before + kBlock);
}

TEST(ArenaTest, CopyIsIndependentAndEmptyIsNotNull) {
  Arena arena;
  std::string source = "hello";
  std::string_view copy = arena.Copy(source);
  source[0] = 'j';
  EXPECT_EQ(copy, "hello");
  EXPECT_NE(copy.data(), source.data());
  std::string_view empty = arena.Copy(std::string_view());
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_TRUE(empty.empty());
}

TEST(ArenaTest, MoveKeepsTheMemory) {
  Arena arena;
  std::string_view v = arena.Copy("kept");
  Arena moved = std::move(arena);
  EXPECT_EQ(v, "kept");
  EXPECT_EQ(moved.bytes_used(), 4u);
  EXPECT_EQ(moved.bytes_reserved(), kBlock);
  EXPECT_EQ(moved.Copy("more"), "more");
}

}  // namespace
}  // namespace mapr::util
