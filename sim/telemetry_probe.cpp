#include "sim/telemetry_probe.hpp"

#include <algorithm>
#include <simgrid/s4u/Link.hpp>

namespace tt::sim {

TelemetryProbe::TelemetryProbe(const Platform& platform) {
  const Topology& topo = platform.topology();
  node_links_.resize(topo.nodes().size());
  for (std::size_t n = 0; n < topo.nodes().size(); ++n)
    for (int cable : platform.node_cables(static_cast<int>(n)))
      if (topo.link(cable).kind == LinkKind::Nic)
        for (bool forward : {true, false})  // parallel cables share one bonded link: count it once
          if (auto* l = platform.link(cable, forward);
              std::find(node_links_[n].begin(), node_links_[n].end(), l) == node_links_[n].end())
            node_links_[n].push_back(l);
}

NetworkSample TelemetryProbe::sample(const std::vector<double>& fast_forward, bool flows) const {
  NetworkSample s;
  s.node_bytes_per_second.reserve(node_links_.size());
  for (std::size_t n = 0; n < node_links_.size(); ++n) {
    const auto& links = node_links_[n];
    double bps = n < fast_forward.size() ? fast_forward[n] : 0.0;
    if (flows)
      for (const simgrid::s4u::Link* l : links) bps += l->get_usage();
    s.node_bytes_per_second.push_back(bps);
  }
  return s;
}

}  // namespace tt::sim
