#include "sim/job.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <simgrid/Exception.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace tt::sim {

namespace {

double now() { return sg4::Engine::get_clock(); }

// Which resource of the job is down, if any: the cause of a stall.
std::optional<std::string> broken_resource(const World& w, const JobRun& r) {
  if (r.fault) return r.fault;
  for (sg4::Host* h : r.hosts)
    if (!h->is_on()) return "GPU " + h->get_name() + " went down";
  auto check = [&](const FlowGroup& g) -> std::optional<std::string> {
    for (const Flow& f : g.flows)
      for (int cable : w.platform.route(f.from, f.to).cables)
        if (!w.platform.cable_is_up(cable)) return "link " + w.platform.topology().link(cable).name + " went down";
    return std::nullopt;
  };
  for (const FlowStep& s : r.steps)
    for (const FlowGroup& g : s.groups)
      if (auto cause = check(g)) return cause;
  return check(r.checkpoint);
}

// Cables on the attempt's routes that are down now.
std::vector<int> down_cables(const World& w, const JobRun& r) {
  std::vector<int> out;
  auto check = [&](const FlowGroup& g) {
    for (const Flow& f : g.flows)
      for (int cable : w.platform.route(f.from, f.to).cables)
        if (!w.platform.cable_is_up(cable) && std::find(out.begin(), out.end(), cable) == out.end())
          out.push_back(cable);
  };
  for (const FlowStep& s : r.steps)
    for (const FlowGroup& g : s.groups) check(g);
  check(r.checkpoint);
  return out;
}

// Thrown inside the job actor when it stalls: unwinds to the actor's top level.
struct Stalled {
  std::string cause;
};

class JobActor {
 public:
  JobActor(World& w, JobRun& r) : w_(w), r_(r), l_(r.launch) {}

  void operator()() {
    // An ended actor whose ActorPtr lives on keeps its stack mapped (SimGrid 3.32): thousands of attempts over a month
    // ran into the kernel's limit of mappings per process. Nothing uses the pointer once the actor is gone.
    // Its flows and signatures are not needed once it ended either (World and strike() skip ended attempts; an async
    // checkpoint write still in flight keeps `checkpoint`).
    struct Forget {
      JobRun& r;
      ~Forget() {
        r.actor = nullptr;
        r.steps = {};
        r.launch.plan.steps = {};
        r.step_parts = {};
        r.signature.reset();
      }
    } forget{r_};
    try {
      if (l_.move) move_checkpoint(*l_.move);
      sg4::this_actor::sleep_for(l_.startup.value);
      r_.phase = JobRun::Phase::Training;
      r_.iterations = l_.start_iteration;
      if (!run_training()) return;
      stop_load();
      w_.post(JobCompleted{l_.job, l_.attempt});
      r_.phase = JobRun::Phase::Completed;
      w_.leave(r_);
    } catch (const simgrid::ForcefulKillException&) {
      throw;
    } catch (...) {
      w_.fail("job " + r_.name, std::current_exception());
    }
  }

  // The checkpoint crosses the inter-site link as one flow between the sites' storage hosts (SimGrid shares the link
  // with any other traffic on it), after the route's latency (links carry bandwidth only: sim/platform.hpp). A route
  // that fails under it leaves the move to the restart: the job goes on, as a restore would retry.
  void move_checkpoint(const CheckpointMove& m) {
    sg4::Host* from = w_.platform.storage_of_site(m.from_site);
    sg4::Host* to = w_.platform.storage_of_site(m.to_site);
    if (!from || !to || m.bytes.value <= 0) return;
    try {
      sg4::this_actor::sleep_for(w_.platform.route(from, to).latency.value);
      sg4::Comm::sendto(from, to, static_cast<std::uint64_t>(m.bytes.value));
    } catch (const simgrid::NetworkFailureException&) {
    }
  }

 private:
  World& w_;
  JobRun& r_;
  const Launch& l_;

