// cidr(x, 24) / cidr(x, 24, 48): the network of an address, its bits after
// the prefix cleared: "10.1.2.0/24" (IPv6 addresses take the second width,
// 64 by default: "2001:db8:1:2::/64"). cidr(x, '10.0.0.0/8'): 1 if the
// address is in the network, else 0 (ip_in() of one network). Missing and
// counted if the value is not an address.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "runtime/functions/ip_address.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

struct CidrBinding : plan::FunctionBinding {
  // The membership form: its network, as written.
  std::vector<IpNetwork> networks;
  std::string network;
  // The network form: the prefix lengths.
  int v4 = 0;
  int v6 = 64;
  std::string ArgsText() const override {
    return networks.empty() ? absl::StrCat(", ", v4, ", ", v6)
                            : absl::StrCat(", '", network, "'");
  }
};

// A prefix length of 0 to `bits` (the IPv4 or IPv6 width).
bool PrefixArg(const ast::Token& t, int bits, plan::BindContext& ctx,
               int* out) {
  int v;
  if (t.kind != ast::TokenKind::kBareword ||
      t.text.find_first_not_of("0123456789") != std::string::npos ||
      !absl::SimpleAtoi(util::ToAbsl(t.text), &v) || v > bits) {
    ctx.Error(t.span,
              absl::StrCat("expected a prefix length of 0 to ", bits,
                           " as an argument of cidr(), found '", t.text, "'"),
              "cidr(ip, 24) gives an IPv4 address's /24 network; "
              "cidr(ip, 24, 48) also an IPv6 address's /48; "
              "cidr(ip, '10.0.0.0/8') tests membership");
    return false;
  }
  *out = v;
  return true;
}

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  auto b = std::make_shared<CidrBinding>();
  if (args[0].kind == ast::TokenKind::kString) {
    std::string why;
    std::optional<IpNetwork> n = ParseIpNetwork(args[0].text, &why);
    if (!n) {
      ctx.Error(args[0].span, absl::StrCat("invalid network in cidr(): ", why),
                "write a network as 10.0.0.0/8 or 2001:db8::/32");
      return false;
    }
    if (args.size() > 1) {
      ctx.Error(args[1].span, "cidr(x, 'network') takes no further argument",
                "to test several networks, write ip_in(x, '10.0.0.0/8 "
                "192.168.0.0/16')");
      return false;
    }
    b->networks.push_back(*n);
    b->network = args[0].text;
    *binding = std::move(b);
    return true;
  }
  if (!PrefixArg(args[0], 32, ctx, &b->v4)) return false;
  if (args.size() > 1 && !PrefixArg(args[1], 128, ctx, &b->v6)) return false;
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "cidr",
    "the address's network at a prefix length (IPv4, then IPv6: 64 by "
    "default), or with a 'network' 1 if the address is in it, else 0; "
    "missing and counted if not an address",
    "cidr(x, 24) or cidr(x, 24, 48) or cidr(x, '10.0.0.0/8')",
    1,
    1,
    Bind};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t* unreadable,
           FunctionContext& ctx) {
  const CidrBinding& b = BindingAs<CidrBinding>(binding);
  MapAddresses(values, unreadable, [&](const IpAddress& a) {
    if (!b.networks.empty()) {
      return std::string_view(InAnyNetwork(a, b.networks) ? "1" : "0");
    }
    const int prefix = a.v6 ? b.v6 : b.v4;
    char text[kMaxNetworkText];
    const size_t size = WriteNetwork(MaskIp(a, prefix), prefix, text);
    return ctx.arena.Copy(std::string_view(text, size));
  });
}

}  // namespace

extern const ScalarFunction kCidrFunction = {kInfo, Apply};

}  // namespace mapr::runtime
