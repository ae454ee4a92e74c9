// Node pools as a Controller policy (docs/pools.md). After each scheduling pass: keep every elastic or spot pool at
// its minimum; provision for pending jobs that wait for capacity and that the nodes coming and free would not hold,
// from the first pool (in placement preference: core/model/pools.hpp) with room for the whole shortfall; release a
// node above the minimum that has been idle for its pool's idle timeout. On a reclaim notice, a job on the node stops
// at its next checkpoint if that completes within the notice (estimated from its progress), else at once; either way
// it is requeued at the head of its queue, and whatever is still on the node when it goes is stopped then. With the
// pool's checkpoint_on_notice, a job that would stop at once writes a checkpoint first when that fits in the notice.
#include <algorithm>
#include <tuple>

#include "core/control/controller_impl.hpp"

namespace tt {

bool Controller::Impl::slot_takes_work(int n) const {
  if (!scaled()) return true;
  const PoolSlot& s = slots[n];
  return s.state == PoolSlot::State::InService && !s.noticed;
}

int Controller::Impl::active_nodes(int pool) const {
  int k = 0;
  for (const PoolSlot& s : slots) k += s.pool == pool && s.state != PoolSlot::State::Absent;
  return k;
}

void Controller::Impl::count_pool_nodes() {
  for (PoolRecord& pr : rec.pools) pr.in_service = pr.provisioning = 0;
  for (const PoolSlot& s : slots) {
    if (s.pool < 0) continue;
    rec.pools[s.pool].in_service += s.state == PoolSlot::State::InService;
    rec.pools[s.pool].provisioning += s.state == PoolSlot::State::Provisioning;
  }
}

void Controller::Impl::pools_init() {
  if (sc.pools.empty()) return;
  const int nodes = static_cast<int>(topo.nodes().size());
  slots.assign(nodes, PoolSlot{});
  const std::vector<int> tier = pool_tiers(sc.pools);
  std::vector<int> node_tier(nodes, 0);
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    const PoolSpec& spec = sc.pools[p];
    PoolRecord pr;
    pr.name = spec.name;
    pr.kind = to_string(spec.kind);
    pr.min = spec.min;
    pr.max = spec.max;
    if (spec.kind == PoolKind::Fixed) pr.peak_nodes = static_cast<int>(spec.nodes.size());
    rec.pools.push_back(std::move(pr));
    for (int n : spec.nodes) {
      slots[n].pool = static_cast<int>(p);
      node_tier[n] = tier[p];
      if (spec.kind == PoolKind::Fixed) {
        slots[n].state = PoolSlot::State::InService;
        slots[n].requested = Seconds(0);
        slots[n].in_service = Seconds(0);
      } else {
        cluster.set_up(n, false);
      }
    }
  }
  // Tiers renumbered densely over the pools present.
  std::vector<int> used = node_tier;
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (int& t : node_tier) t = static_cast<int>(std::lower_bound(used.begin(), used.end(), t) - used.begin());
  sched.set_node_tiers(std::move(node_tier));
  sched.capacity_changed();
  count_pool_nodes();
}

void Controller::Impl::provision(int pool, int count, Seconds now, const std::string& job, const std::string& why,
                                 std::vector<Action>& out) {
  const PoolSpec& spec = sc.pools[pool];
  std::vector<std::string> names;
  for (int n : spec.nodes) {
    if (count == 0) break;
    PoolSlot& s = slots[n];
    if (s.state != PoolSlot::State::Absent) continue;
    s = PoolSlot{PoolSlot::State::Provisioning, pool, false, now, std::nullopt, std::nullopt};
    out.emplace_back(std::in_place_type<ProvisionNode>, ProvisionNode{n, pool});
    names.push_back(topo.nodes()[n].name);
    --count;
  }
  PoolRecord& pr = rec.pools[pool];
  pr.provisions += static_cast<int>(names.size());
  pr.peak_nodes = std::max(pr.peak_nodes, active_nodes(pool));
  count_pool_nodes();
  decide(now, "scale_up", job, names, "pool " + spec.name + ": " + why);
}

