#include "core/accept/job_states.hpp"

#include <map>

namespace tt::accept {

const char* to_string(JobState s) {
  switch (s) {
    case JobState::New: return "new";
    case JobState::Queued: return "queued";
    case JobState::Running: return "running";
    case JobState::Failed: return "failed";
    case JobState::Completed: return "completed";
    case JobState::Abandoned: return "abandoned";
  }
  return "?";
}

const std::vector<Transition>& allowed_transitions() {
  using S = JobState;
  static const std::vector<Transition> t = {
      {S::New, "submit", S::Queued},
      {S::Queued, "pending", S::Queued},
      {S::Queued, "launch", S::Running},
      {S::Queued, "false_failure", S::Queued},
      {S::Queued, "checkpoint_corrupt", S::Queued},
      {S::Running, "complete", S::Completed},
      {S::Running, "detect", S::Failed},
      {S::Running, "preempt", S::Queued},
      {S::Running, "resume", S::Running},
      {S::Running, "restore", S::Running},
      {S::Running, "false_failure", S::Running},
      {S::Running, "checkpoint_corrupt", S::Running},
      {S::Running, "spare", S::Running},
      {S::Failed, "requeue", S::Queued},
      {S::Failed, "abandon", S::Abandoned},
      {S::Failed, "spare", S::Failed},
      {S::Completed, "checkpoint_corrupt", S::Completed},
      {S::Abandoned, "checkpoint_corrupt", S::Abandoned},
  };
  return t;
}

namespace {

std::string clock(Seconds t) {
  const long long ms = static_cast<long long>(t.value * 1000 + 0.5);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld.%03lld", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
  return buf;
}

}  // namespace

StateCheck check_job_states(const RunRecord& rec, bool must_finish) {
  StateCheck out;
  std::map<std::string, JobState> state;
  for (const auto& j : rec.jobs) state[j.name] = JobState::New;
  out.jobs = static_cast<int>(rec.jobs.size());
  for (std::size_t i = 0; i < rec.decisions.size(); ++i) {
    const Decision& d = rec.decisions[i];
    auto it = state.find(d.job);
    if (d.job.empty() || it == state.end()) continue;  // cluster decisions, alerts
    if (d.kind.str().rfind("alert_", 0) == 0) continue;
    ++out.transitions;
    const Transition* edge = nullptr;
    std::string from_here;
    for (const auto& t : allowed_transitions()) {
      if (t.from != it->second) continue;
      from_here += (from_here.empty() ? "" : ", ") + t.kind;
      if (t.kind == d.kind) edge = &t;
    }
    if (!edge) {
      out.violations.push_back({d.job, "decision " + std::to_string(i) + " at " + clock(d.t) + ": " + d.kind +
                                           " while " + to_string(it->second) + " (allowed from " +
                                           to_string(it->second) + ": " + from_here + ")"});
      continue;  // the state stays: later decisions are judged from what the graph allows
    }
    it->second = edge->to;
  }
  if (must_finish)
    for (const auto& [job, s] : state)
      if (s != JobState::Completed && s != JobState::Abandoned)
        out.violations.push_back({job, std::string("ends ") + to_string(s) + ", not completed or abandoned"});
  return out;
}

}  // namespace tt::accept
