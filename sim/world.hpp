// World: what the driver's actors share inside one simulation (SimGrid actors are cooperative: no data races, and
// no s4u Mutex may be held by an actor that can be killed, so only the controller actor ever locks one).
// Jobs and the fault injector post events with post(); the controller actor waits for them on `events_cv` with a
// deadline.
// Fast-forwarding jobs wait on their own semaphore (a ConditionVariable needs a Mutex, which a killed waiter would
// leave locked); a change that may alter a job's pace marks it dirty and releases its semaphore, and it measures again:
// - nominal load: every job with a pace puts its average bytes/s on the directional shared links its iteration flows
//   cross (cables between two switches; a cable at a GPU carries only its job's traffic). When a job's nominal load
//   appears or goes (its first pace, a stall, a block, its end: set_nominal(), leave()), each job sharing one of
//   those links measures again if, on one of its links, its own flows needed (at their measured rates, with a margin)
//   more than the others left it there, before or now, and its pace could have moved by more than
//   `sim.remeasure_threshold`: the share of its iteration spent in steps crossing the link times the relative change,
//   since it last measured, of the capacity the others leave it there. A link with room to spare for its flows does
//   not bind it: under max-min sharing its rates do not depend on that link's spare capacity. A pace measured again updates the job's load
//   without waking anyone: the sharers' measurements overlap, and each would move the others' paces a little in turn
//   without end; since every check compares with the load seen at the last measurement, such changes add up and
//   count at the next event.
// - joint measurement: a job measuring while a job sharing one of its links fast-forwards would see that job's
//   average rate all the time, where explicitly the two send in bursts that interleave (a job whose communication is
//   much of its iteration then measures far too slow, its sharer too fast). So a job that starts measuring for a change
//   (its start, a drift above, a fault) asks the training sharers with a pace on a common link to measure alongside
//   (its own peaks are not known while it measures, so the flows of any of them could contend with its own): each
//   finishes the iteration in flight, then simulates iterations explicitly; every job of such a group times
//   `measure_iterations` iterations that all ran while the others were explicit too (a window starts again when a
//   sharer begins measuring, and ends where a sharer went back to fast-forward) and keeps simulating until its sharers'
//   windows are complete too, and until its own covers the longest iteration of a sharer measuring alongside, so that
//   the fastest job sees every part of the slowest one's iteration (at most 256 iterations, job.cpp). A job asked to
//   measure does not ask its own sharers in turn (the group stays one link deep; farther jobs count by their average
//   load). Jobs that measured together do not wake each other when their paces come out; a job that measured alongside
//   another measures again when that one's load changes (JobRun::partners), whatever the threshold.
// - pauses: a checkpoint shifts a job's iterations against those of its sharers (two jobs of equal iterations lock
//   into one way of interleaving their bursts until the next pause), so the sharers whose flows could contend with its
//   own (their peaks and its own, from the last measurements, exceed a common link: contended()) simulate explicitly
//   through it, and after it the job measures again alongside them.
// - wake_routes_over(): a link, NIC or switch repaired (routes that went around it come back); wake_gpus(): a
//   straggler's GPUs.
// A job whose iteration flows cross no shared link runs alone on its cables: its pace depends only on its own flows,
// routes and compute, and a measurement is reused for the same signature (`paces`); likewise the duration of any
// step that crosses no shared link (`step_times`: a 2,048-GPU job's tensor-parallel all-reduces inside its nodes).
#pragma once

#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/control/events.hpp"
#include "core/model/scenario.hpp"
#include "sim/activities.hpp"
#include "sim/platform.hpp"

namespace tt::sim {

struct JobRun;

struct World {
  const Scenario& scenario;
  Platform& platform;
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();  // held by the controller actor only
  simgrid::s4u::ConditionVariablePtr events_cv = simgrid::s4u::ConditionVariable::create();
  std::deque<Event> events;
  std::uint64_t epoch = 0;                                // changes that could alter paces (RunStats)
  std::map<std::pair<int, int>, std::unique_ptr<JobRun>> runs;  // by (job, attempt); kept until the end
  std::exception_ptr error;                               // set by an actor that hit a bug; stops the run
  std::string error_actor;
  std::vector<double> gpu_speed;                          // by global GPU: fraction of peak left (stragglers)
  long long fast_forwards = 0;
  std::vector<double> ff_node_rate;  // by node: bytes/s fast-forwarding jobs put through its NICs (telemetry)
  std::vector<int> ff_node_jobs;     // ... from how many jobs (none: exactly 0, no rounding residue)
  long long measurements = 0;  // explicit measurements of a pace
  long long remeasurements = 0;  // ... by an attempt that had measured before
  long long pace_reuses = 0;   // paces taken from `paces` instead
  std::vector<double> link_load;                 // by directional link (2 x cable + reverse): nominal bytes/s
  std::vector<std::vector<JobRun*>> link_users;  // attempts whose iteration flows cross each directional link
  std::unordered_map<std::string, double> paces;  // iteration time of lone jobs by signature (job.cpp)
  std::unordered_map<std::string, double> step_times;  // duration of steps that cross no shared link, by signature
  long long step_reuses = 0;
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
  // Records the others' load on the attempt's links as it starts measuring.
  void snapshot_seen(JobRun& r);
  // The attempt starts measuring (joint measurement, above): unless a sharer asked it to, it asks the training jobs
  // with a pace that share a link with it to measure alongside; the sharers measuring now start a new window.
  // With `measures` false, the attempt pauses training instead (a checkpoint) and only asks its sharers.
  void begin_measuring(JobRun& r, bool measures = true);
  // Whether a job sharing one of the attempt's links was asked to measure alongside and has not begun, or measures and
  // has not yet completed its window, or pauses and asked it to measure: the attempt keeps simulating iterations
  // explicitly meanwhile.
  bool co_pending(const JobRun& r) const;
  // Whether a training job with a pace shares a link with the attempt where their flows could contend.
  bool contended(const JobRun& r) const;
  // Keeps the sharers that measured alongside the attempt's window that just ended (JobRun::partners): a change of
  // their load makes it measure again whatever the margins (its pace embodies their bursts, not their average).
  void note_partners(JobRun& r);
  // The longest last iteration among the sharers measuring alongside (0: none).
  double longest_sharer_iteration(const JobRun& r) const;
  // The attempt's measurement ended: the windows of the sharers measuring alongside end with their iteration in flight.
  void end_measuring(JobRun& r);
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