  // Trains to the end (true), or until it stalls or is killed (false). A job struck through cables only waits for
  // them and goes on from the iteration that was in flight.
  bool run_training() {
    for (;;) {
      std::string cause;
      try {
        train();
        return true;
      } catch (const Stalled& s) {
        cause = s.cause;
      } catch (const Cancelled&) {  // by strike() (r_.fault says why) or kill_job()
        if (r_.phase == JobRun::Phase::Killed) return false;  // no cause to find: nobody hears it
        cause = broken_resource(w_, r_).value_or("cancelled");
      } catch (const simgrid::Exception& e) {  // a failure under an activity (or strike() cancelled it)
        if (r_.phase == JobRun::Phase::Killed) return false;
        cause = broken_resource(w_, r_).value_or(std::string("SimGrid: ") + e.what());
      }
      if (r_.phase == JobRun::Phase::Killed) return false;
      const bool hosts_on = std::all_of(r_.hosts.begin(), r_.hosts.end(), [](sg4::Host* h) { return h->is_on(); });
      if (!r_.stopped && hosts_on) {
        if (r_.blocked_on.empty()) r_.blocked_on = down_cables(w_, r_);  // a new flow met a cable already down
        if (!r_.fault_kind) r_.fault_kind = FaultKind::LinkDown;
        if (!r_.blocked_on.empty()) {
          if (!wait_for_links(cause)) return false;  // killed while it waited
          continue;
        }
      }
      stall(cause);
      return false;
    }
  }

  bool wait_for_links(const std::string& cause) {
    r_.phase = JobRun::Phase::Blocked;
    w_.post(JobStalled{l_.job, l_.attempt, r_.iterations, cause, Symptom::CommStalled, r_.fault_kind, r_.blocked_on});
    stop_load();
    w_.set_nominal(r_, 0);
    auto up = [&] {
      return std::all_of(r_.blocked_on.begin(), r_.blocked_on.end(),
                         [&](int c) { return w_.platform.cable_is_up(c); });
    };
    while (!up()) {
      auto wake = sg4::Semaphore::create(0);  // released by World::wake_routes_over() and by kill_job()
      r_.wake = wake;
      wake->acquire();
      r_.wake = nullptr;
      if (r_.phase == JobRun::Phase::Killed) return false;
    }
    r_.phase = JobRun::Phase::Training;
    r_.fault.reset();
    r_.fault_kind.reset();
    r_.blocked_on.clear();
    r_.inflight.cancelled = false;
    r_.inflight.waiting.clear();
    w_.post(JobResumed{l_.job, l_.attempt});
    r_.dirty = true;  // its routes may have moved
    return true;
  }

  void stall(const std::string& cause) {
    r_.phase = JobRun::Phase::Stalled;
    // Dead or stopped ranks fall silent; a job stopped by a fault that leaves its ranks alive shows what that fault
    // leaves to see (a deadlock: heartbeats without progress).
    w_.post(JobStalled{l_.job, l_.attempt, r_.iterations, cause, r_.stopped.value_or(Symptom::Silent), r_.fault_kind});
    stop_load();
    w_.leave(r_);
  }

