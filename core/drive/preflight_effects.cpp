#include "core/drive/preflight_effects.hpp"

#include <algorithm>
#include <cstdio>

namespace tt {

void PreflightEffects::throttle_socket_nodes(Seconds now) {
  for (const auto& limit : preflight::socket_limits(sc_.topology, sc_.preflight)) {
    FaultTarget t = node_nic_cables(sc_, limit.node);
    if (t.cables.empty()) continue;
    char what[160];
    std::snprintf(what, sizeof what, "socket buffers of %.0f KiB over a %.0f us round trip carry %.0f%% of the NIC",
                  limit.buffer.value / 1024, limit.rtt.value * 1e6, 100 * limit.efficiency);
    FaultSpec f;
    f.kind = FaultKind::StorageSlow;  // the backend's cable bandwidth factor
    f.at = now;
    f.fraction = limit.efficiency;
    f.cause = std::string(what) + " on " + sc_.topology.nodes()[static_cast<std::size_t>(limit.node)].name +
              " (kernel_params/net.core.rmem_max, wmem_max)";
    inner_.inject(FaultChange{now, 0, true}, f, t, now);
  }
}

void PreflightEffects::slow_fallback_nodes(Seconds now) {
  if (slowed_ || !sc_.preflight.enabled()) return;
  slowed_ = true;
  throttle_socket_nodes(now);
  const int per_node = sc_.topology.gpus_per_node();
  for (int n : preflight::attention_fallback_nodes(sc_.topology, sc_.preflight))
    for (int g = n * per_node; g < (n + 1) * per_node; ++g) {
      FaultSpec f;
      f.kind = FaultKind::Straggler;
      f.at = now;
      f.target = sc_.topology.graph()[sc_.topology.gpu_vertex(n, g - n * per_node)].name;
      f.fraction = sc_.preflight.attention_fallback_speed;
      f.cause = "attention library falls back to a slower kernel on " + sc_.topology.nodes()[n].name +
                " (rule attention-requirements)";
      FaultTarget t;
      t.node = n;
      t.gpus = {g};
      inner_.inject(FaultChange{now, 0, true}, f, t, now);
    }
}

void PreflightEffects::execute(const Action& action, Seconds now) {
  slow_fallback_nodes(now);  // before the first launch computes anything
  inner_.execute(action, now);
  const auto* launch = std::get_if<Launch>(&action);
  if (!launch || !sc_.preflight.enabled()) return;
  const int per_node = sc_.topology.gpus_per_node();
  std::vector<int> nodes;
  for (int g : launch->gpus) nodes.push_back(g / per_node);
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  auto hang = preflight::setup_hang(sc_.preflight, sc_.topology, nodes);
  if (!hang) return;
  ++setup_hangs_;
  FaultSpec f;
  f.kind = FaultKind::Deadlock;
  f.at = now;
  f.target = sc_.topology.nodes()[nodes.front()].name;
  f.cause = *hang;
  FaultTarget t;
  t.node = nodes.front();
  for (int g = 0; g < per_node; ++g) t.gpus.push_back(nodes.front() * per_node + g);
  inner_.inject(FaultChange{now, 0, true}, f, t, now);
}

}  // namespace tt
