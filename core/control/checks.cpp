#include "core/control/checks.hpp"

#include <cmath>
#include <algorithm>
#include <cstdio>

namespace tt {

bool is_time_metric(const std::string& metric) {
  return metric == "job.end" || metric == "job.start" || metric == "job.wait" || metric == "cluster.makespan" ||
         metric == "job.max_time_to_detect" || metric == "alert.time_to_fire" || metric == "alert.max_time_to_fire";
}

namespace {

// Seconds from `t` to the alert's first firing at or after it; nullopt when it never fired after `t`.
std::optional<double> time_to_fire(const RunRecord& r, const std::string& alert, Seconds t) {
  std::optional<double> best;
  for (const auto& a : r.alerts)
    if (a.name == alert && a.fired_at >= t && (!best || (a.fired_at - t).value < *best)) best = (a.fired_at - t).value;
  return best;
}

std::optional<double> measure_alert(const RunRecord& r, const std::string& metric, const std::string& alert) {
  if (metric == "alert.firings") {
    double n = 0;
    for (const auto& a : r.alerts) n += a.name == alert;
    return n;
  }
  if (r.fault_times.empty()) return std::nullopt;
  if (metric == "alert.time_to_fire") return time_to_fire(r, alert, r.fault_times.front());
  if (metric == "alert.max_time_to_fire") {
    double worst = 0;
    for (Seconds t : r.fault_times) {
      auto d = time_to_fire(r, alert, t);
      if (!d) return std::nullopt;
      worst = std::max(worst, *d);
    }
    return worst;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> measure_metric(const RunRecord& r, const std::string& metric, const std::string& job,
                                     const std::string& alert) {
  if (metric.rfind("alert.", 0) == 0) return measure_alert(r, metric, alert);
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
    if (metric == "job.failures") return static_cast<double>(jr->failures.size());
    if (metric == "job.false_failures") return jr->false_failures;
    if (metric == "job.flaps_survived") return jr->flaps_survived;
    if (metric == "job.checkpoint_overhead") return jr->checkpoint_overhead;
    if (metric == "job.max_time_to_detect") {
      if (jr->failures.empty()) return std::nullopt;
      double m = 0;
      for (const auto& f : jr->failures) m = std::max(m, (f.detect_time - f.fault_time).value);
      return m;
    }
    return std::nullopt;
  }
  if (metric == "cluster.gpu_utilization") return r.gpu_utilization;
  if (metric == "cluster.goodput") return r.goodput;
  if (metric == "cluster.ettr") return r.ettr;
  if (metric == "cluster.failures") return r.failures;
  if (metric == "cluster.false_failures") return r.false_failures;
  if (metric == "cluster.lost_gpu_hours") return r.lost_gpu_hours;
  if (metric == "cluster.drained_nodes") return static_cast<double>(r.drained_nodes.size());
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
    r.alert = c.alert;
    r.op = to_string(c.op);
    r.threshold = c.value;
    r.measured = measure_metric(record, c.metric, c.job, c.alert);
    const std::string& subject = c.alert.empty() ? c.job : c.alert;
    std::string expected =
        c.metric + (subject.empty() ? "" : "(" + subject + ")") + " " + r.op + " " + show(c.metric, c.value);
    if (!r.measured) {
      r.passed = false;
      std::string why = !c.alert.empty()
                            ? (record.fault_times.empty() ? "no fault happened"
                                                          : "alert " + c.alert + " did not fire after every fault")
                        : c.job.empty() ? std::string("not every job completed")
                                        : "job " + c.job + " did not complete";
      r.message = "expected " + expected + "; not measured (" + why + ")";
    } else {
      r.passed = compare(*r.measured, c.op, c.value);
      r.message = "expected " + expected + "; measured " + show(c.metric, *r.measured);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace tt
