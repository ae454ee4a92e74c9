// Two sites under one scheduler: each site is its own fabric (any generator's), and the sites are joined by one long,
// thin link between a gateway switch of each. Every name of a site's fabric is prefixed "<site>." ("cloud.n3/gpu5",
// "cloud.spine0", "cloud.storage"); each site keeps its own storage target; nodes are laid out site by site.
//
//     private.spine0 ... ---- private.storage         cloud.spine0 ... ---- cloud.storage
//        (private fabric)  \                         /  (cloud fabric)
//                       private.spine0 ==== "private~cloud" ==== cloud.spine0   (bandwidth, latency given)
#pragma once

#include <string>
#include <vector>

#include "core/topo/topology.hpp"

namespace tt {

struct SiteFabric {
  std::string name;      // no '.', '/' or '~'
  Topology fabric;       // built by a generator; names unprefixed
  std::string gateway;   // a Leaf or Spine vertex of `fabric` the inter-site link starts at; empty: default_gateway()
};

struct InterSiteLink {
  BytesPerSecond bandwidth;  // per direction, > 0
  Seconds latency;
};

// The first spine of a fabric, else its first leaf, else node 0's NVSwitch (a single-node fabric).
std::string default_gateway(const Topology& fabric);

// Requires two sites with the same GPU and GPUs per node, and gateways that exist (core/io checks and reports these).
// The link is named "<site0>~<site1>" and is a Fabric link; Topology::inter_site_link() gives its index.
Topology join_sites(const std::string& name, const std::vector<SiteFabric>& sites, const InterSiteLink& link);

}  // namespace tt
