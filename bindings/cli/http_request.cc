#include "bindings/cli/http_request.h"

namespace mapr::cli {

namespace {

HttpRequest Bad() { return {HttpRequest::Kind::kBad, {}}; }

// METHOD SP TARGET [SP HTTP/x.y]
HttpRequest ParseLine(std::string_view line) {
  for (char c : line) {
    if (c < 0x20 || c > 0x7e) return Bad();
  }
  const size_t method_end = line.find(' ');
  if (method_end == std::string_view::npos) return Bad();
  const std::string_view method = line.substr(0, method_end);
  HttpRequest out;
  if (method == "GET") {
    out.kind = HttpRequest::Kind::kGet;
  } else if (method == "HEAD") {
    out.kind = HttpRequest::Kind::kHead;
  } else {
    return Bad();
  }
  std::string_view rest = line.substr(method_end + 1);
  const size_t target_end = rest.find(' ');
  const std::string_view target = rest.substr(0, target_end);
  if (target.empty() || target[0] != '/') return Bad();
  if (target_end != std::string_view::npos) {
    const std::string_view version = rest.substr(target_end + 1);
    if (version.substr(0, 5) != "HTTP/" ||
        version.find(' ') != std::string_view::npos) {
      return Bad();
    }
  }
  out.path = target.substr(0, target.find('?'));
  return out;
}

}  // namespace

HttpRequest ParseRequestHead(std::string_view bytes, bool ended) {
  if (bytes.size() > kMaxRequestHead) bytes = bytes.substr(0, kMaxRequestHead);
  const bool complete = bytes.find("\r\n\r\n") != std::string_view::npos ||
                        bytes.find("\n\n") != std::string_view::npos;
  if (!complete && !ended) {
    return {bytes.size() >= kMaxRequestHead ? HttpRequest::Kind::kTooLarge
                                            : HttpRequest::Kind::kIncomplete,
            {}};
  }
  const size_t line_end = bytes.find_first_of("\r\n");
  if (line_end == std::string_view::npos) return Bad();
  return ParseLine(bytes.substr(0, line_end));
}

}  // namespace mapr::cli
