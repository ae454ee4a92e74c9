#include "real/driver_release.hpp"

#include <algorithm>

#include "core/io/input_error.hpp"
#include "real/sys.hpp"
#include "real/worker.hpp"

namespace tt::real {

double release_stretch(const Scenario& sc, const std::string& release, const IterationPlan& plan) {
  const rollout::ReleaseEffects* e = sc.rollout.effects_of(release);
  if (!e) return 1.0;
  const double predicted = plan.predicted_iteration.value;
  const double share = predicted > 0 ? std::clamp(plan.compute.value / predicted, 0.0, 1.0) : 1.0;
  return share / e->compute_speed + (1 - share) / e->comm_speed;
}

RealReleases::RealReleases(const Scenario& scenario, Executor& inner, std::function<void(const std::string&)> log)
    : ForwardingExecutor(inner), sc_(scenario), log_(std::move(log)) {
  if (sc_.rollout.noise.enabled())
    throw InputError(sc_.source_file, "/noise",
                     "no noise section: a real run's noise is the machine's own (model noise in simulation only)");
  for (const auto& e : sc_.rollout.effects)
    if (e.failure_rate > 0)
      throw InputError(sc_.source_file, "/rollout/releases/" + e.release + "/failure_rate",
                       "0: the real driver plays no extra failure rate of a release (simulate it)");
  active_ = sc_.rollout.enabled();
  if (!active_) return;
  release_ = sc_.preflight.node_release;
  release_.resize(sc_.topology.nodes().size());
}

void RealReleases::say(Seconds now, const std::string& line) const {
  if (!log_) return;
  std::string stamped(1, '[');
  stamped += format_seconds(now);
  stamped += "] ";
  stamped += line;
  log_(stamped);
}

void RealReleases::configure(const Launch& l, int node, WorkerConfig& c) const {
  if (!active_) return;
  c.release = release_[node];
  c.release_stretch = release_stretch(sc_, release_[node], l.plan);
  c.hang_per_collective = 0;
  c.hang_rank = -1;
  c.collectives_per_iteration = 0;
  for (const auto& step : l.plan.steps)
    for (const auto& g : step.groups)
      if (!moves_nothing(g)) c.collectives_per_iteration += g.calls;
  c.hang_seed = sc_.seed;
  // The first rank on a node whose release hangs collectives: the simulator takes the same node's release.
  const int per_node = sc_.topology.gpus_per_node();
  for (std::size_t rank = 0; rank < l.gpus.size(); ++rank) {
    const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[l.gpus[rank] / per_node]);
    if (!e || e->hang_per_collective <= 0) continue;
    c.hang_rank = static_cast<int>(rank);
    c.hang_per_collective = e->hang_per_collective;
    break;
  }
}

void RealReleases::execute(const Action& action, Seconds now) {
  inner_.execute(action, now);
  if (!active_) return;
  if (const auto* r = std::get_if<Reimage>(&action)) {
    reimages_.insert({now + r->duration, r->node, r->release});
  } else if (const auto* k = std::get_if<Kill>(&action)) {
    watched_.erase({k->job, k->attempt});
  } else if (const auto* l = std::get_if<Launch>(&action)) {
    Watched w;
    w.since = now + l->startup;
    w.iterations = l->start_iteration;
    const int per_node = sc_.topology.gpus_per_node();
    for (int gpu : l->gpus) {
      const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[gpu / per_node]);
      w.hangs = w.hangs || (e && e->hang_per_collective > 0);
    }
    watched_[{l->job, l->attempt}] = w;
  }
}

void RealReleases::handled(const Event& e, const std::vector<Action>& a, Seconds now) {
  if (active_) {
    if (const auto* p = std::get_if<JobProgress>(&e)) {
      auto it = watched_.find({p->job, p->attempt});
      if (it != watched_.end()) it->second.since = now, it->second.iterations = p->iterations;
    } else if (const auto* c = std::get_if<JobCompleted>(&e)) {
      watched_.erase({c->job, c->attempt});
    } else if (const auto* s = std::get_if<JobStalled>(&e)) {
      watched_.erase({s->job, s->attempt});
    }
  }
  inner_.handled(e, a, now);
}

void RealReleases::observe(Seconds now) {
  if (active_) {
    while (!reimages_.empty() && std::get<0>(*reimages_.begin()) <= now) {
      auto [at, node, release] = *reimages_.begin();
      reimages_.erase(reimages_.begin());
      release_[node] = release;
      const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release);
      say(now, "node " + sc_.topology.nodes()[node].name + " reimaged to release " + release +
                   ": workers started on it run compute_speed " + format_number(e ? e->compute_speed : 1.0) +
                   ", comm_speed " + format_number(e ? e->comm_speed : 1.0) + ", hang_per_collective " +
                   format_number(e ? e->hang_per_collective : 0.0, "%g"));
      queued_.push_back(NodeReimaged{node, release});
    }
    const Seconds timeout = sc_.recovery.watchdog_timeout;
    for (auto it = watched_.begin(); it != watched_.end();) {
      const auto& [key, w] = *it;
      if (now - w.since < timeout) {
        ++it;
        continue;
      }
      ++watchdog_stalls_;
      const std::string cause = "no iteration for " + format_seconds(now - w.since) + " (training watchdog " +
                                format_seconds(timeout) + "); every rank alive and heartbeating";
      say(now, sc_.jobs[key.first].name + " attempt " + std::to_string(key.second) + ": " + cause);
      const std::optional<FaultKind> kind = w.hangs ? std::optional<FaultKind>(FaultKind::Deadlock) : std::nullopt;
      queued_.push_back(JobStalled{key.first, key.second, w.iterations, cause, Symptom::NoProgress, kind, {}, w.since});
      it = watched_.erase(it);
    }
  }
  inner_.observe(now);
}

std::optional<Event> RealReleases::next_event() {
  if (!queued_.empty()) {
    Event e = std::move(queued_.front());
    queued_.pop_front();
    return e;
  }
  return inner_.next_event();
}

std::optional<Seconds> RealReleases::next_observation() const {
  std::optional<Seconds> best = inner_.next_observation();
  auto consider = [&](Seconds t) {
    if (!best || t < *best) best = t;
  };
  if (active_) {
    if (!reimages_.empty()) consider(std::get<0>(*reimages_.begin()));
    for (const auto& [key, w] : watched_) consider(w.since + sc_.recovery.watchdog_timeout);
  }
  return best;
}

}  // namespace tt::real
