#include "reports/doctor.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "reports/text.hpp"

namespace tt {

using nlohmann::json;

const char* to_string(CauseKind k) {
  switch (k) {
    case CauseKind::CommunicationSetup: return "communication_setup";
    case CauseKind::OperatorSlowPath: return "operator_slow_path";
    case CauseKind::Queueing: return "queueing";
    case CauseKind::FailedResume: return "failed_resume";
    case CauseKind::MissingMetrics: return "missing_metrics";
  }
  return "?";
}

namespace {

double num(const json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}
std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string secs(double s) { return format_duration(s); }
const json& array_of(const json& j, const char* key) {
  static const json empty = json::array();
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

struct Ctx {
  const DoctorInput& in;
  const json& report;
  std::map<std::string, std::vector<const json*>> decisions;  // by job
  std::map<std::string, std::string> ungated;                 // node -> preflight reason
};

std::set<std::string> job_nodes(const json& job) {
  std::set<std::string> out;
  for (const auto& seg : array_of(job, "segments"))
    for (const auto& n : array_of(seg, "nodes"))
      if (n.is_string()) out.insert(n.get<std::string>());
  return out;
}

std::optional<Cause> communication_setup(const Ctx& c, const json& job) {
  Cause k{CauseKind::CommunicationSetup};
  bool setup_failure = false;
  for (const auto& f : array_of(job, "failures")) {
    const std::string cause = lower(str(f, "cause"));
    if (cause.find("communicator") != std::string::npos || cause.find("nccl") != std::string::npos ||
        cause.find("setup") != std::string::npos) {
      setup_failure = true;
      k.evidence.push_back("failure at " + secs(num(f, "fault_s")) + ": " + str(f, "cause"));
      break;
    }
  }
  std::vector<std::string> bad_nodes;
  for (const auto& n : job_nodes(job))
    if (auto it = c.ungated.find(n); it != c.ungated.end()) {
      bad_nodes.push_back(n);
      k.evidence.push_back("node " + n + " placed on despite its preflight inventory: " + it->second);
    }
  const std::string preflight = str(c.report.value("driver_info", json::object()), "preflight");
  if (preflight.rfind("overridden", 0) == 0) k.evidence.push_back("this machine's preflight was " + preflight);
  if (k.evidence.empty()) return std::nullopt;
  k.score = setup_failure ? (bad_nodes.empty() ? 0.7 : 0.95) : 0.5;
  k.summary = setup_failure ? "the job's communicator never formed: its ranks disagree on the communication stack"
                            : "the job ran on nodes whose inventory differs from the pinned versions";
  if (!bad_nodes.empty()) {
    std::string nodes;
    for (const auto& n : bad_nodes) nodes += (nodes.empty() ? "" : ", ") + n;
    k.change = "keep " + nodes + " out of the job (preflight.gate true cordons them) or bring them to the matrix's "
               "versions, port range and subnet";
  }
  return k;
}

std::optional<Cause> slow_path(const Ctx& c, const json& job) {
  const double predicted = num(job, "predicted_iteration_s"), measured = num(job, "measured_iteration_s");
  if (!(predicted > 0) || measured / predicted <= c.in.slow_ratio) return std::nullopt;
  Cause k{CauseKind::OperatorSlowPath};
  const double ratio = measured / predicted;
  k.score = std::min(1.0, 0.4 + (ratio - 1));
  k.summary = "iterations run " + format_fixed(ratio, 2) + "x slower than the kernels' expected figures";
  k.evidence.push_back("measured " + format_fixed(measured, 3) + " s per iteration against " +
                       format_fixed(predicted, 3) + " s predicted (perf model at the GPU's expected kernel speed)");
  for (const auto* d : c.decisions.at(str(job, "name")))
    if (lower(str(*d, "reason")).find("straggl") != std::string::npos || lower(str(*d, "reason")).find("fallback") != std::string::npos)
      k.evidence.push_back(str(*d, "kind") + " at " + secs(num(*d, "t_s")) + ": " + str(*d, "reason"));
  k.change = "find the slow GPU or kernel path: `traintwin kernelcheck` on the job's nodes, and the attention "
             "library version in their inventory";
  return k;
}

// The words of core/sched/pending_reason.cpp's describe(), read back into the one change that would start the job.
std::string queue_change(const std::string& reason, int gpus) {
  std::smatch m;
  static const std::regex cohort(
      R"(quota of queue (\S+) exhausted: (\d+) GPUs in use of a nominal (\d+) \((\d+) borrowed; (\d+) left in the cohort's pool\), (\d+) needed)");
  static const std::regex plain(R"(quota of queue (\S+) exhausted: (\d+) of (\d+) GPUs in use, (\d+) needed)");
  static const std::regex frag_nodes(R"(fragmentation: (\d+) GPUs free across (\d+) nodes, but only (\d+) whole nodes, (\d+) needed)");
  static const std::regex frag_one(R"(fragmentation: (\d+) GPUs free across (\d+) nodes, at most (\d+) on any one node, (\d+) needed on one node)");
  static const std::regex cap_nodes(R"(waiting for (\d+) whole nodes \((\d+) GPUs\): (\d+) whole nodes free)");
  static const std::regex cap_one(R"(waiting for (\d+) GPUs on one node: (\d+) free)");
  static const std::regex topo(R"(waiting for (\d+) whole nodes in at most (\d+) leaf group\(s\): at most (\d+) whole nodes free in one group)");
  auto i = [&](int k) { return std::stoi(m[k].str()); };
  if (std::regex_search(reason, m, cohort)) {
    const int short_by = i(2) + i(6) - i(3) - i(5);
    return "raise queue " + m[1].str() + "'s nominal quota from " + m[3].str() + " to " +
           std::to_string(i(3) + std::max(short_by, 1)) + " GPUs (" + std::to_string(std::max(short_by, 1)) +
           " more: " + m[2].str() + " in use + " + m[6].str() + " needed - " + m[5].str() + " the cohort can lend)";
  }
  if (std::regex_search(reason, m, plain))
    return "raise queue " + m[1].str() + "'s quota from " + m[3].str() + " to " + std::to_string(i(2) + i(4)) + " GPUs";
  if (std::regex_search(reason, m, frag_nodes))
    return "free " + std::to_string(i(4) - i(3)) + " more whole node(s) (" + m[1].str() + " GPUs are free but spread over " +
           m[2].str() + " nodes): place small jobs on the partly used nodes first, or let this job take partial nodes";
  if (std::regex_search(reason, m, frag_one))
    return "free " + std::to_string(i(4) - i(3)) + " more GPU(s) on one node, or split the job across nodes";
  if (std::regex_search(reason, m, cap_nodes))
    return "add " + std::to_string(i(1) - i(3)) + " whole node(s) (" + std::to_string(gpus) + " GPUs needed in all)";
  if (std::regex_search(reason, m, cap_one)) return "add " + std::to_string(i(1) - i(2)) + " GPU(s) on one node";
  if (std::regex_search(reason, m, topo))
    return "allow more than " + m[2].str() + " leaf group(s) (placement), or free " + std::to_string(i(1) - i(3)) +
           " whole node(s) in one group";
  if (reason.find("StrictFIFO") != std::string::npos)
    return "switch the queue to BestEffortFIFO so jobs behind a blocked head may start";
  if (reason.rfind("preempted by", 0) == 0) return "give the job a priority at least its preemptor's, or its own quota";
  if (reason.rfind("behind", 0) == 0) return "turn backfill on, or raise the job's priority";
  return "";
}

std::optional<Cause> queueing(const Ctx& c, const json& job) {
  const std::string name = str(job, "name");
  const json by_reason = job.value("pending_by_reason_s", json::object());
  std::string top;
  double top_s = 0;
  for (const auto& [kind, v] : by_reason.items())
    if (v.is_number() && v.get<double>() > top_s) top = kind, top_s = v.get<double>();
  std::vector<std::string> reasons;
  for (const auto* d : c.decisions.at(name))
    if (str(*d, "kind") == "pending") reasons.push_back(str(*d, "reason"));
  if (reasons.empty() && top.empty()) return std::nullopt;
  Cause k{CauseKind::Queueing};
  k.score = 0.9;
  const std::string kind_words = top == "quota" ? "quota" : top == "fragmentation" ? "fragmentation"
                               : top == "strict_fifo" || top == "behind" ? "queue policy" : top.empty() ? "waiting" : top;
  k.summary = "queued " + secs(num(job, "wait_s")) + (top.empty() ? "" : ", most of it for " + kind_words + " (" + secs(top_s) + ")");
  for (const auto& [kind, v] : by_reason.items())
    if (v.is_number()) k.evidence.push_back("pending for " + kind + ": " + secs(v.get<double>()));
  // The reason of the longest kind, as last said (a quota reason for a quota wait, and so on).
  std::string reason = reasons.empty() ? "" : reasons.back();
  for (auto it = reasons.rbegin(); it != reasons.rend(); ++it) {
    const std::string l = lower(*it);
    if ((top == "quota" && l.find("quota") != std::string::npos) ||
        (top == "fragmentation" && l.find("fragmentation") != std::string::npos) ||
        (top == "strict_fifo" && l.find("strictfifo") != std::string::npos)) {
      reason = *it;
      break;
    }
  }
  if (!reason.empty()) k.evidence.push_back("scheduler: " + reason);
  k.change = queue_change(reason, static_cast<int>(num(job, "gpus")));
  return k;
}

std::optional<Cause> failed_resume(const Ctx& c, const json* job) {
  Cause k{CauseKind::FailedResume};
  if (job)
    for (const auto* d : c.decisions.at(str(*job, "name"))) {
      const std::string kind = str(*d, "kind"), reason = str(*d, "reason");
      if ((kind == "checkpoint_corrupt" && reason.find("fails its checksum") != std::string::npos) || kind == "restore")
        k.evidence.push_back(kind + " at " + secs(num(*d, "t_s")) + ": " + reason);
    }
  bool integrity = !k.evidence.empty();
  for (const auto& p : c.in.facts.checkpoint_problems) k.evidence.push_back("run directory: " + p);
  if (c.in.accept)
    for (const auto& item : array_of(*c.in.accept, "items"))
      if (str(item, "item") == "checkpoint" && str(item, "verdict") == "failed") {
        k.evidence.push_back("accept checkpoint: " + str(item, "failure"));
        integrity = integrity || str(item, "failure").find("CRC") != std::string::npos ||
                    str(item, "failure").find("checksum") != std::string::npos;
      }
  if (k.evidence.empty()) return std::nullopt;
  k.score = integrity ? 0.9 : 0.8;
  const bool perms = !c.in.facts.checkpoint_problems.empty();
  k.summary = integrity ? "a checkpoint failed its integrity check, so the restore fell back to an older one"
                        : "the checkpoint directory could not be used (permissions or storage)";
  k.change = perms && !integrity ? "give the run's user read and write access to its checkpoint directory (mode 0700, "
                                   "owned by the user) on mounted storage with free space"
                                 : "find what damaged the checkpoint (storage errors, a writer killed mid-write) and "
                                   "keep more than one checkpoint (checkpoint.keep) so a restore can fall back";
  return k;
}

std::optional<Cause> missing_metrics(const Ctx& c) {
  Cause k{CauseKind::MissingMetrics};
  if (!c.in.facts.metrics_file) k.evidence.push_back("metrics.prom is missing or holds no traintwin_ sample");
  if (c.in.accept)
    for (const auto& item : array_of(*c.in.accept, "items"))
      if (str(item, "item") == "observability" && str(item, "verdict") == "failed")
        k.evidence.push_back("accept observability: " + str(item, "failure"));
  if (k.evidence.empty()) return std::nullopt;
  const std::string all = lower(k.evidence.back());
  k.score = 0.9;
  if (all.find("503") != std::string::npos) {
    k.summary = "the metrics endpoint answers but serves no metrics: the collector behind it is down";
    k.change = "restart the exporter; the health endpoint's metrics component says when it is down";
  } else if (all.find("no answer") != std::string::npos) {
    k.summary = "nothing listens on the metrics port";
    k.change = "start the run with --metrics-port and point the scrape configuration at 127.0.0.1:PORT/metrics";
  } else {
    k.summary = "the run's metrics were not exported";
    k.change = "check the exporter and the scrape configuration (job, target, path /metrics)";
  }
  return k;
}

void add(Finding& f, std::optional<Cause> c) {
  if (c) f.causes.push_back(std::move(*c));
}

void rank(Finding& f) {
  std::stable_sort(f.causes.begin(), f.causes.end(), [](const Cause& a, const Cause& b) { return a.score > b.score; });
}

}  // namespace

Diagnosis diagnose(const DoctorInput& in) {
  const json& r = in.report;
  Ctx c{in, r, {}, {}};
  for (const auto& job : array_of(r, "jobs")) c.decisions[str(job, "name")];
  for (const auto& d : array_of(r, "decisions")) {
    if (str(d, "kind") == "ungated")
      for (const auto& n : array_of(d, "nodes")) c.ungated[n.get<std::string>()] = str(d, "reason");
    auto it = c.decisions.find(str(d, "job"));
    if (it != c.decisions.end()) it->second.push_back(&d);
  }
  Diagnosis out;
  out.run = str(r, "scenario") + " (" + str(r, "driver") + ")";
  std::map<std::string, const json*> jobs;
  for (const auto& job : array_of(r, "jobs")) jobs[str(job, "name")] = &job;

  auto job_causes = [&](Finding& f, const json& job) {
    add(f, communication_setup(c, job));
    add(f, slow_path(c, job));
    if (num(job, "wait_s") > 0) add(f, queueing(c, job));
    add(f, failed_resume(c, &job));
    rank(f);
  };

  for (const auto& check : array_of(r, "checks")) {
    if (check.value("passed", true)) continue;
    Finding f{"failed_check", str(check, "name"), str(check, "message"), {}};
    const std::string job = str(check, "job");
    if (auto it = jobs.find(job); it != jobs.end()) {
      job_causes(f, *it->second);
    } else {  // a cluster check: every job's evidence counts, the strongest per cause kind
      std::map<CauseKind, Cause> best;
      for (const auto& [name, j] : jobs) {
        Finding g;
        job_causes(g, *j);
        for (auto& k : g.causes)
          if (!best.count(k.kind) || best[k.kind].score < k.score) best[k.kind] = k;
      }
      for (auto& [kind, k] : best) f.causes.push_back(k);
      add(f, missing_metrics(c));
      rank(f);
    }
    out.findings.push_back(std::move(f));
  }
  for (const auto& [name, job] : jobs) {
    int no_progress = 0;
    for (const auto& seg : array_of(*job, "segments"))
      if (str(seg, "outcome") == "failed" && num(seg, "reached_iteration") <= num(seg, "start_iteration")) ++no_progress;
    if (no_progress > 0 || str(*job, "state") == "abandoned") {
      Finding f{"failed_launch", name,
                std::to_string(no_progress) + " attempt(s) failed before any progress; state " + str(*job, "state"), {}};
      add(f, communication_setup(c, *job));
      add(f, slow_path(c, *job));
      add(f, failed_resume(c, job));
      rank(f);
      out.findings.push_back(std::move(f));
    }
    if (num(*job, "wait_s") > in.long_wait.value) {
      Finding f{"long_wait", name, "queued " + secs(num(*job, "wait_s")) + " in all", {}};
      add(f, queueing(c, *job));
      add(f, communication_setup(c, *job));
      rank(f);
      out.findings.push_back(std::move(f));
    }
    bool restore_failed = false;
    for (const auto* d : c.decisions.at(name))
      restore_failed = restore_failed || str(*d, "kind") == "restore" ||
                       (str(*d, "kind") == "checkpoint_corrupt" && str(*d, "reason").find("fails its checksum") != std::string::npos);
    if (restore_failed) {
      Finding f{"failed_restore", name, "a restore could not use the checkpoint it wanted", {}};
      add(f, failed_resume(c, job));
      rank(f);
      out.findings.push_back(std::move(f));
    }
    const double p = num(*job, "predicted_iteration_s"), m = num(*job, "measured_iteration_s");
    if (p > 0 && m / p > in.slow_ratio) {
      Finding f{"slow_job", name, "iterations " + format_fixed(m / p, 2) + "x the predicted time", {}};
      add(f, slow_path(c, *job));
      add(f, communication_setup(c, *job));
      rank(f);
      out.findings.push_back(std::move(f));
    }
  }
  if (!in.facts.checkpoint_problems.empty()) {
    Finding f{"failed_restore", "checkpoints", in.facts.checkpoint_problems.front(), {}};
    add(f, failed_resume(c, nullptr));
    out.findings.push_back(std::move(f));
  }
  if (in.accept)
    for (const auto& item : array_of(*in.accept, "items")) {
      if (str(item, "verdict") != "failed") continue;
      const std::string id = str(item, "item");
      Finding f{"failed_item", "accept " + id, str(item, "failure"), {}};
      Cause k;
      k.score = 0.8;
      k.evidence = {"measured: " + str(item, "measured"), "expected: " + str(item, "expected")};
      if (id == "collective") {
        k.kind = CauseKind::CommunicationSetup;
        k.summary = "the collective itself is wrong or slow on this machine's communication stack";
        k.change = "run `traintwin commtest` and `traintwin preflight` on the nodes: versions, port range, subnet";
        f.causes.push_back(k);
      } else if (id == "kernels") {
        k.kind = CauseKind::OperatorSlowPath;
        k.summary = "the operator library produced wrong or slow results";
        k.change = "run `traintwin kernelcheck` and compare the attention library's version with the matrix";
        f.causes.push_back(k);
      } else if (id == "checkpoint" || id == "node_failure") {
        add(f, failed_resume(c, nullptr));
      } else if (id == "observability" || id == "health") {
        add(f, missing_metrics(c));
      }
      rank(f);
      out.findings.push_back(std::move(f));
    }
  if (!in.facts.metrics_file) {
    Finding f{"missing_metrics", "metrics.prom", "the run's exported metrics are missing", {}};
    add(f, missing_metrics(c));
    out.findings.push_back(std::move(f));
  }
  return out;
}

std::string diagnosis_text(const Diagnosis& d) {
  std::ostringstream os;
  os << "# traintwin doctor: " << d.run << ": " << d.findings.size() << " finding(s)\n";
  for (const auto& f : d.findings) {
    os << "[" << f.symptom << "] " << f.subject << ": " << f.what << "\n";
    if (f.causes.empty()) os << "  no evidence for any of the five usual causes\n";
    int n = 0;
    for (const auto& k : f.causes) {
      os << "  " << ++n << ". " << to_string(k.kind) << " (" << format_fixed(k.score, 2) << "): " << k.summary << "\n";
      for (const auto& e : k.evidence) os << "       evidence: " << e << "\n";
      if (!k.change.empty()) os << "       change: " << k.change << "\n";
    }
  }
  if (d.findings.empty()) os << "nothing to explain: no failed check, failed launch, long wait or failed restore\n";
  return os.str();
}

json diagnosis_json(const Diagnosis& d) {
  json j = {{"run", d.run}, {"findings", json::array()}};
  for (const auto& f : d.findings) {
    json causes = json::array();
    for (const auto& k : f.causes)
      causes.push_back({{"cause", to_string(k.kind)},
                        {"score", k.score},
                        {"summary", k.summary},
                        {"evidence", k.evidence},
                        {"change", k.change}});
    j["findings"].push_back({{"symptom", f.symptom}, {"subject", f.subject}, {"what", f.what}, {"causes", causes}});
  }
  return j;
}

namespace {

// The part of report_json() the doctor reads (jobs, decisions, checks, driver facts), under report.json's names:
// report.html is written beside report.json, and a month of telemetry need not be built twice.
json doctor_view(const RunRecord& r) {
  json jobs = json::array();
  for (const auto& j : r.jobs) {
    json segments = json::array(), failures = json::array(), pending = json::object();
    for (const auto& s : j.segments)
      segments.push_back({{"nodes", s.nodes},
                          {"outcome", s.outcome},
                          {"start_iteration", s.start_iteration},
                          {"reached_iteration", s.reached_iteration}});
    for (const auto& f : j.failures) failures.push_back({{"cause", f.cause}, {"fault_s", f.fault_time.value}});
    for (const auto& [kind, t] : j.pending_by_reason) pending[kind] = t.value;
    jobs.push_back({{"name", j.name},
                    {"gpus", j.gpus},
                    {"state", to_string(j.state)},
                    {"wait_s", j.wait.value},
                    {"pending_by_reason_s", pending},
                    {"predicted_iteration_s", j.predicted_iteration.value},
                    {"measured_iteration_s", j.measured_iteration.value},
                    {"segments", segments},
                    {"failures", failures}});
  }
  // Of a job's pending decisions (millions in a fleet month, gigabytes as JSON) only those the diagnosis reads: its
  // last one and its last one naming quota, fragmentation or StrictFIFO (queueing()), and any naming a straggler or
  // a fallback (slow_path()); every other decision as it is. diagnose() reads the same from report.json
  // (tests/reports/doctor_view_test.cpp holds the two diagnoses equal).
  std::vector<char> keep(r.decisions.size(), 1);
  {
    enum : unsigned { kLast = 1, kQuota = 2, kFragmentation = 4, kStrict = 8 };
    std::unordered_map<std::string_view, unsigned> seen;  // by job: what a later pending decision already said
    for (std::size_t i = r.decisions.size(); i-- > 0;) {
      const Decision& d = r.decisions[i];
      if (d.kind != "pending") continue;
      const std::string l = lower(d.reason.str());
      unsigned& s = seen[d.job];
      unsigned says = kLast;
      if (l.find("quota") != std::string::npos) says |= kQuota;
      if (l.find("fragmentation") != std::string::npos) says |= kFragmentation;
      if (l.find("strictfifo") != std::string::npos) says |= kStrict;
      const bool evidence = l.find("straggl") != std::string::npos || l.find("fallback") != std::string::npos;
      keep[i] = evidence || (says & ~s) != 0;
      s |= says;
    }
  }
  json decisions = json::array(), checks = json::array(), info = json::object();
  for (std::size_t i = 0; i < r.decisions.size(); ++i) {
    if (!keep[i]) continue;
    const Decision& d = r.decisions[i];
    decisions.push_back(
        {{"t_s", d.t.value}, {"kind", d.kind}, {"job", d.job}, {"nodes", d.nodes}, {"reason", d.reason.str()}});
  }
  for (const auto& c : r.checks)
    checks.push_back({{"name", c.name}, {"job", c.job}, {"passed", c.passed}, {"message", c.message}});
  for (const auto& [k, v] : r.driver_info) info[k] = v;
  return {{"scenario", r.scenario}, {"driver", r.driver}, {"driver_info", info},
          {"jobs", jobs},         {"decisions", decisions}, {"checks", checks}};
}

}  // namespace

Diagnosis diagnose_record(const RunRecord& record) {
  DoctorInput in;
  in.report = doctor_view(record);
  return diagnose(in);
}

std::string doctor_html_section(const RunRecord& record) {
  const Diagnosis d = diagnose_record(record);
  std::ostringstream os;
  os << "<section id=\"doctor\"><h2>Doctor</h2>";
  if (d.findings.empty()) {
    os << "<p>Nothing to explain: no failed check, failed launch, long wait or failed restore.</p></section>";
    return os.str();
  }
  os << "<p class=\"note\">Each symptom with its likely causes, ranked; `traintwin doctor DIR` says the same.</p><ul>";
  for (const auto& f : d.findings) {
    os << "<li><b>" << xml_escape(f.symptom) << "</b> " << xml_escape(f.subject) << ": " << xml_escape(f.what) << "<ol>";
    for (const auto& k : f.causes) {
      os << "<li>" << to_string(k.kind) << " (" << format_fixed(k.score, 2) << "): " << xml_escape(k.summary);
      for (const auto& e : k.evidence) os << "<br><small>" << xml_escape(e) << "</small>";
      if (!k.change.empty()) os << "<br><i>change: " << xml_escape(k.change) << "</i>";
      os << "</li>";
    }
    os << "</ol></li>";
  }
  os << "</ul></section>";
  return os.str();
}

}  // namespace tt
