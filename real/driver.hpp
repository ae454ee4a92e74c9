// real::run drives a Controller with real processes on this machine: every GPU of the scenario's topology is backed by
// one CPU device, and every rank of a launched job is a worker process (real/worker.hpp) on its GPU's device. The
// Controller runs in one poll(2) loop over the workers' report pipes and pidfds and a timerfd armed for the next
// thing due (controller deadline, scripted fault, heartbeat expiry, horizon); nothing busy-waits. Returns when every
// job is done, the horizon is reached or nothing is left to happen; then finishes the record. Workers still running
// are killed, also when run() throws.
//
// Time. The Controller always sees scenario time: scenario seconds = real seconds since the start x time_scale. So a
// scenario's submit, fault and detection times happen after (time) / time_scale real seconds, and with
// --time-scale 3600 an hour of scenario passes in a second. A worker waits out its launch or restart overhead
// (Launch::startup / time_scale real seconds) and paces every iteration to at least the plan's predicted iteration
// time / time_scale, so a CPU stands in for the modeled GPU at the modeled speed as long as its real work is faster;
// measured iteration and checkpoint times are reported x time_scale.
//
// The loop is the one every driver runs (core/drive/drive_loop.hpp) over the one fault stream
// (core/drive/fault_player.hpp); the driver only executes and observes (real/worker_pool.hpp). Faults: node_crash
// SIGKILLs the workers on the node's devices and reports NodeDown, NodeUp at repair; hang SIGSTOPs them; straggler
// slows a device; checkpoint_corrupt flips a byte on storage; link_down is reported (LinkDown/LinkUp) but changes
// nothing on the loopback network. A worker that exits unexpectedly, or sends nothing for heartbeat_timeout real
// seconds, is reported as silent since it was last heard (JobStalled, Symptom::Silent); the Controller declares the
// failure by its detection rule. Stochastic faults, other kinds and async checkpoints are refused (InputError).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/control/controller.hpp"
#include "core/model/control_plane.hpp"
#include "core/model/scenario.hpp"
#include "core/model/secret.hpp"

namespace tt::real {

class DurableRun;

struct Options {
  int devices = 0;                          // CPU devices; must equal the topology's GPU count
  std::filesystem::path run_dir;            // created 0700: per job, checkpoints, Gloo stores and worker logs
  // >= 0 (the driver must be root): job j's workers run as uid and gid job_uid_base + j, its directory (0700) is
  // theirs, and the run directory is 0711, so one job's workers cannot open another's checkpoints. -1: the workers
  // run as the driver (docs/reliability.md says what is then enforced and what is not).
  int job_uid_base = -1;
  // The scenario's secrets by reference (read_scenario_secrets). Their values are read when the run starts (a missing
  // variable or a file others can read: InputError, exit 2) and reach only their jobs' worker environments.
  std::vector<SecretSpec> secrets;
  double time_scale = 1.0;                  // scenario seconds per real second
  std::vector<std::string> worker_command;  // a worker's argv before its flags, e.g. {"/usr/bin/traintwin", "worker"}
  std::string compute = "attention";        // see make_compute_step()
  std::string provider = "gloo";            // collectives: gloo (CPU devices) or nccl (one CUDA device per GPU)
  double heartbeat_interval = 0.05;         // real seconds between a worker's heartbeats
  double heartbeat_timeout = 1.0;           // real seconds of silence before a rank is reported silent: a floor
                                            // against OS scheduling noise; the Controller's detection timeout
                                            // (counted from the rank's last message) decides the failure
  int metrics_port = -1;                    // >= 0: Prometheus text on http://127.0.0.1:PORT/metrics (0: a free port)
  std::function<void(const std::string&)> log;     // one line per driver event (null: quiet)
  std::function<void(Seconds, const Event&)> on_event;  // every event handed to the Controller (observed.jsonl)
  std::function<void(int port)> on_metrics_ready;  // called once the metrics endpoint listens
  // Fault injection for tests: called before each launch, before the checkpoint to resume from is chosen (e.g. to
  // flip bytes in the checkpoint at launch.start_iteration).
  std::function<void(const std::filesystem::path& job_dir, const Launch& launch)> before_launch;
  // The run's journal (real/durable.hpp; null: none). A resumed one carries the replayed state: the driver keeps its
  // clock, relaunches what trained and goes on. With crash_on_control_plane the start of a control-plane outage kills
  // this process (a supervisor restarts it with --resume); without, the outage is played as in simulation.
  DurableRun* durable = nullptr;
  bool crash_on_control_plane = false;
  // The scenario's control-plane outages (core/io/control_plane_reader.hpp).
  std::vector<ControlPlaneOutage> control_plane_outages;
};

struct RunStats {
  double wall_seconds = 0;
  double driver_cpu_seconds = 0;    // user + system time of the driver process itself (workers excluded)
  long long controller_events = 0;  // events handed to Controller::handle (Timer included)
  int workers_started = 0;
  int metrics_port = 0;                            // the port the endpoint listened on (0: none)
  std::map<std::string, std::string> driver_info;  // for RunRecord::driver_info (no wall-clock figures)
};

// Throws std::invalid_argument for bad options (devices not matching the topology, time_scale <= 0, no worker
// command); SysError or std::runtime_error when the machine fails us.
RunStats run(const Scenario& scenario, Controller& controller, const Options& options);

// What workers on one machine cannot play (stochastic faults, fault kinds, async or on-demand checkpoints, ungated
// preflight failures, socket-buffer caps): InputError naming the scenario's field.
void check_real_scenario(const Scenario& scenario);

// "job0-pretrain-70b": the directory of job `job` under the run directory.
std::string job_dir_name(const Scenario& scenario, int job);

}  // namespace tt::real
