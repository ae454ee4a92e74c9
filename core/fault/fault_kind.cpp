#include "core/fault/fault_kind.hpp"

namespace tt {

namespace {

constexpr FaultKind kKinds[] = {FaultKind::NodeCrash, FaultKind::GpuFailure, FaultKind::NicDown,
                                FaultKind::LinkDown,  FaultKind::SwitchDown, FaultKind::Straggler,
                                FaultKind::StorageSlow, FaultKind::Hang,       FaultKind::Deadlock,
                                FaultKind::CheckpointCorrupt};

bool has_nic(const Topology& t, VertexId v) {
  for (auto [e, end] = boost::out_edges(v, t.graph()); e != end; ++e)
    if (t.graph()[*e].kind == LinkKind::Nic) return true;
  return false;
}

}  // namespace

const char* to_string(Component c) {
  switch (c) {
    case Component::Node: return "node";
    case Component::Gpu: return "gpu";
    case Component::Link: return "link";
    case Component::Switch: return "switch";
    case Component::Storage: return "storage";
    case Component::Job: return "job";
  }
  return "?";
}

Component component_of(FaultKind kind) {
  switch (kind) {
    case FaultKind::NodeCrash:
    case FaultKind::Hang:
    case FaultKind::Deadlock: return Component::Node;
    case FaultKind::GpuFailure:
    case FaultKind::NicDown:
    case FaultKind::Straggler: return Component::Gpu;
    case FaultKind::LinkDown: return Component::Link;
    case FaultKind::SwitchDown: return Component::Switch;
    case FaultKind::StorageSlow: return Component::Storage;
    case FaultKind::CheckpointCorrupt: return Component::Job;
  }
  return Component::Node;
}

const char* target_key(FaultKind kind) { return to_string(component_of(kind)); }

std::optional<FaultKind> parse_fault_kind(std::string_view name) {
  if (name == "link_flap") return FaultKind::LinkDown;
  for (FaultKind k : kKinds)
    if (name == to_string(k)) return k;
  return std::nullopt;
}

std::vector<std::string> fault_kind_names() {
  std::vector<std::string> out;
  for (FaultKind k : kKinds) out.push_back(to_string(k));
  out.push_back("link_flap");
  return out;
}

bool degrades_only(FaultKind kind) { return kind == FaultKind::Straggler || kind == FaultKind::StorageSlow; }

std::vector<std::string> fault_candidates(FaultKind kind, const Topology& t) {
  std::vector<std::string> out;
  const auto& g = t.graph();
  switch (component_of(kind)) {
    case Component::Node:
      for (const auto& n : t.nodes()) out.push_back(n.name);
      break;
    case Component::Gpu:
      for (std::size_t n = 0; n < t.nodes().size(); ++n)
        for (int l = 0; l < t.gpus_per_node(); ++l) {
          VertexId v = t.gpu_vertex(static_cast<int>(n), l);
          if (kind != FaultKind::NicDown || has_nic(t, v)) out.push_back(g[v].name);
        }
      break;
    case Component::Link: {
      for (int pass = 0; pass < 2 && out.empty(); ++pass)
        for (std::size_t i = 0; i < t.edges().size(); ++i)
          if (t.link(static_cast<int>(i)).kind == (pass == 0 ? LinkKind::Fabric : LinkKind::Nic))
            out.push_back(t.link(static_cast<int>(i)).name);
      break;
    }
    case Component::Switch:
      for (auto [v, end] = boost::vertices(g); v != end; ++v)
        if (g[*v].kind == VertexKind::Leaf || g[*v].kind == VertexKind::Spine) out.push_back(g[*v].name);
      break;
    case Component::Storage:
      if (t.has_storage()) out.push_back(g[t.storage()].name);
      break;
    case Component::Job:  // jobs are the scenario's, not the topology's
      break;
  }
  return out;
}

}  // namespace tt
