#include "reports/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/cost.hpp"
#include "reports/csv.hpp"
#include "reports/decision_log.hpp"
#include "reports/events.hpp"
#include "reports/html.hpp"
#include "reports/junit.hpp"
#include "reports/pools.hpp"
#include "reports/prometheus.hpp"
#include "reports/trace.hpp"

namespace tt {
namespace {

using nlohmann::json;

json opt_seconds(const std::optional<Seconds>& s) { return s ? json(s->value) : json(nullptr); }

// Only for scenarios with a preflight section, so other reports keep their bytes.
void add_preflight_costs(json& report, const RunRecord& r) {
  if (r.preflight_costs.empty()) return;
  json rows = json::array();
  for (const auto& c : r.preflight_costs)
    rows.push_back({{"rank", c.rank},
                    {"check", c.check},
                    {"severity", c.severity},
                    {"rule", c.rule},
                    {"nodes", c.nodes},
                    {"found", c.found},
                    {"expected", c.expected},
                    {"failure", c.failure},
                    {"failed_launches", c.failed_launches},
                    {"lost_gpu_hours", c.lost_gpu_hours},
                    {"slowed_gpu_hours", c.slowed_gpu_hours},
                    {"withheld_gpu_hours", c.withheld_gpu_hours},
                    {"gpu_hours_per_day", c.gpu_hours_per_day}});
  report["preflight_costs"] = rows;
}

json by_cause_json(const std::map<std::string, CauseTotals>& m) {
  json out = json::object();
  for (const auto& [kind, t] : m) out[kind] = {{"failures", t.failures}, {"lost_gpu_hours", t.lost_gpu_hours}};
  return out;
}

// Distribution of checkpoint write times: count, min, p50, p90, max, mean (seconds); null figures without writes.
json distribution_json(std::vector<Seconds> v) {
  if (v.empty()) return {{"count", 0}};
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)].value; };
  double sum = 0;
  for (Seconds s : v) sum += s.value;
  return {{"count", v.size()}, {"min_s", v.front().value}, {"p50_s", at(0.5)}, {"p90_s", at(0.9)},
          {"max_s", v.back().value}, {"mean_s", sum / static_cast<double>(v.size())}};
}

