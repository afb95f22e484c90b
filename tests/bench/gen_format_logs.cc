// Deterministic generator of log files in the formats of issue 15, for the
// log format benchmark (tests/bench/formats.sh).
//
//   gen_format_logs FORMAT BYTES > file
//
// FORMAT is one of json, combined, clf, logfmt, fields, syslog. The output
// is at most BYTES bytes of whole lines; the same FORMAT and BYTES always
// give the same file (a fixed-seed SplitMix64 and integer arithmetic only,
// no libm, no std distributions). Every line is well formed, so the
// engines compared count the same lines.
//
//   json      structured app logs, ~260 bytes, 9 keys and a nested "http"
//             object of 4; about 1 line in 12 has a message with \" or
//             \uXXXX (or \n, \t, \\) escapes.
//   combined  nginx access logs: ip - user [time] "request" status bytes
//             "referer" "user agent" (agents with spaces), ~200 bytes; about
//             1 request in 500 holds an escaped quote \" as Apache writes it.
//   clf       the same without referer and agent; bytes is "-" when 0.
//   logfmt    slog / Heroku router style, ~240 bytes: time level msg="..."
//             (spaces, sometimes \") service method path status latency_ms
//             bytes request_id fwd="ip" dyno.
//   fields    `date time level component latency_ms bytes msg...`, single
//             spaces, ~110 bytes.
//   syslog    /var/log/syslog (RFC 3164 without PRI, as rsyslog writes it),
//             `Mmm dd hh:mm:ss host app[pid]: msg`, some apps without pid,
//             ~110 bytes.
//
// Group values are bounded: 12 services (json, logfmt), 6 methods (access
// logs), 16 components (fields), 15 apps (syslog). latency_ms has three
// decimals (0.100 to 5000 ms, skewed low); bytes is an integer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "tests/bench/rng.h"

namespace {

using mapr::bench::Rng;

template <typename T, size_t N>
constexpr size_t Count(const T (&)[N]) {
  return N;
}

// ---- Value pools ----------------------------------------------------------

const char* const kServices[] = {
    "checkout", "cart",          "auth",     "search",
    "catalog",  "payments",      "shipping", "inventory",
    "users",    "notifications", "gateway",  "recommendations"};
const unsigned kServiceWeights[] = {14, 12, 18, 10, 9, 6, 5, 5, 8, 3, 7, 3};

const char* const kLevels[] = {"debug", "info", "warn", "error"};
const char* const kLevelsUpper[] = {"DEBUG", "INFO", "WARN", "ERROR"};
const unsigned kLevelWeights[] = {10, 75, 10, 5};

const char* const kMethods[] = {"GET",    "POST", "PUT",
                                "DELETE", "HEAD", "PATCH"};
const unsigned kMethodWeights[] = {70, 15, 5, 3, 4, 3};

const int kStatuses[] = {200, 201, 204, 301, 302, 304, 400,
                         401, 403, 404, 429, 500, 502, 503};
const unsigned kStatusWeights[] = {700, 30, 20, 10, 20, 60, 15,
                                   10,  5,  60, 5,  30, 10, 15};

const char* const kComponents[] = {
    "http",    "db",     "cache", "queue",   "scheduler", "auth",
    "billing", "mailer", "index", "storage", "grpc",      "metrics",
    "session", "search", "cron",  "webhook"};

const char* const kAgents[] = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, "
    "like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) "
    "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 "
    "Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, "
    "like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36",
    "curl/8.4.0",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "kube-probe/1.28",
    "Wget/1.21.4"};

const char* const kReferers[] = {
    "-",
    "-",
    "-",
    "https://www.example.com/",
    "https://www.example.com/products/shoes?color=blue&size=42",
    "https://www.google.com/",
    "https://shop.example.com/cart",
    "https://www.bing.com/search?q=running+shoes"};

const char* const kUsers[] = {"alice", "bob", "carol", "dave", "erin", "frank"};

