#include "real/metrics.hpp"

#include <httplib.h>

#include <chrono>
#include <cstdio>
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

namespace {

std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

struct Writer {
  std::string out;
  void family(const char* name, const char* type, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const std::string& name, double v) { out += name + " " + num(v) + "\n"; }
};

}  // namespace

std::string prometheus_text(const RunRecord& rec, Seconds now, int live_workers) {
  Writer w;
  w.family("traintwin_scenario_seconds", "gauge", "Scenario time of the run (real seconds x time scale).");
  w.sample("traintwin_scenario_seconds", now.value);
  Sample last = rec.series.empty() ? Sample{} : rec.series.back();
  w.family("traintwin_gpus_allocated", "gauge", "GPUs held by running jobs.");
  w.sample("traintwin_gpus_allocated", last.gpus_allocated);
  w.family("traintwin_gpus_up", "gauge", "GPUs on nodes that are up.");
  w.sample("traintwin_gpus_up", last.gpus_up);
  w.family("traintwin_jobs_running", "gauge", "Jobs running (or stalled, not yet declared failed).");
  w.sample("traintwin_jobs_running", last.jobs_running);
  w.family("traintwin_jobs_pending", "gauge", "Jobs waiting in a queue.");
  w.sample("traintwin_jobs_pending", last.jobs_pending);
  w.family("traintwin_workers_live", "gauge", "Worker processes running.");
  w.sample("traintwin_workers_live", live_workers);
  w.family("traintwin_decisions_total", "counter", "Decisions the controller has taken.");
  w.sample("traintwin_decisions_total", static_cast<double>(rec.decisions.size()));

  w.family("traintwin_job_iterations", "gauge", "Iterations a job has completed (rolled back on a failure).");
  for (const auto& j : rec.jobs)
    w.sample("traintwin_job_iterations{job=\"" + label(j.name) + "\"}", static_cast<double>(j.iterations_done));
  w.family("traintwin_job_iterations_target", "gauge", "Iterations a job must complete.");
  for (const auto& j : rec.jobs)
    w.sample("traintwin_job_iterations_target{job=\"" + label(j.name) + "\"}",
             static_cast<double>(j.iterations_target));
  w.family("traintwin_job_restarts_total", "counter", "Restarts of a job after a failure.");
  for (const auto& j : rec.jobs) w.sample("traintwin_job_restarts_total{job=\"" + label(j.name) + "\"}", j.restarts);
  w.family("traintwin_job_checkpoints_total", "counter", "Checkpoints a job has completed.");
  for (const auto& j : rec.jobs)
    w.sample("traintwin_job_checkpoints_total{job=\"" + label(j.name) + "\"}", j.checkpoints);
  w.family("traintwin_job_state", "gauge", "1 for the state a job is in.");
  for (const auto& j : rec.jobs)
    w.sample("traintwin_job_state{job=\"" + label(j.name) + "\",state=\"" + label(j.state) + "\"}", 1);
  return w.out;
}

}  // namespace tt::real
