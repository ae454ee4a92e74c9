#include "core/cost/billing.hpp"

namespace tt::cost {

std::string site_of_node(const Topology& topo, int node) {
  if (topo.sites().empty()) return topo.name();
  return topo.sites()[topo.nodes()[node].site].name;
}

namespace {

// The site a job's checkpoint written at `t` went to: that of the attempt running then.
std::string site_at(const Topology& topo, const JobRecord& jr, Seconds t, Seconds end) {
  for (auto it = jr.segments.rbegin(); it != jr.segments.rend(); ++it)
    if (it->start <= t && t <= it->end.value_or(end) && !it->nodes.empty())
      return site_of_node(topo, topo.find_node(it->nodes.front()));
  return site_of_node(topo, 0);
}

}  // namespace

CostInput cost_input(const RunRecord& rec, const Scenario& sc) {
  const Topology& topo = sc.topology;
  const Prices& prices = sc.cost;
  CostInput in;
  in.end = rec.end_time;
  if (topo.sites().empty())
    in.sites.push_back(topo.name());
  else
    for (const auto& s : topo.sites()) in.sites.push_back(s.name);

  // Node pools (docs/pools.md): each node's time in service, as the Controller recorded it (RunRecord::capacity), at
  // its pool's price. Capacity in no pool: every other node of the topology for the whole run, at its site's price.
  std::vector<bool> pooled(topo.nodes().size(), false);
  for (const auto& pool : sc.pools)
    for (int n : pool.nodes) pooled[static_cast<std::size_t>(n)] = true;
  for (const auto& c : rec.capacity) {
    in.capacity.push_back(BilledCapacity{c.node, site_of_node(topo, topo.find_node(c.node)), c.price_kind,
                                         c.price_per_gpu_hour, c.gpus, c.start, c.end});
  }
  for (int n = 0; n < static_cast<int>(topo.nodes().size()); ++n) {
    if (pooled[static_cast<std::size_t>(n)]) continue;
    if (!sc.scheduler.overflow && topo.nodes()[n].site > 0) continue;  // not provisioned (SchedulerOptions::overflow)
    const std::string site = site_of_node(topo, n);
    const GpuPrice* price = prices.gpu_price(site);
    if (!price) continue;  // the reader requires a price for every site
    in.capacity.push_back(BilledCapacity{topo.nodes()[n].name, site, price->kind, price->per_gpu_hour,
                                         topo.gpus_per_node(), Seconds(0), rec.end_time});
  }

  for (std::size_t j = 0; j < rec.jobs.size(); ++j) {
    const JobRecord& jr = rec.jobs[j];
    JobUsage u;
    u.name = jr.name;
    u.queue = jr.queue;
    for (const Segment& seg : jr.segments) {
      if (seg.nodes.empty()) continue;
      const int per_node = jr.gpus / static_cast<int>(seg.nodes.size());
      for (const auto& node : seg.nodes) u.held.push_back({node, per_node, seg.start, seg.end.value_or(rec.end_time)});
    }
    u.productive_gpu_hours = jr.productive_seconds * jr.gpus / 3600.0;
    u.checkpoint_bytes = jr.checkpoint_bytes;
    for (Seconds t : jr.checkpoint_times) u.checkpoints.push_back({t, site_at(topo, jr, t, rec.end_time)});
    u.keep_last = j < sc.jobs.size() ? sc.jobs[j].checkpoint_keep : 0;
    if (jr.state == JobStatus::Completed || jr.state == JobStatus::Abandoned) u.ended = jr.end.value_or(rec.end_time);
    u.inter_site_bytes = jr.checkpoint_moved_bytes;
    in.jobs.push_back(std::move(u));
  }
  return in;
}

}  // namespace tt::cost
