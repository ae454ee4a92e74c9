#include "real/metrics.hpp"

#include <httplib.h>

#include "core/telemetry/exposition.hpp"

#include <chrono>
#include <stdexcept>

namespace tt::real {

MetricsServer::MetricsServer(int port) : server_(std::make_unique<httplib::Server>()) {
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard lock(mu_);
    res.set_content(text_, "text/plain; version=0.0.4; charset=utf-8");
  });
  if (port == 0) {
    port_ = server_->bind_to_any_port("127.0.0.1");
  } else if (server_->bind_to_port("127.0.0.1", port)) {
    port_ = port;
  } else {
    port_ = -1;
  }
  if (port_ <= 0)
    throw std::runtime_error("metrics endpoint: cannot listen on 127.0.0.1:" + std::to_string(port) +
                             " (in use, or not allowed)");
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    stopped_ = true;
  });
}

MetricsServer::~MetricsServer() {
  // stop() before listen_after_bind() has marked the server running would be lost and join() would wait forever.
  while (!server_->is_running() && !stopped_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

void MetricsServer::publish(std::string text) {
  std::lock_guard lock(mu_);
  text_ = std::move(text);
}

std::string prometheus_text(const RunRecord& rec, Seconds now, int live_workers) {
  // The controller's metrics under the catalogue's names (core/telemetry/metric_catalogue.hpp), the same as in
  // metrics.prom, then the few figures only a live run has.
  std::string out = exposition_text(rec.metrics);
  auto family = [&](const char* name, const char* type, const char* help, double value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
           exposition_number(value) + "\n";
  };
  family("traintwin_run_simulated_seconds", "gauge", "Scenario time of the run so far (real seconds x time scale).",
         now.value);
  family("traintwin_workers_live", "gauge", "Worker processes running.", live_workers);
  family("traintwin_decisions_total", "counter", "Decisions the controller has taken.",
         static_cast<double>(rec.decisions.size()));
  return out;
}

}  // namespace tt::real
