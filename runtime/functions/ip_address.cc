#include "runtime/functions/ip_address.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "util/strings.h"

namespace mapr::runtime {

std::optional<IpAddress> ParseIpAddress(std::string_view text) {
  // inet_pton reads a NUL-terminated string; the longest address is 45
  // bytes (an IPv6 address with an IPv4 tail).
  char buffer[48];
  if (text.empty() || text.size() >= sizeof(buffer)) return std::nullopt;
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  IpAddress a;
  if (text.find(':') == std::string_view::npos) {
    if (inet_pton(AF_INET, buffer, a.bytes.data()) != 1) return std::nullopt;
    return a;
  }
  a.v6 = true;
  if (inet_pton(AF_INET6, buffer, a.bytes.data()) != 1) return std::nullopt;
  return a;
}

IpAddress MaskIp(IpAddress a, int prefix) {
  const int bits = a.bits();
  for (int byte = 0; byte < bits / 8; ++byte) {
    const int keep = prefix - byte * 8;  // Bits of this byte to keep.
    if (keep >= 8) continue;
    a.bytes[byte] =
        keep <= 0 ? 0
                  : static_cast<uint8_t>(a.bytes[byte] & (0xFF << (8 - keep)));
  }
  return a;
}

size_t WriteNetwork(const IpAddress& a, int prefix, char* out) {
  // inet_ntop needs INET6_ADDRSTRLEN (46) bytes, NUL included.
  if (inet_ntop(a.v6 ? AF_INET6 : AF_INET, a.bytes.data(), out,
                INET6_ADDRSTRLEN) == nullptr) {
    return 0;  // Not reached: every address has a text.
  }
  size_t size = std::strlen(out);
  out[size++] = '/';
  if (prefix >= 100) out[size++] = static_cast<char>('0' + prefix / 100);
  if (prefix >= 10) out[size++] = static_cast<char>('0' + prefix / 10 % 10);
  out[size++] = static_cast<char>('0' + prefix % 10);
  return size;
}

bool InNetwork(const IpAddress& a, const IpNetwork& n) {
  if (a.v6 != n.base.v6) return false;
  return MaskIp(a, n.prefix).bytes == n.base.bytes;
}

bool InAnyNetwork(const IpAddress& a, std::span<const IpNetwork> networks) {
  for (const IpNetwork& n : networks) {
    if (InNetwork(a, n)) return true;
  }
  return false;
}

std::optional<IpNetwork> ParseIpNetwork(std::string_view text,
                                        std::string* why) {
  const size_t slash = text.find('/');
  const std::string_view address = text.substr(0, slash);
  std::optional<IpAddress> a = ParseIpAddress(address);
  if (!a) {
    *why = absl::StrCat("'", util::ToAbsl(address),
                        "' is not an IPv4 or IPv6 address");
    return std::nullopt;
  }
  IpNetwork n;
  n.prefix = a->bits();
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    int prefix = -1;
    if (digits.empty() || digits.size() > 3 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos ||
        !absl::SimpleAtoi(util::ToAbsl(digits), &prefix) || prefix < 0 ||
        prefix > a->bits()) {
      *why = absl::StrCat("'/", util::ToAbsl(digits),
                          "' is not a prefix length of 0 to ", a->bits());
      return std::nullopt;
    }
    n.prefix = prefix;
  }
  n.base = MaskIp(*a, n.prefix);
  if (n.base.bytes != a->bytes) {
    char network[kMaxNetworkText];
    const size_t size = WriteNetwork(n.base, n.prefix, network);
    *why = absl::StrCat("'", util::ToAbsl(text),
                        "' has bits set after its prefix: did you mean ",
                        util::ToAbsl(std::string_view(network, size)), "?");
    return std::nullopt;
  }
  return n;
}

std::optional<std::vector<IpNetwork>> ParseIpNetworks(std::string_view text,
                                                      std::string* why) {
  std::vector<IpNetwork> networks;
  size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ' || text[at] == ',') {
      ++at;
      continue;
    }
    size_t end = text.find_first_of(" ,", at);
    if (end == std::string_view::npos) end = text.size();
    std::optional<IpNetwork> n = ParseIpNetwork(text.substr(at, end - at), why);
    if (!n) return std::nullopt;
    networks.push_back(*n);
    at = end;
  }
  if (networks.empty()) {
    *why = "the list names no network";
    return std::nullopt;
  }
  return networks;
}

}  // namespace mapr::runtime
