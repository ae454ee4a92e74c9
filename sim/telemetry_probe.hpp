// TelemetryProbe: the network throughput of each node for the Controller's telemetry (NetworkSample), read from
// SimGrid's link loads (s4u::Link::get_usage(): bytes/s of the flows crossing the link now) on the node's NIC cables,
// both directions, plus the average rate fast-forwarding jobs put through them (World::ff_node_rate: they run no
// flows meanwhile). The links are looked up once; a sample costs one get_usage() per NIC link while flows are in
// flight, nothing more otherwise.
#pragma once

#include <vector>

#include "core/control/events.hpp"
#include "sim/platform.hpp"

namespace tt::sim {

class TelemetryProbe {
 public:
  explicit TelemetryProbe(const Platform& platform);
  // `fast_forward`: by node, bytes/s of the fast-forwarding jobs' traffic through its NICs. `flows`: false when no
  // flow is in flight (World::flows), every link's usage then 0: none is read.
  NetworkSample sample(const std::vector<double>& fast_forward, bool flows = true) const;

 private:
  std::vector<std::vector<simgrid::s4u::Link*>> node_links_;  // by node
};

}  // namespace tt::sim
