#include "reports/html.hpp"

#include <algorithm>
#include <sstream>

#include "reports/cost.hpp"
#include "reports/pools.hpp"
#include "reports/doctor.hpp"
#include "reports/fleet.hpp"
#include "reports/rollout_html.hpp"
#include "reports/svg.hpp"
#include "reports/text.hpp"
#include "reports/timeline.hpp"

namespace tt {
namespace {

constexpr const char* kStyle = R"(
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--pass:#1b7f3b;--fail:#c62828}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);font:14px/1.45 system-ui,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1360px;margin:0 auto;padding:20px 20px 48px}
h1{font-size:24px;margin:0 0 2px}
h2{font-size:18px;margin:30px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:16px 0 2px}
.sub,.note{color:var(--muted)}
.note{font-size:13px;margin:2px 0 6px}
.cards{display:grid;grid-template-columns:repeat(8,1fr);gap:10px;margin:14px 0 6px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:20px;font-weight:600;white-space:nowrap}
.card .v.fail{color:var(--fail)} .card .v.pass{color:var(--pass)}
.info{color:var(--muted);font-size:13px}
.info code{color:var(--fg)}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:#f3f5f8;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap}
.badge{display:inline-block;min-width:46px;text-align:center;border-radius:4px;color:#fff;font-weight:700;
  font-size:12px;padding:1px 6px}
.badge.pass{background:var(--pass)} .badge.fail{background:var(--fail)}
tr.failed td{background:#fdf0f0}
.sw{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-1px;margin-right:6px}
.legend{display:flex;flex-wrap:wrap;gap:4px 18px;margin:6px 0 4px;font-size:13px}
.legend .mark{display:inline-block;min-width:16px;margin-right:5px;font-weight:700}
svg.icon{width:16px;height:14px;vertical-align:-2px;margin-right:5px}
table.checks td:first-child{width:70px}
table.checks td:nth-child(2){width:30%}
table.log td.num{width:90px}
table.log td.kind{white-space:nowrap}
tr.alert td{background:#fdf0f0}
svg.chart{width:100%;height:auto;display:block}
svg text{font-family:system-ui,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;font-size:12px;fill:#333}
svg .grid{stroke:#e3e7ee;stroke-width:1}
svg .frame{stroke:#8a93a3;stroke-width:1}
svg .axis-title{fill:#5b6475}
svg .node{font-size:11px;fill:#1d2330}
svg .label{font-size:11px;font-weight:600}
svg .label.light{fill:#fff}
svg .label.dark{fill:#1a1a1a}
svg .ckpt{stroke:#111;stroke-opacity:.8;stroke-width:1.6}
svg.mini{width:140px;height:12px;display:block;margin-top:4px}
.wide{overflow-x:auto}
table.jobs{font-size:13px}
table.jobs th,table.jobs td{padding:4px 6px}
td.name{white-space:nowrap}
details{margin-top:6px}
details summary{cursor:pointer;font-weight:600;padding:4px 0}
.log td{font-size:13px}
.log td.nodes{max-width:320px;word-break:break-word}
)";

std::string esc(std::string_view s) { return xml_escape(s); }
std::string when(Seconds t) { return format_duration(t.value); }
std::string when(const std::optional<Seconds>& t) { return t ? when(*t) : "\u2013"; }
std::string percent(double ratio) { return format_fixed(100 * ratio, 1) + "%"; }

void card(std::ostream& os, const std::string& key, const std::string& value, const char* cls = "") {
  os << "<div class=\"card\"><div class=\"k\">" << esc(key) << "</div><div class=\"v " << cls << "\">" << esc(value)
     << "</div></div>";
}

void header(std::ostream& os, const RunRecord& r) {
  int passed = 0, completed = 0;
  for (const auto& c : r.checks) passed += c.passed;
  for (const auto& j : r.jobs) completed += j.state == JobStatus::Completed;
  os << "<header><h1>traintwin report: " << esc(r.scenario) << "</h1><div class=\"sub\">"
     << esc(r.scenario_file.empty() ? "(no scenario file)" : r.scenario_file) << "</div>";
  os << "<div class=\"cards\">";
  card(os, "Seed", std::to_string(r.seed));
  card(os, "Driver", r.driver.empty() ? "unknown" : r.driver);
  card(os, "Simulated end", when(r.end_time));
  card(os, "GPUs", std::to_string(r.total_gpus));
  card(os, "GPU utilization", percent(r.gpu_utilization));
  card(os, "Goodput", percent(r.goodput));
  card(os, "Jobs completed", std::to_string(completed) + " / " + std::to_string(r.jobs.size()));
  card(os, "Checks passed", std::to_string(passed) + " / " + std::to_string(r.checks.size()),
       passed == static_cast<int>(r.checks.size()) ? "pass" : "fail");
  os << "</div><div class=\"info\">driver <code>" << esc(r.driver) << "</code>";
  for (const auto& [k, v] : r.driver_info) os << " \u00b7 " << esc(k) << " <code>" << esc(v) << "</code>";
  os << "</div></header>";
}

void cluster_charts(std::ostream& os, const RunRecord& r, bool fleet) {
  StepLine allocated{"GPUs allocated", "#4e79a7", {}, true, false};
  StepLine up{"GPUs up", "#7f7f7f", {}, false, true};
  StepLine pending{"jobs pending", "#f28e2b", {}, true, false};
  StepLine running{"jobs running", "#59a14f", {}, false, false};
  double gpus_max = r.total_gpus, jobs_max = 1;
  for (const auto& s : r.series) {
    allocated.points.emplace_back(s.t, s.gpus_allocated);
    up.points.emplace_back(s.t, s.gpus_up);
    pending.points.emplace_back(s.t, s.jobs_pending);
    running.points.emplace_back(s.t, s.jobs_running);
    gpus_max = std::max<double>({gpus_max, static_cast<double>(s.gpus_allocated), static_cast<double>(s.gpus_up)});
    jobs_max = std::max<double>({jobs_max, static_cast<double>(s.jobs_pending), static_cast<double>(s.jobs_running)});
  }
  os << "<section><h2>Cluster over time</h2>";
  os << "<h3>GPU allocation</h3><p class=\"note\">GPUs allocated to jobs, against GPUs in service.</p>"
     << step_chart_svg("GPUs", {allocated, up}, gpus_max, r.end_time);
  os << "<h3>Queue depth</h3><p class=\"note\">Jobs waiting in a queue and jobs holding GPUs.</p>"
     << step_chart_svg("jobs", {pending, running}, jobs_max, r.end_time);
  if (fleet) os << queue_usage_chart(r);
  os << "</section>";
}

void job_legend(std::ostream& os, const RunRecord& r, bool fleet) {
  if (fleet) {
    os << queue_legend(r);
  } else {
    os << "<div class=\"legend\">";
    for (std::size_t j = 0; j < r.jobs.size(); ++j)
      os << "<span><span class=\"sw\" style=\"background:" << job_color(static_cast<int>(j)) << "\"></span>"
         << esc(r.jobs[j].name) << "</span>";
    os << "</div>";
  }
  // The same shapes as in the chart, drawn small.
  os << "<div class=\"legend note\">"
        "<span><svg class=\"icon\" viewBox=\"0 0 16 14\"><line x1=\"8\" y1=\"0\" x2=\"8\" y2=\"14\" "
        "stroke=\"#d62728\" stroke-width=\"2.5\"/><polygon points=\"2,0 14,0 8,8\" fill=\"#d62728\"/></svg>"
        "fault, on the node that failed</span>"
        "<span><svg class=\"icon\" viewBox=\"0 0 16 14\"><rect x=\"1\" y=\"2\" width=\"14\" height=\"10\" "
        "fill=\"#4e79a7\"/><rect x=\"1\" y=\"2\" width=\"14\" height=\"10\" fill=\"url(#stall)\"/></svg>"
        "stalled: from the fault until detection</span>"
        "<span><svg class=\"icon\" viewBox=\"0 0 16 14\"><rect x=\"1\" y=\"2\" width=\"8\" height=\"10\" "
        "fill=\"#4e79a7\"/><line x1=\"9\" y1=\"2\" x2=\"9\" y2=\"12\" stroke=\"#6b0000\" stroke-width=\"2.5\"/>"
        "</svg>failure detected, job killed</span>"
        "<span><svg class=\"icon\" viewBox=\"0 0 16 14\"><rect x=\"1\" y=\"2\" width=\"14\" height=\"10\" "
        "fill=\"#4e79a7\"/><line x1=\"8\" y1=\"2\" x2=\"8\" y2=\"7\" class=\"ckpt\"/></svg>checkpoint</span>"
        "<span><span class=\"mark\">\u21bbn</span>restart n: a new bar</span>"
        "<span><svg class=\"icon\" viewBox=\"0 0 16 14\"><rect x=\"1\" y=\"0\" width=\"14\" height=\"14\" "
        "fill=\"url(#down)\"/></svg>node out of service</span></div>";
}

void gantt(std::ostream& os, const RunRecord& r, const Timeline& tl, bool fleet) {
  os << "<section><h2>Jobs on nodes</h2><p class=\"note\">One row per node that ran a job or failed; one bar per "
        "attempt of a job on that node"
     << (fleet ? ", coloured by the job's queue (checkpoints are not drawn at this scale)" : "")
     << ". Hover a bar or a marker for details.</p>";
  if (tl.nodes.empty()) {
    os << "<p>No job ran.</p></section>";
    return;
  }
  job_legend(os, r, fleet);
  if (fleet) {
    const auto queue_of_job = queue_index(r, queue_names(r));
    os << gantt_svg(r, tl, &queue_of_job);
  } else {
    os << gantt_svg(r, tl);
  }
  os << "</section>";
}

std::string breakdown_svg(const JobRecord& j, Seconds run_end) {
  const double span = (j.end.value_or(run_end) - j.submit).value;
  if (span <= 0) return "";
  const double lost = j.gpus > 0 ? j.lost_gpu_hours * 3600 / j.gpus : 0;
  const std::pair<double, const char*> parts[] = {{j.wait.value, "#b9c0cc"},
                                                  {j.productive_seconds, "#59a14f"},
                                                  {j.checkpoint_time.value, "#4e79a7"},
                                                  {lost, "#d62728"}};
  std::ostringstream os;
  os << "<svg class=\"mini\" viewBox=\"0 0 140 12\"><title>of " << esc(when(Seconds(span)))
     << " since submission: wait " << percent(j.wait.value / span) << ", productive "
     << percent(j.productive_seconds / span) << ", checkpoint " << percent(j.checkpoint_time.value / span)
     << ", lost to failures " << percent(lost / span) << "</title><rect width=\"140\" height=\"12\" fill=\"#eef1f5\"/>";
  double x = 0;
  for (const auto& [v, color] : parts) {
    double w = std::min(std::clamp(v / span, 0.0, 1.0) * 140, 140 - x);
    if (w <= 0) continue;
    os << "<rect x=\"" << format_fixed(x, 1) << "\" width=\"" << format_fixed(w, 1) << "\" height=\"12\" fill=\""
       << color << "\"/>";
    x += w;
  }
  os << "</svg>";
  return os.str();
}

void jobs_table(std::ostream& os, const RunRecord& r, bool fleet) {
  os << "<section><h2>Goodput per job</h2><p class=\"note\">ETTR: productive time / time from first start to end.";
  if (!fleet)
    os << " Breakdown bar, from submission to end: <span class=\"sw\" style=\"background:#b9c0cc\"></span>wait "
          "<span class=\"sw\" style=\"background:#59a14f\"></span>productive <span class=\"sw\" "
          "style=\"background:#4e79a7\"></span>checkpoint <span class=\"sw\" style=\"background:#d62728\"></span>"
          "lost to failures.";
  os << "</p>";
  std::vector<int> queue_of_job;
  if (fleet) {
    queue_of_job = queue_index(r, queue_names(r));
    os << "<details><summary>All " << r.jobs.size() << " jobs, one per line</summary>";
  }
  os << "<div class=\"wide\"><table class=\"jobs\"><thead><tr><th>Job</th><th>Queue</th><th "
        "class=\"num\">GPUs</th><th>State</th><th class=\"num\">"
        "Submit</th><th class=\"num\">Start</th><th class=\"num\">End</th><th class=\"num\">Wait</th><th class=\"num\">"
        "Restarts</th><th class=\"num\">Productive</th><th class=\"num\">Checkpoints<br>n \u00b7 time</th><th "
        "class=\"num\">Lost "
        "GPU-h</th><th class=\"num\">ETTR</th><th class=\"num\">Iteration<br>measured / model</th>"
        << (fleet ? "" : "<th>Breakdown</th>") << "</tr></thead><tbody>";
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const JobRecord& j = r.jobs[i];
    os << "<tr><td class=\"name\"><span class=\"sw\" style=\"background:"
       << (fleet ? queue_color(queue_of_job[i]) : job_color(static_cast<int>(i)))
       << "\"></span>" << esc(j.name) << "</td><td>" << esc(j.queue) << "</td><td class=\"num\">" << j.gpus
       << "</td><td>" << esc(to_string(j.state)) << "</td><td class=\"num\">" << when(j.submit) << "</td><td class=\"num\">"
       << when(j.first_start) << "</td><td class=\"num\">" << when(j.end) << "</td><td class=\"num\">" << when(j.wait)
       << "</td><td class=\"num\">" << j.restarts << "</td><td class=\"num\">" << when(Seconds(j.productive_seconds))
       << "</td><td class=\"num\">" << j.checkpoints << " \u00b7 " << when(j.checkpoint_time)
       << "</td><td class=\"num\">" << format_fixed(j.lost_gpu_hours, 1) << "</td><td class=\"num\">"
       << format_fixed(j.ettr, 3) << "</td><td class=\"num\">" << when(j.measured_iteration) << " / "
       << when(j.predicted_iteration) << "</td>";
    if (!fleet) os << "<td>" << breakdown_svg(j, r.end_time) << "</td>";
    os << "</tr>";
  }
  os << "</tbody></table></div>" << (fleet ? "</details>" : "") << "</section>";
}

void checks_table(std::ostream& os, const RunRecord& r) {
  int passed = 0;
  for (const auto& c : r.checks) passed += c.passed;
  os << "<section><h2>Checks</h2><p class=\"note\">" << passed << " passed, " << r.checks.size() - passed
     << " failed.</p>";
  if (r.checks.empty()) {
    os << "<p>This scenario has no checks.</p></section>";
    return;
  }
  os << "<table class=\"checks\"><thead><tr><th>Result</th><th>Check</th><th>Message</th></tr></thead><tbody>";
  for (const auto& c : r.checks)
    os << "<tr" << (c.passed ? "" : " class=\"failed\"") << "><td><span class=\"badge "
       << (c.passed ? "pass\">PASS" : "fail\">FAIL") << "</span></td><td>" << esc(c.name) << "</td><td>"
       << esc(c.message) << "</td></tr>";
  os << "</tbody></table></section>";
}

void alerts_section(std::ostream& os, const RunRecord& r) {
  os << "<section id=\"alerts\"><h2>Alerts</h2>";
  if (r.alert_rules.empty()) {
    os << "<p>This scenario has no alert rules.</p></section>";
    return;
  }
  os << "<p class=\"note\">" << r.alerts.size() << " firing(s) of " << r.alert_rules.size()
     << " rule(s); rules are exported to alerts.rules.yml. Pale: pending (condition true, waiting for its "
        "<code>for</code>); solid: firing, coloured by severity (<span class=\"sw\" style=\"background:"
     << severity_color("critical") << "\"></span>critical <span class=\"sw\" style=\"background:"
     << severity_color("warning") << "\"></span>warning <span class=\"sw\" style=\"background:"
     << severity_color("info") << "\"></span>info); dashed red lines: faults.</p>";
  os << alert_timeline_svg(r);
  os << "<div class=\"wide\"><table class=\"alerts\"><thead><tr><th>Alert</th><th>Severity</th><th>Labels</th><th "
        "class=\"num\">Value</th><th class=\"num\">Pending</th><th class=\"num\">Fired</th><th "
        "class=\"num\">Resolved</th></tr></thead><tbody>";
  for (const auto& a : r.alerts) {
    std::string labels;
    for (const auto& [k, v] : a.labels) labels += (labels.empty() ? "" : ", ") + k + "=" + v;
    os << "<tr><td>" << esc(a.name) << "</td><td>" << esc(a.severity) << "</td><td>" << esc(labels)
       << "</td><td class=\"num\">" << esc(format_number(a.value)) << "</td><td class=\"num\">" << when(a.active_since)
       << "</td><td class=\"num\">" << when(a.fired_at) << "</td><td class=\"num\">" << when(a.resolved_at)
       << "</td></tr>";
  }
  os << "</tbody></table></div><h3>Rules</h3><table class=\"alerts\"><thead><tr><th>Alert</th><th>Expression</th><th "
        "class=\"num\">For</th><th>Severity</th><th>Summary</th></tr></thead><tbody>";
  for (const auto& rule : r.alert_rules)
    os << "<tr><td>" << esc(rule.name) << "</td><td><code>" << esc(rule.expr) << "</code></td><td class=\"num\">"
       << when(rule.for_duration) << "</td><td>" << esc(rule.severity) << "</td><td>" << esc(rule.summary)
       << "</td></tr>";
  os << "</tbody></table></section>";
}

void failures_section(std::ostream& os, const RunRecord& r) {
  os << "<section id=\"failures\"><h2>Failures per job</h2>";
  if (std::all_of(r.jobs.begin(), r.jobs.end(), [](const JobRecord& j) { return j.failures.empty(); })) {
    os << "<p>No job failed.</p></section>";
    return;
  }
  os << "<p class=\"note\">Time to detect: fault to the controller declaring the job failed. Time to recover: fault "
        "to training resumed (relaunch and restart overhead). Lost GPU-hours: progress since the checkpoint, detection "
        "and restart, times the job's GPUs.</p><div class=\"wide\"><table class=\"failures\"><thead><tr><th>Job</th>"
        "<th>Kind</th><th>Cause</th><th>Detector</th><th class=\"num\">Fault</th><th class=\"num\">Time to "
        "detect</th><th class=\"num\">Time to recover</th><th class=\"num\">Lost GPU-h</th></tr></thead><tbody>";
  for (const auto& j : r.jobs)
    for (const auto& f : j.failures)
      os << "<tr><td class=\"name\">" << esc(j.name) << "</td><td>" << esc(f.kind)
         << (f.false_failure ? " (false)" : "") << "</td><td>" << esc(f.cause) << "</td><td>" << esc(f.detector)
         << "</td><td class=\"num\">" << when(f.fault_time) << "</td><td class=\"num\">"
         << when(f.detect_time - f.fault_time) << "</td><td class=\"num\">"
         << (f.recovered_time ? when(*f.recovered_time - f.fault_time) : std::string("never")) << "</td><td class=\"num\">"
         << format_fixed(f.lost_gpu_hours, 1) << "</td></tr>";
  os << "</tbody></table></div></section>";
}

void preflight_costs_section(std::ostream& os, const RunRecord& r) {
  if (r.preflight_costs.empty()) return;
  os << "<section id=\"preflight\"><h2>What the preflight differences cost</h2><p class=\"note\">Each difference of "
        "the fleet from the matrix's release, with what it cost in this run, fix first at the top. Lost: GPU-hours of "
        "the launches it failed; slowed: extra GPU-hours of jobs on nodes it slows; withheld: capacity of its nodes "
        "cordoned by gating (shared by every blocking difference of a node, so not additive). Per day: the three "
        "summed, over the run's length.</p><div class=\"wide\"><table class=\"preflight\"><thead><tr><th "
        "class=\"num\">Rank</th><th>Check</th><th>Severity</th><th>Nodes</th><th>Found / expected</th><th "
        "class=\"num\">Failed launches</th><th class=\"num\">Lost GPU-h</th><th class=\"num\">Slowed GPU-h</th><th "
        "class=\"num\">Withheld GPU-h</th><th class=\"num\">GPU-h per day</th><th>Leads to</th></tr></thead><tbody>";
  for (const auto& c : r.preflight_costs) {
    std::string nodes;
    for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ", ") + n;
    os << "<tr" << (c.severity == "blocking" ? " class=\"failed\"" : "") << "><td class=\"num\">" << c.rank
       << "</td><td>" << esc(c.check) << "</td><td>" << esc(c.severity) << "</td><td class=\"nodes\">" << esc(nodes)
       << "</td><td>" << esc(c.found) << " / " << esc(c.expected) << "</td><td class=\"num\">" << c.failed_launches
       << "</td><td class=\"num\">" << format_fixed(c.lost_gpu_hours, 1) << "</td><td class=\"num\">"
       << format_fixed(c.slowed_gpu_hours, 1) << "</td><td class=\"num\">" << format_fixed(c.withheld_gpu_hours, 1)
       << "</td><td class=\"num\">" << format_fixed(c.gpu_hours_per_day, 1) << "</td><td>" << esc(c.failure)
       << "</td></tr>";
  }
  os << "</tbody></table></div></section>";
}

// In the fleet view a waiting job's reason changes are left out of the page (a fleet month logs millions: the page
// would run to hundreds of megabytes); decisions.txt and events.jsonl keep every one.
void decision_log(std::ostream& os, const RunRecord& r, bool fleet) {
  std::size_t pending = 0;
  if (fleet)
    for (const auto& d : r.decisions) pending += d.kind == "pending";
  os << "<section><h2>Decisions</h2>";
  if (pending > 0)
    os << "<p class=\"note\">" << pending << " of the " << r.decisions.size()
       << " decisions are a waiting job's new reason: they are left out of this page; decisions.txt lists every "
          "decision, and <code>traintwin logs DIR --kind pending --job NAME</code> one job's reasons.</p>";
  os << "<details><summary>Decision log (" << r.decisions.size() - pending
     << " decisions)</summary><table class=\"log\"><thead><tr><th class=\"num\">Time</th><th>Kind</th><th>Job</th>"
        "<th>Nodes</th><th>Reason</th></tr></thead><tbody>";
  for (const auto& d : r.decisions) {
    if (pending > 0 && d.kind == "pending") continue;
    std::string nodes;
    for (const auto& node : d.nodes) nodes += (nodes.empty() ? "" : ", ") + node;
    bool alert = d.kind == "node_down" || d.kind == "link_down" || d.kind == "detect" || d.kind == "abandon" ||
                 d.kind == "alert_firing";
    os << "<tr" << (alert ? " class=\"alert\"" : "") << "><td class=\"num\">" << when(d.t) << "</td><td class=\"kind\">"
       << esc(d.kind) << "</td><td>" << esc(d.job) << "</td><td class=\"nodes\">" << esc(nodes) << "</td><td>"
       << esc(d.reason.str()) << "</td></tr>";
  }
  os << "</tbody></table></details></section>";
}

}  // namespace

void write_report_html(std::ostream& os, const RunRecord& r) {
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>traintwin: "
     << esc(r.scenario) << "</title><style>" << kStyle << "</style></head><body><main>\n";
  header(os, r);
  os << "\n";
  // Past a few dozen jobs or nodes the page is read by queue and by distribution (reports/fleet.hpp), with the
  // per-job table folded away; a small run keeps one line and one colour per job.
  const Timeline timeline = build_timeline(r);
  const bool fleet = use_fleet_view(r, timeline.nodes.size());
  if (fleet) os << fleet_summary_section(r) << "\n";
  cluster_charts(os, r, fleet);
  os << "\n";
  if (fleet)
    os << fleet_distributions_section(r) << "\n" << fleet_lost_work_section(r) << "\n" << fleet_top_jobs_section(r)
       << "\n";
  gantt(os, r, timeline, fleet);
  os << "\n";
  jobs_table(os, r, fleet);
  os << "\n";
  failures_section(os, r);
  os << "\n" << rollout_html_section(r);  // only when the scenario has a rollout
  preflight_costs_section(os, r);
  os << pools_html_section(r);
  os << cost_html_section(r);
  alerts_section(os, r);
  os << "\n";
  checks_table(os, r);
  os << "\n";
  decision_log(os, r, fleet);
  os << "\n" << doctor_html_section(r);
  os << "\n</main></body></html>\n";
}

std::string report_html(const RunRecord& r) {
  std::ostringstream os;
  write_report_html(os, r);
  return os.str();
}

}  // namespace tt
