#include "core/cost/cost_model.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace tt::cost {
namespace {

constexpr double kGb = 1e9;
constexpr double kMonthSeconds = 730.0 * 3600.0;

double overlap(Seconds a0, Seconds a1, Seconds b0, Seconds b1) {
  return std::max(0.0, std::min(a1.value, b1.value) - std::max(a0.value, b0.value));
}

// The stricter of two keep-last counts (0: keep all).
int stricter(int a, int b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

SiteCost& site_entry(CostReport& r, const std::string& site) {
  for (auto& s : r.sites)
    if (s.site == site) return s;
  r.sites.push_back(SiteCost{site});
  return r.sites.back();
}

}  // namespace

double kept_gb_months(const std::vector<CheckpointWrite>& writes, std::size_t k, Bytes size, int keep_last,
                      const std::optional<Seconds>& expire_after, const std::optional<Seconds>& job_end, Seconds end) {
  const Seconds written = writes[k].t;
  double until = end.value;
  if (keep_last > 0 && k + keep_last < writes.size()) until = std::min(until, writes[k + keep_last].t.value);
  if (expire_after) {
    const bool newest = k + 1 == writes.size();
    double expires = (written + *expire_after).value;
    if (newest) expires = job_end ? std::max(expires, job_end->value) : std::numeric_limits<double>::infinity();
    until = std::min(until, expires);
  }
  return std::max(0.0, until - written.value) / kMonthSeconds * (size.value / kGb);
}

CostReport compute_costs(const Prices& prices, const CostInput& in) {
  CostReport r;
  r.currency = prices.currency;
  for (const auto& s : in.sites) site_entry(r, s);
  std::unordered_map<std::string, std::vector<const BilledCapacity*>> by_node;
  for (const auto& c : in.capacity) {
    by_node[c.node].push_back(&c);
    SiteCost& s = site_entry(r, c.site);
    const double hours = (c.end - c.start).value / 3600.0 * c.gpus;
    s.billed_gpu_hours += hours;
    s.gpu += hours * c.per_gpu_hour;
  }
  std::map<std::string, double> used_cost;  // by site
  for (const auto& job : in.jobs) {
    JobCost jc{job.name, job.queue};
    for (const auto& h : job.held) {
      auto it = by_node.find(h.node);
      if (it == by_node.end()) continue;
      for (const BilledCapacity* c : it->second) {
        const double hours = overlap(h.start, h.end, c->start, c->end) / 3600.0 * h.gpus;
        jc.gpu_hours += hours;
        jc.gpu += hours * c->per_gpu_hour;
        site_entry(r, c->site).used_gpu_hours += hours;
        used_cost[c->site] += hours * c->per_gpu_hour;
      }
    }
    const int keep = stricter(prices.retention.keep_last, job.keep_last);
    for (std::size_t k = 0; k < job.checkpoints.size(); ++k) {
      const double gb_months = kept_gb_months(job.checkpoints, k, job.checkpoint_bytes, keep,
                                              prices.retention.expire_after, job.ended, in.end);
      const double write_gb = job.checkpoint_bytes.value / kGb;
      jc.storage_gb_months += gb_months;
      jc.traffic_gb += write_gb;
      SiteCost& s = site_entry(r, job.checkpoints[k].site);
      s.storage += gb_months * prices.storage_per_gb_month;
      s.traffic += write_gb * prices.storage_per_gb;
    }
    jc.storage = jc.storage_gb_months * prices.storage_per_gb_month;
    const double moved_gb = job.inter_site_bytes.value / kGb;
    jc.traffic = jc.traffic_gb * prices.storage_per_gb + moved_gb * prices.inter_site_per_gb;
    jc.traffic_gb += moved_gb;
    r.inter_site_traffic += moved_gb * prices.inter_site_per_gb;
    jc.total = jc.gpu + jc.storage + jc.traffic;
    r.queues[jc.queue] += jc.total;
    r.productive_gpu_hours += job.productive_gpu_hours;
    r.jobs.push_back(std::move(jc));
  }
  for (auto& s : r.sites) {
    s.idle_gpu_hours = std::max(0.0, s.billed_gpu_hours - s.used_gpu_hours);
    s.idle = std::max(0.0, s.gpu - used_cost[s.site]);
    s.total = s.gpu + s.storage + s.traffic;
    r.gpu += s.gpu;
    r.idle += s.idle;
    r.storage += s.storage;
    r.traffic += s.traffic;
  }
  r.traffic += r.inter_site_traffic;
  r.total = r.gpu + r.storage + r.traffic;
  if (r.productive_gpu_hours > 0) r.per_useful_gpu_hour = r.total / r.productive_gpu_hours;
  return r;
}

}  // namespace tt::cost
