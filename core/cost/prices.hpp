// The prices a scenario's "cost" section gives (docs/cost.md): GPU-hours of capacity not in a node pool, per site and
// kind; storage per GB-month with the retention policy that decides how long checkpoints are kept; traffic per GB
// between sites and to storage. Plain values, read and validated by core/io/cost_reader.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/pools.hpp"
#include "core/model/units.hpp"

namespace tt::cost {

// tt::PriceKind (core/model/pools.hpp): pools and sites are bought the same ways.

struct GpuPrice {
  std::string site;  // a site of the topology (Topology::sites()); the topology's name when it has one site
  PriceKind kind = PriceKind::OnDemand;
  double per_gpu_hour = 0;
};

// How long a checkpoint stays on storage (and is billed): the newest keep_last of its job (0: all), and no longer
// than expire_after from its write (a lifecycle rule; the newest checkpoint of a job that has not ended is kept).
struct Retention {
  int keep_last = 0;
  std::optional<Seconds> expire_after;
};

struct Prices {
  bool enabled = false;  // the scenario has a cost section
  std::string currency = "USD";
  std::vector<GpuPrice> gpu;  // one per site
  double storage_per_gb_month = 0;
  Retention retention;
  double inter_site_per_gb = 0;  // checkpoint moves over the inter-site link
  double storage_per_gb = 0;     // checkpoint writes to storage

  const GpuPrice* gpu_price(const std::string& site) const;
};

}  // namespace tt::cost
