#include "reports/prometheus.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/telemetry/alert_expr.hpp"
#include "core/telemetry/exposition.hpp"
#include "core/telemetry/metric_catalogue.hpp"
#include "reports/cost.hpp"
#include "reports/events.hpp"
#include "reports/text.hpp"

namespace tt {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: HELP, TYPE, then its samples together (the format requires a family's lines to be contiguous).
// A family with no sample is left out.
class Exposition {
 public:
  void family(std::string_view name, const char* type, const char* help) {
    name_ = std::string(name);
    pending_ = "# HELP " + name_ + " " + prometheus_help(help) + "\n# TYPE " + name_ + " " + type + "\n";
  }
  void append(const std::string& text) { out_ += text; }
  void sample(const Labels& labels, double value) {
    out_ += pending_;
    pending_.clear();
    out_ += name_;
    if (!labels.empty()) {
      out_ += '{';
      for (std::size_t i = 0; i < labels.size(); ++i)
        out_ += (i ? "," : "") + labels[i].first + "=\"" + prometheus_label_value(labels[i].second) + '"';
      out_ += '}';
    }
    out_ += ' ' + prometheus_number(value) + '\n';
  }
  void sample(const Labels& labels, const std::optional<Seconds>& value) {
    if (value) sample(labels, value->value);
  }
  const std::string& text() const { return out_; }

 private:
  std::string name_;
  std::string pending_;
  std::string out_;
};

// The families written here from the JobRecords under the catalogue's names; the registry's others come after.
const std::vector<std::string_view> kFromRecords = {metric::kJobState, metric::kJobRestarts, metric::kJobIterations,
                                                    metric::kJobIterationsTarget, metric::kJobCheckpoints};

Labels job_labels(const JobRecord& j) { return {{"job_name", j.name}, {"queue", j.queue}}; }

void cluster_families(const RunRecord& r, Exposition& x) {
  x.family("traintwin_run_info", "gauge", "The run: scenario, driver and seed; the value is always 1.");
  x.sample({{"scenario", r.scenario},
            {"scenario_file", r.scenario_file},
            {"driver", r.driver},
            {"seed", std::to_string(r.seed)}},
           1);
  x.family("traintwin_run_simulated_seconds", "gauge", "Simulated time at the end of the run.");
  x.sample({}, r.end_time.value);
  x.family("traintwin_cluster_gpus", "gauge", "GPUs in the cluster.");
  x.sample({}, r.total_gpus);
  x.family("traintwin_cluster_gpu_utilization_ratio", "gauge",
           "Allocated GPU-seconds over GPUs times the simulated duration.");
  x.sample({}, r.gpu_utilization);
  x.family("traintwin_cluster_goodput_ratio", "gauge",
           "Productive GPU-seconds (iterations that count toward a result) over GPUs times the simulated duration.");
  x.sample({}, r.goodput);
  x.family("traintwin_cluster_jobs", "gauge", "Jobs by state at the end of the run.");
  for (std::string_view state : metric::kJobStates) {
    int n = 0;
    for (const auto& j : r.jobs) n += to_string(j.state) == state;
    x.sample({{"state", std::string(state)}}, n);
  }
  std::map<std::string, int> kinds;  // sorted by kind: deterministic
  for (const auto& d : r.decisions) ++kinds[d.kind];
  x.family("traintwin_events_total", "counter", "Events of the decision log (events.jsonl) by kind and level.");
  for (const auto& [kind, n] : kinds) x.sample({{"kind", kind}, {"level", to_string(event_level(kind))}}, n);
}

void job_families(const RunRecord& r, Exposition& x) {
  struct Def {
    std::string_view name;
    const char* type;
    const char* help;
    double (*value)(const JobRecord&);
  };
  static const Def kDefs[] = {
      {"traintwin_job_gpus", "gauge", "GPUs the job runs on.", [](const JobRecord& j) { return double(j.gpus); }},
      {"traintwin_job_wait_seconds_total", "counter",
       "Time the job spent queued: before its first start and after each failure.",
       [](const JobRecord& j) { return j.wait.value; }},
      {metric::kJobRestarts, "counter", "Restarts after a failure.",
       [](const JobRecord& j) { return double(j.restarts); }},
      {"traintwin_job_preemptions_total", "counter", "Times the job was preempted to make room for another.",
       [](const JobRecord& j) { return double(j.preemptions); }},
      {"traintwin_job_failures_total", "counter", "Failures detected.",
       [](const JobRecord& j) { return double(j.failures.size()); }},
      {"traintwin_job_detection_seconds_total", "counter",
       "Time from each fault to its detection, summed over the failures.",
       [](const JobRecord& j) {
         double s = 0;
         for (const auto& f : j.failures) s += (f.detect_time - f.fault_time).value;
         return s;
       }},
      {"traintwin_job_lost_gpu_seconds_total", "counter",
       "GPU-seconds lost to failures (progress since the last checkpoint, detection and restart overhead, times the "
       "job's GPUs); 3600 per GPU-hour.",
       [](const JobRecord& j) { return j.lost_gpu_hours * 3600; }},
      {metric::kJobIterations, "gauge",
       "Iterations done at the end of the run (rolled back to the last checkpoint after a failure).",
       [](const JobRecord& j) { return double(j.iterations_done); }},
      {metric::kJobIterationsTarget, "gauge", "Iterations the job must run.",
       [](const JobRecord& j) { return double(j.iterations_target); }},
      {metric::kJobCheckpoints, "counter", "Checkpoints written.",
       [](const JobRecord& j) { return double(j.checkpoints); }},
      {"traintwin_job_checkpoint_seconds_total", "counter", "Training time blocked by checkpoint writes.",
       [](const JobRecord& j) { return j.checkpoint_time.value; }},
      {"traintwin_job_productive_seconds_total", "counter", "Time spent on iterations that count toward the result.",
       [](const JobRecord& j) { return j.productive_seconds; }},
      {"traintwin_job_ettr_ratio", "gauge",
       "Effective training time ratio: productive time over time since the first start.",
       [](const JobRecord& j) { return j.ettr; }},
      {"traintwin_job_iteration_seconds", "gauge", "Latest measured time of one iteration.",
       [](const JobRecord& j) { return j.measured_iteration.value; }},
      {"traintwin_job_predicted_iteration_seconds", "gauge", "Closed-form estimate of the time of one iteration.",
       [](const JobRecord& j) { return j.predicted_iteration.value; }},
  };

  x.family(metric::kJobState, "gauge", "1 for the state the job ended the run in, 0 for the others.");
  for (const auto& j : r.jobs)
    for (std::string_view state : metric::kJobStates) {
      Labels l = job_labels(j);
      l.emplace_back("state", std::string(state));
      x.sample(l, to_string(j.state) == state ? 1 : 0);
    }
  x.family("traintwin_job_submit_seconds", "gauge", "Simulated time the job was submitted.");
  for (const auto& j : r.jobs) x.sample(job_labels(j), j.submit.value);
  x.family("traintwin_job_start_seconds", "gauge",
           "Simulated time of the job's first start; absent if it never started.");
  for (const auto& j : r.jobs) x.sample(job_labels(j), j.first_start);
  x.family("traintwin_job_end_seconds", "gauge",
           "Simulated time the job completed or was abandoned; absent if neither.");
  for (const auto& j : r.jobs) x.sample(job_labels(j), j.end);
  for (const auto& d : kDefs) {
    x.family(d.name, d.type, d.help);
    for (const auto& j : r.jobs) x.sample(job_labels(j), d.value(j));
  }
  x.family("traintwin_job_pending_seconds_total", "counter",
           "Time the job spent queued, by the reason it waited (quota, capacity, preempted, ...).");
  for (const auto& j : r.jobs)
    for (const auto& [reason, t] : j.pending_by_reason) {
      Labels l = job_labels(j);
      l.emplace_back("reason", reason);
      x.sample(l, t.value);
    }
}

void check_families(const RunRecord& r, Exposition& x) {
  x.family("traintwin_check_passed", "gauge", "1 when the scenario check passed, 0 when it failed.");
  std::map<std::string, int> seen;  // a repeated check name gets " #2", " #3": one series per check
  for (const auto& c : r.checks) {
    int n = ++seen[c.name];
    x.sample({{"check", n == 1 ? c.name : c.name + " #" + std::to_string(n)}, {"metric", c.metric}}, c.passed ? 1 : 0);
  }
}

// Node pools (docs/pools.md), one series per pool; none without pools (a family with no sample is left out).
void pool_families(const RunRecord& r, Exposition& x) {
  struct Def {
    const char* name;
    const char* type;
    const char* help;
    double (*value)(const PoolRecord&);
  };
  static const Def kDefs[] = {
      {"traintwin_pool_nodes_in_service", "gauge", "Nodes of the pool taking work (at the end of the run: then).",
       [](const PoolRecord& p) { return static_cast<double>(p.in_service); }},
      {"traintwin_pool_nodes_provisioning", "gauge", "Nodes of the pool asked for and not yet in service.",
       [](const PoolRecord& p) { return static_cast<double>(p.provisioning); }},
      {"traintwin_pool_nodes_peak", "gauge", "Most nodes of the pool in service or provisioning at once.",
       [](const PoolRecord& p) { return static_cast<double>(p.peak_nodes); }},
      {"traintwin_pool_scale_ups_total", "counter", "Nodes asked for from the pool's provider (scale-ups).",
       [](const PoolRecord& p) { return static_cast<double>(p.provisions); }},
      {"traintwin_pool_scale_downs_total", "counter", "Nodes given back idle (scale-downs).",
       [](const PoolRecord& p) { return static_cast<double>(p.releases); }},
      {"traintwin_pool_reclaim_notices_total", "counter", "Spot reclaim notices received.",
       [](const PoolRecord& p) { return static_cast<double>(p.reclaim_notices); }},
      {"traintwin_pool_reclaims_total", "counter", "Spot nodes taken back by the provider.",
       [](const PoolRecord& p) { return static_cast<double>(p.reclaims); }},
      {"traintwin_pool_reclaim_requeues_total", "counter", "Jobs stopped and requeued by spot reclaims.",
       [](const PoolRecord& p) { return static_cast<double>(p.jobs_requeued); }},
      {"traintwin_pool_provision_wait_max_seconds", "gauge", "Longest wait from a request to the node taking work.",
       [](const PoolRecord& p) {
         double w = 0;
         for (Seconds s : p.provision_waits) w = std::max(w, s.value);
         return w;
       }},
  };
  for (const Def& d : kDefs) {
    x.family(d.name, d.type, d.help);
    for (const PoolRecord& p : r.pools) x.sample({{"pool", p.name}, {"kind", p.kind}}, d.value(p));
  }
}

}  // namespace

// Names and labels of a run come from the user: invalid UTF-8 is replaced first, then the format's escapes apply.
std::string prometheus_label_value(std::string_view text) { return exposition_label_value(utf8_valid(text)); }
std::string prometheus_help(std::string_view text) { return exposition_help(utf8_valid(text)); }

std::string prometheus_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return format_number(v);
}

