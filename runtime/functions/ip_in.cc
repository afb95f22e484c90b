// ip_in(x, '10.0.0.0/8 192.168.0.0/16 fd00::/8'): 1 if the address is in
// one of the listed networks (separated by spaces or commas; a bare address
// is a network of one), else 0; missing and counted if the value is not an
// address.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "runtime/functions/ip_address.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

struct IpInBinding : plan::FunctionBinding {
  std::vector<IpNetwork> networks;
  std::string list;  // As written.
  std::string ArgsText() const override {
    return absl::StrCat(", '", list, "'");
  }
};

constexpr std::string_view kUsage = "ip_in(x, '10.0.0.0/8 192.168.0.0/16')";

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  if (args[0].kind != ast::TokenKind::kString) {
    ctx.Error(args[0].span, "the networks of ip_in() must be a 'quoted' list",
              absl::StrCat("write: ", util::ToAbsl(kUsage)));
    return false;
  }
  std::string why;
  std::optional<std::vector<IpNetwork>> networks =
      ParseIpNetworks(args[0].text, &why);
  if (!networks) {
    ctx.Error(args[0].span, absl::StrCat("invalid network in ip_in(): ", why),
              "list networks as 10.0.0.0/8 or 2001:db8::/32, separated by "
              "spaces or commas");
    return false;
  }
  auto b = std::make_shared<IpInBinding>();
  b->networks = *std::move(networks);
  b->list = args[0].text;
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "ip_in",
    "1 if the address is in one of the listed networks, else 0; missing "
    "and counted if not an address",
    kUsage,
    1,
    0,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t* unreadable,
           FunctionContext&) {
  const IpInBinding& b = BindingAs<IpInBinding>(binding);
  MapAddresses(values, unreadable, [&](const IpAddress& a) {
    return std::string_view(InAnyNetwork(a, b.networks) ? "1" : "0");
  });
}

}  // namespace

extern const ScalarFunction kIpInFunction = {kInfo, Apply};

}  // namespace mapr::runtime
