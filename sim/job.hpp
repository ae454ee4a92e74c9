// A job attempt in the simulation: an actor on the management host that drives compute on the job's GPU hosts and
// its collectives' flows over the modeled links (ARCHITECTURE.md), iteration by iteration or, in steady state, by
// fast-forward. It posts JobProgress, CheckpointDone, JobCompleted, or JobStalled when a GPU or link it uses fails
// (its actor then ends; the controller's Kill finds nothing left to stop).
//
// Fast-forward: after `measure_iterations` explicit iterations measured at T each, the job advances to its next
// checkpoint (or its end) in one timed wait. A change that may alter its pace (world.hpp: the nominal load of jobs
// sharing its links drifted, a fault that moves routes, a straggler among its GPUs) interrupts the wait: the job
// finishes the iteration in flight at T, credits the iterations done, and measures again (or stalls if a resource it
// uses went down); such a change during the measurement makes it measure again at once. Meanwhile its average rate
// on each switch-to-switch cable its iteration crosses is set aside there (Platform::reserve), so that jobs measuring
// meanwhile see the contention (cables at a GPU carry only the traffic of the GPU's job). The load stays from one
// fast-forward to the next at the same pace (an async checkpoint's snapshot stall, seconds out of hours, keeps it, as
// the nominal load of world.hpp does); it goes when the job measures, writes a checkpoint that blocks training, waits
// for its previous checkpoint write, stalls, blocks on a cable, ends or is killed.
// A job that crosses no shared link takes the pace measured for an identical signature (its compute time and its
// flows' bytes, phases and routes, links renamed in order of appearance, with their bandwidth and state) when there is
// one: alone on its cables, the same flows give the same times.
// So does a job that crosses shared links where its flows have room on each next to the others' nominal load (with
// the links' bandwidth before reservations in its signature; world.hpp, shared_paces): no other job's traffic then
// sets its rates.
// Likewise, part by part, each step of an iteration it measures, when the step crosses no shared link or when no other
// attempt crosses one and no flow is in flight as the step starts: the step's groups split into parts that share no
// link (a 16,384-GPU job's data-parallel all-reduce: one ring per rail and stage), each part's duration and flow rates
// are taken from an identical signature's measurement, and only the parts never seen run in SimGrid (once for all
// parts of the same signature). Under max-min sharing, flows that share no link do not change each other's rates.
#pragma once

#include <cstdint>
#include <optional>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/control/events.hpp"
#include "sim/activities.hpp"
#include "sim/collective.hpp"
#include "sim/world.hpp"

