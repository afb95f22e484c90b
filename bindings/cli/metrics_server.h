// `mapr --follow --listen ADDR:PORT`: serves the latest report as
// Prometheus metrics (mapr/prometheus.h) at http://ADDR:PORT/metrics, for a
// Prometheus server to scrape. A minimal HTTP/1.0 responder on one thread
// of its own: GET /metrics gets the text (empty before the first report),
// any other path 404, a request head over 8 KiB 431, anything else 400
// (http_request.h); one request per connection. Clients are served side by
// side (non-blocking, one poll): each has 2 s to send its request and 10 s
// to take the answer, at most 64 are open at once (a new one closes the
// one with the nearest deadline), so no client, slow or idle, holds up the
// others or the process's exit. It binds only the address given (IPv4), so
// a loopback address keeps it on the machine.
#ifndef MAPR_BINDINGS_CLI_METRICS_SERVER_H_
#define MAPR_BINDINGS_CLI_METRICS_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace mapr::cli {

// "ADDR:PORT" (an IPv4 address, a port from 0 to 65535; 0 picks a free
// one), or an error naming what is wrong.
struct ListenAddress {
  std::string address;
  uint16_t port = 0;
};
absl::StatusOr<ListenAddress> ParseListenAddress(std::string_view text);

class MetricsServer {
 public:
  // Binds and listens, then serves on a thread until destroyed.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const ListenAddress& where);
  ~MetricsServer();

  // The port bound (the one picked for port 0).
  uint16_t port() const { return port_; }
  // The text later scrapes get.
  void Publish(std::string text);

 private:
  MetricsServer(int listen_fd, int wake_read, int wake_write, uint16_t port);
  void Serve();
  // The response to a request head.
  std::string Answer(std::string_view head, bool ended);

  const int listen_fd_;
  const int wake_read_;  // Becomes readable when the server is destroyed.
  const int wake_write_;
  const uint16_t port_;
  absl::Mutex mu_;
  std::shared_ptr<const std::string> text_ ABSL_GUARDED_BY(mu_) =
      std::make_shared<const std::string>();
  std::thread thread_;
};

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_METRICS_SERVER_H_