json job_json(const JobRecord& j) {
  json segments = json::array();
  for (const auto& s : j.segments)
    segments.push_back({{"attempt", s.attempt},
                        {"start_s", s.start.value},
                        {"end_s", opt_seconds(s.end)},
                        {"nodes", s.nodes},
                        {"start_iteration", s.start_iteration},
                        {"reached_iteration", s.reached_iteration},
                        {"iteration_time_s", s.iteration_time.value},
                        {"outcome", s.outcome}});
  json failures = json::array();
  for (const auto& f : j.failures)
    failures.push_back({{"cause", f.cause},
                        {"fault_s", f.fault_time.value},
                        {"detect_s", f.detect_time.value},
                        {"time_to_detect_s", (f.detect_time - f.fault_time).value},
                        {"lost_iterations", f.lost_iterations},
                        {"lost_gpu_hours", f.lost_gpu_hours},
                        {"kind", f.kind},
                        {"detector", f.detector},
                        {"recovered_s", opt_seconds(f.recovered_time)},
                        {"time_to_recover_s",
                         f.recovered_time ? json((*f.recovered_time - f.fault_time).value) : json(nullptr)},
                        {"lost_progress_s", f.lost_progress.value},
                        {"lost_detection_s", f.lost_detection.value},
                        {"lost_restart_s", f.lost_restart.value},
                        {"false_failure", f.false_failure}});
  json checkpoint_times = json::array();
  for (const auto& t : j.checkpoint_times) checkpoint_times.push_back(t.value);
  json pending_by_reason = json::object();
  for (const auto& [kind, t] : j.pending_by_reason) pending_by_reason[kind] = t.value;
  json out = {{"name", j.name},
          {"queue", j.queue},
          {"gpus", j.gpus},
          {"priority", j.priority},
          {"state", to_string(j.state)},
          {"submit_s", j.submit.value},
          {"start_s", opt_seconds(j.first_start)},
          {"end_s", opt_seconds(j.end)},
          {"wait_s", j.wait.value},
          {"pending_by_reason_s", pending_by_reason},
          {"restarts", j.restarts},
          {"preemptions", j.preemptions},
          {"iterations_target", j.iterations_target},
          {"iterations_done", j.iterations_done},
          {"last_checkpoint_iteration", j.last_checkpoint},
          {"checkpoints", j.checkpoints},
          {"checkpoint_time_s", j.checkpoint_time.value},
          {"checkpoint_times_s", checkpoint_times},
          {"predicted_iteration_s", j.predicted_iteration.value},
          {"measured_iteration_s", j.measured_iteration.value},
          {"mean_iteration_s", j.iterations_timed > 0
                                   ? json(j.iteration_time_sum.value / static_cast<double>(j.iterations_timed))
                                   : json(nullptr)},
          {"productive_s", j.productive_seconds},
          {"ettr", j.ettr},
          {"lost_gpu_hours", j.lost_gpu_hours},
          {"segments", segments},
          {"failures", failures},
          {"flaps_survived", j.flaps_survived},
          {"false_failures", j.false_failures},
          {"lost_gpu_hours_by_cause", by_cause_json(j.by_cause)},
          {"checkpoint",
           {{"async", j.checkpoint_async},
            {"bytes", j.checkpoint_bytes.value},
            {"retained", j.checkpoints_retained},
            {"retained_bytes", j.checkpoint_bytes.value * j.checkpoints_retained},
            {"overhead", j.checkpoint_overhead},
            {"write_time", distribution_json(j.checkpoint_write_times)},
            {"interval_used_s", opt_seconds(j.checkpoint_interval)},
            {"young_daly_interval_s", opt_seconds(j.young_daly_interval)},
            {"mtbf_s", opt_seconds(j.mtbf)},
            {"mtbf_source", j.mtbf_source}}}};
  if (!j.site.empty())  // two-site topologies only: other reports keep their shape
    out["sites"] = {{"last_site", j.site},
                    {"checkpoint_moves", j.checkpoint_moves},
                    {"checkpoint_moved_bytes", j.checkpoint_moved_bytes.value},
                    {"checkpoint_move_s", j.checkpoint_move_time.value}};
  return out;
}

json labels_json(const std::map<std::string, std::string>& labels) {
  json out = json::object();
  for (const auto& [k, v] : labels) out[k] = v;
  return out;
}

// Alert rules (with their PromQL), every firing, and the fault times alert.time_to_fire counts from.
json alerts_json(const RunRecord& r) {
  json rules = json::array();
  for (const auto& a : r.alert_rules)
    rules.push_back({{"name", a.name},
                     {"expr", a.expr},
                     {"for_s", a.for_duration.value},
                     {"severity", a.severity},
                     {"labels", labels_json(a.labels)},
                     {"summary", a.summary}});
  json firings = json::array();
  for (const auto& a : r.alerts)
    firings.push_back({{"name", a.name},
                       {"severity", a.severity},
                       {"labels", labels_json(a.labels)},
                       {"value", a.value},
                       {"active_since_s", a.active_since.value},
                       {"fired_at_s", a.fired_at.value},
                       {"resolved_at_s", opt_seconds(a.resolved_at)}});
  json faults = json::array();
  for (Seconds t : r.fault_times) faults.push_back(t.value);
  return {{"rules", rules}, {"firings", firings}, {"fault_times_s", faults}};
}