  void train() {
    const std::int64_t total = l_.iterations;
    const std::int64_t every = l_.checkpoint_every;
    const std::int64_t measure = std::max(1, w_.scenario.sim.measure_iterations);
    std::int64_t written = l_.start_iteration;  // the iteration its newest checkpoint holds
    while (r_.iterations < total) {
      const std::int64_t checkpoint_at = every > 0 ? (r_.iterations / every + 1) * every : total;
      const std::int64_t boundary = std::min(checkpoint_at, total);
      // Asked for one now: once it has iterations its last checkpoint does not hold.
      auto asked = [&] { return r_.checkpoint_now && r_.iterations > written; };
      while (r_.iterations < boundary && !asked()) {
        if (w_.scenario.sim.fast_forward && !r_.dirty && r_.iteration_time > 0 && !w_.drifted(r_)) {
          // Nothing that shares a cable with the job changed since it measured (a checkpoint came between), or not
          // enough to move its pace (the drift rule, world.hpp: a neighbour's pace measured again wakes no one, and
          // each job checks its links here, between its fast-forwarded stretches): the measured pace still holds.
          fast_forward(boundary, r_.iteration_time);
          continue;
        }
        r_.dirty = false;
        // Alone on its cables and not writing a checkpoint: a pace measured for the same signature holds. Likewise,
        // crossing shared links where its flows have room next to the others' load (world.hpp, shared_paces).
        std::optional<PaceKey> signature;
        bool shared = false;  // its measurement may serve as a shared pace
        if (w_.scenario.sim.fast_forward && r_.writer_done && !r_.fault && (r_.links.empty() || w_.sharing > 1)) {
          // Its routes move only with cables and its compute time with stragglers: the signature is made again then.
          const double compute = compute_time();
          if (r_.signature_generation != w_.platform.generation() || r_.signature_compute != compute ||
              !r_.signature) {
            r_.signature = pace_signature(w_, r_, compute);
            r_.signature_generation = w_.platform.generation();
            r_.signature_compute = compute;
          }
          signature = r_.signature;
          if (r_.links.empty()) {
            if (auto it = w_.paces.find(*signature); it != w_.paces.end()) {
              ++w_.pace_reuses;
              r_.iteration_time = it->second;
              w_.post(JobProgress{l_.job, l_.attempt, r_.iterations, Seconds(it->second)});
              fast_forward(boundary, it->second);
              continue;
            }
          } else if (!r_.shared_order.empty()) {
            shared = true;
            if (auto it = w_.shared_paces.find(*signature); it != w_.shared_paces.end()) {
              const World::SharedPace& p = it->second;
              std::vector<double> peak(r_.shared.size()), busy(r_.shared.size());
              for (std::size_t i = 0; i < r_.shared.size(); ++i) {
                peak[i] = p.peak[static_cast<std::size_t>(r_.shared_order[i])];
                busy[i] = p.busy[static_cast<std::size_t>(r_.shared_order[i])];
              }
              w_.snapshot_seen(r_);
              if (w_.has_room(r_, peak)) {
                ++w_.shared_pace_reuses;
                const bool again = r_.iteration_time > 0;
                r_.peak = std::move(peak);
                r_.busy = std::move(busy);
                r_.forget_drift();
                r_.iteration_time = p.time;
                w_.set_nominal(r_, p.time, /*notify=*/!again);
                w_.post(JobProgress{l_.job, l_.attempt, r_.iterations, Seconds(p.time)});
                fast_forward(boundary, p.time);
                continue;
              }
            }
          }
        }
        stop_load();  // the job's own load would contend with its flows
        ++w_.measurements;
        const bool again = r_.iteration_time > 0;
        if (again) ++w_.remeasurements;
        w_.snapshot_seen(r_);
        const std::int64_t k = std::min(measure, boundary - r_.iterations);
        const double t0 = now();
        {
          struct Measuring {  // however the iterations end
            World& w;
            JobRun& r;
            ~Measuring() { w.measuring(r, false); }
          } measuring{w_, r_};
          w_.measuring(r_, true);
          for (std::int64_t i = 0; i < k; ++i) {
            iteration();
            ++r_.iterations;
          }
        }
        const double t = (now() - t0) / static_cast<double>(k);
        r_.iteration_time = t;
        for (double& b : r_.busy) b /= now() - t0;  // a share of the measured time
        r_.forget_drift();
        if (shared && !r_.dirty && !r_.overlapped && r_.busy.size() == r_.shared.size() && w_.has_room(r_, r_.peak)) {
          World::SharedPace p{t, std::vector<double>(r_.shared.size()), std::vector<double>(r_.shared.size())};
          for (std::size_t i = 0; i < r_.shared.size(); ++i) {
            p.peak[static_cast<std::size_t>(r_.shared_order[i])] = r_.peak[i];
            p.busy[static_cast<std::size_t>(r_.shared_order[i])] = r_.busy[i];
          }
          w_.shared_paces.emplace(*signature, std::move(p));
        } else if (signature && r_.links.empty()) {
          w_.paces.emplace(*signature, t);
        }
        w_.set_nominal(r_, t, /*notify=*/!again);
        w_.post(JobProgress{l_.job, l_.attempt, r_.iterations, Seconds(t)});
        // A change that may alter the pace happened while it measured: it measures again rather than fast-forward.
        if (w_.scenario.sim.fast_forward && r_.iterations < boundary && !r_.dirty && !asked())
          fast_forward(boundary, t);
      }
      if (asked()) {  // written now; the cadence goes on from the iteration count
        r_.checkpoint_now = false;
        written = r_.iterations;
        if (r_.iterations < total) checkpoint();
        continue;
      }
      if (boundary == checkpoint_at && r_.iterations < total) {
        written = r_.iterations;
        checkpoint();
      }
    }
  }

