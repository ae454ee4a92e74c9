// World: what the driver's actors share inside one simulation (SimGrid actors are cooperative: no data races, and
// no s4u Mutex may be held by an actor that can be killed, so only the controller actor ever locks one).
// Jobs and the fault injector post events with post(); the controller actor waits for them on `events_cv` with a
// deadline.
// Fast-forwarding jobs wait on their own semaphore (a ConditionVariable needs a Mutex, which a killed waiter would
// leave locked); a change that may alter a job's pace marks it dirty and releases its semaphore, and it measures again:
// - nominal load: every job with a pace puts its average bytes/s on the shared links its iteration flows cross: the
//   SimGrid links (one per direction) of cables between two switches, a leaf's bonded uplinks being one link, as
//   SimGrid shares them (a cable at a GPU carries only its job's traffic). When a job's nominal load appears or goes
//   (its first pace, a stall, a block, its end: set_nominal(), leave()), each job sharing one of those links measures
//   again if, on one of its links, its own flows needed (at their measured rates, with a margin) more than the others
//   left it there, before or now, and its pace could have moved by more than `sim.remeasure_threshold`: the share of
//   its iteration spent in steps crossing the link times the relative change, since it last measured, of the capacity
//   the others leave it there. A link with room to spare for its flows does not bind it: under max-min sharing its
//   rates do not depend on that link's spare capacity. A pace measured again updates the job's load without waking
//   anyone: the sharers' measurements overlap, and each would move the others' paces a little in turn without end;
//   since every check compares with the load seen at the last measurement, such changes add up and count at the next
//   event, or when the job checks its own links between two fast-forwarded stretches (at each checkpoint: job.cpp),
//   which bounds the back and forth to one measurement per job and checkpoint interval. (Until 2026-12-07 only the
//   next event: a job that measured beside a neighbour's first pace ran on it until then, though the neighbour's
//   next measurement, beside it, moved its load by tens of percent.)
// - wake_routes_over(): a link, NIC or switch repaired (routes that went around it come back); wake_gpus(): a
//   straggler's GPUs.
// A job whose iteration flows cross no shared link runs alone on its cables: its pace depends only on its own flows,
// routes and compute, and a measurement is reused for the same signature (`paces`); likewise the duration of each
// part of a step that crosses no shared link, or of any step while no other attempt crosses one (`step_times`,
// job.hpp: a 2,048-GPU job's tensor-parallel all-reduces inside its nodes; alone on the fabric, its rings per rail).
// A job whose flows have room on every shared link it crosses runs as if alone too: it takes a pace kept for its
// signature (`shared_paces`).
#pragma once

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/control/events.hpp"
#include "core/model/scenario.hpp"
#include "sim/activities.hpp"
#include "sim/platform.hpp"

namespace tt::sim {

struct JobRun;

// A pace signature (pace_signature, job_parts.cpp) kept as its 128-bit XXH3 digest (xxHash): a 2,048-GPU job's
// signature runs to megabytes, and a month of a fleet measures thousands. (Until 2026-12-07 two 64-bit digests,
// libstdc++'s std::hash and FNV-1a a byte at a time: 2.5% of the 16,384-GPU month's CPU samples, against 0.15% now.)
struct PaceKey {
  std::uint64_t a = 0, b = 0;
  static PaceKey of(std::string_view bytes);
  bool operator==(const PaceKey&) const = default;
};
struct PaceKeyHash {
  std::size_t operator()(const PaceKey& k) const { return static_cast<std::size_t>(k.a); }
};

struct World {
  const Scenario& scenario;
  Platform& platform;
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();  // held by the controller actor only
  simgrid::s4u::ConditionVariablePtr events_cv = simgrid::s4u::ConditionVariable::create();
  std::deque<Event> events;
  std::uint64_t epoch = 0;                                // changes that could alter paces (RunStats)
  std::map<std::pair<int, int>, std::unique_ptr<JobRun>> runs;  // by (job, attempt); kept until the end
  // The attempts not known to have ended (Completed or Killed), in the order of `runs`: what a fault looks at (a
  // month of a fleet keeps tens of thousands of ended ones). for_each_live() drops the ended ones it meets.
  std::map<std::pair<int, int>, JobRun*> live;
  void for_each_live(const std::function<void(JobRun&)>& f);
  std::exception_ptr error;                               // set by an actor that hit a bug; stops the run
  std::string error_actor;
  std::vector<double> gpu_speed;                          // by global GPU: fraction of peak left (stragglers)
  long long fast_forwards = 0;
  std::vector<double> ff_node_rate;  // by node: bytes/s fast-forwarding jobs put through its NICs (telemetry)
  std::vector<int> ff_node_jobs;     // ... from how many jobs (none: exactly 0, no rounding residue)
  long long measurements = 0;  // explicit measurements of a pace
  long long remeasurements = 0;  // ... by an attempt that had measured before
  long long pace_reuses = 0;   // paces taken from `paces` instead
  std::vector<double> link_load;                 // by SimGrid link (JobRun::shared): nominal bytes/s
  struct LinkUser {
    JobRun* run;
    int index;  // the link's index in its JobRun::shared
  };
  std::vector<std::vector<LinkUser>> link_users;  // attempts whose iteration flows cross each
  std::unordered_map<PaceKey, double, PaceKeyHash> paces;  // iteration time of lone jobs by signature (job.cpp)
  // A job that crosses shared links but is bound by none of them runs as if alone on its cables: its pace, and its
  // flows' peak and busy share on each shared link (JobRun::peak, busy; by JobRun::shared_order), by signature (made
  // with each link's bandwidth before reservations). Taken while its flows have room on each link next to the others'
  // nominal load now (has_room()); kept only from a measurement that had that room before and after, that no change
  // interrupted and that no other attempt measured beside over one of its links.
  struct SharedPace {
    double time = 0;
    std::vector<double> peak, busy;
  };
  std::unordered_map<PaceKey, SharedPace, PaceKeyHash> shared_paces;
  long long shared_pace_reuses = 0;  // paces taken from `shared_paces`
  std::vector<int> link_measuring;   // by SimGrid link: attempts measuring whose iteration flows cross it
  struct PartTime {
    double time = 0;            // from the step's start to the part's end, its groups' latencies included
    std::vector<double> rates;  // its flows' average rates (bytes/s), groups and flows in order
  };
  std::unordered_map<std::string, PartTime> step_times;  // a step part's measurement by signature (job.hpp)
  long long step_reuses = 0;  // step parts timed from `step_times` instead of SimGrid
  long long drift_link_checks = 0;  // shared links drifted() looked at (drifted_on)
  int sharing = 0;            // attempts in link_users with at least one shared link
  std::vector<char> shared_cable;  // by cable: between two switches (compile_footprint(), made once)
  std::vector<int> link_scratch;   // by link number (Platform::link_count()): -1 between uses (Renamer)
  // A pace signature's bytes (pace_signature), kept between signatures: a large job's run to megabytes, and a string
  // made anew for each grew by doubling, copying and faulting in fresh pages each time.
  std::string signature_bytes;
  std::uint32_t mark_stamp = 0;                   // scratch for set_nominal(): each job checked once per change
  FlowCensus flows;  // the jobs' collective and checkpoint flows in flight (RunStats)

