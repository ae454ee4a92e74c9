#include "core/io/section_readers.hpp"

#include <algorithm>
#include <map>

#include "core/control/check_metrics.hpp"
#include "core/io/reader_support.hpp"

namespace tt::reader {
namespace {

using Json = nlohmann::json;

constexpr CheckOp kOps[] = {CheckOp::Le, CheckOp::Lt, CheckOp::Ge, CheckOp::Gt, CheckOp::Eq};

}  // namespace

std::vector<CheckSpec> read_checks(JsonObject& root, const std::vector<JobSpec>& jobs,
                                   const std::vector<AlertSpec>& alerts, const std::vector<QueueSpec>& queues) {
  std::vector<CheckSpec> checks;
  if (!present(root, "checks")) return checks;
  const std::vector<std::string> metric_names = check_metric_names();
  std::vector<std::string> job_names, op_names;
  for (const auto& j : jobs) job_names.push_back(j.name);
  for (auto op : kOps) op_names.push_back(to_string(op));
  std::map<std::string, std::string> seen;

  for (const auto& [v, ptr] : root.array("checks", /*allow_empty=*/true)) {
    auto o = open(*v, root.file(), ptr, {"name", "metric", "job", "alert", "queue", "op", "value"});
    CheckSpec c;
    auto name = o.opt_str("name");
    c.metric = o.str("metric");
    const CheckMetric* metric = find_check_metric(c.metric);
    if (!metric)
      o.fail("metric", "a metric (" + list_names(metric_names, metric_names.size()) + "), found " +
                           in_quotes(c.metric) + suggestion(c.metric, metric_names));
    const bool per_job = metric->scope == MetricScope::Job;
    const bool per_alert = metric->scope == MetricScope::Alert;
    const bool per_queue = metric->scope == MetricScope::Queue;
    if (per_job) {
      c.job = o.str("job");
      if (std::find(job_names.begin(), job_names.end(), c.job) == job_names.end())
        o.fail("job", "the name of one of the scenario's jobs (" + list_names(job_names) + "); " + in_quotes(c.job) +
                          " is not one" + suggestion(c.job, job_names));
    } else if (present(o, "job")) {
      o.fail("job", std::string("no \"job\" for the ") +
                        (per_alert ? "alert metric " : per_queue ? "queue metric " : "cluster-wide metric ") +
                        in_quotes(c.metric) + " (only job.* metrics take one)");
    }
    if (per_alert) {
      std::vector<std::string> alert_names;
      for (const auto& a : alerts) alert_names.push_back(a.name);
      c.alert = o.str("alert");
      if (std::find(alert_names.begin(), alert_names.end(), c.alert) == alert_names.end())
        o.fail("alert", "the name of one of the scenario's alert rules (" +
                            (alert_names.empty() ? std::string("it has none") : list_names(alert_names)) + "); " +
                            in_quotes(c.alert) + " is not one" + suggestion(c.alert, alert_names));
    } else if (present(o, "alert")) {
      o.fail("alert", "no \"alert\" for the metric " + in_quotes(c.metric) + " (only alert.* metrics take one)");
    }

    if (per_queue) {
      std::vector<std::string> queue_names;
      for (const auto& q : queues) queue_names.push_back(q.name);
      c.queue = o.str("queue");
      if (std::find(queue_names.begin(), queue_names.end(), c.queue) == queue_names.end())
        o.fail("queue", "the name of one of the scenario's queues (" + list_names(queue_names) + "); " +
                            in_quotes(c.queue) + " is not one" + suggestion(c.queue, queue_names));
    } else if (present(o, "queue")) {
      o.fail("queue", "no \"queue\" for the metric " + in_quotes(c.metric) + " (only queue.* metrics take one)");
    }

    auto op = o.str("op");
    auto oit = std::find(op_names.begin(), op_names.end(), op);
    if (oit == op_names.end()) o.fail("op", "a comparison (" + list_names(op_names) + "), found " + in_quotes(op));
    c.op = kOps[oit - op_names.begin()];

    const Json& value = o.raw("value");
    switch (metric->unit) {
      case MetricUnit::Duration: c.value = o.seconds("value").value; break;
      case MetricUnit::Count: c.value = static_cast<double>(o.integer("value", 0)); break;
      case MetricUnit::Ratio: c.value = o.number("value", 0.0, 1.0); break;
      case MetricUnit::GpuHours:
        if (!value.is_number() || !(value.get<double>() >= 0))
          o.fail("value", "a non-negative number of GPU-hours, found " + value.dump());
        c.value = value.get<double>();
        break;
      case MetricUnit::Money:
        if (!value.is_number() || !(value.get<double>() >= 0))
          o.fail("value", "a non-negative amount in the cost section's currency, found " + value.dump());
        c.value = value.get<double>();
        break;
    }
    o.finish();

    if (name) {
      c.name = *name;
    } else {
      const std::string subject = per_job ? c.job : per_alert ? c.alert : per_queue ? c.queue : "";
      c.name = c.metric + (subject.empty() ? "" : "(" + subject + ")") + " " + op + " " + str_of(value);
    }
    if (auto it = seen.find(c.name); it != seen.end()) {
      if (name)
        o.fail("name", "a check name not used by an earlier check; " + in_quotes(c.name) + " is already " + it->second);
      o.fail_here("a check that differs from the earlier check " + it->second + " (both are " + in_quotes(c.name) +
                  "; give one a \"name\")");
    }
    seen.emplace(c.name, ptr);
    checks.push_back(std::move(c));
  }
  return checks;
}

}  // namespace tt::reader
