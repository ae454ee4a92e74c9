#include "core/rollout/spec.hpp"

#include <algorithm>

namespace tt::rollout {

const char* to_string(Metric m) {
  switch (m) {
    case Metric::IterationTime: return "iteration_time";
    case Metric::CollectiveBandwidth: return "collective_bandwidth";
    case Metric::Failures: return "failures";
    case Metric::AlertsFiring: return "alerts_firing";
    case Metric::CheckpointTime: return "checkpoint_time";
  }
  return "?";
}

const char* unit_of(Metric m) {
  switch (m) {
    case Metric::IterationTime:
    case Metric::CheckpointTime: return "s";
    case Metric::CollectiveBandwidth: return "B/s";
    case Metric::Failures:
    case Metric::AlertsFiring: return "count";
  }
  return "?";
}

const char* to_string(Test t) { return t == Test::Threshold ? "threshold" : "mann_whitney"; }

bool higher_is_worse(Metric m) { return m != Metric::CollectiveBandwidth; }
bool is_count(Metric m) { return m == Metric::Failures || m == Metric::AlertsFiring; }

const ReleaseEffects* Rollout::effects_of(const std::string& release) const {
  for (const auto& e : effects)
    if (e.release == release) return &e;
  return nullptr;
}

bool Rollout::may_share(const std::string& a, const std::string& b) const {
  if (a == b) return true;
  auto lists = [&](const std::string& x, const std::string& y) {
    const ReleaseEffects* e = effects_of(x);
    return e && std::find(e->shares_jobs_with.begin(), e->shares_jobs_with.end(), y) != e->shares_jobs_with.end();
  };
  return lists(a, b) || lists(b, a);
}

}  // namespace tt::rollout
