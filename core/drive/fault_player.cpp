#include "core/drive/fault_player.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/fault/fault_kind.hpp"
#include "core/fault/stochastic.hpp"

namespace tt {

namespace {

std::vector<int> cables_at(const Topology& t, VertexId v, bool nic_only) {
  std::vector<int> out;
  for (auto [e, end] = boost::out_edges(v, t.graph()); e != end; ++e)
    if (!nic_only || t.graph()[*e].kind == LinkKind::Nic) out.push_back(t.graph()[*e].id);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

FaultTarget resolve_fault_target(const Scenario& s, const FaultSpec& f, std::size_t index) {
  const Topology& t = s.topology;
  FaultTarget tg;
  auto fail = [&] {
    throw std::invalid_argument("fault " + std::to_string(index) + " (" + to_string(f.kind) + "): no " +
                                to_string(component_of(f.kind)) + " named \"" + f.target + "\"");
  };
  switch (f.kind) {
    case FaultKind::NodeCrash:
    case FaultKind::Hang:
    case FaultKind::Deadlock:
      tg.node = t.find_node(f.target);
      if (tg.node < 0) fail();
      for (int l = 0; l < t.gpus_per_node(); ++l) tg.gpus.push_back(tg.node * t.gpus_per_node() + l);
      if (f.kind == FaultKind::NodeCrash) {
        for (VertexId v : t.nodes()[tg.node].gpus)
          for (int c : cables_at(t, v, false)) tg.cables.push_back(c);
        std::sort(tg.cables.begin(), tg.cables.end());
        tg.cables.erase(std::unique(tg.cables.begin(), tg.cables.end()), tg.cables.end());
      }
      break;
    case FaultKind::GpuFailure:
    case FaultKind::NicDown:
    case FaultKind::Straggler: {
      const int v = t.find_vertex(f.target);
      if (v < 0 || t.graph()[v].kind != VertexKind::Gpu) fail();
      const auto& props = t.graph()[v];
      tg.node = props.node;
      tg.gpus = {props.node * t.gpus_per_node() + props.local};
      if (f.kind != FaultKind::Straggler) tg.cables = cables_at(t, v, f.kind == FaultKind::NicDown);
      if (f.kind == FaultKind::NicDown && tg.cables.empty()) fail();
      break;
    }
    case FaultKind::LinkDown: {
      const int c = t.find_link(f.target);
      if (c < 0) fail();
      tg.cables = {c};
      break;
    }
    case FaultKind::SwitchDown:
    case FaultKind::StorageSlow: {
      const int v = t.find_vertex(f.target);
      if (v < 0) fail();
      tg.cables = cables_at(t, v, false);
      break;
    }
    case FaultKind::CheckpointCorrupt:
      for (std::size_t j = 0; j < s.jobs.size() && tg.job < 0; ++j)
        if (s.jobs[j].name == f.target) tg.job = static_cast<int>(j);
      if (tg.job < 0)
        throw std::invalid_argument("fault " + std::to_string(index) + " (checkpoint_corrupt): no job named \"" +
                                    f.target + "\"");
      break;
  }
  return tg;
}

FaultPlayer::FaultPlayer(const Scenario& s) : FaultPlayer(s, scenario_faults(s)) {}

FaultPlayer::FaultPlayer(const Scenario& s, std::vector<FaultSpec> faults) : faults_(std::move(faults)) {
  struct Keyed {
    FaultChange change;
    std::size_t order;
  };
  std::vector<Keyed> keyed;
  for (std::size_t i = 0; i < faults_.size(); ++i) {
    const FaultSpec& f = faults_[i];
    targets_.push_back(resolve_fault_target(s, f, i));
    keyed.push_back({{f.at, i, true}, 2 * i});
    if (!without_repair(f.kind)) keyed.push_back({{f.at + f.repair, i, false}, 2 * i + 1});
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return a.change.at != b.change.at ? a.change.at < b.change.at : a.order < b.order;
  });
  for (const Keyed& k : keyed)
    if (k.change.at < s.sim.horizon) changes_.push_back(k.change);
}

std::optional<Seconds> FaultPlayer::next_at() const {
  if (next_ >= changes_.size()) return std::nullopt;
  return changes_[next_].at;
}

std::optional<FaultChange> FaultPlayer::take_due(Seconds now) {
  if (next_ >= changes_.size() || changes_[next_].at > now) return std::nullopt;
  return changes_[next_++];
}

std::string describe_fault(const FaultSpec& f) {
  std::string what;
  switch (f.kind) {
    case FaultKind::NodeCrash: what = "node " + f.target + " crashed"; break;
    case FaultKind::GpuFailure: what = "GPU " + f.target + " failed"; break;
    case FaultKind::NicDown: what = "NIC of " + f.target + " went down"; break;
    case FaultKind::LinkDown: what = "link " + f.target + " went down"; break;
    case FaultKind::SwitchDown: what = "switch " + f.target + " went down"; break;
    case FaultKind::Hang: what = "node " + f.target + " hung"; break;
    case FaultKind::Deadlock: what = "job deadlocked on node " + f.target; break;
    case FaultKind::CheckpointCorrupt: what = "newest checkpoint of " + f.target + " corrupted"; break;
    case FaultKind::Straggler:
    case FaultKind::StorageSlow: what = std::string(to_string(f.kind)) + " of " + f.target; break;
  }
  return f.cause.empty() ? what : what + " (" + f.cause + ")";
}

std::string FaultPlayer::describe(const FaultChange& c) const {
  const FaultSpec& f = faults_[c.fault];
  return c.starts ? describe_fault(f) : std::string(to_string(f.kind)) + " of " + f.target + " repaired";
}

FaultTarget node_nic_cables(const Scenario& sc, int node) {
  FaultTarget t;
  t.node = node;
  for (int g = 0; g < sc.topology.gpus_per_node(); ++g) {
    FaultSpec nic;
    nic.kind = FaultKind::NicDown;
    nic.target = sc.topology.graph()[sc.topology.gpu_vertex(node, g)].name;
    const FaultTarget r = resolve_fault_target(sc, nic, 0);
    t.cables.insert(t.cables.end(), r.cables.begin(), r.cables.end());
  }
  std::sort(t.cables.begin(), t.cables.end());
  t.cables.erase(std::unique(t.cables.begin(), t.cables.end()), t.cables.end());
  return t;
}

}  // namespace tt
