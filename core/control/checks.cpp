#include "core/control/checks.hpp"

#include <cmath>
#include <cstdio>

namespace tt {

bool is_time_metric(const std::string& metric) {
  return metric == "job.end" || metric == "job.start" || metric == "job.wait" || metric == "cluster.makespan";
}

std::optional<double> measure_metric(const RunRecord& r, const std::string& metric, const std::string& job) {
  if (metric.rfind("job.", 0) == 0) {
    const JobRecord* jr = nullptr;
    for (const auto& j : r.jobs)
      if (j.name == job) jr = &j;
    if (!jr) return std::nullopt;
    if (metric == "job.end") return jr->end && jr->state == "completed" ? std::optional(jr->end->value) : std::nullopt;
    if (metric == "job.start") return jr->first_start ? std::optional(jr->first_start->value) : std::nullopt;
    if (metric == "job.wait") return jr->wait.value;
    if (metric == "job.restarts") return jr->restarts;
    if (metric == "job.preemptions") return jr->preemptions;
    if (metric == "job.iterations") return static_cast<double>(jr->iterations_done);
    if (metric == "job.ettr") return jr->ettr;
    if (metric == "job.lost_gpu_hours") return jr->lost_gpu_hours;
    return std::nullopt;
  }
  if (metric == "cluster.gpu_utilization") return r.gpu_utilization;
  if (metric == "cluster.goodput") return r.goodput;
  if (metric == "cluster.makespan") {
    double end = 0;
    for (const auto& j : r.jobs) {
      if (j.state != "completed") return std::nullopt;
      end = std::max(end, j.end->value);
    }
    return end;
  }
  if (metric == "cluster.unfinished_jobs") {
    double n = 0;
    for (const auto& j : r.jobs) n += j.state != "completed";
    return n;
  }
  return std::nullopt;
}

namespace {

bool compare(double measured, CheckOp op, double threshold) {
  switch (op) {
    case CheckOp::Le: return measured <= threshold;
    case CheckOp::Lt: return measured < threshold;
    case CheckOp::Ge: return measured >= threshold;
    case CheckOp::Gt: return measured > threshold;
    case CheckOp::Eq: return measured == threshold;
  }
  return false;
}

std::string show(const std::string& metric, double v) {
  if (is_time_metric(metric)) return format_seconds(Seconds(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::vector<CheckResult> evaluate_checks(const std::vector<CheckSpec>& checks, const RunRecord& record) {
  std::vector<CheckResult> out;
  for (const auto& c : checks) {
    CheckResult r;
    r.name = c.name;
    r.metric = c.metric;
    r.job = c.job;
    r.op = to_string(c.op);
    r.threshold = c.value;
    r.measured = measure_metric(record, c.metric, c.job);
    std::string expected = c.metric + (c.job.empty() ? "" : "(" + c.job + ")") + " " + r.op + " " + show(c.metric, c.value);
    if (!r.measured) {
      r.passed = false;
      r.message = "expected " + expected + "; not measured (" +
                  (c.job.empty() ? std::string("not every job completed") : "job " + c.job + " did not complete") + ")";
    } else {
      r.passed = compare(*r.measured, c.op, c.value);
      r.message = "expected " + expected + "; measured " + show(c.metric, *r.measured);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace tt