// Messages for json and logfmt. Some hold characters that need escaping;
// they are written out escaped by the callers' tables below.
const char* const kJsonMessages[] = {
    "request completed",
    "request completed",
    "request completed",
    "cache miss, fetching from origin",
    "user logged in",
    "order placed",
    "payment authorized",
    "retrying upstream call",
    "slow query detected",
    "rate limit exceeded for client",
    "connection reset by peer",
    "query \\\"SELECT * FROM orders WHERE id = ?\\\" took too long",
    "caf\\u00e9 menu updated by \\\"admin\\\"",
    "path C:\\\\logs\\\\app.log rotated",
    "multi-line\\nstack trace follows\\n\\tat main()",
    "na\\u00efve r\\u00e9sum\\u00e9 upload \\ud83d\\ude00",
};
const unsigned kJsonMessageWeights[] = {300, 200, 200, 40, 40, 30, 30, 20,
                                        20,  10,  10,  8,  8,  5,  5,  4};

const char* const kLogfmtMessages[] = {
    "request completed",
    "request completed",
    "cache miss, fetching from origin",
    "user logged in",
    "order placed",
    "retrying upstream call",
    "slow query detected",
    "upstream said \\\"busy\\\", backing off",
    "rate limit exceeded",
};
const unsigned kLogfmtMessageWeights[] = {300, 300, 40, 40, 30, 20, 20, 8, 10};

const char* const kFieldsMessages[] = {
    "request completed",
    "request completed for user",
    "cache miss fetching from origin",
    "retrying upstream call after timeout",
    "slow query detected on replica",
    "job finished",
    "connection closed by client",
};

const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// ---- Formatting helpers ---------------------------------------------------

void AppendUint(std::string& out, uint64_t v) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out.push_back(buf[--n]);
}

void AppendPadded(std::string& out, uint64_t v, int width, char pad = '0') {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n < width) buf[n++] = pad;
  while (n > 0) out.push_back(buf[--n]);
}

void AppendHex(std::string& out, uint64_t v, int digits) {
  static const char kHex[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i)
    out.push_back(kHex[(v >> (4 * i)) & 15]);
}

// Milliseconds with three decimals, from microseconds.
void AppendMillis(std::string& out, uint64_t micros) {
  AppendUint(out, micros / 1000);
  out.push_back('.');
  AppendPadded(out, micros % 1000, 3);
}

// A request latency in microseconds: 100 us to 5 s, skewed low.
uint64_t LatencyMicros(Rng& rng) {
  const uint64_t bucket = rng.Below(100);
  if (bucket < 70) return 100 + rng.Below(50'000);
  if (bucket < 95) return 50'000 + rng.Below(450'000);
  return 500'000 + rng.Below(4'500'000);
}

uint64_t ResponseBytes(Rng& rng, int status) {
  if (status == 204 || status == 304) return 0;
  if (status >= 300 && status < 400) return 150 + rng.Below(100);
  if (status >= 400) return 100 + rng.Below(900);
  return 200 + rng.Below(rng.Below(4) == 0 ? 200'000 : 20'000);
}

