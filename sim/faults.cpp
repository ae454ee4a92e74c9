#include "sim/faults.hpp"

#include <algorithm>
#include <memory>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <vector>

#include "core/fault/fault_kind.hpp"
#include "core/fault/stochastic.hpp"
#include "sim/job.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

namespace {

struct Change {
  double at;
  std::size_t order;  // fault order: ties keep it, a fault's repair after the fault
  std::size_t fault;  // index in the injector's fault list
  bool down;
};

struct Target {
  std::vector<int> gpus;    // global GPU indices (node_crash, gpu_failure, straggler, hang)
  std::vector<int> cables;  // cables turned off (or slowed, for storage_slow)
  int node = -1;
  int job = -1;  // checkpoint_corrupt
};

std::vector<int> cables_of(const Topology& t, VertexId v, bool nic_only = false) {
  std::vector<int> out;
  for (auto [e, end] = boost::out_edges(v, t.graph()); e != end; ++e)
    if (!nic_only || t.graph()[*e].kind == LinkKind::Nic) out.push_back(t.graph()[*e].id);
  std::sort(out.begin(), out.end());
  return out;
}

Target resolve(const Platform& p, const FaultSpec& f, std::size_t i) {
  const Topology& t = p.topology();
  Target tg;
  auto fail = [&] {
    throw std::invalid_argument("fault " + std::to_string(i) + " (" + to_string(f.kind) + "): no " +
                                to_string(component_of(f.kind)) + " named \"" + f.target + "\"");
  };
  switch (f.kind) {
    case FaultKind::NodeCrash:
    case FaultKind::Hang:
    case FaultKind::Deadlock:
      tg.node = t.find_node(f.target);
      if (tg.node < 0) fail();
      for (int l = 0; l < t.gpus_per_node(); ++l) tg.gpus.push_back(tg.node * t.gpus_per_node() + l);
      if (f.kind == FaultKind::NodeCrash) tg.cables = p.node_cables(tg.node);
      break;
    case FaultKind::GpuFailure:
    case FaultKind::NicDown:
    case FaultKind::Straggler: {
      int v = t.find_vertex(f.target);
      if (v < 0 || t.graph()[v].kind != VertexKind::Gpu) fail();
      const auto& props = t.graph()[v];
      tg.node = props.node;
      tg.gpus = {props.node * t.gpus_per_node() + props.local};
      if (f.kind != FaultKind::Straggler) tg.cables = cables_of(t, v, f.kind == FaultKind::NicDown);
      if (f.kind == FaultKind::NicDown && tg.cables.empty()) fail();
      break;
    }
    case FaultKind::LinkDown: {
      int c = t.find_link(f.target);
      if (c < 0) fail();
      tg.cables = {c};
      break;
    }
    case FaultKind::SwitchDown:
    case FaultKind::StorageSlow: {
      int v = t.find_vertex(f.target);
      if (v < 0) fail();
      tg.cables = cables_of(t, v);
      break;
    }
    case FaultKind::CheckpointCorrupt:  // a job, resolved by start_faults(), which knows the scenario
      break;
  }
  return tg;
}

class Injector {
 public:
  Injector(World& w, std::vector<FaultSpec> faults, std::vector<Target> targets)
      : w_(w), faults_(std::move(faults)), targets_(std::move(targets)),
        gpu_down_(static_cast<std::size_t>(w.platform.topology().total_gpus()), 0) {}

