// template(x): what it masks and what it keeps.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mapr/aggregator.h"

namespace mapr::runtime {
namespace {

// template(x) of one value, through a query.
std::string Template(const std::string& value) {
  std::vector<std::string> lines = {value};
  absl::StatusOr<ResultTable> r = RunQuery(
      "select $t set $t = template($line) group by $t logformat generic",
      std::span<const std::string>(lines));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() && r->num_rows() == 1 ? std::string(r->cell(0, 0)) : "?";
}

TEST(TemplateTest, MasksTheVariableParts) {
  const struct {
    std::string in, want;
  } kCases[] = {
      {"Accepted password for root from 10.0.0.1 port 22 ssh2",
       "Accepted password for root from <ip> port <num> ssh<num>"},
      {"sshd[24200]: took 1.5s for 42 rows",
       "sshd[<num>]: took <num>s for "
       "<num> rows"},
      {"request 3f2504e0-4f89-11d3-9a0c-0305e82c3301 done",
       "request <uuid> done"},
      {"GET \"/api/users?id=7\" from '1.2.3.4'", "GET <str> from <str>"},
      {"tx 0x1F2e and a1b2c3d4e5 and deadbeef",
       "tx <hex> and <hex> and "
       "deadbeef"},
      {"version 1.2.3 at 10.0.0.1:8080", "version <num> at <ip>:<num>"},
      {"2024-05-01T12:00:00Z", "<num>-<num>-<num>T<num>:<num>:<num>Z"},
      // Not an address: a part over 255, five parts.
      {"256.1.1.1 1.2.3.4.5", "<num> <num>"},
      // An unclosed quote stays; escapes inside quotes do not end them.
      {"say \"hi", "say \"hi"},
      {"say \"a \\\" b\" ok", "say <str> ok"},
      {"no variables here", "no variables here"},
  };
  for (const auto& c : kCases) EXPECT_EQ(Template(c.in), c.want) << c.in;
}

TEST(TemplateTest, GroupsLinesByShape) {
  const std::vector<std::string> lines = {
      "Failed password for root from 10.0.0.1 port 22",
      "Failed password for root from 192.168.7.20 port 51234",
      "Accepted password for ann from 10.0.0.2 port 22",
      "Failed password for root from 10.9.9.9 port 2222"};
  absl::StatusOr<ResultTable> r = RunQuery(
      "select $t, count($line) set $t = template($line) group by $t "
      "logformat generic",
      std::span<const std::string>(lines));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToCsv(),
            "$t,count($line)\n"
            "Accepted password for ann from <ip> port <num>,1\n"
            "Failed password for root from <ip> port <num>,3\n");
}

}  // namespace
}  // namespace mapr::runtime
