// What a driver tells the Controller (events) and what the Controller asks of a driver (actions).
// Jobs are indices into Scenario::jobs; nodes into Topology::nodes(); links into Topology::edges(); GPUs are global
// indices node * gpus_per_node + local. Every job event carries the attempt it belongs to: events of an attempt the
// controller has already killed are ignored, so a driver need not fence them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/fault/detection.hpp"
#include "core/model/scenario.hpp"
#include "core/model/units.hpp"
#include "core/plan/iteration_plan.hpp"

namespace tt {

// --- events: driver -> controller -----------------------------------------------------------------------------
struct Timer {};  // next_deadline() was reached
struct JobProgress {
  int job;
  int attempt;
  std::int64_t iterations;   // absolute iterations completed (a resumed job counts from its checkpoint)
  Seconds iteration_time;    // latest measured time of one iteration
};
struct CheckpointDone {
  int job;
  int attempt;
  std::int64_t iteration;  // the checkpoint holds the state after this many iterations
  Seconds write_time;      // how long the write blocked training (async: the snapshot stall)
  Seconds duration;        // from the start of the checkpoint to the end of its write to storage
};
struct JobCompleted {
  int job;
  int attempt;
};
struct JobStalled {  // the job makes no progress any more; the controller picks the detector from the symptom
  int job;
  int attempt;
  std::int64_t iterations;  // absolute iterations completed before the error
  std::string cause;
  Symptom seen = Symptom::Silent;         // what the driver observed (core/fault/detection.hpp)
  std::optional<FaultKind> kind = {};     // the fault that caused it, when the driver injected it (for the report)
  std::vector<int> links = {};            // CommStalled: the cables it waits on
  std::optional<Seconds> since = {};      // when it stopped (a rank last heard at); default: the event's time
};
struct JobResumed {  // a stalled job's links came back before it was declared failed: it trains again
  int job;
  int attempt;
};
struct NodeDown {  // the node died (ground truth from the fault injector); its jobs' ranks fall silent
  int node;
  FaultKind kind = FaultKind::NodeCrash;  // or GpuFailure: one GPU lost, the node is out until repaired
  int gpu = -1;                           // GpuFailure: the global GPU index; only the job holding it fails
};
struct NodeUp {  // the node is repaired and may take work again
  int node;
};
struct LinkDown {
  int link;
};
struct LinkUp {
  int link;
};
struct RestoredFrom {  // a launched attempt resumed from another checkpoint than Launch::start_iteration asked for
  int job;               // (the one asked for failed its verification on storage)
  int attempt;
  std::int64_t iteration;  // the checkpoint it resumed from (0: the start)
};
struct CheckpointCorrupted {  // the job's newest completed checkpoint was damaged on storage (ground truth): a restore
  int job;                    // will refuse it on its checksum and use the one before
};

struct NodeReimaged {  // a Reimage finished: the node now runs `release` (core/rollout, docs/rollout.md)
  int node;
  std::string release;
};

// Node pools (docs/pools.md). An elastic or spot node asked for with ProvisionNode takes work once it is provisioned;
// a spot node may be reclaimed by its provider: a notice first, the node gone `notice` later (core/drive/pool_effects).
struct NodeProvisioned {
  int node;
};
struct NodeReclaimNotice {
  int node;
  Seconds at;  // when the node goes
};
struct NodeReclaimed {
  int node;
};

// Network throughput measured by the driver, sent when Controller::network_sample_due() (telemetry sampling). The
// sim reads SimGrid's link loads (sim/telemetry_probe.hpp); the real driver sends none.
struct NetworkSample {
  std::vector<double> node_bytes_per_second;  // by node: through its NIC cables, both directions
};

using Event = std::variant<Timer, JobProgress, CheckpointDone, JobCompleted, JobStalled, JobResumed, NodeDown, NodeUp,
                           LinkDown, LinkUp, CheckpointCorrupted, RestoredFrom, NetworkSample, NodeReimaged,
                           NodeProvisioned, NodeReclaimNotice, NodeReclaimed>;

// --- actions: controller -> driver ----------------------------------------------------------------------------
// A relaunch in another site than the job's last one: its checkpoint first crosses the inter-site link, from the
// storage of `from_site` to that of `to_site` (Topology::sites()); `predicted` is bytes / link bandwidth + latency.
struct CheckpointMove {
  int from_site = -1;
  int to_site = -1;
  Bytes bytes;
  Seconds predicted;
};

struct Launch {
  int job = 0;
  int attempt = 0;
  std::vector<int> gpus = {};        // global GPU indices, in rank order
  std::int64_t start_iteration = 0;  // resume from this checkpointed iteration
  std::int64_t iterations = 0;       // total iterations of the job (it stops when it reaches this)
  std::int64_t checkpoint_every = 0; // iterations between checkpoints; 0: none
  int checkpoint_keep = 0;           // checkpoints to keep on storage, older ones deleted; 0: all
  bool checkpoint_async = false;     // stall for `snapshot`, then write while training
  Seconds snapshot = {};             // async only
  Seconds startup = {};              // launch or restart overhead before the first iteration
  IterationPlan plan = {};
  std::optional<CheckpointMove> move = {};  // before the startup: the checkpoint moves between sites
  // The move's predicted time and the startup overhead: what a driver without a network model waits before training.
  Seconds startup_with_move() const { return startup + (move ? move->predicted : Seconds(0)); }
};
struct Kill {
  int job = 0;
  int attempt = 0;
  std::string reason = {};
};
struct Cordon {  // stop placing work on the node (it is down or drained)
  int node = 0;
  std::string reason = {};
};
struct Uncordon {
  int node = 0;
};

// An alert rule's instance started or stopped firing (core/telemetry/alert_evaluator.hpp); a driver may page, log or
// ignore it: the RunRecord has it either way.
struct FireAlert {
  std::string name;
  std::string severity;
  std::map<std::string, std::string> labels;  // the series' labels and the rule's labels
  double value = 0;
  std::string summary;
};
struct ResolveAlert {
  std::string name;
  std::map<std::string, std::string> labels;
};

// Install another release on a drained node (a rollout's upgrade or rollback): the driver reports NodeReimaged when
// it is done, `duration` later (core/drive/release_effects.hpp plays it and the release's effects on every backend).
struct Reimage {
  int node = 0;
  std::string release;
  Seconds duration;
};

// Ask a pool's provider for a node (a slot of the topology that is absent): the driver reports NodeProvisioned after
// the pool's provisioning delay (core/drive/pool_effects.hpp draws it from the seed); the real driver adds the node's
// devices to its worker slots then. ReleaseNode gives an idle (or not yet provisioned) node back.
struct ProvisionNode {
  int node = 0;
  int pool = 0;  // index in Scenario::pools
};
struct ReleaseNode {
  int node = 0;
  int pool = 0;
};

// Write a checkpoint of the attempt now, outside its cadence (a spot reclaim notice with pool checkpoint_on_notice,
// docs/pools.md): after the iteration in flight it writes one as at its cadence and reports CheckpointDone.
struct CheckpointNow {
  int job = 0;
  int attempt = 0;
};

using Action = std::variant<Launch, Kill, Cordon, Uncordon, FireAlert, ResolveAlert, Reimage, ProvisionNode, ReleaseNode,
                            CheckpointNow>;

}  // namespace tt