  World(const Scenario& s, Platform& p);
  ~World();

  void post(Event e) {
    events.push_back(std::move(e));
    events_cv->notify_all();
  }
  // The attempt's links join link_users (start_job) and leave them (it ended, stalled or was killed).
  void join(JobRun& r);
  void leave(JobRun& r);
  // The attempt's pace is now `t` seconds per iteration (0: it puts no load, it is blocked): updates link_load and,
  // with `notify`, wakes the jobs sharing its links that drifted (see above).
  void set_nominal(JobRun& r, double t, bool notify = true);
  // Whether the others' nominal load on the attempt's shared links moved, since it last measured, enough that its pace
  // could have moved by more than `sim.remeasure_threshold` (the rule above). After an answer of no, it looks again
  // only at the links whose load changed since (JobRun::drift_clear), not at every one of its shared links: a
  // neighbour's new pace is checked against the links the two share.
  bool drifted(JobRun& r);
  bool drifted_on(const JobRun& r, std::size_t i) const;  // ... on its shared link i alone
  // The share of its average load that an attempt fast-forwarding at `t` seconds per iteration sets aside on its shared
  // link i (JobRun::shared) for the others: it sends there only in the steps that cross it, a share p of its time
  // (JobRun::busy), at its average rate / p. A job measuring beside it gets during a burst what max-min sharing leaves
  // it, g = max(C - rate, C / 2) (both want more), and the whole link otherwise. Transfers short against the bursts
  // meet one in a share p of them: they take as long as beside a steady load of C - 1 / (p / g + (1 - p) / C). Long
  // ones see the time average of the rates: a steady load of p (C - g). The load set aside is the mean of the two,
  // never above the average. Where its bursts fill the link: (p / (1 + p) + p / 2) / 2 of the link against p. 1 when
  // it has not measured.
  double steady_share(const JobRun& r, std::size_t i, double t) const;
  // Records the others' load on the attempt's links as it starts measuring.
  void snapshot_seen(JobRun& r);
  // The others' nominal load on the attempt's shared link i (JobRun::shared).
  double others_on(const JobRun& r, std::size_t i) const;
  // Whether flows needing `peak` on each of the attempt's shared links (JobRun::shared) have room there next to the
  // others' nominal load, now and as last seen (JobRun::seen): no link then binds them (the drift rule's margin).
  bool has_room(const JobRun& r, const std::vector<double>& peak) const;
  // The attempt starts (true) or stops measuring explicitly: marks it, and those measuring over one of its links,
  // `overlapped`.
  void measuring(JobRun& r, bool on);
  // Wakes the attempts blocked on cables, and the training ones whose iteration flows' routes cross one of `cables` now.
  void wake_routes_over(const std::vector<int>& cables);
  void wake_gpus(const std::vector<int>& gpus);
  void fail(std::string actor, std::exception_ptr e) {
    if (!error) {
      error = std::move(e);
      error_actor = std::move(actor);
    }
    events_cv->notify_all();
  }
};

}  // namespace tt::sim