std::string prometheus_text(const RunRecord& record) {
  Exposition x;
  cluster_families(record, x);
  job_families(record, x);
  check_families(record, x);
  pool_families(record, x);
  x.append(cost_prometheus(record));
  x.append(exposition_text(record.metrics, kFromRecords));
  return x.text();
}

namespace {

// YAML double-quoted scalar: escapes \ and " and control characters.
std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : utf8_valid(text)) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + '"';
}

// Prometheus durations: whole milliseconds in the largest units that divide them ("1h30m", "90s", "250ms", "0s").
std::string prometheus_duration(Seconds t) {
  long long ms = std::llround(t.value * 1000);
  if (ms <= 0) return "0s";
  std::string out;
  const std::pair<long long, const char*> units[] = {{86400000LL, "d"}, {3600000LL, "h"}, {60000LL, "m"},
                                                     {1000LL, "s"},     {1LL, "ms"}};
  for (const auto& [size, name] : units)
    if (ms >= size) {
      out += std::to_string(ms / size) + name;
      ms %= size;
    }
  return out;
}

}  // namespace

std::string prometheus_rules(const RunRecord& record) {
  std::string out = "# Alert rules of scenario " + record.scenario + " (traintwin), over the metric names of " +
                    "metrics.prom.\n# Check with: promtool check rules alerts.rules.yml\ngroups:\n";
  out += "  - name: " + yaml_quoted("traintwin-" + record.scenario) + "\n    rules:";
  if (record.alert_rules.empty()) return out + " []\n";
  out += "\n";
  for (const auto& a : record.alert_rules) {
    out += "      - alert: " + a.name + "\n";
    out += "        expr: " + yaml_quoted(a.expr) + "\n";
    out += "        for: " + prometheus_duration(a.for_duration) + "\n";
    out += "        labels:\n          severity: " + yaml_quoted(a.severity) + "\n";
    for (const auto& [k, v] : a.labels) out += "          " + k + ": " + yaml_quoted(v) + "\n";
    out += "        annotations:\n          summary: " + yaml_quoted(a.summary.empty() ? a.name : a.summary) + "\n";
  }
  return out;
}

}  // namespace tt
