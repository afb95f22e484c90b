// IPv4 and IPv6 addresses and networks for cidr() and ip_in(): reading an
// address (the libc's inet_pton: dotted quads, RFC 4291 text), masking it
// to a prefix, writing a network (inet_ntop: RFC 5952's compressed IPv6
// form), and testing membership. Private to runtime/functions/.
#ifndef MAPR_RUNTIME_FUNCTIONS_IP_ADDRESS_H_
#define MAPR_RUNTIME_FUNCTIONS_IP_ADDRESS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mapr::runtime {

struct IpAddress {
  bool v6 = false;
  // The address in network byte order; an IPv4 address uses bytes[0..4).
  std::array<uint8_t, 16> bytes = {};

  int bits() const { return v6 ? 128 : 32; }
};

// Longest text of an address and its prefix: an IPv6 address with an IPv4
// tail (45 bytes), "/128".
inline constexpr size_t kMaxNetworkText = 50;

// `text` as an address, or nullopt (no brackets, ports or zone ids).
std::optional<IpAddress> ParseIpAddress(std::string_view text);

// `a` with every bit after the first `prefix` cleared.
IpAddress MaskIp(IpAddress a, int prefix);

// "10.1.2.0/24", "2001:db8::/32" into `out` (kMaxNetworkText bytes); its
// size.
size_t WriteNetwork(const IpAddress& a, int prefix, char* out);

struct IpNetwork {
  IpAddress base;  // Host bits clear.
  int prefix = 0;
};

// True if `a` is in `n` (an IPv4 address is never in an IPv6 network, nor
// the other way round).
bool InNetwork(const IpAddress& a, const IpNetwork& n);

bool InAnyNetwork(const IpAddress& a, std::span<const IpNetwork> networks);

// "10.0.0.0/8" or a bare address (a network of one). On error, nullopt and
// *why says what is wrong.
std::optional<IpNetwork> ParseIpNetwork(std::string_view text,
                                        std::string* why);

// The networks of a list ("10.0.0.0/8, 192.168.0.0/16 fd00::/8": separated
// by commas or spaces), as ParseIpNetwork reads each; nullopt and *why on
// the first bad one, or if there is none.
std::optional<std::vector<IpNetwork>> ParseIpNetworks(std::string_view text,
                                                      std::string* why);

// Replaces each present value of `values` that is an address by f(address)
// (a string_view that outlives the batch), and each other present value by
// a missing one, marked in `unreadable`: the apply of cidr() and ip_in().
template <typename F>
void MapAddresses(std::span<std::string_view> values, uint8_t* unreadable,
                  F f) {
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view& v = values[i];
    if (v.data() == nullptr) continue;
    const std::optional<IpAddress> a = ParseIpAddress(v);
    if (a) {
      v = f(*a);
    } else {
      v = std::string_view();
      unreadable[i] = 1;
    }
  }
}

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_FUNCTIONS_IP_ADDRESS_H_
