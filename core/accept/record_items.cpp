#include "core/accept/record_items.hpp"

#include <algorithm>

#include "core/accept/job_states.hpp"

namespace tt::accept {

namespace {

std::string secs(Seconds s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s.value);
  return buf;
}

}  // namespace

const TimeExpectation* find_time(const AcceptPlan& plan, const std::string& metric) {
  for (const auto& t : plan.times)
    if (t.metric == metric) return &t;
  return nullptr;
}

ItemResult judge_scheduler(const RunRecord& rec) {
  ItemResult r{Item::Scheduler};
  const StateCheck c = check_job_states(rec, true);
  int launches = 0, pendings = 0;
  for (const auto& d : rec.decisions) {
    launches += d.kind == "launch";
    pendings += d.kind == "pending";
  }
  r.measured = std::to_string(c.transitions) + " transitions of " + std::to_string(c.jobs) + " jobs, " +
               std::to_string(c.violations.size()) + " outside the graph; " + std::to_string(launches) +
               " launches, " + std::to_string(pendings) + " pending decisions";
  r.expected = "every transition an edge of the allowed job state graph (core/accept/job_states.hpp), every job "
               "completed or abandoned";
  for (const auto& j : rec.jobs)
    r.evidence += j.name + ": " + to_string(j.state) + ", " + std::to_string(j.segments.size()) + " attempt(s)\n";
  for (const auto& v : c.violations) r.evidence += "violation: " + v.job + ": " + v.detail + "\n";
  if (c.passed() && launches > 0) {
    r.verdict = Verdict::Passed;
  } else {
    r.verdict = Verdict::Failed;
    r.failure = launches == 0 ? "no job was ever launched"
                              : c.violations.front().job + ": " + c.violations.front().detail;
  }
  return r;
}

ItemResult judge_node_failure(const RunRecord& rec, const AcceptPlan& plan) {
  ItemResult r{Item::NodeFailure};
  const TimeExpectation* detect = find_time(plan, "detect");
  const TimeExpectation* recover = find_time(plan, "recover");
  r.expected = "every node crash detected, training resumed and the job completed";
  if (detect) r.expected += "; detect <= " + secs(detect->threshold) + " (twin " + secs(detect->expected) + ")";
  if (recover) r.expected += "; recover <= " + secs(recover->threshold) + " (twin " + secs(recover->expected) + ")";
  int crashes = 0;
  std::string problem;
  Seconds worst_detect, worst_recover;
  for (const auto& j : rec.jobs)
    for (const auto& f : j.failures) {
      if (f.kind != "node_crash") continue;
      ++crashes;
      const Seconds d = f.detect_time - f.fault_time;
      worst_detect = std::max(worst_detect, d);
      r.evidence += j.name + ": " + f.cause + " at " + secs(f.fault_time) + ", detected after " + secs(d) + " by " +
                    f.detector;
      if (f.recovered_time) {
        const Seconds rec_t = *f.recovered_time - f.fault_time;
        worst_recover = std::max(worst_recover, rec_t);
        r.evidence += ", training resumed after " + secs(rec_t) + "\n";
      } else {
        r.evidence += ", never resumed\n";
        if (problem.empty()) problem = j.name + " did not recover from the crash at " + secs(f.fault_time);
      }
      if (j.state != JobStatus::Completed && problem.empty())
        problem = j.name + " ends " + to_string(j.state) + " after the crash at " + secs(f.fault_time);
    }
  r.measured = std::to_string(crashes) + " node crash failure(s); worst detect " + secs(worst_detect) +
               ", worst recover " + secs(worst_recover);
  if (crashes == 0 && problem.empty()) problem = "no node crash hit a job: nothing shows a failure was tolerated";
  if (problem.empty() && detect && worst_detect > detect->threshold)
    problem = "detection took " + secs(worst_detect) + ", over the threshold " + secs(detect->threshold);
  if (problem.empty() && recover && worst_recover > recover->threshold)
    problem = "recovery took " + secs(worst_recover) + ", over the threshold " + secs(recover->threshold);
  r.verdict = problem.empty() ? Verdict::Passed : Verdict::Failed;
  r.failure = problem;
  return r;
}

std::map<std::string, int> record_restarts(const RunRecord& rec) {
  std::map<std::string, int> out;
  for (const auto& j : rec.jobs) out[j.name] = j.restarts;
  return out;
}

std::string restart_problem(const std::map<std::string, int>& restarts, int max_restarts) {
  for (const auto& [job, n] : restarts)
    if (n > max_restarts)
      return job + " restarted " + std::to_string(n) + " times, more than " + std::to_string(max_restarts) +
             ": restarting in a loop";
  return "";
}

std::string alert_problem(const RunRecord& rec, const AcceptPlan& plan, std::string& evidence) {
  const TimeExpectation* latency = find_time(plan, "alert_latency");
  for (const auto& a : rec.alerts) {
    Seconds fault(-1);
    for (Seconds t : rec.fault_times)
      if (t <= a.fired_at) fault = t;
    if (fault.value < 0) continue;
    const Seconds l = a.fired_at - fault;
    evidence += "alert " + a.name + " (" + a.severity + ") fired " + secs(l) + " after the fault at " + secs(fault) + "\n";
    if (latency && l > latency->threshold)
      return "alert " + a.name + " fired " + secs(l) + " after the fault, over the threshold " + secs(latency->threshold);
    return "";
  }
  return rec.alert_rules.empty() ? "the run has no alert rules" : "no alert fired after a fault";
}

}  // namespace tt::accept
