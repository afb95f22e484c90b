#include "runtime/functions.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace mapr::runtime {
namespace {

std::string Md5HexString(std::string_view in) {
  std::string out(kMd5HexSize, '\0');
  Md5Hex(in, out.data());
  return out;
}

std::string MaskDigitsString(std::string_view in) {
  std::string out(in.size(), '\0');
  MaskDigits(in, out.data());
  return out;
}

// The bytes (i * 7 + 3) mod 256 for i in [0, n): covers every byte value.
std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7 + 3) % 256);
  return s;
}

struct Md5Case {
  std::string input;
  std::string_view want;
};

TEST(Md5HexTest, MatchesRfc1321TestSuite) {
  const Md5Case kCases[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
       "d174ab98d277d9f5a5611c2c9f419d9f"},
      {"1234567890123456789012345678901234567890123456789012345678901234567890"
       "1234567890",
       "57edf4a22be3c955ac49da2e2107b67a"},
  };
  for (const Md5Case& c : kCases) {
    EXPECT_EQ(Md5HexString(c.input), c.want) << "input: " << c.input;
  }
}

TEST(Md5HexTest, MatchesDtailExamples) {
  EXPECT_EQ(Md5HexString("md5sum($line)"), "b38699013d79e50d9d122433753959c1");
  EXPECT_EQ(Md5HexString("1002-071949"), "0b53853845d68785051a6a9922b601f3");
}

// Lengths around the padding boundaries (55/56 bytes fit one final block or
// need two; 64 fills a block exactly), with every byte value present.
TEST(Md5HexTest, HandlesPaddingBoundaries) {
  const Md5Case kCases[] = {
      {Pattern(55), "52c0e574e1198de5fe3f8f11440dcb1b"},
      {Pattern(56), "46c9907fc908ee68b1e7b8e71286a518"},
      {Pattern(57), "1c805dd236c35cab25fcb1bc73802c51"},
      {Pattern(63), "a62f6d59e837867693f042f5b8f5a236"},
      {Pattern(64), "7160b8fb5e9e4023d549c3971fbaeead"},
      {Pattern(65), "70bd662e7aefbda85a0f7244167b7897"},
      {Pattern(119), "e84905d4214f4d1ca56c2cdcc152b143"},
      {Pattern(120), "e3eb5a6c8669ea01a8c185b8abc8a5dc"},
      {Pattern(127), "acce2474d6cc8302120d09c818d17ef7"},
      {Pattern(128), "10b2da1a82f16d99a81a7203fe9f02cb"},
      {Pattern(129), "03fefbbcebe2959cf2270241aafe0250"},
  };
  for (const Md5Case& c : kCases) {
    EXPECT_EQ(Md5HexString(c.input), c.want) << "length " << c.input.size();
  }
}

TEST(Md5HexTest, HashesBinaryBytesAndEmbeddedNul) {
  EXPECT_EQ(Md5HexString(std::string_view("\x00\xff\x80 \n", 5)),
            "f490e35ceb33d83daf78c08963910969");
}

TEST(Md5HexTest, HashesAMillionBytes) {
  EXPECT_EQ(Md5HexString(std::string(1000000, 'a')),
            "7707d6ae4e027c70eea2a935c2296f21");
}

TEST(Md5HexTest, ReadsOnlyTheView) {
  const char text[] = "abcdef";
  EXPECT_EQ(Md5HexString(std::string_view(text, 3)),
            "900150983cd24fb0d6963f7d28e17f72");
}

TEST(Md5HexTest, WritesExactlyThirtyTwoBytes) {
  std::string out(kMd5HexSize + 2, '#');
  Md5Hex("abc", out.data());
  EXPECT_EQ(out, "900150983cd24fb0d6963f7d28e17f72##");
}

TEST(MaskDigitsTest, ReplacesAsciiDigitsOnly) {
  const struct {
    std::string_view input;
    std::string_view want;
  } kCases[] = {
      {"", ""},
      {"abc", "abc"},
      {"0123456789", ".........."},
      {"1002-071949", "....-......"},
      {"md5sum($line)", "md.sum($line)"},
      {"user42 id=7 ip=10.0.0.1", "user.. id=. ip=........"},
      {"a.b/c:d", "a.b/c:d"},
      {"\xd9\xa1\xd9\xa2", "\xd9\xa1\xd9\xa2"},  // Arabic-Indic digits stay
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(MaskDigitsString(c.input), c.want) << "input: " << c.input;
  }
}

TEST(MaskDigitsTest, KeepsNulAndHighBytes) {
  const std::string_view input(
      "1\x00"
      "2\xff"
      "3",
      5);
  EXPECT_EQ(MaskDigitsString(input), std::string_view(".\x00.\xff.", 5));
}

TEST(MaskDigitsTest, WorksInPlace) {
  std::string buffer = "a1b22c333";
  MaskDigits(buffer, buffer.data());
  EXPECT_EQ(buffer, "a.b..c...");
}

// DTail's funcs test calls the stack on the text of the expression itself.
TEST(FunctionsTest, NestedCallsMatchDtail) {
  const std::string input = "maskdigits(md5sum(maskdigits($line)))";
  const std::string inner = MaskDigitsString(input);
  EXPECT_EQ(inner, "maskdigits(md.sum(maskdigits($line)))");
  const std::string hashed = Md5HexString(inner);
  EXPECT_EQ(hashed, "8fac1bbe93bb026383657d984a6c77b8");
  EXPECT_EQ(MaskDigitsString(hashed), ".fac.bbe..bb.........d...a.c..b.");
}

TEST(FunctionsTest, MatchesDtailIntegrationExample) {
  // `set $mask = maskdigits($time), $md5 = md5sum($time)` for 1002-071949.
  EXPECT_EQ(MaskDigitsString("1002-071949"), "....-......");
  EXPECT_EQ(Md5HexString("1002-071949"), "0b53853845d68785051a6a9922b601f3");
}

}  // namespace
}  // namespace mapr::runtime
