#include "core/fault/stochastic.hpp"

#include <algorithm>
#include <cmath>

#include "core/fault/fault_kind.hpp"

namespace tt {

Random stream(std::uint64_t seed, std::uint64_t index) {
  Random mixer(seed ^ (0x9e3779b97f4a7c15ULL * (index + 1)));
  return Random(mixer.next());
}

Seconds draw_repair(const RepairDistribution& d, Random& rng) {
  switch (d.shape) {
    case RepairDistribution::Shape::Fixed: return d.scale;
    case RepairDistribution::Shape::Exponential: return Seconds(rng.exponential(d.scale.value));
    case RepairDistribution::Shape::Lognormal: return Seconds(d.scale.value * std::exp(rng.normal(0.0, d.sigma)));
  }
  return d.scale;
}

std::vector<FaultSpec> draw_faults(const std::vector<FaultRate>& rates, const Topology& topo, std::uint64_t seed,
                                   Seconds until) {
  std::vector<FaultSpec> out;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const FaultRate& r = rates[i];
    const auto candidates = fault_candidates(r.kind, topo);
    if (candidates.empty() || !(r.mtbf.value > 0)) continue;
    Random rng = stream(seed, 1000 + i);
    const double gap = r.mtbf.value / static_cast<double>(candidates.size());  // mean time between faults of the kind
    for (double t = rng.exponential(gap); t < until.value; t += rng.exponential(gap)) {
      FaultSpec f;
      f.kind = r.kind;
      f.at = Seconds(t);
      f.target = candidates[rng.uniform_int(0, static_cast<int>(candidates.size()) - 1)];
      f.repair = without_repair(r.kind) ? Seconds(0) : draw_repair(r.repair, rng);
      f.fraction = r.fraction;
      f.cause = r.cause;
      out.push_back(std::move(f));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const FaultSpec& a, const FaultSpec& b) { return a.at < b.at; });
  return out;
}

std::vector<FaultSpec> scenario_faults(const Scenario& s) {
  std::vector<FaultSpec> out = s.faults;
  if (!s.stochastic.rates.empty()) {
    auto drawn = draw_faults(s.stochastic.rates, s.topology, s.seed, s.stochastic.until.value_or(s.sim.horizon));
    out.insert(out.end(), drawn.begin(), drawn.end());
  }
  std::stable_sort(out.begin(), out.end(), [](const FaultSpec& a, const FaultSpec& b) { return a.at < b.at; });
  return out;
}

double expected_job_failure_rate(const Scenario& s, int gpus) {
  const int gpn = s.topology.gpus_per_node();
  const double nodes = gpus <= gpn ? 1.0 : static_cast<double>(gpus) / gpn;
  double rate = 0;
  for (const FaultRate& r : s.stochastic.rates) {
    if (degrades_only(r.kind) || !(r.mtbf.value > 0)) continue;
    switch (component_of(r.kind)) {
      case Component::Node: rate += nodes / r.mtbf.value; break;
      case Component::Gpu: rate += gpus / r.mtbf.value; break;
      default: break;
    }
  }
  return rate;
}

}  // namespace tt