  // A GPU runs one job, so its compute takes exactly flops / speed: one timed wait for the slowest rank (a straggler
  // needs more of its nominal flops) instead of an exec per GPU.
  double compute_time() const {
    double slowest = 0;
    for (int gpu : l_.gpus) slowest = std::max(slowest, l_.plan.compute.value / w_.gpu_speed[gpu]);
    return slowest;
  }

  // The step's flows' rates summed on each shared link of the job: its peak there (JobRun::peak); and the step's
  // `duration` counted as time the job depends on each link its flows crossed (JobRun::busy).
  void note_peaks(const FlowStep& step, const std::vector<double>& rates, double duration) {
    std::vector<double> used(r_.shared.size(), 0);
    std::size_t k = 0;
    for (const FlowGroup& g : step.groups)
      for (const Flow& f : g.flows) {
        const double rate = rates[k++];
        for (int link : f.route->link_ids) {  // as its flow just crossed it
          auto it = std::lower_bound(r_.shared.begin(), r_.shared.end(), link);
          if (it != r_.shared.end() && *it == link) used[static_cast<std::size_t>(it - r_.shared.begin())] += rate;
        }
      }
    r_.peak.resize(r_.shared.size(), 0);
    r_.busy.resize(r_.shared.size(), 0);
    for (std::size_t i = 0; i < used.size(); ++i) {
      r_.peak[i] = std::max(r_.peak[i], used[i]);
      if (used[i] > 0) r_.busy[i] += duration;
    }
    r_.forget_drift();
  }

  void iteration() {
    if (r_.fault) throw Stalled{*r_.fault};  // struck while it could not be interrupted (startup)
    // strike() wakes the compute wait like a fast-forward.
    const double slowest = compute_time();
    ++r_.inflight.started;
    if (wait_until(now() + slowest, false) == Wake::Fault) throw Stalled{*r_.fault};
    for (std::size_t i = 0; i < r_.steps.size(); ++i) {
      // A step that crosses no shared link runs alone on its cables (unless the job's own checkpoint write shares its
      // NICs), and so does any step while no other attempt crosses a shared link and nothing is in flight: its parts
      // take the times measured for the same signatures, by this job or another (job.hpp).
      const bool alone = r_.step_lone[i] || (w_.sharing == (r_.joined && !r_.links.empty() ? 1 : 0) &&
                                             w_.flows.in_flight == 0);
      if (!w_.scenario.sim.fast_forward || !alone || !r_.writer_done) {
        std::vector<double> rates;
        const double t0 = now();
        run_step(r_.steps[i], r_.inflight, r_.links.empty() ? nullptr : &rates);
        if (!rates.empty()) note_peaks(r_.steps[i], rates, now() - t0);
        continue;
      }
      run_parts(i);
    }
  }

