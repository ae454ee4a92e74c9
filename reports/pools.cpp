#include "reports/pools.hpp"

#include <algorithm>

namespace tt {

using nlohmann::json;

json pools_json(const RunRecord& r) {
  json pools = json::array();
  for (const PoolRecord& p : r.pools) {
    json waits = json::array();
    double max_wait = 0, sum = 0;
    for (Seconds w : p.provision_waits) {
      waits.push_back(w.value);
      max_wait = std::max(max_wait, w.value);
      sum += w.value;
    }
    pools.push_back({{"name", p.name},
                     {"kind", p.kind},
                     {"min", p.min},
                     {"max", p.max},
                     {"scale_ups", p.provisions},
                     {"provisioned", p.provisioned},
                     {"scale_downs", p.releases},
                     {"peak_nodes", p.peak_nodes},
                     {"node_hours", p.node_hours},
                     {"provision_waits_s", waits},
                     {"provision_wait_max_s", max_wait},
                     {"provision_wait_mean_s", waits.empty() ? 0.0 : sum / static_cast<double>(waits.size())},
                     {"reclaim_notices", p.reclaim_notices},
                     {"reclaims", p.reclaims},
                     {"jobs_requeued", p.jobs_requeued},
                     {"checkpoints_in_notice", p.checkpoints_in_notice},
                     {"reclaim_lost_gpu_hours", p.reclaim_lost_gpu_hours}});
  }
  json capacity = json::array();
  for (const CapacityInterval& c : r.capacity)
    capacity.push_back({{"node", c.node}, {"pool", c.pool}, {"price_kind", to_string(c.price_kind)},
                        {"price_per_gpu_hour", c.price_per_gpu_hour}, {"gpus", c.gpus}, {"start_s", c.start.value},
                        {"end_s", c.end.value}});
  return {{"pools", pools}, {"capacity", capacity}};
}

}  // namespace tt
