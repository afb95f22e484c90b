// cidr() and ip_in(): addresses, networks, their errors, and what a query
// gives for them.
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "runtime/functions/ip_address.h"
#include "tests/testing/result_rows.h"

namespace mapr::runtime {
namespace {

using ::testing::ElementsAre;

std::string Network(std::string_view address, int prefix) {
  std::optional<IpAddress> a = ParseIpAddress(address);
  if (!a) return "?";
  char text[kMaxNetworkText];
  const size_t size = WriteNetwork(MaskIp(*a, prefix), prefix, text);
  return std::string(text, size);
}

TEST(IpAddressTest, ReadsAddressesOnly) {
  for (std::string_view good :
       {"0.0.0.0", "10.1.2.3", "255.255.255.255", "::", "::1", "2001:db8::1",
        "::ffff:10.1.2.3", "FE80::1",
        "2001:0db8:0000:0000:0000:0000:0000:0001"}) {
    EXPECT_TRUE(ParseIpAddress(good).has_value()) << good;
  }
  for (std::string_view bad :
       {"", "10.1.2", "10.1.2.3.4", "256.1.1.1", "10.1.2.3:80", "[::1]",
        "fe80::1%eth0", "1::2::3", " 10.1.2.3", "10.1.2.3 ", "x", "1e3",
        "10.01.2.3"}) {
    EXPECT_FALSE(ParseIpAddress(bad).has_value()) << bad;
  }
  // Longer than any address: refused before inet_pton sees it.
  EXPECT_FALSE(ParseIpAddress(std::string(100, '1')).has_value());
}

TEST(IpAddressTest, MasksAndWritesNetworks) {
  EXPECT_EQ(Network("10.1.2.3", 24), "10.1.2.0/24");
  EXPECT_EQ(Network("10.1.2.3", 32), "10.1.2.3/32");
  EXPECT_EQ(Network("10.1.2.3", 0), "0.0.0.0/0");
  EXPECT_EQ(Network("10.1.2.255", 25), "10.1.2.128/25");
  EXPECT_EQ(Network("172.31.200.1", 12), "172.16.0.0/12");
  EXPECT_EQ(Network("2001:db8:1:2:3:4:5:6", 64), "2001:db8:1:2::/64");
  EXPECT_EQ(Network("2001:db8:1:2:3:4:5:6", 48), "2001:db8:1::/48");
  EXPECT_EQ(Network("2001:db8:1:2:3:4:5:6", 128), "2001:db8:1:2:3:4:5:6/128");
  EXPECT_EQ(Network("2001:DB8::ff", 121), "2001:db8::80/121");
  EXPECT_EQ(Network("::1", 0), "::/0");
}

TEST(IpAddressTest, ReadsNetworksAndNamesWhatIsWrong) {
  std::string why;
  std::optional<std::vector<IpNetwork>> list =
      ParseIpNetworks(" 10.0.0.0/8,192.168.0.0/16  fd00::/8,,1.2.3.4", &why);
  ASSERT_TRUE(list.has_value()) << why;
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[0].prefix, 8);
  EXPECT_EQ((*list)[2].prefix, 8);
  EXPECT_TRUE((*list)[2].base.v6);
  EXPECT_EQ((*list)[3].prefix, 32);  // A bare address: a network of one.
  auto in = [&](std::string_view address) {
    return InAnyNetwork(*ParseIpAddress(address), *list);
  };
  EXPECT_TRUE(in("10.255.0.1"));
  EXPECT_TRUE(in("192.168.7.7"));
  EXPECT_TRUE(in("fd12::1"));
  EXPECT_TRUE(in("1.2.3.4"));
  EXPECT_FALSE(in("1.2.3.5"));
  EXPECT_FALSE(in("11.0.0.1"));
  EXPECT_FALSE(in("fe80::1"));
  // An IPv4-mapped IPv6 address is an IPv6 address.
  EXPECT_FALSE(in("::ffff:10.0.0.1"));

