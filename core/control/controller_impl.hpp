// The Controller's state and the steps it takes (internal to core/control; controller.hpp is the interface). One
// struct, its member functions defined by responsibility: controller.cpp (bookkeeping, timers, the event dispatch),
// controller_jobs.cpp (launch, preemption, progress and checkpoints), controller_failures.cpp (stalls, detection,
// recovery, the node pool with spares, lemons and links), controller_summary.cpp (end-of-run figures and the
// telemetry views).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/control/controller.hpp"
#include "core/control/telemetry.hpp"
#include "core/fault/detection.hpp"
#include "core/fault/recovery.hpp"
#include "core/sched/cluster_state.hpp"
#include "core/control/rollout_run.hpp"
#include "core/sched/scheduler.hpp"

namespace tt {

// The Controller's state machine of a job; the record's JobStatus mirrors it (Impl::set_state is the one place).
enum class JobState { Unsubmitted, Pending, Running, Stalled, Completed, Abandoned };

struct JobRuntime {
  JobState state = JobState::Unsubmitted;
  int queue = 0;
  int attempt = 0;
  std::vector<int> gpus;
  std::int64_t done = 0;
  std::int64_t checkpoint = 0;
  std::vector<std::int64_t> retained;  // completed checkpoints still on storage, oldest first (retention applied)
  Seconds enqueued;
  Seconds fault_time;
  std::string fault_cause;
  std::int64_t done_at_fault = 0;
  Seconds detect_at;
  std::string fault_kind;
  Detector detector = Detector::Heartbeat;
  std::vector<int> fault_links;
  int open_failure = -1;  // index in JobRecord::failures awaiting its recovery time
  Seconds iteration_estimate;  // before the first launch: planned on a packed placement; then as planned
  double comm_bytes = 0;        // bytes its collectives move per rank and iteration, as planned at its launch
  int site = -1;                // the site of its latest attempt (its checkpoints are on that site's storage)
  std::int64_t checkpoint_every = 0;  // as launched (iterations; 0: none)
  std::optional<Seconds> evacuate_by;  // on a spot node under a reclaim notice: stops at its next checkpoint
  Seconds progress_at;                 // when `done` was last reported (at launch: when training starts)
};

// A slot of an elastic or spot pool (controller_scaling.cpp); fixed pools' nodes are always InService.
struct PoolSlot {
  enum class State { Absent, Provisioning, InService } state = State::Absent;
  int pool = -1;
  bool noticed = false;             // a reclaim notice came: it takes no new work
  Seconds requested;                // the provisioning request (billing start)
  std::optional<Seconds> idle_since;  // in service with no GPU allocated since then
  std::optional<Seconds> in_service;  // when it took work
};

// A failure declared on links: false if they come back within the restart overhead of the declaration.
struct LinkFailure {
  int job;
  int failure;
  std::vector<int> links;
  Seconds detected;
};

// The nodes of `gpus` in rank order, each once.
std::vector<std::string> node_names(const Topology& topo, const std::vector<int>& gpus);
std::vector<SchedJob> sched_jobs(const Scenario& sc);
// What a Planner reads from a job (controller.hpp), as bytes.
std::string plan_key(const JobSpec& j);

struct Controller::Impl {
  const Scenario& sc;
  const Topology& topo;
  Planner planner;
  // Packed-placement iteration estimates by what a plan depends on in the job (plan_key()): thousands of generated
  // jobs share a few dozen model, parallelism and batch combinations.
  std::unordered_map<std::string, Seconds> estimates;
  ClusterState cluster;
  Scheduler sched;
  RunRecord rec;
  ControllerTelemetry telemetry;  // metrics, samples and alerts (core/control/telemetry.hpp)
  std::vector<JobRuntime> jobs;
  std::vector<std::string> job_names, queue_names;
  // A waiting job's reason in words, by its compact value: most reasons a pass reports were reported before (a job's
  // reason moves back and forth between a few values), and the record keeps one copy of each text (SharedText).
  // Cleared when it holds kReasonTexts values: the texts live on in the decisions that hold them.
  struct ReasonKey {
    PendingReason r;
    bool operator==(const ReasonKey& o) const;
  };
  struct ReasonKeyHash {
    std::size_t operator()(const ReasonKey& k) const;
  };
  static constexpr std::size_t kReasonTexts = 1 << 16;
  std::unordered_map<ReasonKey, SharedText, ReasonKeyHash> reason_texts;
  SharedText reason_text(const PendingReason& r);
  // One copy of each decision kind and job name the record holds (a fleet month's job has thousands of decisions):
  // kinds in a map of a few dozen, a job's name by its index (job_text), others by their text (text).
  std::unordered_map<std::string, SharedText> kind_texts, texts;
  std::vector<SharedText> job_texts;
  static SharedText intern(std::unordered_map<std::string, SharedText>& in, std::string s);
  SharedText kind_text(std::string s) { return intern(kind_texts, std::move(s)); }
  SharedText text(std::string s) { return intern(texts, std::move(s)); }
  const SharedText& job_text(int j);
  std::vector<int> submit_order;  // job indices by submit time
  std::size_t next_submit = 0;
  std::set<std::pair<Seconds, int>> stalled;  // (detect_at, job)
  int running = 0, pending = 0, ended = 0;    // Running or Stalled; Pending; Completed or Abandoned
  int gpus_busy = 0;                          // GPUs of the Running jobs (not Stalled)
  int nodes_down = 0;                         // nodes with node_out > 0
  bool finished = false;
  // Fault handling (core/fault): availability of nodes, spares, lemons.
  DetectionRules rules;
  LemonPolicy lemon;
  std::vector<int> node_out;                    // faults keeping each node out (crash, GPU, NIC cable): add_out()
  std::vector<bool> spare, drained;
  std::vector<bool> gated;  // failed preflight with preflight.gate on: never takes work (core/preflight/twin.hpp)
  std::vector<bool> held;   // held by the rollout (drained, reimaging, canary, baseline): never takes general work
  std::vector<bool> unprovisioned;  // a site the scheduler may not use (SchedulerOptions::overflow off): never up
  std::vector<PoolSlot> slots;  // by node, with node pools (else empty): absent and noticed slots take no work
  bool pools_started = false;
  RolloutRun ro;            // the rollout's plan state (controller_rollout.cpp)
  std::vector<std::vector<Seconds>> node_failures;
  std::vector<LinkFailure> link_failures;
  Impl(const Scenario& s, Planner p);
  void set_state(int j, JobState to);
  void decide(Seconds t, std::string kind, std::string job, std::vector<std::string> nodes, SharedText reason);
  // decide() with the kind and job as shared texts already (the frequent decisions: no lookup).
  void record(Seconds t, SharedText kind, SharedText job, std::vector<std::string> nodes, SharedText reason);
  void sample(Seconds now);
  bool stale(int job, int attempt) const;
  Segment& segment(int job) { return rec.jobs[job].segments.back(); }

