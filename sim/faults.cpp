#include "sim/faults.hpp"

#include <simgrid/s4u.hpp>

#include "core/fault/fault_kind.hpp"
#include "sim/job.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

FaultInjector::FaultInjector(World& w)
    : w_(w), gpu_down_(static_cast<std::size_t>(w.platform.topology().total_gpus()), 0) {}

void FaultInjector::apply(const FaultChange& c, const FaultSpec& f, const FaultTarget& tg) {
  Platform& p = w_.platform;
  const bool down = c.starts;
  const std::string cause = describe_fault(f);
  switch (f.kind) {
    case FaultKind::NodeCrash:
    case FaultKind::GpuFailure: {
      std::vector<sg4::Host*> off;
      for (int g : tg.gpus)
        if ((down ? gpu_down_[g]++ : --gpu_down_[g]) == 0) off.push_back(p.gpu(g));
      if (down) strike(w_, off, tg.cables, cause, f.kind);
      for (sg4::Host* h : off) down ? h->turn_off() : h->turn_on();
      for (int cable : tg.cables) down ? p.cable_down(cable) : p.cable_up(cable);
      const int gpu = f.kind == FaultKind::GpuFailure ? tg.gpus.front() : -1;
      w_.post(down ? Event(NodeDown{tg.node, f.kind, gpu}) : Event(NodeUp{tg.node}));
      break;
    }
    case FaultKind::NicDown:
    case FaultKind::LinkDown:
    case FaultKind::SwitchDown:
      if (down) strike(w_, {}, tg.cables, cause, f.kind);
      for (int cable : tg.cables) {
        down ? p.cable_down(cable) : p.cable_up(cable);
        w_.post(down ? Event(LinkDown{cable}) : Event(LinkUp{cable}));
      }
      // Down: the attempts whose routes crossed these cables were struck (blocked, they measure again when resumed);
      // no other route moves. Up: routes that went around them come back onto them.
      if (!down) w_.wake_routes_over(tg.cables);
      break;
    case FaultKind::Straggler:
      for (int g : tg.gpus) w_.gpu_speed[g] = down ? f.fraction : 1.0;
      w_.wake_gpus(tg.gpus);
      break;
    case FaultKind::StorageSlow:
      for (int cable : tg.cables) p.set_bandwidth_factor(cable, down ? f.fraction : 1.0);
      break;
    case FaultKind::CheckpointCorrupt:
      w_.post(Event(CheckpointCorrupted{tg.job}));
      break;
    case FaultKind::Hang:
    case FaultKind::Deadlock: {
      std::vector<sg4::Host*> hosts;
      for (int g : tg.gpus) hosts.push_back(p.gpu(g));
      // A hung node's ranks are stopped (no heartbeats); deadlocked ones stay alive and heartbeat.
      strike(w_, hosts, {}, cause, f.kind, f.kind == FaultKind::Hang ? Symptom::Silent : Symptom::NoProgress);
      break;
    }
  }
  // A crashed node or failed GPU: its attempts were struck, and the load they leave is the nominal load's business
  // (world.hpp); a GPU cable carries nothing else. Storage, hangs, corruption: no pace changes.
}

}  // namespace tt::sim