namespace tt::sim {

struct JobRun {
  // Blocked: a cable on its routes went down; its actor waits for the cable (the controller may kill it first).
  enum class Phase { Starting, Training, Blocked, Stalled, Completed, Killed };
  Launch launch;
  std::string name;
  std::vector<simgrid::s4u::Host*> hosts;  // in rank order
  std::vector<FlowStep> steps;
  std::uint64_t routes_generation = 0;     // the platform's when the flows were made (their routes were current)
  std::optional<PaceKey> signature;        // its pace signature (pace_signature), made at this platform generation
  std::uint64_t signature_generation = 0;  // ... and compute time
  double signature_compute = 0;
  std::vector<char> step_lone;             // by step: its flows cross no shared link (job.cpp reuses its time)
  // By step: its groups split into parts that share no link, each with its signature (job_parts.cpp), made once for a
  // lone step, at each use for one that crosses shared links.
  struct StepParts {
    bool made = false;
    std::uint64_t generation = 0;                  // the platform's when made
    std::vector<std::vector<std::size_t>> groups;  // by part: its groups, in step order
    std::vector<std::string> signature;            // by part
  };
  std::vector<StepParts> step_parts;
  FlowGroup checkpoint;                    // one flow per writer to the storage host
  std::vector<std::pair<int, double>> nic_bytes;  // (node, bytes of one iteration) its pairs that cross a shared
                                                  // cable put through the node's NICs (World::ff_node_rate)
  std::vector<int> links;                  // directional shared cables its iteration flows cross (its fast-forward load)
  std::vector<double> link_bytes;          // ... the bytes of one iteration on each
  std::vector<int> link_pairs;             // ... the GPU pairs whose flows cross each
  std::vector<int> link_shared;            // ... the index in `shared` of each one's SimGrid link
  std::vector<double> load_bytes;          // ... the bytes its fast-forward load sets aside per iteration on each
  // The SimGrid links of those cables (Platform::link_count() numbers: a bond's members share one), which its flows
  // share with other jobs' (World::link_load).
  std::vector<int> shared;
  std::vector<double> shared_bytes;        // ... the bytes of one iteration on each
  std::vector<double> seen;                // ... the others' nominal load on each when it last measured (bytes/s)
  std::vector<double> peak;                // ... the most its flows of one step used of each then (bytes/s)
  std::vector<double> busy;                // ... the share of its measured time spent in steps crossing each
  // ... each one's number in order of first appearance on its flows' routes, as its pace signature names them (empty:
  // the signature does not cover them; World::shared_paces)
  std::vector<int> shared_order;
  bool measuring = false;                  // running iterations explicitly (World::link_measuring)
  bool overlapped = false;                 // ... next to another attempt measuring over one of its shared links
  double nominal_t = 0;                    // the pace its nominal load is counted at; 0: none
  // World::drifted() found no drift on any shared link, and since then only the links at these indices (in `shared`)
  // changed load, with the platform's capacity_changes() at `drift_capacity`.
  bool drift_clear = false;
  std::vector<int> drift_pending;
  std::uint64_t drift_capacity = 0;
  // What drifted() last found no longer holds: the attempt's own figures (pace, seen, peaks, busy shares) changed.
  void forget_drift() {
    drift_clear = false;
    drift_pending.clear();
  }
  bool joined = false;                     // in World::link_users
  std::uint32_t mark = 0;                  // World::set_nominal() scratch
  bool dirty = true;                       // a change that may alter its pace happened since it last measured
  Phase phase = Phase::Starting;
  bool checkpointing = false;              // writing a checkpoint now (its routes to storage are in use)
  bool checkpoint_now = false;             // asked for one (CheckpointNow): written after the iteration in flight
  std::optional<std::string> fault;        // set by strike(): the attempt stalls with this cause
  std::optional<FaultKind> fault_kind;     // ... the fault kind
  std::vector<int> blocked_on;             // ... cables it waits for (link faults: NCCL retries, no failure yet)
  std::optional<Symptom> stopped;          // ... it stops without dying (hang, deadlock), showing this symptom
  InFlight writer_inflight;                // the async checkpoint write in progress, if any
  bool writer_done = true;                 // no checkpoint writer runs (a pooled helper: run_helper); one that ends
                                           // releases `wake`
  std::int64_t iterations = 0;             // absolute iterations completed (before the fast-forward in progress)
  double iteration_time = 0;               // latest measured (s)
  double ff_start = -1;                    // the fast-forward in progress: its start (s), -1 when none
  std::int64_t ff_target = 0;              // ... and the iteration it runs to
  InFlight inflight;
  simgrid::s4u::ActorPtr actor;            // null once it ended
  simgrid::s4u::SemaphorePtr wake;         // set while it waits: released by World (a pace change) and kill_job()
  double load_pace = 0;                    // the pace its fast-forward load is reserved at (job.cpp); 0: none
};

// Compiles the launch against the platform (job_footprint.cpp: hosts, flows, the shared links it loads, checkpoint
// flows) and starts its actor on the management host.
JobRun& start_job(World& world, Launch launch);
// Stops the attempt: cancels its activities (its actor then returns) or kills its actor if it sleeps, and gives back
// its fast-forward load. A no-op once it completed.
void kill_job(World& world, JobRun& run);
// The controller asked for a checkpoint now (CheckpointNow): a training attempt ends the iteration in flight (a
// fast-forward is interrupted like by a pace change) and writes one, then trains on at its cadence. Ignored while it
// writes one or once it stopped.
void request_checkpoint(JobRun& run);
// Fills the run's hosts, steps, lone steps, shared-link footprint and checkpoint flows from its launch.
void compile_footprint(World& world, JobRun& run);

// Numbers links in order of first appearance (signatures: links renamed), over World::link_scratch, which it leaves
// all -1. One at a time per World.
class Renamer {
 public:
  explicit Renamer(World& w);
  ~Renamer();
  Renamer(const Renamer&) = delete;
  Renamer& operator=(const Renamer&) = delete;
  // The link's number (Platform::link_count() range) renamed, and whether this is its first appearance.
  std::pair<int, bool> id(int link);

 private:
  std::vector<int>& slot_;
  std::vector<int> touched_;
};
// Appends a group's flows as bytes to a signature: their sizes, phases and routes, links renamed in order of
// appearance (`ids`), with their bandwidth and state, and the group's latency. `fresh`: the flows' routes were just
// looked up (Flow::route then holds the route now). `capacity`: each link's bandwidth with nothing reserved on it
// (Platform::capacity) instead of its bandwidth now.
void put_group(std::string& signature, const Platform& platform, const FlowGroup& group, Renamer& ids,
               bool fresh = false, bool capacity = false);
// Splits step `step` of the run into parts that share no SimGrid link (JobRun::StepParts), each with its signature
// (put_group() of its groups alone, links renamed per part) (job_parts.cpp).
void make_parts(World& world, JobRun& run, std::size_t step);
// What the time of one iteration of the run alone on its cables depends on, hashed: `compute` (its slowest GPU's
// compute time) and its steps' groups (put_group()), each link's bandwidth with nothing reserved where the run crosses
// shared links. Sets JobRun::shared_order: each shared link's number in order of first appearance on the routes, hop by
// hop (empty where the routes now and the run's links disagree). The bytes are made in World::signature_bytes.
PaceKey pace_signature(World& world, JobRun& run, double compute);
// Gives back the attempt's fast-forward load, if it has one.
void stop_load(World& world, JobRun& run);
// Iterations completed by now, the fast-forward in progress included.
std::int64_t progress(const JobRun& run);
// Called by the fault injector just before it turns `hosts` and `cables` off: every attempt that uses one of the
// hosts, or is training with a route over one of the cables, is interrupted now with `cause`, whatever it is doing.
// Struck through a host it stalls (or, with `stops`, stops without dying and shows that symptom); struck through
// cables only it blocks until
// they are back (NCCL retries the connections that use them; later routes go around them when they can), then trains
// on, unless the controller's communication timeout kills it first.
void strike(World& world, const std::vector<simgrid::s4u::Host*>& hosts, const std::vector<int>& cables,
            const std::string& cause, FaultKind kind, std::optional<Symptom> stops = std::nullopt);

}  // namespace tt::sim