  // Runs step i part by part: the parts whose signature was measured take that measurement; one part of each other
  // signature runs in SimGrid (all at once, as one step). The step ends with its slowest part.
  void run_parts(std::size_t i) {
    // A lone step's routes and bandwidths are its own: its parts hold until a cable changes state. Otherwise
    // bandwidths also follow faults that degrade cables: made at each use.
    if (!r_.step_parts[i].made || !r_.step_lone[i] || r_.step_parts[i].generation != w_.platform.generation())
      make_parts(w_, r_, i);
    const JobRun::StepParts& p = r_.step_parts[i];
    const FlowStep& step = r_.steps[i];
    const double t0 = now();
    // Each part's measurement: found, or made below by the first part of its signature in `todo`.
    std::vector<const World::PartTime*> time(p.groups.size(), nullptr);
    std::vector<std::size_t> todo;
    std::unordered_map<std::string_view, std::size_t> pending;  // signature: its part in `todo`
    for (std::size_t c = 0; c < p.groups.size(); ++c)
      if (auto it = w_.step_times.find(p.signature[c]); it != w_.step_times.end()) {
        time[c] = &it->second;
      } else if (pending.emplace(p.signature[c], c).second) {
        todo.push_back(c);
      }
    w_.step_reuses += static_cast<long long>(p.groups.size() - todo.size());
    if (!todo.empty()) {
      FlowStep sub{step.label, {}};
      for (std::size_t c : todo)
        for (std::size_t g : p.groups[c]) sub.groups.push_back(step.groups[g]);
      std::vector<double> rates;
      const std::vector<Seconds> durations = run_step(sub, r_.inflight, &rates);
      std::size_t k = 0, flow = 0;
      for (std::size_t c : todo) {
        World::PartTime t;
        for (std::size_t g : p.groups[c]) {
          t.time = std::max(t.time, durations[k++].value);
          const std::size_t n = step.groups[g].flows.size();
          t.rates.insert(t.rates.end(), rates.begin() + static_cast<std::ptrdiff_t>(flow),
                         rates.begin() + static_cast<std::ptrdiff_t>(flow + n));
          flow += n;
        }
        time[c] = &w_.step_times.emplace(p.signature[c], std::move(t)).first->second;  // nodes never move
      }
      for (std::size_t c = 0; c < p.groups.size(); ++c)
        if (!time[c]) time[c] = time[pending.at(p.signature[c])];
    }
    double slowest = 0;
    for (const World::PartTime* t : time) slowest = std::max(slowest, t->time);
    if (now() < t0 + slowest && wait_until(t0 + slowest, false) == Wake::Fault) throw Stalled{*r_.fault};
    if (r_.step_lone[i] || r_.links.empty()) return;
    // The rates its flows had, for the drift rule's peaks (world.hpp).
    std::vector<std::size_t> first(step.groups.size() + 1, 0);
    for (std::size_t g = 0; g < step.groups.size(); ++g) first[g + 1] = first[g] + step.groups[g].flows.size();
    std::vector<double> rates(first.back(), 0);
    for (std::size_t c = 0; c < p.groups.size(); ++c) {
      const std::vector<double>& measured = time[c]->rates;
      std::size_t k = 0;
      for (std::size_t g : p.groups[c])
        for (std::size_t f = first[g]; f < first[g + 1]; ++f) rates[f] = measured[k++];
    }
    note_peaks(step, rates, now() - t0);
  }

  void checkpoint() {
    if (l_.checkpoint_async) return checkpoint_async();
    stop_load();  // no collective traffic while the write blocks training
    const double t0 = now();
    r_.checkpointing = true;
    run_step(FlowStep{"checkpoint", {r_.checkpoint}}, r_.inflight);
    r_.checkpointing = false;
    w_.post(CheckpointDone{l_.job, l_.attempt, r_.iterations, Seconds(now() - t0), Seconds(now() - t0)});
  }

  // Stalls for the snapshot, then a writer sends the shards to storage while training goes on. A checkpoint counts
  // once its write is done; a new one waits for the previous write. The writer is a helper actor of the management
  // host's pool (run_helper), not a new actor per write: a month of a fleet writes tens of thousands of checkpoints,
  // and each new actor maps, faults in and unmaps a stack of its own.
  void checkpoint_async() {
    if (!r_.writer_done) {
      stop_load();  // training waits for the previous write: no collective traffic meanwhile
      // Not Actor::join(): SimGrid 3.32 answers a joiner killed meanwhile (a preemption or a failure) when the joined
      // actor ends, and crashes in simcall_handle. The writer releases our wake semaphore instead (kill_job drops it).
      while (!r_.writer_done) {
        auto wake = sg4::Semaphore::create(0);
        r_.wake = wake;
        wake->acquire();
        r_.wake = nullptr;
        if (r_.phase == JobRun::Phase::Killed) throw Cancelled{};
        if (r_.fault) throw Stalled{*r_.fault};
      }
    }
    const double t0 = now();
    sg4::this_actor::sleep_for(l_.snapshot.value);
    const std::int64_t iteration = r_.iterations;
    const double stall = now() - t0;
    r_.writer_inflight = InFlight{};
    r_.writer_inflight.census = &w_.flows;
    r_.writer_done = false;
    World& w = w_;
    JobRun& r = r_;
    run_helper(w_.platform.mgmt(), [&w, &r, iteration, stall, t0] {
      struct Done {  // however the write ends
        JobRun& r;
        ~Done() {
          r.writer_done = true;
          if (r.wake) r.wake->release();
        }
      } done{r};
      try {
        run_step(FlowStep{"checkpoint", {r.checkpoint}}, r.writer_inflight);
        if (r.phase == JobRun::Phase::Training || r.phase == JobRun::Phase::Completed)
          w.post(CheckpointDone{r.launch.job, r.launch.attempt, iteration, Seconds(stall), Seconds(now() - t0)});
      } catch (const Cancelled&) {  // the attempt was killed: this checkpoint never completes
      } catch (const simgrid::Exception&) {  // a storage route failed under the write: lost, training goes on
      } catch (const simgrid::ForcefulKillException&) {
        throw;
      } catch (...) {
        w.fail("checkpoint writer " + r.name, std::current_exception());
      }
    });
  }

