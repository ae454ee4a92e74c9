#include "core/drive/release_effects.hpp"

#include <algorithm>
#include <cmath>

namespace tt {
namespace {

Random stream(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
  Random mixer(seed ^ (0x9e3779b97f4a7c15ULL * (a + 1)) ^ (0xc2b2ae3d27d4eb4fULL * (b + 1)));
  return Random(mixer.next());
}

}  // namespace

double collective_calls_before_hang(std::uint64_t seed, int job, int attempt, double p) {
  Random rng = stream(seed, 0x68616e67ULL + static_cast<std::uint64_t>(job), static_cast<std::uint64_t>(attempt));
  // Calls until the first that never completes: geometric with success probability p.
  const double u = rng.uniform();
  return p >= 1 ? 0 : std::floor(std::log1p(-u) / std::log1p(-p));
}

ReleaseEffects::ReleaseEffects(const Scenario& scenario, Executor& inner)
    : ForwardingExecutor(inner), sc_(scenario) {
  active_ = sc_.rollout.enabled() || sc_.rollout.noise.enabled();
  if (!active_) return;
  const int nodes = static_cast<int>(sc_.topology.nodes().size());
  release_ = sc_.preflight.node_release;
  release_.resize(nodes);
  speed_.assign(nodes, 1.0);
  comm_.assign(nodes, 1.0);
  base_.assign(nodes, 1.0);
  drift_.assign(nodes, 0.0);
  jitter_.assign(nodes, 0.0);
  const auto& noise = sc_.rollout.noise;
  next_failure_.assign(nodes, std::nullopt);
  for (int n = 0; n < nodes; ++n) {
    failure_rng_.push_back(stream(sc_.seed, 0x6661696cULL, static_cast<std::uint64_t>(n)));
    noise_rng_.push_back(stream(sc_.seed, 0x6e6f697365ULL, static_cast<std::uint64_t>(n)));
    if (noise.node_sd > 0) base_[n] = std::max(0.05, noise_rng_.back().normal(1.0, noise.node_sd));
  }
  next_tick_ = Seconds(0);
}

void ReleaseEffects::apply_speed(int node, Seconds now) {
  const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[node]);
  const double want =
      (e ? e->compute_speed : 1.0) * std::max(0.05, (base_[node] + drift_[node]) * (1.0 + jitter_[node]));
  if (want == speed_[node]) return;
  speed_[node] = want;
  const int per_node = sc_.topology.gpus_per_node();
  for (int g = 0; g < per_node; ++g) {
    FaultSpec f;
    f.kind = FaultKind::Straggler;
    f.at = now;
    f.target = sc_.topology.graph()[sc_.topology.gpu_vertex(node, g)].name;
    f.fraction = want;
    f.cause = "node speed " + sc_.topology.nodes()[node].name + " (release " + release_[node] + ", noise)";
    FaultTarget t;
    t.node = node;
    t.gpus = {node * per_node + g};
    inner_.inject(FaultChange{now, 0, true}, f, t, now);
  }
}

void ReleaseEffects::apply_comm(int node, Seconds now) {
  const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[node]);
  const double want = e ? e->comm_speed : 1.0;
  if (want == comm_[node]) return;
  comm_[node] = want;
  // The node's NIC cables, played as a bandwidth factor on them.
  const FaultTarget t = node_nic_cables(sc_, node);
  if (t.cables.empty()) return;
  FaultSpec f;
  f.kind = FaultKind::StorageSlow;  // the backend's cable bandwidth factor
  f.at = now;
  f.fraction = want;
  f.cause = "release " + release_[node] + " communication on " + sc_.topology.nodes()[node].name;
  inner_.inject(FaultChange{now, 0, true}, f, t, now);
}

// The node's next extra failure, an exponential time after `from` at its release's rate; none on a release without.
void ReleaseEffects::schedule_failure(int node, Seconds from) {
  const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[node]);
  next_failure_[node].reset();
  if (e && e->failure_rate > 0)
    next_failure_[node] = from + Seconds(failure_rng_[node].exponential(86400 / e->failure_rate));
}

void ReleaseEffects::gpu_failure(int node, int gpu, bool starts, Seconds now) {
  const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[node]);
  FaultSpec f;
  f.kind = FaultKind::GpuFailure;
  f.at = now;
  f.target = sc_.topology.graph()[sc_.topology.gpu_vertex(node, gpu)].name;
  f.repair = e ? e->failure_repair : Seconds(0);
  f.cause = "release " + release_[node] + " failure rate";
  inner_.inject(FaultChange{now, 0, starts}, f, resolve_fault_target(sc_, f, 0), now);
}

void ReleaseEffects::play_failures(Seconds now) {
  while (!repairs_.empty() && std::get<0>(*repairs_.begin()) <= now) {
    const auto [at, node, gpu] = *repairs_.begin();
    repairs_.erase(repairs_.begin());
    gpu_failure(node, gpu, false, now);
  }
  for (std::size_t n = 0; n < next_failure_.size(); ++n) {
    if (!next_failure_[n] || *next_failure_[n] > now) continue;
    const int node = static_cast<int>(n);
    const int gpu = failure_rng_[n].uniform_int(0, sc_.topology.gpus_per_node() - 1);
    ++failures_played_;
    gpu_failure(node, gpu, true, now);
    const Seconds back = now + sc_.rollout.effects_of(release_[n])->failure_repair;
    repairs_.insert({back, node, gpu});
    schedule_failure(node, back);
  }
}