void Controller::Impl::close_capacity(int n, Seconds now) {
  const PoolSlot& s = slots[n];
  const PoolSpec& spec = sc.pools[s.pool];
  rec.capacity.push_back(CapacityInterval{topo.nodes()[n].name, spec.name, spec.price_kind,
                                          spec.price_per_gpu_hour, topo.gpus_per_node(), s.requested, now,
                                          s.in_service});
  rec.pools[s.pool].node_hours += (now - s.requested).value / 3600.0;
}

void Controller::Impl::release_node(int n, Seconds now, const std::string& why, std::vector<Action>& out) {
  PoolSlot& s = slots[n];
  close_capacity(n, now);
  ++rec.pools[s.pool].releases;
  out.emplace_back(std::in_place_type<ReleaseNode>, ReleaseNode{n, s.pool});
  decide(now, "scale_down", "", {topo.nodes()[n].name}, "pool " + sc.pools[s.pool].name + ": " + why);
  s = PoolSlot{PoolSlot::State::Absent, s.pool, false, now, std::nullopt, std::nullopt};
  count_pool_nodes();
  refresh_node(n, now, "released to pool " + sc.pools[s.pool].name, out);
}

void Controller::Impl::pools_step(Seconds now, std::vector<Action>& out) {
  if (!scaled()) return;
  const int per_node = topo.gpus_per_node();
  // Idle clocks, and releases of nodes idle for their pool's timeout, above the minimum.
  for (int n = 0; n < static_cast<int>(slots.size()); ++n) {
    PoolSlot& s = slots[n];
    if (s.state != PoolSlot::State::InService || s.noticed || sc.pools[s.pool].kind == PoolKind::Fixed) continue;
    if (cluster.free_gpus(n) != per_node) {
      s.idle_since.reset();
      continue;
    }
    if (!s.idle_since) s.idle_since = now;
    const PoolSpec& spec = sc.pools[s.pool];
    if (*s.idle_since + spec.idle_timeout <= now && active_nodes(s.pool) > spec.min)
      release_node(n, now, "idle for " + format_seconds(spec.idle_timeout) + " (idle_timeout), above min " +
                               std::to_string(spec.min), out);
  }
  const std::vector<int> tier = pool_tiers(sc.pools);
  std::vector<int> order;  // scaled pools in placement preference
  for (std::size_t p = 0; p < sc.pools.size(); ++p)
    if (sc.pools[p].kind != PoolKind::Fixed) order.push_back(static_cast<int>(p));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return tier[a] < tier[b]; });
  for (int p : order) {
    const int below = sc.pools[p].min - active_nodes(p);
    if (below > 0) provision(p, below, now, "", "below min " + std::to_string(sc.pools[p].min), out);
  }
  pools_started = true;
  // Pending demand: whole nodes each waiting job needs (a job within one node counts one), against the wholly free
  // nodes and those coming; the shortfall goes to the first pool with room for all of it.
  int coming = 0;
  for (const PoolSlot& s : slots) coming += s.state == PoolSlot::State::Provisioning;
  int avail = cluster.whole_free_nodes() + coming;
  std::vector<int> waiting;
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    if (jobs[j].state != JobState::Pending || !sched.is_pending(j)) continue;
    const WaitKind k = sched.reason(j).kind;
    if (k == WaitKind::Capacity || k == WaitKind::Fragmentation || k == WaitKind::Behind || k == WaitKind::Reservation)
      waiting.push_back(j);
  }
  std::sort(waiting.begin(), waiting.end(), [&](int a, int b) {
    return std::tuple(-sc.jobs[a].priority, jobs[a].enqueued, a) < std::tuple(-sc.jobs[b].priority, jobs[b].enqueued, b);
  });
  for (int j : waiting) {
    const int need = (sc.jobs[j].gpus + per_node - 1) / per_node;
    if (avail >= need) {
      avail -= need;
      continue;
    }
    const int shortfall = need - avail;
    for (int p : order) {
      if (sc.pools[p].max - active_nodes(p) < shortfall) continue;
      provision(p, shortfall, now, sc.jobs[j].name,
                std::to_string(sc.jobs[j].gpus) + " GPUs wait for capacity: " + std::to_string(need) +
                    " node(s), " + std::to_string(avail) + " free or coming left for it, " +
                    std::to_string(shortfall) + " more",
                out);
      avail = 0;
      break;
    }
  }
}

