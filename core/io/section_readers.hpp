// The readers of a scenario's sections, one file per concern (queues_reader, jobs_reader, faults_reader, comm_reader,
// alerts_reader, checks_reader); read_scenario() calls them in order and then checks them against the topology.
// Each validates what needs no cluster and throws InputError; an absent optional section gives its defaults.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/io/json_reader.hpp"
#include "core/model/scenario.hpp"

namespace tt::reader {

// Where a job or a fault was written, for the checks against the topology that come after all sections are read.
struct JobSource {
  std::string pointer;
  int queue = -1;
};
struct FaultSource {
  std::string pointer;
  std::string target_key;  // "node", "gpu", "link", "switch", "storage" or "job"
};

// queues_reader.cpp
// preflight_section_reader.cpp: the nodes' releases (a matrix file relative to the scenario's directory); it needs
// the topology, so it is read after it.
preflight::TwinPreflight read_preflight(JsonObject& root, const Topology& topology);

std::vector<QueueSpec> read_queues(JsonObject& root);
std::vector<PriorityClass> read_priority_classes(JsonObject& root);
SchedulerOptions read_scheduler(JsonObject& root);

// jobs_reader.cpp: the explicit jobs (none when only a workload generates them); a job bigger than its queue could
// ever hold is an error.
std::vector<JobSpec> read_jobs(JsonObject& root, const std::vector<QueueSpec>& queues,
                               const std::vector<PriorityClass>& classes, std::vector<JobSource>& sources);

// faults_reader.cpp. read_stochastic() reads everything but the catalogue's rates, which need the topology.
// read_recovery() sets `explicit_comm_timeout` when the section gives one.
std::vector<FaultSpec> read_faults(JsonObject& root, std::vector<FaultSource>& sources);
StochasticFaults read_stochastic(JsonObject& root);
RecoveryPolicy read_recovery(JsonObject& root, std::optional<Seconds>& explicit_comm_timeout);
// A duration: "30m" (fixed) or {"shape": "fixed"|"exponential"|"lognormal", "value"|"mean"|"median", "sigma"};
// `what` names it in messages ("repair time", "provisioning delay").
RepairDistribution read_distribution(JsonObject& o, const std::string& key, const std::string& what);

// pool_reader.cpp: the node pools (docs/pools.md); they name topology nodes, so they are read after it.
std::vector<PoolSpec> read_pools(JsonObject& root, const Topology& topology);

// comm_reader.cpp
PerfConstants read_perf(JsonObject& root);
CommOverrides read_comm(JsonObject& root);
SimOptions read_sim(JsonObject& root);
TelemetryOptions read_telemetry(JsonObject& root);

// alerts_reader.cpp
std::vector<AlertSpec> read_alerts(JsonObject& root);

// checks_reader.cpp: metrics from core/control/check_metrics.hpp; jobs and alerts named must exist.
std::vector<CheckSpec> read_checks(JsonObject& root, const std::vector<JobSpec>& jobs,
                                   const std::vector<AlertSpec>& alerts, const std::vector<QueueSpec>& queues);

// cost_reader.cpp: the prices (docs/cost.md); sites are the topology's, so it is read after it.
cost::Prices read_cost(JsonObject& root, const Topology& topology);

}  // namespace tt::reader
