// A scenario: the cluster, its queues, the jobs submitted to it, scripted faults, policies, model constants and the
// checks a run must pass. Plain values, produced by core/io (which validates them) and read by everything else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cost/prices.hpp"
#include "core/model/alert_spec.hpp"
#include "core/model/comm.hpp"
#include "core/model/distribution.hpp"
#include "core/model/model_spec.hpp"
#include "core/model/pools.hpp"
#include "core/model/units.hpp"
#include "core/preflight/twin.hpp"
#include "core/rollout/spec.hpp"
#include "core/topo/topology.hpp"

namespace tt {

// Kueue vocabulary. A queue's nominal quota (gpu_quota) is what it may always use; queues of one cohort borrow each
// other's unused quota, up to the borrower's borrowing_limit and the lender's lending_limit (unset: no limit). The
// part of a queue's quota it does not lend (gpu_quota - lending_limit) is guaranteed to it.
enum class QueueingStrategy { BestEffortFifo, StrictFifo };
// withinClusterQueue: LowerOrNewerEqualPriority also preempts jobs of equal priority that were queued after the job.
enum class WithinQueuePreemption { Never, LowerPriority, LowerOrNewerEqualPriority };
enum class ReclaimPreemption { Never, LowerPriority, Any };
enum class VictimOrder { Kueue, LeastWorkLost };
const char* to_string(QueueingStrategy s);
const char* to_string(WithinQueuePreemption p);
const char* to_string(ReclaimPreemption p);

struct QueueSpec {
  std::string name;
  int gpu_quota = 0;  // nominal quota: GPUs its running jobs may hold at once without borrowing
  std::string cohort{};                  // empty: in no cohort (it neither borrows nor lends)
  std::optional<int> borrowing_limit{};  // most GPUs it may borrow beyond gpu_quota
  std::optional<int> lending_limit{};    // most of its unused quota others may borrow
  QueueingStrategy strategy = QueueingStrategy::BestEffortFifo;
  WithinQueuePreemption within_queue = WithinQueuePreemption::Never;  // preempt its own lower-priority jobs
  ReclaimPreemption reclaim = ReclaimPreemption::Never;  // under its quota, take back what other queues borrowed
  // borrowWithinCohort (policy LowerPriority): a job may preempt in the cohort and still borrow, taking from other
  // queues only jobs of lower priority than itself and, when set, not above max_priority_threshold.
  bool borrow_within_cohort = false;
  std::optional<int> max_priority_threshold{};
};

struct PriorityClass {
  std::string name;
  int value = 0;
};

// Slurm --switches=N@maxwait / Kueue required/preferred topology: a whole-node job wants at most N leaf groups.
struct TopologyConstraint {
  int max_leaf_groups = 0;           // 0: no constraint
  bool required = true;              // false (preferred): use fewer groups when possible, never wait for it
  std::optional<Seconds> max_wait;   // required: relaxed after waiting this long (unset: never relaxed)
};

enum class QueueOrdering { Priority, FairShare };
enum class PlacementKind { Pack, Spread };

struct SchedulerOptions {
  // Priority then FIFO; or priority, then the queue with the least decayed usage per nominal GPU, then FIFO.
  QueueOrdering ordering = QueueOrdering::Priority;
  Seconds fair_share_half_life = Seconds(7 * 86400.0);
  bool backfill = false;  // EASY backfill: the first blocked job gets a reservation, later jobs may backfill
  PlacementKind placement = PlacementKind::Pack;
  // A job that started (or restarted) less than this ago is never preempted (Slurm's PreemptExemptTime): without it a
  // just-restarted job, having lost nothing since its checkpoint, is always the cheapest victim and can thrash.
  Seconds preemption_exempt_time = Seconds(0);
  // Among victims of one kind (from a borrowing queue, or from the job's own queue) and one priority: Kueue takes the
  // most recently admitted first; LeastWorkLost takes the one with the least work since its last checkpoint first.
  VictimOrder victim_order = VictimOrder::Kueue;
  // Two-site topologies (docs/sites.md): false keeps every job in the first site; the other site is then not
  // provisioned (no job runs there, the cost model does not bill it). Without sites it changes nothing.
  bool overflow = true;
};

struct Parallelism {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int world() const { return tp * pp * dp; }
};

struct JobSpec {
  std::string name;
  std::string queue;
  int priority = 0;            // higher runs first (from priority_class when one is named)
  std::string priority_class;  // empty: none
  Seconds submit;
  int gpus = 0;                // equals parallel.world()
  ModelSpec model;
  Parallelism parallel;
  std::int64_t iterations = 0;
  int global_batch = 0;        // sequences per iteration
  int seq_len = 0;
  // Checkpoint every this much training time, or every this many iterations (exactly one is set; neither: none).
  std::optional<Seconds> checkpoint_interval;
  std::optional<std::int64_t> checkpoint_every;
  bool checkpoint_async = false;  // a short snapshot stall, then the write overlaps training
  int checkpoint_keep = 0;        // retention: checkpoints kept on storage (older ones deleted); 0: all
  // Declared run time (Slurm --time), for backfill; unset: estimated by the performance model.
  std::optional<Seconds> estimated_runtime;
  TopologyConstraint topology;
  // Two-site topologies (docs/sites.md): a job runs within one site unless span_sites; `site` pins it to one.
  std::string site;
  bool span_sites = false;
};

// What fails (core/fault/fault_kind.hpp says which component each names and how it is detected).
// LinkDown is a link flap: a cable down for `repair` ("link_flap" in files is the same kind).
// Hang: the jobs' processes on the node freeze (no progress, no heartbeats: the heartbeat notices; the real driver
// SIGSTOPs them). Deadlock: they stay alive and heartbeat but stop progressing (a deadlocked collective): the training
// watchdog notices. Neither has a repair: the node stays in service. CheckpointCorrupt: bytes of a job's newest completed
// checkpoint are flipped (silent storage corruption); a restore refuses it on its checksum and falls back to the one
// before, so more work is lost. It has no repair either.
enum class FaultKind {
  NodeCrash, LinkDown, GpuFailure, NicDown, SwitchDown, Straggler, StorageSlow, Hang, Deadlock, CheckpointCorrupt
};
const char* to_string(FaultKind k);

struct FaultSpec {
  FaultKind kind = FaultKind::NodeCrash;
  Seconds at;
  std::string target;     // node (node_crash, hang), link, GPU (gpu_failure, nic_down, straggler), switch, "storage",
                          // job (checkpoint_corrupt)
  Seconds repair;         // down (or slow) for this long, then back in service; zero for a hang
  double fraction = 1.0;  // straggler: speed left to the GPU; storage_slow: bandwidth left to storage
  std::string cause;      // the catalogue cause of a stochastic fault ("GPU HBM3 memory"); empty when scripted
};


// One stochastic failure process: every component of the kind fails independently at 1/mtbf (Poisson).
struct FaultRate {
  FaultKind kind = FaultKind::NodeCrash;
  Seconds mtbf;  // mean time between failures of ONE component (a GPU, a node, a cable ...)
  RepairDistribution repair;
  double fraction = 1.0;
  std::string cause;
};

struct StochasticFaults {
  std::string catalogue;       // the catalogue the rates came from, "" when written out (core/fault/catalogue.hpp)
  double scale = 1.0;          // applied to the catalogue's rates
  std::vector<FaultRate> rates;
  std::optional<Seconds> until;  // draw faults in [0, until); default: the sim horizon
};

struct RecoveryPolicy {
  Seconds detection_timeout = Seconds(60);  // heartbeat: a node or GPU that stops heartbeating is declared failed
  // Communication timeout: a rank whose transfer gets no completion for this long fails; a link down for less only
  // slows the job. Read from the scenario's comm section (core/plan/nccl_settings.hpp, ib_comm_timeout: NCCL_IB_TIMEOUT
  // and NCCL_IB_RETRY_CNT) unless recovery.comm_timeout sets it; the default is that of NCCL's defaults 20 and 7.
  Seconds comm_timeout = Seconds(4.096e-6 * (1 << 20) * 8);
  Seconds watchdog_timeout = Seconds(600);  // training watchdog: a job that stops progressing is declared hung
  Seconds restart_overhead = Seconds(120);  // reschedule + process start + checkpoint load, before training resumes
  int max_restarts = 10;                    // a job failing more often than this is abandoned
  int hot_spares = 0;                       // idle nodes held back; a failed job swaps them in instead of waiting
  int lemon_failures = 0;                   // a node failing this often within lemon_window is drained; 0: never
  Seconds lemon_window = Seconds(7 * 86400.0);
};

// Constants of the iteration performance model (core/plan/perf_model.hpp); each may be overridden in the scenario.
struct PerfConstants {
  double compute_efficiency = 0.45;     // achieved fraction of dense bf16 peak in matmul-heavy compute (MFU-like)
  double grad_bytes_per_param = 2.0;    // bf16 gradients in the data-parallel all-reduce
  double activation_bytes = 2.0;        // bf16 activations in tensor-parallel all-reduces and pipeline sends
  double checkpoint_bytes_per_param = 14.0;  // bf16 weights (2) + fp32 master weights and Adam moments (12)
  Seconds launch_overhead = Seconds(60);     // first start of a job: process launch, NCCL init, data loader
  // Async checkpoints: training stalls while each writer copies its shard to host memory at this rate.
  BytesPerSecond snapshot_bandwidth = BytesPerSecond(25e9);
  CommOverrides comm;  // the scenario's "comm" section: overrides of the communication cost model's NCCL constants
};

// How a check compares a measured figure with its threshold.
enum class CheckOp { Le, Lt, Ge, Gt, Eq };
const char* to_string(CheckOp op);

// A check on one figure of the run, e.g. {metric "job.end", job "pretrain", op "<=", value 6h}. The metrics, and
// whether a check names a job or an alert rule, are the table of core/control/check_metrics.hpp.
struct CheckSpec {
  std::string name;   // as shown in reports; defaults to a readable form of the check
  std::string metric;
  std::string job;    // for job.* metrics
  CheckOp op = CheckOp::Le;
  double value = 0;   // in SI base units (seconds, GPU-hours, ratios, counts)
  std::string alert{};  // for alert.* metrics: the name of one of the scenario's alert rules
  std::string queue{};  // for queue.* metrics: the name of one of the scenario's queues
};

struct SimOptions {
  bool fast_forward = true;   // advance steady-state iterations in one step (ARCHITECTURE.md)
  int measure_iterations = 1; // iterations simulated explicitly before each fast-forward
  // A fast-forwarding job measures again when another job's load on a shared cable it crosses appears or goes and its
  // pace could move by more than this fraction since it measured (sim/world.hpp); 0: on any such change.
  double remeasure_threshold = 0.02;
  Seconds horizon = Seconds(30 * 86400.0);  // the run stops here even if jobs remain
};

struct Scenario {
  std::string name;
  std::string description;
  std::string source_file;  // where it was read from, for messages
  std::uint64_t seed = 1;
  Topology topology;
  std::vector<QueueSpec> queues;
  std::vector<PriorityClass> priority_classes;
  SchedulerOptions scheduler;
  std::vector<JobSpec> jobs;
  std::vector<FaultSpec> faults;
  StochasticFaults stochastic;
  RecoveryPolicy recovery;
  PerfConstants perf;
  SimOptions sim;
  TelemetryOptions telemetry;
  std::vector<AlertSpec> alerts;
  std::vector<CheckSpec> checks;
  preflight::TwinPreflight preflight;  // the nodes' releases and gating (docs/preflight.md); off when absent
  rollout::Rollout rollout;  // canary rollout, release effects, run-to-run noise (docs/rollout.md); off when absent
  cost::Prices cost;         // the cost section (docs/cost.md); off when absent
  std::vector<PoolSpec> pools;  // node pools (docs/pools.md); empty: every node is in service, as before
};

}  // namespace tt