// A clock that moves forward a few ms per line from 2026-12-01 00:00:00.
struct Clock {
  uint64_t millis = 0;  // Since 2026-12-01 00:00:00.000 UTC.
  void Tick(Rng& rng) { millis += rng.Below(8); }
  uint64_t day() const { return 1 + millis / 86'400'000 % 28; }
  uint64_t hour() const { return millis / 3'600'000 % 24; }
  uint64_t minute() const { return millis / 60'000 % 60; }
  uint64_t second() const { return millis / 1000 % 60; }
  uint64_t milli() const { return millis % 1000; }
  // 2026-12-01T14:00:00.123Z (or with a space and no Z).
  void AppendIso(std::string& out, bool t_and_z) const {
    out += "2026-12-";
    AppendPadded(out, day(), 2);
    out.push_back(t_and_z ? 'T' : ' ');
    AppendHms(out);
    out.push_back('.');
    AppendPadded(out, milli(), 3);
    if (t_and_z) out.push_back('Z');
  }
  void AppendHms(std::string& out) const {
    AppendPadded(out, hour(), 2);
    out.push_back(':');
    AppendPadded(out, minute(), 2);
    out.push_back(':');
    AppendPadded(out, second(), 2);
  }
};

void AppendIp(std::string& out, Rng& rng) {
  // A few thousand clients in documentation and private ranges.
  static const char* const kPrefixes[] = {"203.0.113.", "198.51.100.",
                                          "192.0.2.", "10.20.", "172.16.5."};
  const size_t p = rng.Below(Count(kPrefixes));
  out += kPrefixes[p];
  if (p == 3) {
    AppendUint(out, rng.Below(256));
    out.push_back('.');
  }
  AppendUint(out, 1 + rng.Below(254));
}

void AppendPath(std::string& out, Rng& rng, bool escapes) {
  switch (rng.Below(10)) {
    case 0:
      out += "/";
      break;
    case 1:
      out += "/static/js/app.";
      AppendHex(out, rng.Below(64) * 0x9e3779b1ULL, 8);
      out += ".js";
      break;
    case 2:
      out += "/login";
      break;
    case 3:
      out += "/search?q=";
      out += kServices[rng.Below(Count(kServices))];
      if (escapes && rng.Below(50) == 0) out += "\\\"quoted\\\"";
      break;
    case 4:
    case 5:
    case 6:
      out += "/api/v1/orders/";
      AppendUint(out, 10000 + rng.Below(90000));
      break;
    case 7:
      out += "/api/v1/users/";
      AppendUint(out, 1 + rng.Below(5000));
      out += "/profile";
      break;
    default:
      out += "/api/v2/cart/items";
      break;
  }
}

// ---- The formats ----------------------------------------------------------

void JsonLine(std::string& out, Rng& rng, const Clock& clock) {
  const size_t service = rng.Weighted(kServiceWeights);
  const int status = kStatuses[rng.Weighted(kStatusWeights)];
  out += "{\"time\":\"";
  clock.AppendIso(out, true);
  out += "\",\"level\":\"";
  out += kLevels[rng.Weighted(kLevelWeights)];
  out += "\",\"service\":\"";
  out += kServices[service];
  out += "\",\"host\":\"web-";
  AppendPadded(out, 1 + rng.Below(16), 2);
  out += "\",\"msg\":\"";
  out += kJsonMessages[rng.Weighted(kJsonMessageWeights)];
  out += "\",\"http\":{\"method\":\"";
  out += kMethods[rng.Weighted(kMethodWeights)];
  out += "\",\"path\":\"";
  AppendPath(out, rng, false);
  out += "\",\"status\":";
  AppendUint(out, static_cast<uint64_t>(status));
  out += ",\"bytes\":";
  AppendUint(out, ResponseBytes(rng, status));
  out += "},\"latency_ms\":";
  AppendMillis(out, LatencyMicros(rng));
  out += ",\"user\":\"u-";
  AppendUint(out, 1 + rng.Below(20000));
  out += "\",\"trace_id\":\"";
  AppendHex(out, rng.Next(), 16);
  out += "\"}\n";
}

void AccessLine(std::string& out, Rng& rng, const Clock& clock, bool combined) {
  const int status = kStatuses[rng.Weighted(kStatusWeights)];
  AppendIp(out, rng);
  out += " - ";
  if (rng.Below(10) == 0) {
    out += kUsers[rng.Below(Count(kUsers))];
  } else {
    out.push_back('-');
  }
  out += " [";
  AppendPadded(out, clock.day(), 2);
  out += "/Dec/2026:";
  clock.AppendHms(out);
  out += " +0000] \"";
  out += kMethods[rng.Weighted(kMethodWeights)];
  out.push_back(' ');
  AppendPath(out, rng, true);
  out += rng.Below(4) == 0 ? " HTTP/2.0\" " : " HTTP/1.1\" ";
  AppendUint(out, static_cast<uint64_t>(status));
  out.push_back(' ');
  const uint64_t bytes = ResponseBytes(rng, status);
  if (bytes == 0 && !combined) {
    out.push_back('-');  // Apache's %b
  } else {
    AppendUint(out, bytes);
  }
  if (combined) {
    out += " \"";
    out += kReferers[rng.Below(Count(kReferers))];
    out += "\" \"";
    out += kAgents[rng.Below(Count(kAgents))];
    out.push_back('"');
  }
  out.push_back('\n');
}

void LogfmtLine(std::string& out, Rng& rng, const Clock& clock) {
  const size_t service = rng.Weighted(kServiceWeights);
  const int status = kStatuses[rng.Weighted(kStatusWeights)];
  out += "time=";
  clock.AppendIso(out, true);
  out += " level=";
  out += kLevels[rng.Weighted(kLevelWeights)];
  out += " msg=\"";
  out += kLogfmtMessages[rng.Weighted(kLogfmtMessageWeights)];
  out += "\" service=";
  out += kServices[service];
  out += " method=";
  out += kMethods[rng.Weighted(kMethodWeights)];
  out += " path=";
  AppendPath(out, rng, false);
  out += " status=";
  AppendUint(out, static_cast<uint64_t>(status));
  out += " latency_ms=";
  AppendMillis(out, LatencyMicros(rng));
  out += " bytes=";
  AppendUint(out, ResponseBytes(rng, status));
  out += " request_id=";
  AppendHex(out, rng.Next(), 8);
  out.push_back('-');
  AppendHex(out, rng.Next(), 4);
  out += "-4";
  AppendHex(out, rng.Next(), 3);
  out.push_back('-');
  AppendHex(out, 0x8000 | rng.Below(0x4000), 4);
  out.push_back('-');
  AppendHex(out, rng.Next(), 12);
  out += " fwd=\"";
  AppendIp(out, rng);
  out += "\" dyno=web.";
  AppendUint(out, 1 + rng.Below(8));
  out.push_back('\n');
}

void FieldsLine(std::string& out, Rng& rng, const Clock& clock) {
  clock.AppendIso(out, false);
  out.push_back(' ');
  out += kLevelsUpper[rng.Weighted(kLevelWeights)];
  out.push_back(' ');
  out += kComponents[rng.Below(Count(kComponents))];
  out.push_back(' ');
  AppendMillis(out, LatencyMicros(rng));
  out.push_back(' ');
  const int status = kStatuses[rng.Weighted(kStatusWeights)];
  AppendUint(out, ResponseBytes(rng, status));
  out.push_back(' ');
  out += kFieldsMessages[rng.Below(Count(kFieldsMessages))];
  out += " id=";
  AppendUint(out, rng.Below(1'000'000));
  out.push_back('\n');
}

void SyslogLine(std::string& out, Rng& rng, const Clock& clock) {
  // Month and day as rsyslog writes them: "Dec  1", "Dec 12".
  out += kMonths[11];
  out.push_back(' ');
  AppendPadded(out, clock.day(), 2, ' ');
  out.push_back(' ');
  clock.AppendHms(out);
  out += " host-";
  AppendPadded(out, 1 + rng.Below(8), 2);
  out.push_back(' ');
  const uint64_t pid = 300 + rng.Below(60000);
  const std::string user = kUsers[rng.Below(Count(kUsers))];
  std::string ip;
  AppendIp(ip, rng);
  auto tag = [&](const char* app, bool with_pid, uint64_t fixed_pid = 0) {
    out += app;
    if (with_pid) {
      out.push_back('[');
      AppendUint(out, fixed_pid != 0 ? fixed_pid : pid);
      out.push_back(']');
    }
    out += ": ";
  };
  switch (rng.Below(15)) {
    case 0:
      tag("sshd", true);
      out += "Accepted publickey for " + user + " from " + ip + " port ";
      AppendUint(out, 30000 + rng.Below(30000));
      out += " ssh2: ED25519 SHA256:";
      AppendHex(out, rng.Next(), 16);
      break;
    case 1:
      tag("sshd", true);
      out += "Connection closed by authenticating user " + user + " " + ip +
             " port ";
      AppendUint(out, 30000 + rng.Below(30000));
      out += " [preauth]";
      break;
    case 2:
      tag("CRON", true);
      out += "(root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)";
      break;
    case 3:
      tag("systemd", true, 1);
      out += "Started session-";
      AppendUint(out, 1 + rng.Below(9000));
      out += ".scope - Session of User " + user + ".";
      break;
    case 4:
      tag("kernel", false);
      out.push_back('[');
      AppendUint(out, 100000 + rng.Below(900000));
      out += ".";
      AppendPadded(out, rng.Below(1000000), 6);
      out += "] [UFW BLOCK] IN=eth0 OUT= SRC=" + ip + " DST=10.0.0.5 PROTO=TCP";
      break;
    case 5:
      tag("dhclient", true);
      out += "DHCPREQUEST for 10.0.0.5 on eth0 to 10.0.0.1 port 67";
      break;
    case 6:
      tag("nginx", true);
      out += "2026/12/01 worker process exited on signal 9";
      break;
    case 7:
      tag("postfix/smtpd", true);
      out += "connect from unknown[" + ip + "]";
      break;
    case 8:
      tag("dockerd", true);
      out +=
          "time=\"2026-12-01T14:00:00.000Z\" level=info msg=\"ignoring event\"";
      break;
    case 9:
      tag("containerd", true);
      out += "shim disconnected id=";
      AppendHex(out, rng.Next(), 16);
      break;
    case 10:
      tag("sudo", false);
      out += "   " + user + " : TTY=pts/0 ; PWD=/home/" + user +
             " ; USER=root ; COMMAND=/usr/bin/apt update";
      break;
    case 11:
      tag("rsyslogd", false);
      out +=
          "[origin software=\"rsyslogd\" swVersion=\"8.2302.0\"] rsyslogd "
          "was HUPed";
      break;
    case 12:
      tag("NetworkManager", true);
      out += "<info>  [";
      AppendUint(out, 1700000000 + rng.Below(1000000));
      out += ".0000] dhcp4 (eth0): state changed new lease";
      break;
    case 13:
      tag("systemd-logind", true);
      out += "New session " + std::to_string(1 + rng.Below(9000)) +
             " of user " + user + ".";
      break;
    default:
      tag("snapd", true);
      out +=
          "storehelpers.go:769: cannot refresh: snap has no updates available";
      break;
  }
  out.push_back('\n');
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: gen_format_logs FORMAT BYTES > file\n"
                 "FORMAT: json combined clf logfmt fields syslog\n");
    return 2;
  }
  const std::string_view format = argv[1];
  const uint64_t target = std::strtoull(argv[2], nullptr, 10);
  int kind;
  if (format == "json") {
    kind = 0;
  } else if (format == "combined") {
    kind = 1;
  } else if (format == "clf") {
    kind = 2;
  } else if (format == "logfmt") {
    kind = 3;
  } else if (format == "fields") {
    kind = 4;
  } else if (format == "syslog") {
    kind = 5;
  } else {
    std::fprintf(stderr, "gen_format_logs: unknown format '%s'\n", argv[1]);
    return 2;
  }
  Rng rng{0x15'0000ULL + static_cast<uint64_t>(kind)};
  Clock clock;
  std::string buffer;
  std::string line;
  uint64_t written = 0;
  while (true) {
    line.clear();
    clock.Tick(rng);
    switch (kind) {
      case 0:
        JsonLine(line, rng, clock);
        break;
      case 1:
        AccessLine(line, rng, clock, true);
        break;
      case 2:
        AccessLine(line, rng, clock, false);
        break;
      case 3:
        LogfmtLine(line, rng, clock);
        break;
      case 4:
        FieldsLine(line, rng, clock);
        break;
      default:
        SyslogLine(line, rng, clock);
        break;
    }
    if (written + line.size() > target) break;
    written += line.size();
    buffer += line;
    if (buffer.size() >= (1 << 20)) {
      if (std::fwrite(buffer.data(), 1, buffer.size(), stdout) !=
          buffer.size()) {
        std::perror("gen_format_logs: write");
        return 1;
      }
      buffer.clear();
    }
  }
  if (std::fwrite(buffer.data(), 1, buffer.size(), stdout) != buffer.size() ||
      std::fflush(stdout) != 0) {
    std::perror("gen_format_logs: write");
    return 1;
  }
  return 0;
}
