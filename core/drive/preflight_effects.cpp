#include "core/drive/preflight_effects.hpp"

#include <algorithm>

namespace tt {

void PreflightEffects::execute(const Action& action, Seconds now) {
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
