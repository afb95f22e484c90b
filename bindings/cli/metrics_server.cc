#include "bindings/cli/metrics_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bindings/cli/http_request.h"
#include "util/strings.h"

namespace mapr::cli {

absl::StatusOr<ListenAddress> ParseListenAddress(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid --listen '", util::ToAbsl(text),
                     "' (use ADDR:PORT, e.g. 127.0.0.1:9100)"));
  }
  ListenAddress out;
  out.address = std::string(text.substr(0, colon));
  const std::string_view port = text.substr(colon + 1);
  unsigned value = 0;
  const auto r = std::from_chars(port.data(), port.data() + port.size(), value);
  in_addr ignored;
  if (port.empty() || r.ec != std::errc() ||
      r.ptr != port.data() + port.size() || value > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid --listen '", util::ToAbsl(text),
                     "': the port must be 0 to 65535"));
  }
  if (inet_pton(AF_INET, out.address.c_str(), &ignored) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid --listen '", util::ToAbsl(text),
                     "': the address must be an IPv4 address such as "
                     "127.0.0.1"));
  }
  out.port = static_cast<uint16_t>(value);
  return out;
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const ListenAddress& where) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("--listen: socket: ", std::strerror(errno)));
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(where.port);
  inet_pton(AF_INET, where.address.c_str(), &addr.sin_addr);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(fd, 128) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int error = errno;
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("--listen ", where.address, ":", where.port, ": ",
                     std::strerror(error)));
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(fd);
    return absl::InternalError(
        absl::StrCat("--listen: pipe: ", std::strerror(errno)));
  }
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(fd, wake[0], wake[1], ntohs(addr.sin_port)));
  // The thread starts with every signal blocked (it inherits the mask), so
  // SIGINT and SIGTERM reach the thread that waits for them (follow.h).
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  server->thread_ = std::thread([s = server.get()] { s->Serve(); });
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return server;
}

MetricsServer::MetricsServer(int listen_fd, int wake_read, int wake_write,
                             uint16_t port)
    : listen_fd_(listen_fd),
      wake_read_(wake_read),
      wake_write_(wake_write),
      port_(port) {}

MetricsServer::~MetricsServer() {
  const char stop = 1;
  (void)!write(wake_write_, &stop, 1);
  if (thread_.joinable()) thread_.join();
  close(listen_fd_);
  close(wake_read_);
  close(wake_write_);
}

void MetricsServer::Publish(std::string text) {
  auto shared = std::make_shared<const std::string>(std::move(text));
  absl::MutexLock lock(&mu_);
  text_ = std::move(shared);
}

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kRequestTime = std::chrono::seconds(2);
constexpr auto kResponseTime = std::chrono::seconds(10);
constexpr size_t kMaxClients = 64;

std::string Response(std::string_view status, std::string_view type,
                     std::string_view body) {
  return absl::StrCat("HTTP/1.0 ", util::ToAbsl(status),
                      "\r\nContent-Type: ", util::ToAbsl(type),
                      "\r\nContent-Length: ", body.size(),
                      "\r\nConnection: close\r\n\r\n", util::ToAbsl(body));
}

struct Client {
  enum class State {
    kReading,   // the request head
    kWriting,   // the response
    kDraining,  // response sent and write side shut: the rest of the
                // request is read and dropped until the client closes, so
                // that closing does not reset the connection (and the
                // client's unread response) under it
  };
  int fd = -1;
  State state = State::kReading;
  std::string in;   // the request head so far
  std::string out;  // the response, once the head is read
  size_t sent = 0;
  Clock::time_point deadline;
};

}  // namespace

std::string MetricsServer::Answer(std::string_view head, bool ended) {
  const HttpRequest request = ParseRequestHead(head, ended);
  switch (request.kind) {
    case HttpRequest::Kind::kIncomplete:
    case HttpRequest::Kind::kBad:
      return Response("400 Bad Request", "text/plain", "bad request\n");
    case HttpRequest::Kind::kTooLarge:
      return Response("431 Request Header Fields Too Large", "text/plain",
                      "request head over 8 KiB\n");
    case HttpRequest::Kind::kGet:
    case HttpRequest::Kind::kHead:
      break;
  }
  if (request.path != "/metrics") {
    return Response("404 Not Found", "text/plain",
                    "not found: mapr serves /metrics\n");
  }
  std::shared_ptr<const std::string> text;
  {
    absl::MutexLock lock(&mu_);
    text = text_;
  }
  return Response("200 OK", "text/plain; version=0.0.4; charset=utf-8",
                  request.kind == HttpRequest::Kind::kHead ? "" : *text);
}

