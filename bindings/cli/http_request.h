// The request head a client of `mapr --listen` sends (metrics_server.h),
// read from untrusted bytes: what to answer, from at most
// kMaxRequestHead bytes, never a read past the bytes given.
#ifndef MAPR_BINDINGS_CLI_HTTP_REQUEST_H_
#define MAPR_BINDINGS_CLI_HTTP_REQUEST_H_

#include <cstddef>
#include <string_view>

namespace mapr::cli {

// The most bytes a request head may take, its blank line included.
inline constexpr size_t kMaxRequestHead = 8192;

struct HttpRequest {
  enum class Kind {
    kIncomplete,  // more bytes may come: read on
    kBad,         // not a GET or HEAD request line: 400
    kTooLarge,    // no end of the head within kMaxRequestHead bytes: 431
    kGet,
    kHead,
  };
  Kind kind = Kind::kIncomplete;
  // The request target without its query string (kGet and kHead only); it
  // points into the bytes parsed.
  std::string_view path;
};

// Parses what a client sent so far. The head ends at a blank line ("\r\n\r\n"
// or "\n\n"); `ended` says no more bytes will come (the client half-closed),
// in which case the request line alone is enough, if it ends with a line
// end. The request line is METHOD SP TARGET [SP HTTP/x.y], of printable
// ASCII, with a target that starts with '/'.
HttpRequest ParseRequestHead(std::string_view bytes, bool ended);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_HTTP_REQUEST_H_
