#include "sim/faults.hpp"

#include "sim/job.hpp"

#include <algorithm>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace tt::sim {

namespace {

struct Change {
  double at;
  std::size_t order;  // scenario order: ties keep it, a fault's repair after the fault
  const FaultSpec* fault;
  int target;  // node or cable index
  bool down;
};

// `node_down` counts overlapping crashes of each node: it is back when the last one is repaired.
// A failure first strikes the jobs it hits (their exact progress is posted, then they stall), then the controller
// hears the ground truth.
void apply(World& w, const Change& c, std::vector<int>& node_down) {
  Platform& p = w.platform;
  const Topology& topo = p.topology();
  Event event;
  if (c.fault->kind == FaultKind::Hang) {  // the node's jobs stop where they are; the node itself stays in service
    std::vector<sg4::Host*> hosts;
    for (int local = 0; local < topo.gpus_per_node(); ++local)
      hosts.push_back(p.gpu(c.target * topo.gpus_per_node() + local));
    strike(w, hosts, {}, "node " + topo.nodes()[c.target].name + " hung");
    w.cluster_changed();
    return;  // the controller hears of it through the jobs' JobStalled, as it would from missed heartbeats
  }
  if (c.fault->kind == FaultKind::NodeCrash) {
    int& downs = node_down[c.target];
    downs += c.down ? 1 : -1;
    if (downs != (c.down ? 1 : 0)) return;  // already down, or still down for another crash
    const std::string& name = topo.nodes()[c.target].name;
    std::vector<sg4::Host*> hosts;
    for (int local = 0; local < topo.gpus_per_node(); ++local)
      hosts.push_back(p.gpu(c.target * topo.gpus_per_node() + local));
    const std::vector<int> cables = p.node_cables(c.target);
    if (c.down) strike(w, hosts, cables, "node " + name + " crashed");
    for (sg4::Host* h : hosts) c.down ? h->turn_off() : h->turn_on();
    for (int cable : cables) c.down ? p.cable_down(cable) : p.cable_up(cable);
    event = c.down ? Event(NodeDown{c.target, "node_crash"}) : Event(NodeUp{c.target});
  } else {
    if (c.down) strike(w, {}, {c.target}, "link " + topo.link(c.target).name + " went down");
    c.down ? p.cable_down(c.target) : p.cable_up(c.target);
    event = c.down ? Event(LinkDown{c.target}) : Event(LinkUp{c.target});
  }
  w.post(std::move(event));
  w.cluster_changed();
}

}  // namespace

void start_faults(World& w) {
  const Topology& topo = w.platform.topology();
  std::vector<Change> changes;
  for (std::size_t i = 0; i < w.scenario.faults.size(); ++i) {
    const FaultSpec& f = w.scenario.faults[i];
    const bool on_node = f.kind != FaultKind::LinkDown;
    int target = on_node ? topo.find_node(f.target) : topo.find_link(f.target);
    if (target < 0)
      throw std::invalid_argument("fault " + std::to_string(i) + ": no " + (on_node ? "node" : "link") + " named \"" +
                                  f.target + "\"");
    changes.push_back({f.at.value, 2 * i, &f, target, true});
    if (f.kind != FaultKind::Hang) changes.push_back({(f.at + f.repair).value, 2 * i + 1, &f, target, false});
  }
  if (changes.empty()) return;
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.at != b.at ? a.at < b.at : a.order < b.order;
  });
  w.faults = sg4::Actor::create("faults", w.platform.mgmt(), [&w, changes = std::move(changes)] {
    try {
      std::vector<int> node_down(w.platform.topology().nodes().size(), 0);
      for (const Change& c : changes) {
        if (c.at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(c.at);
        apply(w, c, node_down);
      }
    } catch (const simgrid::ForcefulKillException&) {
      throw;
    } catch (...) {
      w.fail("faults", std::current_exception());
    }
  });
}

}  // namespace tt::sim
