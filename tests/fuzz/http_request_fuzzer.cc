// libFuzzer target: arbitrary bytes as the request head a client of
// `mapr --listen` sends (bindings/cli/http_request.h). The first byte says
// whether the client has half-closed. Checks: the parser reads only the
// bytes given (ASan), and a request it accepts has a path inside them that
// starts with '/', holds no '?' and only printable ASCII; a head over the
// limit is never incomplete.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "bindings/cli/http_request.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool ended = (data[0] & 1) != 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1),
                               size - 1);
  using Kind = mapr::cli::HttpRequest::Kind;
  const mapr::cli::HttpRequest r = mapr::cli::ParseRequestHead(bytes, ended);
  if (r.kind == Kind::kGet || r.kind == Kind::kHead) {
    Check(!r.path.empty() && r.path[0] == '/');
    Check(r.path.data() >= bytes.data() &&
          r.path.data() + r.path.size() <= bytes.data() + bytes.size());
    for (char c : r.path) Check(c >= 0x20 && c <= 0x7e && c != '?');
  } else {
    Check(r.path.empty());
  }
  if (ended) Check(r.kind != Kind::kIncomplete && r.kind != Kind::kTooLarge);
  if (bytes.size() >= mapr::cli::kMaxRequestHead && !ended) {
    Check(r.kind != Kind::kIncomplete);
  }
  return 0;
}