void ReleaseEffects::noise_tick(Seconds now) {
  const auto& noise = sc_.rollout.noise;
  for (std::size_t n = 0; n < release_.size(); ++n) {
    if (noise.drift_sd > 0) drift_[n] += noise_rng_[n].normal(0.0, noise.drift_sd);
    if (noise.jitter_sd > 0) jitter_[n] = noise_rng_[n].normal(0.0, noise.jitter_sd);
    apply_speed(static_cast<int>(n), now);
  }
  next_tick_ = noise.enabled() ? std::optional<Seconds>(now + noise.interval) : std::nullopt;
}

void ReleaseEffects::execute(const Action& action, Seconds now) {
  if (!active_) return inner_.execute(action, now);
  if (next_tick_ && *next_tick_ <= now) noise_tick(now);  // before the first launch computes anything
  inner_.execute(action, now);
  if (const auto* r = std::get_if<Reimage>(&action)) {
    reimages_.insert({now + r->duration, r->node, r->release});
    return;
  }
  if (const auto* k = std::get_if<Kill>(&action)) {
    std::erase_if(hangs_, [&](const PendingHang& h) { return h.job == k->job && h.attempt == k->attempt; });
    return;
  }
  const auto* l = std::get_if<Launch>(&action);
  if (!l) return;
  // The first node of the launch whose release hangs a collective now and then decides when this attempt hangs.
  const int per_node = sc_.topology.gpus_per_node();
  int calls = 0;
  for (const auto& step : l->plan.steps)
    for (const auto& g : step.groups)
      if (!moves_nothing(g)) calls += g.calls;
  for (int gpu : l->gpus) {
    const int node = gpu / per_node;
    const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[node]);
    if (!e || e->hang_per_collective <= 0 || calls == 0) continue;
    const double k = collective_calls_before_hang(sc_.seed, l->job, l->attempt, e->hang_per_collective);
    const double iterations = std::floor(k / calls);
    const Seconds iteration = l->plan.predicted_iteration / std::max(1e-9, speed_[node]);
    hangs_.insert({now + l->startup + iteration * iterations, l->job, l->attempt, node});
    break;
  }
}

void ReleaseEffects::handled(const Event& e, const std::vector<Action>& a, Seconds now) {
  if (active_) {
    const int* job = nullptr;
    const int* attempt = nullptr;
    if (const auto* c = std::get_if<JobCompleted>(&e)) job = &c->job, attempt = &c->attempt;
    if (const auto* s = std::get_if<JobStalled>(&e)) job = &s->job, attempt = &s->attempt;
    if (job)
      std::erase_if(hangs_, [&](const PendingHang& h) { return h.job == *job && h.attempt == *attempt; });
  }
  inner_.handled(e, a, now);
}

void ReleaseEffects::observe(Seconds now) {
  if (active_) {
    if (next_tick_ && *next_tick_ <= now) noise_tick(now);
    while (!reimages_.empty() && std::get<0>(*reimages_.begin()) <= now) {
      auto [at, node, release] = *reimages_.begin();
      reimages_.erase(reimages_.begin());
      release_[node] = release;
      apply_speed(node, now);
      apply_comm(node, now);
      schedule_failure(node, now);
      queued_.push_back(NodeReimaged{node, release});
    }
    play_failures(now);
    while (!hangs_.empty() && hangs_.begin()->at <= now) {
      const PendingHang h = *hangs_.begin();
      hangs_.erase(hangs_.begin());
      ++hangs_played_;
      const rollout::ReleaseEffects* e = sc_.rollout.effects_of(release_[h.node]);
      FaultSpec f;
      f.kind = FaultKind::Deadlock;
      f.at = now;
      f.target = sc_.topology.nodes()[h.node].name;
      f.cause = "a collective of " + sc_.jobs[h.job].name + " never completes on release " + release_[h.node] +
                " (hang_per_collective " + std::to_string(e ? e->hang_per_collective : 0.0) + ")";
      FaultTarget t;
      t.node = h.node;
      const int per_node = sc_.topology.gpus_per_node();
      for (int g = 0; g < per_node; ++g) t.gpus.push_back(h.node * per_node + g);
      inner_.inject(FaultChange{now, 0, true}, f, t, now);
    }
  }
  inner_.observe(now);
}

std::optional<Event> ReleaseEffects::next_event() {
  if (next_queued_ < queued_.size()) {
    Event e = std::move(queued_[next_queued_++]);
    if (next_queued_ == queued_.size()) queued_.clear(), next_queued_ = 0;
    return e;
  }
  return inner_.next_event();
}

std::optional<Seconds> ReleaseEffects::next_observation() const {
  std::optional<Seconds> best = inner_.next_observation();
  auto consider = [&](std::optional<Seconds> t) {
    if (t && (!best || *t < *best)) best = t;
  };
  if (active_) {
    consider(next_tick_);
    if (!reimages_.empty()) consider(std::get<0>(*reimages_.begin()));
    if (!hangs_.empty()) consider(hangs_.begin()->at);
    if (!repairs_.empty()) consider(std::get<0>(*repairs_.begin()));
    for (const auto& t : next_failure_) consider(t);
  }
  return best;
}

}  // namespace tt
