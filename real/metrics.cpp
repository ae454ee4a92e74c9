#include "real/metrics.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "core/telemetry/exposition.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace tt::real {

MetricsServer::MetricsServer(int port) : server_(std::make_unique<httplib::Server>()) {
  const char* drill = std::getenv("TRAINTWIN_DRILL_METRICS_DOWN");
  drill_metrics_down_ = drill && std::strcmp(drill, "1") == 0;
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    if (drill_metrics_down_) {
      res.status = 503;
      res.set_content("metrics collector down (TRAINTWIN_DRILL_METRICS_DOWN drill)\n", "text/plain");
      return;
    }
    std::lock_guard lock(mu_);
    res.set_content(text_, "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard lock(mu_);
    res.set_content(health_.empty() ? std::string("{\"status\": \"starting\"}") : health_, "application/json");
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

void MetricsServer::publish_health(std::string json) {
  std::lock_guard lock(mu_);
  health_ = std::move(json);
}

std::string health_json(const RunRecord& rec, Seconds now, int live_workers, int workers_started,
                        bool metrics_serving) {
  nlohmann::json restarts = nlohmann::json::object();
  int total = 0;
  for (const auto& j : rec.jobs) {
    restarts[j.name] = j.restarts;
    total += j.restarts;
  }
  const nlohmann::json doc = {
      {"status", metrics_serving ? "ok" : "degraded"},
      {"simulated_seconds", now.value},
      {"components",
       {{{"name", "controller"}, {"status", "ok"}, {"decisions", rec.decisions.size()}},
        {{"name", "workers"}, {"status", "ok"}, {"live", live_workers}, {"started", workers_started}},
        {{"name", "metrics"}, {"status", metrics_serving ? "ok" : "down"}}}},
      {"restarts", restarts},
      {"restarts_total", total}};
  return doc.dump();
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

std::optional<HttpReply> http_get_local(int port, const std::string& path, double timeout_s) {
  httplib::Client client("127.0.0.1", port);
  const auto usec = static_cast<long long>(timeout_s * 1e6);
  client.set_connection_timeout(usec / 1000000, usec % 1000000);
  client.set_read_timeout(usec / 1000000, usec % 1000000);
  auto res = client.Get(path);
  if (!res) return std::nullopt;
  return HttpReply{res->status, res->body};
}

}  // namespace tt::real
