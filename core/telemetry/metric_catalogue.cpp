#include "core/telemetry/metric_catalogue.hpp"

namespace tt::metric {

const char* to_string(Type t) { return t == Type::Gauge ? "gauge" : "counter"; }

const std::vector<Info>& catalogue() {
  static const std::vector<Info> kAll = {
      {kGpusAllocated, Type::Gauge, {}, "GPUs held by jobs (running, or stalled and not yet declared failed)."},
      {kGpusBusy, Type::Gauge, {}, "GPUs of jobs that are training (held and not stalled by a fault)."},
      {kGpusUp, Type::Gauge, {}, "GPUs on nodes in service."},
      {kGpuBusyRatio, Type::Gauge, {}, "traintwin_gpus_busy over traintwin_gpus_up (0 when no GPU is up)."},
      {kJobsRunning, Type::Gauge, {}, "Jobs running (or stalled, not yet declared failed)."},
      {kJobsPending, Type::Gauge, {}, "Jobs waiting in a queue."},
      {kNodesUp, Type::Gauge, {}, "Nodes that no fault keeps out (spares and drained nodes included)."},
      {kNodesDown, Type::Gauge, {}, "Nodes kept out by a fault (crash, GPU failure, NIC cable down)."},
      {kQueueLength, Type::Gauge, {"queue"}, "Jobs waiting in the queue."},
      {kNodeNetwork, Type::Gauge, {"node"},
       "Bytes per second through the node's NIC cables, both directions, as the driver measured at the last sample."},
      {kClusterNetwork, Type::Gauge, {},
       "Bytes per second through every node's NIC cables (the sum of traintwin_node_network_bytes_per_second)."},
      {kJobState, Type::Gauge, {"job_name", "queue", "state"}, "1 for the state the job is in, 0 for the others."},
      {kJobAlive, Type::Gauge, {"job_name", "queue"},
       "1 while the job's processes heartbeat, 0 once a fault silenced them; absent while the job holds no GPU."},
      {kJobRestarts, Type::Counter, {"job_name", "queue"}, "Restarts after a failure."},
      {kJobCheckpoints, Type::Counter, {"job_name", "queue"}, "Checkpoints written."},
      {kJobIterations, Type::Gauge, {"job_name", "queue"},
       "Iterations done (rolled back to the last checkpoint after a failure)."},
      {kJobIterationsTarget, Type::Gauge, {"job_name", "queue"}, "Iterations the job must run."},
      {kJobWait, Type::Gauge, {"job_name", "queue"}, "Time the job has waited in its queue so far; 0 when not queued."},
      {kJobGpuMemory, Type::Gauge, {"job_name", "queue"},
       "Estimated memory per GPU of a placed job: weights, gradients, optimizer state and activations "
       "(core/plan/memory_estimate.hpp); absent while the job holds no GPU."},
      {kCheckpointDuration, Type::Gauge, {"job_name", "queue"},
       "Duration of the job's latest checkpoint, from its start to the end of its write; absent before the first."},
      {kAlertsFiring, Type::Gauge, {"alertname", "severity"}, "Alert instances firing, by alert rule."},
  };
  return kAll;
}

const Info* find(std::string_view name) {
  for (const auto& m : catalogue())
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& m : catalogue()) out.emplace_back(m.name);
  return out;
}

}  // namespace tt::metric