std::optional<Seconds> Controller::Impl::pools_deadline() const {
  if (!scaled()) return std::nullopt;
  if (!pools_started) return Seconds(0);
  std::optional<Seconds> best;
  for (const PoolSlot& s : slots) {
    if (s.state != PoolSlot::State::InService || s.noticed || !s.idle_since) continue;
    const PoolSpec& spec = sc.pools[s.pool];
    if (spec.kind == PoolKind::Fixed || active_nodes(s.pool) <= spec.min) continue;
    const Seconds t = *s.idle_since + spec.idle_timeout;
    if (!best || t < *best) best = t;
  }
  return best;
}

void Controller::Impl::on(const NodeProvisioned& e, Seconds now, std::vector<Action>& out) {
  if (!scaled() || e.node < 0 || e.node >= static_cast<int>(slots.size())) return;
  PoolSlot& s = slots[e.node];
  if (s.state != PoolSlot::State::Provisioning) return;  // released before it came
  s.state = PoolSlot::State::InService;
  s.in_service = now;
  count_pool_nodes();
  PoolRecord& pr = rec.pools[s.pool];
  ++pr.provisioned;
  pr.provision_waits.push_back(now - s.requested);
  decide(now, "provisioned", "", {topo.nodes()[e.node].name},
         "pool " + sc.pools[s.pool].name + ", " + format_seconds(now - s.requested) + " after the request");
  refresh_node(e.node, now, "", out);
}

void Controller::Impl::stop_for_reclaim(int j, Seconds now, const std::string& why, bool checkpointed,
                                        std::vector<Action>& out) {
  JobRuntime& rt = jobs[j];
  rt.evacuate_by.reset();
  if (rt.state != JobState::Running && rt.state != JobState::Stalled) return;
  int pool = -1;
  for (int gpu : rt.gpus)
    if (slots[gpu / topo.gpus_per_node()].noticed) pool = slots[gpu / topo.gpus_per_node()].pool;
  // Stopped after a checkpoint it holds all its work; else it loses what it did since its checkpoint.
  const std::int64_t reached = checkpointed ? rt.done : progress_by(j, now);
  const double lost =
      stop_and_requeue(j, now, reached, "reclaim_requeue", why, "spot reclaim: " + why, "reclaimed", out);
  if (pool >= 0) {
    PoolRecord& pr = rec.pools[pool];
    ++pr.jobs_requeued;
    pr.checkpoints_in_notice += checkpointed;
    pr.reclaim_lost_gpu_hours += lost;
  }
}

// An on-demand checkpoint at a notice (docs/pools.md). The write is taken as long as the job's last one, else as its
// checkpoint's bytes at the storage's whole bandwidth (a floor).
bool Controller::Impl::checkpoint_on_notice(int j, const NodeReclaimNotice& e, Seconds now, std::vector<Action>& out) {
  const int pool = slots[e.node].pool;
  JobRuntime& rt = jobs[j];
  const JobRecord& jr = rec.jobs[j];
  if (!sc.pools[pool].checkpoint_on_notice || rt.state != JobState::Running || jr.measured_iteration.value <= 0)
    return false;
  Seconds write = jr.checkpoint_write_times.empty() ? Seconds(0) : jr.checkpoint_write_times.back();
  if (jr.checkpoint_write_times.empty()) {
    const double bandwidth = topo.storage_bandwidth().value;
    if (bandwidth <= 0) return false;
    write = Seconds(jr.checkpoint_bytes.value / bandwidth);
  }
  // After the iteration in flight (or the startup still under way).
  const Seconds ready = std::max(now, rt.progress_at) + jr.measured_iteration + write;
  if (ready > e.at) return false;
  rt.evacuate_by = e.at;
  ++rec.pools[pool].checkpoints_on_notice;
  out.emplace_back(std::in_place_type<CheckpointNow>, CheckpointNow{j, rt.attempt});
  decide(now, "reclaim_checkpoint_now", jr.name, {topo.nodes()[e.node].name},
         "its next checkpoint would not complete within the notice; one written now is expected by " +
             format_seconds(ready) + " (checkpoint_on_notice): stops after it");
  return true;
}

