#include "util/scan.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mapr::util {
namespace {

void ReferenceMasks(const char* p, size_t n, char ca, char cb, uint64_t* a,
                    uint64_t* b) {
  *a = 0;
  *b = 0;
  for (size_t i = 0; i < n && i < 64; ++i) {
    *a |= static_cast<uint64_t>(p[i] == ca) << i;
    *b |= static_cast<uint64_t>(p[i] == cb) << i;
  }
}

std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  static constexpr char kAlphabet[] = "|=ab|=\n \x80\xff";
  std::string s(n, ' ');
  for (char& c : s) c = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
  return s;
}

TEST(ScanTest, MasksMatchReference) {
  std::mt19937_64 rng(7);
  for (size_t len = 0; len <= 300; ++len) {
    for (size_t align = 0; align < 16; ++align) {
      std::string buf = std::string(align, 'x') + RandomBytes(rng, len);
      const char* p = buf.data() + align;
      for (size_t block = 0; block < len; block += 64) {
        uint64_t a, b, ra, rb;
        ReferenceMasks(p + block, len - block, '|', '=', &ra, &rb);
        Mask64(p + block, std::min<size_t>(64, len - block), '|', '=', &a, &b);
        EXPECT_EQ(a, ra);
        EXPECT_EQ(b, rb);
        if (len >= 64) {
          MaskBlock64(p + block, p + len, '|', '=', &a, &b);
          EXPECT_EQ(a, ra) << len << " " << block;
          EXPECT_EQ(b, rb) << len << " " << block;
        }
        if (len - block >= 64) {
          MaskFull64(p + block, '|', '=', &a, &b);
          EXPECT_EQ(a, ra);
          EXPECT_EQ(b, rb);
        }
      }
    }
  }
}

// Contains agrees with std::string_view::find for needles of every length
// (the short ones go to find, the longer ones to the 4-byte loop), at the
// ends of the haystack, over a small alphabet so that partial hits abound.
TEST(ScanTest, ContainsMatchesFind) {
  std::mt19937 rng(3);
  int hits = 0;
  for (int round = 0; round < 200000; ++round) {
    auto random = [&](size_t len) {
      std::string s(len, 'a');
      for (char& c : s) c = "ab\x80"[rng() % 3];
      return s;
    };
    const std::string hay = random(rng() % (round % 100 == 0 ? 300 : 24));
    std::string needle = random(rng() % 9);
    if (!hay.empty() && rng() % 3 == 0) {  // A needle cut from the haystack.
      const size_t at = rng() % hay.size();
      needle = hay.substr(at, rng() % 10);
    }
    const bool want = hay.find(needle) != std::string::npos;
    ASSERT_EQ(Contains(hay, needle), want) << hay << " / " << needle;
    hits += want;
  }
  EXPECT_GT(hits, 20000);
}

// Every newline, in order, at every length and alignment around the 64-byte
// blocks, sparse and dense (several per block), by each build of the kernel.
TEST(ScanTest, FindNewlinesFindsEveryNewlineInOrder) {
  std::vector<FindNewlinesFn> kernels = {FindNewlinesMemchr, NewlineFinder()};
  std::mt19937 rng(7);
  for (FindNewlinesFn find : kernels) {
    for (int density : {2, 5, 40, 300}) {
      for (size_t n = 0; n < 400; ++n) {
        std::string buf(n + 3, 'x');
        for (char& c : buf) {
          const unsigned r = rng() % density;
          c = r == 0 ? '\n' : r == 1 ? static_cast<char>(0x8a) : 'a';
        }
        const char* p = buf.data() + n % 3;
        std::vector<uint32_t> want;
        for (size_t i = 0; i < n; ++i) {
          if (p[i] == '\n') want.push_back(static_cast<uint32_t>(i));
        }
        std::vector<uint32_t> got(n, 0xdeadbeef);  // Room for n, no more.
        got.resize(find(p, n, got.data()));
        ASSERT_EQ(got, want) << "n=" << n << " density=" << density;
      }
    }
  }
}

TEST(ScanTest, BytesEqualMatchesMemcmp) {
  std::mt19937_64 rng(11);
  for (size_t len = 0; len <= 300; ++len) {
    for (size_t align = 0; align < 16; ++align) {
      std::string a = std::string(align, 'x') + RandomBytes(rng, len);
      std::string b = std::string(15 - align, 'y') + a.substr(align);
      const char* pa = a.data() + align;
      const char* pb = b.data() + (15 - align);
      EXPECT_TRUE(BytesEqual(pa, pb, len));
      if (len == 0) continue;
      // Flip one byte at every position.
      for (size_t i = 0; i < len; ++i) {
        b[15 - align + i] ^= 1;
        EXPECT_FALSE(BytesEqual(pa, pb, len)) << len << " " << i;
        EXPECT_FALSE(BytesEqual(pb, pa, len)) << len << " " << i;
        b[15 - align + i] ^= 1;
      }
    }
  }
}

TEST(ScanTest, ContainsTableMarker) {
  const std::string marker = "|MAPREDUCE:STATS|";
  std::mt19937_64 rng(3);
  for (size_t len = 0; len <= 300; ++len) {
    std::string s = RandomBytes(rng, len);
    EXPECT_EQ(ContainsTableMarker(s, marker),
              s.find(marker) != std::string::npos);
    if (len >= marker.size()) {
      size_t at = rng() % (len - marker.size() + 1);
      std::string t = s;
      t.replace(at, marker.size(), marker);
      EXPECT_TRUE(ContainsTableMarker(t, marker));
      t[at + marker.size() - 1] = 'x';
      EXPECT_EQ(ContainsTableMarker(t, marker),
                t.find(marker) != std::string::npos);
    }
  }
}

TEST(ScanTest, MaskOfNoBytesIsEmpty) {
  // The bytes after p + n are never part of the masks, even if they match.
  const char kBytes[] = "|=|=|=";
  uint64_t a = ~uint64_t{0}, b = ~uint64_t{0};
  Mask64(kBytes, 0, '|', '=', &a, &b);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 0u);
  Mask64(kBytes, 3, '|', '=', &a, &b);
  EXPECT_EQ(a, 0b101u);
  EXPECT_EQ(b, 0b010u);
}

}  // namespace
}  // namespace mapr::util
