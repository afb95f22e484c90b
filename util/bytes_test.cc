// The explicit little-endian fields and LEB128 varints of util/bytes.h.
#include "util/bytes.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace mapr::util {
namespace {

TEST(BytesTest, VarintsRoundTripInTheirShortestForm) {
  for (const uint64_t v :
       {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
        uint64_t{16383}, uint64_t{16384}, uint64_t{1} << 35,
        (uint64_t{1} << 63) - 1, uint64_t{1} << 63, UINT64_MAX}) {
    std::string out;
    AppendVarU64(&out, v);
    size_t want = 1;
    for (uint64_t x = v; x >= 0x80; x >>= 7) ++want;
    EXPECT_EQ(out.size(), want) << v;
    out.push_back('x');
    std::string_view in = out;
    uint64_t back = 7;
    ASSERT_TRUE(ReadVarU64(&in, &back)) << v;
    EXPECT_EQ(back, v);
    EXPECT_EQ(in, "x");
  }
  std::string out;
  AppendVarU64(&out, 300);
  EXPECT_EQ(out, "\xac\x02");
}

TEST(BytesTest, VarintsCutLongOrNotShortestAreRefused) {
  auto refused = [](std::string_view bytes) {
    uint64_t v;
    return !ReadVarU64(&bytes, &v);
  };
  EXPECT_TRUE(refused(""));
  EXPECT_TRUE(refused("\x80"));                          // cut
  EXPECT_TRUE(refused(std::string("\x80\x00", 2)));      // 0 in two bytes
  EXPECT_TRUE(refused(std::string("\xff\x80\x00", 3)));  // a zero last byte
  // Ten bytes at most, and the tenth holds only bit 63.
  EXPECT_FALSE(refused("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"));
  EXPECT_TRUE(refused("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"));
  EXPECT_TRUE(refused("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x01"));
}

TEST(BytesTest, FixedWidthFieldsAreLittleEndian) {
  std::string out;
  AppendU32(&out, 0x04030201);
  AppendU64(&out, 0x0807060504030201);
  EXPECT_EQ(out, "\x01\x02\x03\x04\x01\x02\x03\x04\x05\x06\x07\x08");
  std::string_view in = out;
  uint32_t a;
  uint64_t b;
  ASSERT_TRUE(ReadU32(&in, &a));
  ASSERT_TRUE(ReadU64(&in, &b));
  EXPECT_EQ(a, 0x04030201u);
  EXPECT_EQ(b, 0x0807060504030201u);
  EXPECT_FALSE(ReadU8(&in, nullptr));
}

}  // namespace
}  // namespace mapr::util