namespace {

// Reads, answers or drains `c` once poll said it is ready; false when the
// client is done (or gone) and is to be closed. `answer` gives the
// response to a request head.
bool Advance(Client& c,
             const std::function<std::string(std::string_view, bool)>& answer) {
  if (c.state == Client::State::kDraining) {
    char buf[4096];
    const ssize_t n = recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR));
  }
  if (c.state == Client::State::kReading) {
    char buf[2048];
    const size_t room = kMaxRequestHead + 1 - c.in.size();
    const ssize_t n =
        recv(c.fd, buf, std::min(room, sizeof(buf)), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (n < 0 && c.in.empty()) return false;
    if (n > 0) c.in.append(buf, static_cast<size_t>(n));
    const bool ended = n <= 0;
    if (!ended &&
        ParseRequestHead(c.in, false).kind == HttpRequest::Kind::kIncomplete) {
      return true;
    }
    c.out = answer(c.in, ended);
    c.in = std::string();
    c.state = Client::State::kWriting;
    c.deadline = Clock::now() + kResponseTime;
    return true;
  }
  const ssize_t n = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n <= 0) return false;
  c.sent += static_cast<size_t>(n);
  if (c.sent == c.out.size()) {
    shutdown(c.fd, SHUT_WR);
    c.out = std::string();
    c.state = Client::State::kDraining;
  }
  return true;
}

// Milliseconds until the nearest deadline (at least 1), or -1 for none.
int PollTimeout(const std::vector<Client>& clients, Clock::time_point now) {
  int timeout_ms = -1;
  for (const Client& c : clients) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now)
            .count() +
        1;
    if (timeout_ms < 0 || left < timeout_ms) {
      timeout_ms = static_cast<int>(left);
    }
  }
  return timeout_ms;
}

}  // namespace

void MetricsServer::Serve() {
  std::vector<Client> clients;
  std::vector<pollfd> fds;
  auto close_client = [&](size_t i) {
    close(clients[i].fd);
    clients.erase(clients.begin() + static_cast<ptrdiff_t>(i));
  };
  const auto answer = [this](std::string_view head, bool ended) {
    return Answer(head, ended);
  };
  for (;;) {
    const Clock::time_point now = Clock::now();
    // Clients past their deadline are dropped.
    for (size_t i = clients.size(); i-- > 0;) {
      if (clients[i].deadline <= now) close_client(i);
    }
    fds.clear();
    fds.push_back({wake_read_, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const Client& c : clients) {
      fds.push_back({c.fd,
                     static_cast<short>(
                         c.state == Client::State::kWriting ? POLLOUT : POLLIN),
                     0});
    }
    if (poll(fds.data(), fds.size(), PollTimeout(clients, now)) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) break;  // destroyed: drop every client at once
    // Existing clients first (their indexes match fds[2...]).
    for (size_t i = clients.size(); i-- > 0;) {
      if (fds[i + 2].revents != 0 && !Advance(clients[i], answer)) {
        close_client(i);
      }
    }
    if ((fds[1].revents & POLLIN) == 0) continue;
    for (;;) {
      const int fd =
          accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) break;  // EAGAIN: none left (or an error: try next time)
      if (clients.size() >= kMaxClients) {
        // Full: the client nearest its deadline makes room.
        size_t oldest = 0;
        for (size_t i = 1; i < clients.size(); ++i) {
          if (clients[i].deadline < clients[oldest].deadline) oldest = i;
        }
        close_client(oldest);
      }
      Client c;
      c.fd = fd;
      c.deadline = Clock::now() + kRequestTime;
      clients.push_back(std::move(c));
    }
  }
  for (const Client& c : clients) close(c.fd);
}

}  // namespace mapr::cli
