#include "bindings/cli/metrics_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
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
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
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
      listen(fd, 16) != 0 ||
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
  absl::MutexLock lock(&mu_);
  text_ = std::move(text);
}

void MetricsServer::Serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Answer(fd);
    close(fd);
  }
}

namespace {

// Writes all of `data` to `fd` (a client that stops reading is dropped).
void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, 2000) <= 0) return;
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      return;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

std::string Response(std::string_view status, std::string_view type,
                     std::string_view body) {
  return absl::StrCat("HTTP/1.0 ", util::ToAbsl(status),
                      "\r\nContent-Type: ", util::ToAbsl(type),
                      "\r\nContent-Length: ", body.size(),
                      "\r\nConnection: close\r\n\r\n", util::ToAbsl(body));
}

}  // namespace

void MetricsServer::Answer(int fd) {
  // The request head, within 2 s and 8 KiB.
  std::string head;
  char buf[2048];
  while (head.find("\r\n\r\n") == std::string::npos &&
         head.find("\n\n") == std::string::npos && head.size() < 8192) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 2000) <= 0) return;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      break;
    }
    head.append(buf, static_cast<size_t>(n));
  }
  const std::string_view line(head.data(), head.find_first_of("\r\n"));
  if (line.rfind("GET ", 0) != 0 && line.rfind("HEAD ", 0) != 0) {
    WriteAll(fd, Response("400 Bad Request", "text/plain", "bad request\n"));
    return;
  }
  const size_t path_at = line.find(' ') + 1;
  const size_t path_end = line.find(' ', path_at);
  std::string_view path = line.substr(path_at, path_end - path_at);
  path = path.substr(0, path.find('?'));
  if (path != "/metrics") {
    WriteAll(fd, Response("404 Not Found", "text/plain",
                          "not found: mapr serves /metrics\n"));
    return;
  }
  std::string text;
  {
    absl::MutexLock lock(&mu_);
    text = text_;
  }
  WriteAll(fd, Response("200 OK", "text/plain; version=0.0.4; charset=utf-8",
                        line.rfind("HEAD ", 0) == 0 ? "" : text));
}

}  // namespace mapr::cli