  void apply(const Change& c) {
    const FaultSpec& f = faults_[c.fault];
    const Target& tg = targets_[c.fault];
    Platform& p = w_.platform;
    const std::string cause = describe(f);
    switch (f.kind) {
      case FaultKind::NodeCrash:
      case FaultKind::GpuFailure: {
        std::vector<sg4::Host*> off;
        for (int g : tg.gpus)
          if ((c.down ? gpu_down_[g]++ : --gpu_down_[g]) == 0) off.push_back(p.gpu(g));
        if (c.down) strike(w_, off, tg.cables, cause, to_string(f.kind));
        for (sg4::Host* h : off) c.down ? h->turn_off() : h->turn_on();
        for (int cable : tg.cables) c.down ? p.cable_down(cable) : p.cable_up(cable);
        const int gpu = f.kind == FaultKind::GpuFailure ? tg.gpus.front() : -1;
        w_.post(c.down ? Event(NodeDown{tg.node, to_string(f.kind), gpu}) : Event(NodeUp{tg.node}));
        break;
      }
      case FaultKind::NicDown:
      case FaultKind::LinkDown:
      case FaultKind::SwitchDown:
        if (c.down) strike(w_, {}, tg.cables, cause, to_string(f.kind));
        for (int cable : tg.cables) {
          c.down ? p.cable_down(cable) : p.cable_up(cable);
          w_.post(c.down ? Event(LinkDown{cable}) : Event(LinkUp{cable}));
        }
        // Down: the attempts whose routes crossed these cables were struck (blocked, they measure again when resumed);
        // no other route moves. Up: routes that went around them come back onto them.
        if (!c.down) w_.wake_routes_over(tg.cables);
        break;
      case FaultKind::Straggler:
        for (int g : tg.gpus) w_.gpu_speed[g] = c.down ? f.fraction : 1.0;
        w_.wake_gpus(tg.gpus);
        break;
      case FaultKind::StorageSlow:
        for (int cable : tg.cables) p.set_bandwidth_factor(cable, c.down ? f.fraction : 1.0);
        break;
      case FaultKind::CheckpointCorrupt:
        w_.post(Event(CheckpointCorrupted{tg.job}));
        break;
      case FaultKind::Hang:
      case FaultKind::Deadlock: {
        std::vector<sg4::Host*> hosts;
        for (int g : tg.gpus) hosts.push_back(p.gpu(g));
        strike(w_, hosts, {}, cause, to_string(f.kind), /*hang=*/true);
        break;
      }
    }
    // A crashed node or failed GPU: its attempts were struck, and the load they leave is the nominal load's business
    // (world.hpp); a GPU cable carries nothing else. Storage, hangs, corruption: no pace changes.
  }

  const std::vector<FaultSpec>& faults() const { return faults_; }

 private:
  World& w_;
  std::vector<FaultSpec> faults_;
  std::vector<Target> targets_;
  std::vector<int> gpu_down_;  // overlapping failures of each GPU host: on again when the last one is repaired

  static std::string describe(const FaultSpec& f) {
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
      default: what = std::string(to_string(f.kind)) + " of " + f.target; break;
    }
    return f.cause.empty() ? what : what + " (" + f.cause + ")";
  }
};

}  // namespace

void start_faults(World& w) {
  std::vector<FaultSpec> faults = scenario_faults(w.scenario);
  std::vector<Target> targets;
  std::vector<Change> changes;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    targets.push_back(resolve(w.platform, faults[i], i));
    if (faults[i].kind == FaultKind::CheckpointCorrupt) {
      for (std::size_t j = 0; j < w.scenario.jobs.size(); ++j)
        if (w.scenario.jobs[j].name == faults[i].target) targets.back().job = static_cast<int>(j);
      if (targets.back().job < 0)
        throw std::invalid_argument("fault " + std::to_string(i) + " (checkpoint_corrupt): no job named \"" +
                                    faults[i].target + "\"");
    }
    changes.push_back({faults[i].at.value, 2 * i, i, true});
    if (!without_repair(faults[i].kind)) changes.push_back({(faults[i].at + faults[i].repair).value, 2 * i + 1, i, false});
  }
  if (changes.empty()) return;
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.at != b.at ? a.at < b.at : a.order < b.order;
  });
  auto injector = std::make_shared<Injector>(w, std::move(faults), std::move(targets));
  w.faults = sg4::Actor::create("faults", w.platform.mgmt(), [&w, injector, changes = std::move(changes)] {
    try {
      for (const Change& c : changes) {
        if (c.at >= w.scenario.sim.horizon.value) break;
        if (c.at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(c.at);
        injector->apply(c);
      }
    } catch (const simgrid::ForcefulKillException&) {
      throw;
    } catch (...) {
      w.fail("faults", std::current_exception());
    }
  });
}

}  // namespace tt::sim