  // Advances from r_.iterations toward `boundary` at `t` per iteration (see job.hpp).
  void fast_forward(std::int64_t boundary, double t) {
    if (t <= 0) {
      r_.iterations = boundary;
      return;
    }
    const std::int64_t n = boundary - r_.iterations;
    const double t0 = now();
    const double end = t0 + static_cast<double>(n) * t;
    ++w_.fast_forwards;
    r_.ff_start = t0;
    r_.ff_target = boundary;
    start_load(t);
    std::int64_t credited = n;
    Wake woke = wait_until(end, true);
    if (woke != Wake::Reached) {
      credited = std::min<std::int64_t>(n, static_cast<std::int64_t>(std::floor((now() - t0) / t)));
      if (woke == Wake::Changed && credited < n) {
        // The iteration in flight runs to its end at the measured pace; then the job measures again.
        woke = wait_until(t0 + static_cast<double>(credited + 1) * t, false);
        if (woke == Wake::Reached) ++credited;
      }
    }
    r_.ff_start = -1;
    r_.iterations += credited;
    if (woke == Wake::Fault) throw Stalled{*r_.fault};
    w_.post(JobProgress{l_.job, l_.attempt, r_.iterations, Seconds(t)});
  }

  enum class Wake { Reached, Changed, Fault };

  // Sleeps until `until`, or until a fault hits the job (strike()), or, when `interruptible`, the cluster changes.
  Wake wait_until(double until, bool interruptible) {
    for (;;) {
      auto wake = sg4::Semaphore::create(0);  // a local reference: kill_job() may drop r_.wake while we wait
      r_.wake = wake;
      const bool timed_out = wake->acquire_timeout(std::max(0.0, until - now()));
      r_.wake = nullptr;
      if (r_.phase == JobRun::Phase::Killed) throw Cancelled{};  // kill_job() woke us: unwind and end
      if (r_.fault) return Wake::Fault;
      if (timed_out || now() >= until) return Wake::Reached;
      if (interruptible) return Wake::Changed;
    }
  }

  // The job's load at `t` per iteration: kept from the previous fast-forward at the same pace (across checkpoints and
  // interruptions that did not change it), else reserved anew.
  void start_load(double t) {
    if (r_.load_pace == t) return;
    stop_load();
    if (r_.links.empty()) return;
    r_.load_bytes = r_.link_bytes;
    if (r_.busy.size() == r_.shared.size())  // measured: its bursts are known (World::steady_share)
      for (std::size_t i = 0; i < r_.links.size(); ++i)
        r_.load_bytes[i] *= w_.steady_share(r_, static_cast<std::size_t>(r_.link_shared[i]), t);
    w_.platform.reserve(r_.links, r_.load_bytes, t, r_.link_pairs, +1);
    for (const auto& [node, bytes] : r_.nic_bytes) {
      w_.ff_node_rate[node] += bytes / t;
      ++w_.ff_node_jobs[node];
    }
    r_.load_pace = t;
  }

  void stop_load() { tt::sim::stop_load(w_, r_); }
};

}  // namespace

JobRun& start_job(World& w, Launch launch) {
  auto run = std::make_unique<JobRun>();
  JobRun& r = *run;
  r.launch = std::move(launch);
  const Launch& l = r.launch;
  r.name = w.scenario.jobs.at(l.job).name + "#" + std::to_string(l.attempt);
  r.inflight.census = &w.flows;
  compile_footprint(w, r);
  auto key = std::make_pair(l.job, l.attempt);
  auto [it, inserted] = w.runs.emplace(key, std::move(run));
  if (!inserted) throw std::logic_error("sim: job " + r.name + " was launched twice");
  w.live.emplace(key, &r);
  w.join(r);
  r.actor = start_small_actor("job/" + r.name, w.platform.mgmt(), JobActor(w, r));
  return r;
}

}  // namespace tt::sim
