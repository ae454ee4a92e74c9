// Flow-level collectives (ARCHITECTURE.md "Simulating fast"). A group runs the transfers the CommPlanner chose for it
// (core/plan/comm_planner.hpp): one flow per transfer of share x bytes (ring edges of every channel, tree edges up and
// down, NVLS exchanges, point-to-point sends), phase after phase (a hierarchical all-reduce: reduce-scatter in the
// nodes, all-reduce across them, all-gather), then calls x the planned latency. Flows pay no latency of their own
// (platform.hpp), so the planned latency is the whole latency. A group the planner did not plan is refused
// (require_planned(): std::logic_error); one that moves nothing takes no time. The groups of a step run concurrently
// and share links through SimGrid's max-min model; a step ends with its slowest group.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/model/units.hpp"
#include "core/plan/iteration_plan.hpp"
#include "core/topo/topology.hpp"
#include "sim/activities.hpp"
#include "sim/platform.hpp"

namespace tt::sim {

struct Flow {
  simgrid::s4u::Host* from = nullptr;
  simgrid::s4u::Host* to = nullptr;
  double bytes = 0;
  const Route* route = nullptr;
  int phase = 0;                                // the group's phase it belongs to
  // The pair's mailbox, where its two ends meet when the flow runs as a mailbox comm (run_flows), looked up by name at
  // its first such run: most flows never need one (a 16,384-GPU iteration compiles 145,000 flows and runs ~350; making
  // a mailbox for each was half of compiling them).
  mutable simgrid::s4u::Mailbox* mailbox = nullptr;
};

// A flow of `bytes` from one host to another, with its route.
Flow make_flow(const Platform& platform, simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes, int phase = 0);

struct FlowGroup {
  std::vector<Flow> flows;
  int phases = 1;   // flows of phase p + 1 start when those of phase p are done
  Seconds latency;  // added once the group's flows are done
};

struct FlowStep {
  std::string label;
  std::vector<FlowGroup> groups;
};

FlowGroup compile_group(const Platform& platform, const CommGroup& group);
FlowStep compile_step(const Platform& platform, const CommStep& step);

// Runs one step from the calling actor and returns when its slowest group is done, with each group's duration.
// A SimGrid failure propagates after the step's other flows are cancelled. Each flow is a direct host-to-host comm
// (Comm::sendto_async) started and waited for by the calling actor while at most 4,096 are in flight, else a mailbox
// comm between a sender actor on its source host and a receiver actor on its destination host, one of each per host
// and batch. SimGrid 3.32 files every direct comm on one std::list that each ending one scans (std::list::remove),
// quadratic in the direct comms in flight: a 16,384-GPU iteration (145,409 flows) took 26 s with direct comms only,
// 3.0 s with mailbox comms only; a mailbox comm sits on its two actors' short lists but costs two actors' wake-ups, so
// below the bound direct comms are faster (the 4,096-GPU fleet month: 13.0 s against 18.7 s).
// With `rates`, also the average rate of each flow (bytes over its duration; groups and flows in order).
std::vector<Seconds> run_step(const FlowStep& step, InFlight& inflight, std::vector<double>* rates = nullptr);

struct CollectiveTimes {
  std::vector<Seconds> steps;                // duration of each step
  std::vector<std::vector<Seconds>> groups;  // duration of each group of each step
  Seconds total;
  std::map<std::string, std::string> settings;  // the pinned SimGrid settings (platform.hpp)
};

// At most this many direct comms in flight before run_step's flows go through mailboxes (default 4,096; 0: always
// mailboxes). For tests, which check that both give the same times.
void set_direct_comm_bound(long long flows);

// Builds the topology's platform in this process's one SimGrid engine and runs the steps in order, flows only (no
// compute). For tests and `traintwin comm --sim`; call at most once per process (see sim/isolated.hpp).
CollectiveTimes time_collectives(const Topology& topology, const std::vector<CommStep>& steps);

}  // namespace tt::sim