void Controller::Impl::on(const NodeReclaimNotice& e, Seconds now, std::vector<Action>& out) {
  if (!scaled() || e.node < 0 || e.node >= static_cast<int>(slots.size())) return;
  PoolSlot& s = slots[e.node];
  if (s.state != PoolSlot::State::InService || s.noticed) return;
  s.noticed = true;
  ++rec.pools[s.pool].reclaim_notices;
  decide(now, "reclaim_notice", "", {topo.nodes()[e.node].name},
         "pool " + sc.pools[s.pool].name + ": the provider takes it back at " + format_seconds(e.at));
  refresh_node(e.node, now, "reclaim notice", out);
  const int per_node = topo.gpus_per_node();
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    JobRuntime& rt = jobs[j];
    if (rt.state != JobState::Running && rt.state != JobState::Stalled) continue;
    if (std::none_of(rt.gpus.begin(), rt.gpus.end(), [&](int g) { return g / per_node == e.node; })) continue;
    // The next checkpoint's completion: the iterations done by now (the last report, then the measured pace since),
    // the iterations to the checkpoint at that pace, and the last write's duration.
    const JobRecord& jr = rec.jobs[j];
    if (rt.state == JobState::Running && rt.checkpoint_every > 0 && jr.measured_iteration.value > 0) {
      const double since = std::max(0.0, (now - rt.progress_at) / jr.measured_iteration);
      const std::int64_t done = rt.done + static_cast<std::int64_t>(since);
      const std::int64_t next = (done / rt.checkpoint_every + 1) * rt.checkpoint_every;
      const Seconds write = jr.checkpoint_write_times.empty() ? Seconds(0) : jr.checkpoint_write_times.back();
      const Seconds ready = rt.progress_at + jr.measured_iteration * static_cast<double>(next - rt.done) + write;
      if (next < sc.jobs[j].iterations && ready <= e.at) {
        rt.evacuate_by = e.at;
        decide(now, "reclaim_checkpoint", jr.name, {topo.nodes()[e.node].name},
               "checkpoint at iteration " + std::to_string(next) + " expected by " + format_seconds(ready) +
                   ", within the notice: stops after it");
        continue;
      }
    }
    if (checkpoint_on_notice(j, e, now, out)) continue;
    stop_for_reclaim(j, now, "no checkpoint can complete within the notice", false, out);
  }
}

void Controller::Impl::on(const NodeReclaimed& e, Seconds now, std::vector<Action>& out) {
  if (!scaled() || e.node < 0 || e.node >= static_cast<int>(slots.size())) return;
  PoolSlot& s = slots[e.node];
  if (s.state == PoolSlot::State::Absent) return;  // released before the provider took it
  const int per_node = topo.gpus_per_node();
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    const JobRuntime& rt = jobs[j];
    if ((rt.state == JobState::Running || rt.state == JobState::Stalled) &&
        std::any_of(rt.gpus.begin(), rt.gpus.end(), [&](int g) { return g / per_node == e.node; }))
      stop_for_reclaim(j, now, "the node was reclaimed before its checkpoint", false, out);
  }
  ++rec.pools[s.pool].reclaims;
  close_capacity(e.node, now);
  decide(now, "reclaimed", "", {topo.nodes()[e.node].name}, "pool " + sc.pools[s.pool].name);
  s = PoolSlot{PoolSlot::State::Absent, s.pool, false, now, std::nullopt, std::nullopt};
  count_pool_nodes();
  refresh_node(e.node, now, "reclaimed", out);
}

void Controller::Impl::pools_finish(Seconds now) {
  for (int n = 0; n < static_cast<int>(slots.size()); ++n)
    if (slots[n].state != PoolSlot::State::Absent) close_capacity(n, now);
}

}  // namespace tt