// The sampled metric series: one row per kept sample, absent values null.
json rollout_json(const RolloutRecord& ro) {
  auto opt = [](const std::optional<Seconds>& t) { return t ? json(t->value) : json(nullptr); };
  json steps = json::array();
  for (const auto& st : ro.steps) {
    json verdicts = json::array();
    for (const auto& v : st.verdicts)
      verdicts.push_back({{"metric", rollout::to_string(v.metric)}, {"test", rollout::to_string(v.test)},
                          {"canary_samples", v.canary_samples},
                          {"baseline_samples", v.baseline_samples}, {"canary", v.canary}, {"baseline", v.baseline},
                          {"worse_by", v.worse_by}, {"p_value", v.p_value}, {"passed", v.passed},
                          {"evidence", v.evidence}});
    steps.push_back({{"step", st.step}, {"nodes", st.nodes}, {"started_s", st.started.value},
                     {"observed_from_s", opt(st.observed_from)}, {"decided_s", opt(st.decided)},
                     {"outcome", st.outcome}, {"verdicts", verdicts}});
  }
  return {{"release", ro.release}, {"from", ro.from}, {"outcome", ro.outcome}, {"decided_s", opt(ro.decided)},
          {"canary_gpu_hours", ro.canary_gpu_hours}, {"baseline_gpu_hours", ro.baseline_gpu_hours},
          {"jobs_drained", ro.jobs_drained}, {"drain_lost_gpu_hours", ro.drain_lost_gpu_hours},
          {"reimage_node_hours", ro.reimage_node_hours}, {"rolled_back_s", opt(ro.rolled_back_at)},
          {"steps", steps}};
}

json telemetry_json(const RunRecord& r) {
  const TelemetrySeries& t = r.telemetry;
  json rows = json::array();
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    json row = json::array({t.times[i].value});
    for (double v : t.rows[i]) row.push_back(std::isnan(v) ? json(nullptr) : json(v));
    rows.push_back(std::move(row));
  }
  json columns = json::array({"t_s"});
  for (const auto& c : t.columns) columns.push_back(c);
  return {{"interval_s", t.interval.value}, {"stride", t.stride}, {"columns", columns}, {"rows", rows}};
}

}  // namespace

namespace {

json decision_json(const Decision& d) {
  json e = {{"t_s", d.t.value}, {"kind", d.kind}};
  if (!d.job.empty()) e["job"] = d.job;
  if (!d.nodes.empty()) e["nodes"] = d.nodes;
  e["reason"] = d.reason.str();
  return e;
}

// report.json but its decisions (an empty array in their place).
json report_head(const RunRecord& r) {
  json jobs = json::array();
  for (const auto& j : r.jobs) jobs.push_back(job_json(j));
  json series = json::array();
  for (const auto& s : r.series)
    series.push_back({s.t.value, s.gpus_allocated, s.gpus_up, s.jobs_running, s.jobs_pending, s.fragmentation});
  json checks = json::array();
  for (const auto& c : r.checks) {
    json check = {{"name", c.name},
                  {"metric", c.metric},
                  {"job", c.job},
                  {"op", c.op},
                  {"threshold", c.threshold},
                  {"measured", c.measured ? json(*c.measured) : json(nullptr)},
                  {"passed", c.passed},
                  {"message", c.message}};
    if (!c.alert.empty()) check["alert"] = c.alert;
    if (!c.queue.empty()) check["queue"] = c.queue;
    checks.push_back(std::move(check));
  }
  int passed = 0;
  for (const auto& c : r.checks) passed += c.passed;
  json driver_info = json::object();
  for (const auto& [k, v] : r.driver_info) driver_info[k] = v;
  json report = {{"schema_version", kReportSchemaVersion},
          {"scenario", r.scenario},
          {"scenario_file", r.scenario_file},
          {"seed", r.seed},
          {"driver", r.driver},
          {"driver_info", driver_info},
          {"cluster",
           {{"gpus", r.total_gpus},
            {"end_s", r.end_time.value},
            {"gpu_utilization", r.gpu_utilization},
            {"goodput", r.goodput}}},
          {"jobs", jobs},
          {"failures",
           {{"count", r.failures},
            {"false_failures", r.false_failures},
            {"lost_gpu_hours", r.lost_gpu_hours},
            {"ettr", r.ettr},
            {"lost_gpu_hours_by_cause", by_cause_json(r.by_cause)},
            {"faults_injected", r.faults_injected},
            {"drained_nodes", r.drained_nodes},
            {"detection", r.detection}}},
          {"alerts", alerts_json(r)},
          {"checks", checks},
          {"checks_passed", passed},
          {"checks_failed", static_cast<int>(r.checks.size()) - passed},
          {"series_columns", {"t_s", "gpus_allocated", "gpus_up", "jobs_running", "jobs_pending", "fragmentation"}},
          {"series", series},
          {"telemetry", telemetry_json(r)},
          {"decisions", json::array()}};
  add_preflight_costs(report, r);
  if (r.rollout) report["rollout"] = rollout_json(*r.rollout);
  if (r.cost) report["cost"] = cost_json(*r.cost);
  if (!r.pools.empty()) report["pools"] = pools_json(r);
  return report;
}

}  // namespace

