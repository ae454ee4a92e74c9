// Node pools (docs/pools.md): the scenario's nodes split into pools, each fixed (always in service), elastic (scaled
// between min and max by the Controller, each node provisioned after a drawn delay and released after an idle timeout)
// or spot (elastic, and reclaimed by the provider at a rate, after a notice). Pool nodes are slots the topology
// already declares: an elastic or spot slot is absent (no work is placed on it) until provisioned. Plain values,
// read and validated by core/io/pool_reader.cpp; no pools: every node is in service, as without this section.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/distribution.hpp"
#include "core/model/units.hpp"

namespace tt {

enum class PoolKind { Fixed, Elastic, Spot };
// How capacity is bought: by pools here, by sites in the cost section (core/cost/prices.hpp).
enum class PriceKind { OnDemand, Reserved, Spot };
const char* to_string(PoolKind k);
const char* to_string(PriceKind k);  // "on_demand", "reserved", "spot"
// The price kinds' names in the enum's order: what the readers accept.
const std::vector<std::string>& price_kind_names();

struct PoolSpec {
  std::string name;
  PoolKind kind = PoolKind::Fixed;
  std::vector<int> nodes;  // topology node indices, the pool's slots (in the order written)
  int min = 0;             // elastic/spot: nodes kept in service (provisioned at the start); fixed: all
  int max = 0;             // elastic/spot: at most this many in service or provisioning; fixed: all
  RepairDistribution provision_delay;  // from the request to the node taking work
  Seconds idle_timeout = Seconds(600);  // an idle provisioned node above min is released after this
  std::optional<Seconds> reclaim_mean;  // spot: mean time from provisioning to a reclaim notice (exponential)
  Seconds reclaim_notice = Seconds(120);  // spot: from the notice to the node going away
  // spot ("reclaim": {"checkpoint_on_notice"}): at a notice, a job whose cadence checkpoint would not complete within
  // it writes one at once if that write (after the iteration in flight) is expected within it; off: it stops at once.
  bool checkpoint_on_notice = false;
  double price_per_gpu_hour = 0;
  PriceKind price_kind = PriceKind::OnDemand;
};

// Placement preference, lower first: fixed pools (owned or reserved capacity costs the same used or idle), then the
// others by price per GPU-hour, then by pool order. Returns each pool's rank (pools of equal rank share a tier).
std::vector<int> pool_tiers(const std::vector<PoolSpec>& pools);

}  // namespace tt
