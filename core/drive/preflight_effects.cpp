#include "core/drive/preflight_effects.hpp"

#include <algorithm>

namespace tt {

void PreflightEffects::slow_fallback_nodes(Seconds now) {
  if (slowed_ || !sc_.preflight.enabled()) return;
  slowed_ = true;
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
