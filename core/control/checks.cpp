#include "core/control/checks.hpp"

#include <cstdio>

namespace tt {
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
    r.queue = c.queue;
    r.op = to_string(c.op);
    r.threshold = c.value;
    r.measured = measure_metric(record, c.metric, c.job, c.alert, c.queue);
    const std::string& subject = !c.alert.empty() ? c.alert : !c.queue.empty() ? c.queue : c.job;
    std::string expected =
        c.metric + (subject.empty() ? "" : "(" + subject + ")") + " " + r.op + " " + show(c.metric, c.value);
    if (!r.measured) {
      r.passed = false;
      const CheckMetric* m = find_check_metric(c.metric);
      std::string why = !record.cost && m && m->unit == MetricUnit::Money
                            ? std::string("the scenario has no cost section")
                        : !c.alert.empty()
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