json report_json_without_decisions(const RunRecord& r) { return report_head(r); }

json report_json(const RunRecord& r) {
  json report = report_head(r);
  json& decisions = report["decisions"];
  for (const auto& d : r.decisions) decisions.push_back(decision_json(d));
  return report;
}

// report_json(r).dump(2) and a newline, without holding the decisions as JSON: a fleet month logs millions of them
// (gigabytes as a JSON tree). The head is dumped with an empty array in their place, and each decision is dumped on
// its own at the array's depth where that array stands (a top-level key is the only "decisions" at two spaces'
// indent: a JSON string holds no raw newline).
void write_report_json(std::ostream& out, const RunRecord& r) {
  const std::string head = report_head(r).dump(2);
  const std::string key = "\n  \"decisions\": []";
  const std::size_t at = head.find(key);
  if (r.decisions.empty() || at == std::string::npos) {
    out << report_json(r).dump(2) << "\n";
    return;
  }
  out.write(head.data(), static_cast<std::streamsize>(at + key.size() - 1));  // up to the array's "["
  // decision_json(d) as dump(2) writes it at the array's depth (keys in order, scalars by nlohmann), without building
  // the object: a fleet month writes millions.
  auto scalar = [](const json& v) { return v.dump(); };
  const char* separator = "\n";
  for (const auto& d : r.decisions) {
    out << separator << "    {\n";
    if (!d.job.empty()) out << "      \"job\": " << scalar(d.job) << ",\n";
    out << "      \"kind\": " << scalar(d.kind) << ",\n";
    if (!d.nodes.empty()) {
      out << "      \"nodes\": [\n";
      for (std::size_t i = 0; i < d.nodes.size(); ++i)
        out << "        " << scalar(d.nodes[i]) << (i + 1 < d.nodes.size() ? ",\n" : "\n");
      out << "      ],\n";
    }
    out << "      \"reason\": " << scalar(d.reason.str()) << ",\n";
    out << "      \"t_s\": " << scalar(d.t.value) << "\n    }";
    separator = ",\n";
  }
  out << "\n  ]";
  out.write(head.data() + at + key.size(), static_cast<std::streamsize>(head.size() - at - key.size()));
  out << "\n";
}

ReportFiles write_report(const RunRecord& record, const std::string& dir) {
  std::filesystem::create_directories(dir);
  ReportFiles files{dir, {}};
  auto write = [&](const char* name, const std::string& text) {
    std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path);
    files.paths.push_back(path);
  };
  // The views that grow with the decisions (millions in a fleet month) are written as they are made.
  auto stream = [&](const char* name, const auto& view) {
    std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    view(out);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path);
    files.paths.push_back(path);
  };
  stream("report.json", [&](std::ostream& out) { write_report_json(out, record); });
  write("junit.xml", junit_xml(record));
  stream("report.html", [&](std::ostream& out) { write_report_html(out, record); });
  write("trace.json", trace_json(record).dump() + "\n");
  write("series.csv", series_csv(record));
  write("jobs.csv", jobs_csv(record));
  stream("events.jsonl", [&](std::ostream& out) { write_events_jsonl(out, record); });
  write("metrics.prom", prometheus_text(record));
  write("alerts.rules.yml", prometheus_rules(record));
  stream("decisions.txt", [&](std::ostream& out) { write_decision_log(out, record); });
  return files;
}