  // Estimated run time from `from` iterations to the end: the declared run time pro rata, else startup plus the
  // remaining iterations at the planned iteration time.
  Seconds remaining_runtime(int j, std::int64_t from);
  void enqueue(int j, Seconds t, bool at_head);

  // --- timers ---------------------------------------------------------------------------------------------------
  void run_due(Seconds now, std::vector<Action>& out);
  void detect_failure(int j, std::vector<Action>& out);

  // --- events ---------------------------------------------------------------------------------------------------
  void on(const Timer&, Seconds, std::vector<Action>&) {}
  void on(const NetworkSample& e, Seconds, std::vector<Action>&) { telemetry.network(e); }
  ClusterView cluster_view() const;
  JobView job_view(int j) const;
  void step_telemetry(Seconds now, std::vector<Action>& out);
  void on(const JobProgress& e, Seconds, std::vector<Action>&);

  // A checkpoint counts when the attempt is running and it holds less than the whole job (a checkpoint of a finished
  // job would never be restored); drivers report every checkpoint they complete.
  void on(const CheckpointDone& e, Seconds now, std::vector<Action>&);

  // The newest retained checkpoint is lost: the next restore falls back to the one before (or to the start). A job
  // already waiting to restart from it loses the difference too, charged to the failure it waits on.
  void on(const CheckpointCorrupted& e, Seconds now, std::vector<Action>&);
  void on(const JobCompleted& e, Seconds now, std::vector<Action>&);

  // The job stopped at `since` showing `seen`: the detection rule for that symptom declares it failed after its
  // timeout, counted from `since` (never before now: a driver may report a silence late).
  void stall(int j, Seconds now, Seconds since, std::int64_t done, const std::string& cause,
             std::optional<FaultKind> kind, Symptom seen, std::vector<int> links = {});
  void on(const JobStalled& e, Seconds now, std::vector<Action>&);

  // The attempt resumed from an older checkpoint than it was launched from (the newer one failed its verification):
  // the work since then is lost too, charged to the failure it restarts from, and the newer checkpoints are gone.
  void on(const RestoredFrom& e, Seconds now, std::vector<Action>&);
  void on(const JobResumed& e, Seconds now, std::vector<Action>&);

  // --- node availability: a node takes work when no fault keeps it out and it is neither a spare nor drained ------
  void add_out(int n, int delta);  // node_out[n] += delta (never below 0), nodes_down kept with it
  void refresh_node(int n, Seconds now, const std::string& reason, std::vector<Action>& out);
  void node_failed(int n, Seconds now, std::vector<Action>& out);

  // A failed job whose nodes are out takes one hot spare per out node into service, instead of waiting for repairs.
  void swap_in_spares(int j, Seconds now, std::vector<Action>& out);
  void on(const NodeDown& e, Seconds now, std::vector<Action>& out);
  void on(const NodeUp& e, Seconds now, std::vector<Action>& out);

