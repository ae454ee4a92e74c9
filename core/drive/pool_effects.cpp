#include "core/drive/pool_effects.hpp"

#include "core/fault/stochastic.hpp"

namespace tt {

PoolEffects::PoolEffects(const Scenario& scenario, Executor& inner) : sc_(scenario), inner_(inner) {
  if (sc_.pools.empty()) return;
  pool_of_.assign(sc_.topology.nodes().size(), -1);
  provisions_.assign(sc_.topology.nodes().size(), 0);
  for (std::size_t p = 0; p < sc_.pools.size(); ++p)
    for (int n : sc_.pools[p].nodes) pool_of_[n] = static_cast<int>(p);
}

void PoolEffects::execute(const Action& action, Seconds now) {
  inner_.execute(action, now);
  if (const auto* p = std::get_if<ProvisionNode>(&action)) {
    const PoolSpec& pool = sc_.pools[p->pool];
    // One stream per (node, provisioning): the provisioning delay, then the time to a reclaim notice.
    Random rng = stream(sc_.seed, 0x706f6f6c00000000ULL ^ (static_cast<std::uint64_t>(p->node) << 20) ^
                                      provisions_[p->node]++);
    last_delay_ = draw_repair(pool.provision_delay, rng);
    const Seconds ready = now + last_delay_;
    pending_.insert({ready, p->node, Step::Provisioned});
    if (pool.reclaim_mean) {
      const Seconds notice = ready + Seconds(rng.exponential(pool.reclaim_mean->value));
      goes_at_[p->node] = notice + pool.reclaim_notice;
      pending_.insert({notice, p->node, Step::Notice});
    }
  } else if (const auto* r = std::get_if<ReleaseNode>(&action)) {
    std::erase_if(pending_, [&](const auto& x) { return std::get<1>(x) == r->node; });
    goes_at_.erase(r->node);
  }
}

void PoolEffects::observe(Seconds now) {
  while (!pending_.empty() && std::get<0>(*pending_.begin()) <= now) {
    const auto [at, node, step] = *pending_.begin();
    pending_.erase(pending_.begin());
    switch (step) {
      case Step::Provisioned: queued_.push_back(NodeProvisioned{node}); break;
      case Step::Notice:
        queued_.push_back(NodeReclaimNotice{node, goes_at_[node]});
        pending_.insert({goes_at_[node], node, Step::Reclaimed});
        break;
      case Step::Reclaimed:
        goes_at_.erase(node);
        queued_.push_back(NodeReclaimed{node});
        break;
    }
  }
  inner_.observe(now);
}

std::optional<Event> PoolEffects::next_event() {
  if (next_queued_ < queued_.size()) {
    Event e = std::move(queued_[next_queued_++]);
    if (next_queued_ == queued_.size()) queued_.clear(), next_queued_ = 0;
    return e;
  }
  return inner_.next_event();
}

std::optional<Seconds> PoolEffects::next_observation() const {
  std::optional<Seconds> best = inner_.next_observation();
  if (!pending_.empty() && (!best || std::get<0>(*pending_.begin()) < *best)) best = std::get<0>(*pending_.begin());
  return best;
}

}  // namespace tt