  const struct {
    std::string_view text, why;
  } kBad[] = {
      {"10.0.0.0/33", "'/33' is not a prefix length of 0 to 32"},
      {"10.0.0.0/", "'/' is not a prefix length of 0 to 32"},
      {"10.0.0.0/-1", "'/-1' is not a prefix length of 0 to 32"},
      {"10.0.0.0/+8", "'/+8' is not a prefix length of 0 to 32"},
      {"fd00::/129", "'/129' is not a prefix length of 0 to 128"},
      {"10.0.0/8", "'10.0.0' is not an IPv4 or IPv6 address"},
      {"10.1.2.3/8",
       "'10.1.2.3/8' has bits set after its prefix: did you mean "
       "10.0.0.0/8?"},
      {"fd00::1/8",
       "'fd00::1/8' has bits set after its prefix: did you mean fd00::/8?"},
      {" , ", "the list names no network"},
  };
  for (const auto& c : kBad) {
    why.clear();
    EXPECT_FALSE(ParseIpNetworks(c.text, &why).has_value()) << c.text;
    EXPECT_EQ(why, c.why) << c.text;
  }
}

// A query's rows (cells joined by ',') over `lines`.
std::vector<std::string> Rows(const std::string& query,
                              const std::vector<std::string>& lines) {
  return ::mapr::testing::QueryRows(query, lines);
}

const std::vector<std::string>& Lines() {
  static const std::vector<std::string> kLines = {
      "ip=10.1.2.3",    "ip=10.1.2.200",      "ip=10.1.3.1",
      "ip=192.168.0.9", "ip=2001:db8:1:2::7", "ip=2001:db8:1:3::7",
      "ip=-",           "ip=1.2.3.4:80",      "other=1",
  };
  return kLines;
}

TEST(CidrTest, GroupsAddressesByNetwork) {
  EXPECT_THAT(
      Rows("select $net, count($line) set $net = cidr(ip, 24) group by $net "
           "logformat logfmt",
           Lines()),
      ElementsAre(",3", "10.1.2.0/24,2", "10.1.3.0/24,1", "192.168.0.0/24,1",
                  "2001:db8:1:2::/64,1", "2001:db8:1:3::/64,1"));
  EXPECT_THAT(
      Rows("select $net, count($line) set $net = cidr(ip, 8, 32) group by "
           "$net logformat logfmt",
           Lines()),
      ElementsAre(",3", "10.0.0.0/8,3", "192.0.0.0/8,1", "2001:db8::/32,2"));
}

TEST(CidrTest, UnreadableValuesAreCounted) {
  absl::StatusOr<Query> q = Query::Compile(
      "select count($line) set $net = cidr(ip, 24) group by $net logformat "
      "logfmt");
  ASSERT_TRUE(q.ok()) << q.status();
  absl::StatusOr<Aggregator> agg = Aggregator::Create(*q);
  ASSERT_TRUE(agg.ok());
  ASSERT_TRUE(agg->PushLines(std::span<const std::string>(Lines())).ok());
  ASSERT_TRUE(agg->FinishInput().ok());
  // "-" and "1.2.3.4:80" are not addresses; the line without ip has none.
  EXPECT_EQ(agg->stats().values_unparsed, 2u);
}

TEST(IpInTest, TestsMembershipInWhere) {
  EXPECT_THAT(
      Rows("select ip where ip_in(ip, '10.1.2.0/24, 2001:db8:1:3::/64') == 1 "
           "group by ip logformat logfmt",
           Lines()),
      ElementsAre("10.1.2.200", "10.1.2.3", "2001:db8:1:3::7"));
  EXPECT_THAT(Rows("select ip where cidr(ip, '10.0.0.0/8') == 0 group by ip "
                   "logformat logfmt",
                   Lines()),
              ElementsAre("192.168.0.9", "2001:db8:1:2::7", "2001:db8:1:3::7"));
  EXPECT_THAT(Rows("select sum($internal), count($line) set $internal = "
                   "ip_in(ip, '10.0.0.0/8 192.168.0.0/16') group by * "
                   "logformat logfmt",
                   Lines()),
              ElementsAre("4.000000,9"));
}

TEST(IpInTest, BadArgumentsAreErrorsWithACaret) {
  const struct {
    std::string_view query, message;
  } kCases[] = {
      {"select $n set $n = cidr(ip, 33)",
       "1:29-30: expected a prefix length of 0 to 32 as an argument of "
       "cidr(), found '33'\n"
       "select $n set $n = cidr(ip, 33)\n"
       "                            ^~\n"
       "hint: cidr(ip, 24) gives an IPv4 address's /24 network; cidr(ip, 24, "
       "48) also an IPv6 address's /48; cidr(ip, '10.0.0.0/8') tests "
       "membership"},
      {"select $n set $n = cidr(ip, '10.0.0.1/8')",
       "1:29-40: invalid network in cidr(): '10.0.0.1/8' has bits set after "
       "its prefix: did you mean 10.0.0.0/8?\n"
       "select $n set $n = cidr(ip, '10.0.0.1/8')\n"
       "                            ^~~~~~~~~~~~\n"
       "hint: write a network as 10.0.0.0/8 or 2001:db8::/32"},
      {"select $n set $n = ip_in(ip, '10.0.0.0/8 x')",
       "1:30-43: invalid network in ip_in(): 'x' is not an IPv4 or IPv6 "
       "address\n"
       "select $n set $n = ip_in(ip, '10.0.0.0/8 x')\n"
       "                             ^~~~~~~~~~~~~~\n"
       "hint: list networks as 10.0.0.0/8 or 2001:db8::/32, separated by "
       "spaces or commas"},
      {"select $n set $n = ip_in(ip, 8)",
       "1:30: the networks of ip_in() must be a 'quoted' list\n"
       "select $n set $n = ip_in(ip, 8)\n"
       "                             ^\n"
       "hint: write: ip_in(x, '10.0.0.0/8 192.168.0.0/16')"},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<Query> q = Query::Compile(c.query);
    ASSERT_FALSE(q.ok()) << c.query;
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(q.status().message()), c.message);
  }
}

}  // namespace
}  // namespace mapr::runtime
