#include "runtime/unit_functions.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace mapr::runtime {
namespace {

constexpr std::string_view kMissing = "<missing>";

std::string Duration(std::string_view in) {
  char out[kMaxUnitTextSize];
  const size_t n = ReadDuration(in, out);
  return n == 0 ? std::string(kMissing) : std::string(out, n);
}

std::string Bytes(std::string_view in) {
  char out[kMaxUnitTextSize];
  const size_t n = ReadByteSize(in, out);
  return n == 0 ? std::string(kMissing) : std::string(out, n);
}

TEST(DurationTest, GoAndPrometheusSpellings) {
  EXPECT_EQ(Duration("18ms"), "0.018");
  EXPECT_EQ(Duration("1.5s"), "1.5");
  EXPECT_EQ(Duration("250us"), "0.00025");
  EXPECT_EQ(Duration("250\xC2\xB5s"), "0.00025");
  EXPECT_EQ(Duration("250\xCE\xBCs"), "0.00025");
  EXPECT_EQ(Duration("1h2m"), "3720");
  EXPECT_EQ(Duration("1h2m3.5s"), "3723.5");
  EXPECT_EQ(Duration("2h45m0.5s"), "9900.5");
  EXPECT_EQ(Duration("-2m"), "-120");
  EXPECT_EQ(Duration("+1m1ms"), "60.001");
  EXPECT_EQ(Duration("0"), "0");
  EXPECT_EQ(Duration("0s"), "0");
  EXPECT_EQ(Duration("1ns"), "0.000000001");
  EXPECT_EQ(Duration("0.5ns"), "0.0000000005");
  EXPECT_EQ(Duration(".5m"), "30");
  EXPECT_EQ(Duration("5.m"), "300");
  EXPECT_EQ(Duration("0.1s0.2s"), "0.3");  // Exact: not 0.30000000000000004.
  EXPECT_EQ(Duration("1000000h"), "3600000000");
  EXPECT_EQ(Duration("1.000000000000000001s"), "1.000000000000000001");
  for (std::string_view bad :
       {"", "-", "s", "5", "1.5", "ms", "5 s", "5x", "5S", "1..5s", "1s-2s",
        "1e3s", "0x10s", " 1s", "1s ", "1.0000000000000000001s"}) {
    EXPECT_EQ(Duration(bad), kMissing) << bad;
  }
  // Beyond 128 bits: missing, not wrapped.
  EXPECT_EQ(Duration("99999999999999999999999999h"), kMissing);
}

TEST(BytesTest, DecimalAndBinaryPrefixes) {
  EXPECT_EQ(Bytes("512"), "512");
  EXPECT_EQ(Bytes("10KB"), "10000");
  EXPECT_EQ(Bytes("10kB"), "10000");
  EXPECT_EQ(Bytes("10K"), "10000");
  EXPECT_EQ(Bytes("10KiB"), "10240");
  EXPECT_EQ(Bytes("10Ki"), "10240");
  EXPECT_EQ(Bytes("1.5MiB"), "1572864");
  EXPECT_EQ(Bytes("1.5MB"), "1500000");
  EXPECT_EQ(Bytes("2 GB"), "2000000000");
  EXPECT_EQ(Bytes("1TiB"), "1099511627776");
  EXPECT_EQ(Bytes("1PB"), "1000000000000000");
  EXPECT_EQ(Bytes("1EiB"), "1152921504606846976");
  EXPECT_EQ(Bytes("512B"), "512");
  EXPECT_EQ(Bytes("512b"), "512");
  EXPECT_EQ(Bytes("0.5"), "0.5");
  EXPECT_EQ(Bytes("1.1KB"), "1100");
  EXPECT_EQ(Bytes("0.001KiB"), "1.024");
  for (std::string_view bad : {"", "KB", "-5", "5XB", "5 ", "5  KB", "5KBB",
                               "5iB", "1,5MB", "1e3", "0x10"}) {
    EXPECT_EQ(Bytes(bad), kMissing) << bad;
  }
}

}  // namespace
}  // namespace mapr::runtime