  // The node a NIC cable serves, or -1 (fabric, NVLink, storage cables keep no node out).
  int nic_node(int link) const;
  void on(const LinkDown& e, Seconds now, std::vector<Action>& out);
  void on(const LinkUp& e, Seconds now, std::vector<Action>& out);

  // --- rollout (controller_rollout.cpp): a policy run from timers and NodeReimaged --------------------------
  bool rollout_copy(int j) const;
  void rollout_due(Seconds now, std::vector<Action>& out);
  std::optional<Seconds> rollout_deadline() const;
  void on(const NodeReimaged& e, Seconds now, std::vector<Action>& out);
  void rollout_begin_step(Seconds now, std::vector<Action>& out);
  void rollout_hold(int n, Seconds now, const std::string& why, std::vector<Action>& out);
  void rollout_release_hold(int n, Seconds now, std::vector<Action>& out);
  void rollout_reimaged_all(Seconds now, std::vector<Action>& out);
  void rollout_launch_copy(int j, const std::vector<int>& nodes, Seconds now, std::vector<Action>& out);
  void rollout_relaunch_waiting(Seconds now, std::vector<Action>& out);
  void rollout_stop_copy(int j, Seconds now, std::vector<Action>& out);
  void rollout_sample(Seconds now);
  void rollout_sample_jobs();
  void rollout_analyse(Seconds now, std::vector<Action>& out);
  void rollout_roll_back(Seconds now, std::vector<Action>& out);
  void drain_job(int j, Seconds now, const std::string& why, std::vector<Action>& out);
  void rollout_finish(Seconds now);

  // --- node pools (controller_scaling.cpp): scaling is a policy run after each scheduling pass --------------------
  bool scaled() const { return !slots.empty(); }
  bool slot_takes_work(int n) const;
  int active_nodes(int pool) const;  // in service or provisioning
  void count_pool_nodes();           // PoolRecord::in_service and provisioning, from the slots
  void pools_init();
  void pools_step(Seconds now, std::vector<Action>& out);
  void provision(int pool, int count, Seconds now, const std::string& job, const std::string& why,
                 std::vector<Action>& out);
  void release_node(int n, Seconds now, const std::string& why, std::vector<Action>& out);
  void close_capacity(int n, Seconds now);
  std::optional<Seconds> pools_deadline() const;
  void stop_for_reclaim(int j, Seconds now, const std::string& why, bool checkpointed, std::vector<Action>& out);
  void on(const NodeProvisioned& e, Seconds now, std::vector<Action>& out);
  // With the pool's checkpoint_on_notice: asks the running job `j` on the noticed node for a checkpoint now if it is
  // expected to complete within the notice (the iteration in flight, then the write); it then stops after it.
  bool checkpoint_on_notice(int j, const NodeReclaimNotice& e, Seconds now, std::vector<Action>& out);
  void on(const NodeReclaimNotice& e, Seconds now, std::vector<Action>& out);
  void on(const NodeReclaimed& e, Seconds now, std::vector<Action>& out);
  void pools_finish(Seconds now);

  // --- scheduling -----------------------------------------------------------------------------------------------
  void schedule(Seconds now, std::vector<Action>& out);
  void preempt(const ScheduleResult::Preemption& p, Seconds now, std::vector<Action>& out);
  void launch(int j, std::vector<int> gpus, Seconds now, std::vector<Action>& out);
  // Stops a running (or stalled) job and requeues it at the head of its queue, like a preemption the scheduler did
  // not ask for (a rollout's drain, a spot reclaim): the decision `kind` (`why`, and the checkpoint it resumes from),
  // a Kill (`kill_reason`), its segment closed with `outcome`, its progress back at its checkpoint. Returns the
  // GPU-hours of work lost: its progress (`reached` iterations) since the checkpoint and a restart.
  double stop_and_requeue(int j, Seconds now, std::int64_t reached, const std::string& kind, const std::string& why,
                          const std::string& kill_reason, const std::string& outcome, std::vector<Action>& out);
  // The iterations a running job has done by `now`: its last report, then its measured pace since (drivers report
  // progress in steps: the simulator at the end of each fast-forward), not counting a synchronous checkpoint write
  // after that report, never past its next cadence checkpoint (reported when reached) or its end.
  std::int64_t progress_by(int j, Seconds now) const;
  // The checkpoint move a launch on `gpus` needs (the job resumes in another site than its checkpoint's), recorded.
  std::optional<CheckpointMove> move_checkpoint(int j, const std::vector<int>& gpus);
  int count_groups(const std::vector<int>& gpus) const;

  // Per job: failures by kind, checkpoint overhead, the interval used and Young/Daly's beside it.
  void finish_failures(int j, Seconds now);
  std::optional<Seconds> next_deadline() const;
  bool done() const {
    return ended == static_cast<int>(jobs.size()) && (!sc.rollout.enabled() || ro.phase == RolloutRun::Phase::Done);
  }
  void finish(Seconds now);
  std::vector<Action> handle(const Event& event, Seconds now);
};

}  // namespace tt