std::string summary_table(const RunRecord& r) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%-22s %-10s %5s %-11s %10s %10s %10s %8s %6s %9s\n", "job", "queue", "gpus",
                "state", "wait", "start", "end", "restarts", "ettr", "lost GPUh");
  os << line;
  for (const auto& j : r.jobs) {
    std::snprintf(line, sizeof line, "%-22s %-10s %5d %-11s %10s %10s %10s %8d %6.3f %9.1f\n", j.name.c_str(),
                  j.queue.c_str(), j.gpus, to_string(j.state), format_seconds(j.wait).c_str(),
                  j.first_start ? format_seconds(*j.first_start).c_str() : "-",
                  j.end ? format_seconds(*j.end).c_str() : "-", j.restarts, j.ettr, j.lost_gpu_hours);
    os << line;
  }
  std::snprintf(line, sizeof line, "cluster: %d GPUs, ran %s, GPU utilization %.1f%%, goodput %.1f%%\n", r.total_gpus,
                format_seconds(r.end_time).c_str(), 100 * r.gpu_utilization, 100 * r.goodput);
  os << line;
  if (r.failures > 0) {
    std::snprintf(line, sizeof line, "failures: %d (%d false), %.1f GPU-hours lost, ETTR %.3f;", r.failures,
                  r.false_failures, r.lost_gpu_hours, r.ettr);
    os << line;
    for (const auto& [kind, t] : r.by_cause) {
      std::snprintf(line, sizeof line, " %s %d (%.1f GPUh)", kind.c_str(), t.failures, t.lost_gpu_hours);
      os << line;
    }
    os << "\n";
  }
  if (!r.preflight_costs.empty()) {
    os << "preflight differences, fix first at the top (GPU-hours per day: lost + slowed + capacity withheld):\n";
    for (const auto& c : r.preflight_costs) {
      std::snprintf(line, sizeof line, "  %d. %-28s %-8s on %zu node(s): %d failed launch(es), %.1f lost, %.1f slowed, "
                    "%.1f withheld GPUh; %.1f GPUh/day\n", c.rank, c.check.c_str(), c.severity.c_str(), c.nodes.size(),
                    c.failed_launches, c.lost_gpu_hours, c.slowed_gpu_hours, c.withheld_gpu_hours, c.gpu_hours_per_day);
      os << line;
    }
  }
  if (r.cost) {
    std::snprintf(line, sizeof line, "cost: %.2f %s (GPUs %.2f, idle %.2f; storage %.2f; traffic %.2f)",
                  r.cost->total, r.cost->currency.c_str(), r.cost->gpu, r.cost->idle, r.cost->storage,
                  r.cost->traffic);
    os << line;
    if (r.cost->per_useful_gpu_hour) {
      std::snprintf(line, sizeof line, ", %.2f per useful GPU-hour", *r.cost->per_useful_gpu_hour);
      os << line;
    }
    os << "\n";
  }
  int passed = 0;
  for (const auto& c : r.checks) {
    passed += c.passed;
    os << (c.passed ? "  PASS  " : "  FAIL  ") << c.name << ": " << c.message << "\n";
  }
  os << "checks: " << passed << " passed, " << (r.checks.size() - passed) << " failed\n";
  return os.str();
}

std::string ReportFiles::file_names() const {
  std::string names;
  for (const auto& p : paths) names += (names.empty() ? "" : ", ") + std::filesystem::path(p).filename().string();
  return names;
}

}  // namespace tt
