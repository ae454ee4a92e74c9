// The Prometheus text endpoint of a real run: http://127.0.0.1:PORT/metrics, served by cpp-httplib from a thread of
// its own. The driver publishes a fresh text after every controller step; a scrape gets the latest one.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
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
  void publish(std::string text);

 private:
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::mutex mu_;
  std::string text_;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

// Gauges and counters of the run so far (Prometheus text exposition format 0.0.4): the controller's registry under the
// names of metrics.prom (RunRecord::metrics), plus the simulated time, live workers and decisions so far. The real
// driver sends no NetworkSample, so traintwin_node_network_bytes_per_second is absent from a real run.
std::string prometheus_text(const RunRecord& record, Seconds now, int live_workers);

}  // namespace tt::real
