// The metrics the Controller keeps while a run goes (names, types, labels, help): the one naming source of the live
// endpoint (real/metrics), of metrics.prom and of alert rules. Names follow the Prometheus conventions (base units,
// counters end in _total); per-job series carry job_name and queue ("job" is reserved for the scrape target).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tt::metric {

enum class Type { Gauge, Counter };
const char* to_string(Type t);  // "gauge", "counter"

struct Info {
  std::string_view name;
  Type type;
  std::vector<std::string_view> labels;  // in exposition order
  std::string_view help;
};

inline constexpr std::string_view kGpusAllocated = "traintwin_gpus_allocated";
inline constexpr std::string_view kGpusBusy = "traintwin_gpus_busy";
inline constexpr std::string_view kGpusUp = "traintwin_gpus_up";
inline constexpr std::string_view kGpuBusyRatio = "traintwin_gpu_busy_ratio";
inline constexpr std::string_view kJobsRunning = "traintwin_jobs_running";
inline constexpr std::string_view kJobsPending = "traintwin_jobs_pending";
inline constexpr std::string_view kNodesUp = "traintwin_nodes_up";
inline constexpr std::string_view kNodesDown = "traintwin_nodes_down";
inline constexpr std::string_view kQueueLength = "traintwin_queue_length";
inline constexpr std::string_view kNodeNetwork = "traintwin_node_network_bytes_per_second";
inline constexpr std::string_view kClusterNetwork = "traintwin_cluster_network_bytes_per_second";
inline constexpr std::string_view kJobState = "traintwin_job_state";
inline constexpr std::string_view kJobAlive = "traintwin_job_alive";
inline constexpr std::string_view kJobRestarts = "traintwin_job_restarts_total";
inline constexpr std::string_view kJobCheckpoints = "traintwin_job_checkpoints_total";
inline constexpr std::string_view kJobIterations = "traintwin_job_iterations";
inline constexpr std::string_view kJobIterationsTarget = "traintwin_job_iterations_target";
inline constexpr std::string_view kJobWait = "traintwin_job_wait_seconds";
inline constexpr std::string_view kJobGpuMemory = "traintwin_gpu_memory_used_bytes";
inline constexpr std::string_view kCheckpointDuration = "traintwin_checkpoint_duration_seconds";
inline constexpr std::string_view kAlertsFiring = "traintwin_alerts_firing";

// Job states of traintwin_job_state's "state" label, in exposition order.
inline constexpr std::string_view kJobStates[] = {"pending", "running", "completed", "abandoned", "unfinished"};

const std::vector<Info>& catalogue();
const Info* find(std::string_view name);  // nullptr when the name is not in the catalogue
std::vector<std::string> names();

}  // namespace tt::metric
