// The Prometheus text endpoint of a real run: http://127.0.0.1:PORT/metrics, served by cpp-httplib from a thread of
// its own, and beside it the health endpoint http://127.0.0.1:PORT/health (JSON: each component's status and the
// restart count of every job). The driver publishes fresh texts after every controller step; a request gets the
// latest ones. Drill hook, for tests only: with TRAINTWIN_DRILL_METRICS_DOWN=1 in the environment when the server
// starts, /metrics answers 503, as a dead collector would (`traintwin accept --inject observability` uses it).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/control/run_record.hpp"

namespace httplib {
class Server;
}

namespace tt::real {

class MetricsServer {
 public:
  // Listens on 127.0.0.1:port (0: a free port); throws std::runtime_error when it cannot bind.
  explicit MetricsServer(int port);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }
  bool serving_metrics() const { return !drill_metrics_down_; }
  void publish(std::string text);
  void publish_health(std::string json);

 private:
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::mutex mu_;
  std::string text_;
  std::string health_;
  bool drill_metrics_down_ = false;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

// Gauges and counters of the run so far (Prometheus text exposition format 0.0.4): the controller's registry under the
// names of metrics.prom (RunRecord::metrics), plus the simulated time, live workers and decisions so far. The real
// driver sends no NetworkSample, so traintwin_node_network_bytes_per_second is absent from a real run.
std::string prometheus_text(const RunRecord& record, Seconds now, int live_workers);

// The /health document: {"status": "ok", "components": [{"name", "status", ...}], "restarts": {job: n},
// "restarts_total": n}; the controller, the worker pool and the metrics exporter are the components.
std::string health_json(const RunRecord& record, Seconds now, int live_workers, int workers_started,
                        bool metrics_serving);

// A client's GET of http://127.0.0.1:PORT/PATH, as a scraper does it: the status and body, or nullopt when nothing
// answers within `timeout_s` (connection refused, timeout).
struct HttpReply {
  int status = 0;
  std::string body;
};
std::optional<HttpReply> http_get_local(int port, const std::string& path, double timeout_s = 1.0);

}  // namespace tt::real
