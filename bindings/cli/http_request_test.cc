#include "bindings/cli/http_request.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace mapr::cli {
namespace {

using Kind = HttpRequest::Kind;

TEST(ParseRequestHeadTest, GetAndHeadOfAPath) {
  const HttpRequest get = ParseRequestHead(
      "GET /metrics?name=x HTTP/1.1\r\nHost: a\r\n\r\n", false);
  EXPECT_EQ(get.kind, Kind::kGet);
  EXPECT_EQ(get.path, "/metrics");
  const HttpRequest head = ParseRequestHead("HEAD /other HTTP/1.0\n\n", false);
  EXPECT_EQ(head.kind, Kind::kHead);
  EXPECT_EQ(head.path, "/other");
  // The request line alone is enough when the client says it is done.
  EXPECT_EQ(ParseRequestHead("GET /metrics\r\n", true).kind, Kind::kGet);
}

TEST(ParseRequestHeadTest, WaitsForTheBlankLine) {
  EXPECT_EQ(ParseRequestHead("", false).kind, Kind::kIncomplete);
  EXPECT_EQ(ParseRequestHead("GET /metrics HTTP/1.0\r\n", false).kind,
            Kind::kIncomplete);
  EXPECT_EQ(ParseRequestHead("GET /", false).kind, Kind::kIncomplete);
}

TEST(ParseRequestHeadTest, RefusesWhatIsNoRequestLine) {
  for (std::string_view bad : {
           // No line end before the client stopped: the request line that
           // once read past the buffer.
           "GET /aaaaaaaaaaaaaaaaaaaaaaaa",
           "",
           "\r\n\r\n",
           "POST /metrics HTTP/1.0\r\n\r\n",
           "get /metrics HTTP/1.0\r\n\r\n",
           "GET metrics HTTP/1.0\r\n\r\n",
           "GET  /metrics HTTP/1.0\r\n\r\n",
           "GET\r\n\r\n",
           "GET /metrics FTP/1.0\r\n\r\n",
           "GET /metrics HTTP/1.0 x\r\n\r\n",
           "GET /met\x01rics HTTP/1.0\r\n\r\n",
           "GET /m\xc3\xa9trics HTTP/1.0\r\n\r\n",
       }) {
    EXPECT_EQ(ParseRequestHead(bad, true).kind, Kind::kBad) << bad;
  }
  EXPECT_EQ(
      ParseRequestHead(std::string_view("GET /\0 HTTP/1.0\n\n", 18), false)
          .kind,
      Kind::kBad);
}

TEST(ParseRequestHeadTest, AHeadOverTheLimitIsTooLarge) {
  const std::string big =
      "GET /metrics HTTP/1.0\r\nX: " + std::string(kMaxRequestHead, 'a');
  EXPECT_EQ(ParseRequestHead(big, false).kind, Kind::kTooLarge);
  EXPECT_EQ(ParseRequestHead(std::string(kMaxRequestHead - 1, 'a'), false).kind,
            Kind::kIncomplete);
  EXPECT_EQ(ParseRequestHead(std::string(kMaxRequestHead, 'a'), false).kind,
            Kind::kTooLarge);
  // The end of the head beyond the limit is not looked for.
  EXPECT_EQ(ParseRequestHead(big + "\r\n\r\n", false).kind, Kind::kTooLarge);
}

}  // namespace
}  // namespace mapr::cli
