// The acceptance plan of a planned cluster, from the twin: busbw per size of nccl-tests' all_reduce over the given
// ranks from the CommPlanner (NCCL's algorithms and constants, the scenario's comm overrides), and the times a node
// loss, an alert and a checkpoint take from a simulated run of the scenario (its RunRecord).
#pragma once

#include <vector>

#include "core/accept/plan.hpp"
#include "core/control/run_record.hpp"
#include "core/model/scenario.hpp"
#include "core/topo/topology.hpp"

namespace tt::accept {

// The comm noise of a twin plan when no calibration says better: the shipped constants' mean absolute error against
// the public Azure ND H100 v5 all-reduce table (6.3%, docs/calibration.md), as a log-normal sigma.
Noise default_twin_comm_noise();
// Times of detection, recovery, alerts and checkpoints: 10% log-normal, an assumption (no public measurement).
Noise default_twin_time_noise();

// Throws std::invalid_argument when the ranks do not fit the topology (pick_gpus's message).
AcceptPlan twin_comm_plan(const Topology& topo, int ranks, int nodes, const std::vector<Bytes>& sizes,
                          const CommOverrides& overrides, const Noise& noise, double false_failure);

// Adds node_failure (detect, recover), observability (alert_latency) and checkpoint (checkpoint_write,
// checkpoint_restore) expectations found in a simulated run; a figure the run does not show (no node failure, no
// alert) is left out.
void add_time_expectations(AcceptPlan& plan, const RunRecord& twin, const Scenario& sc, const Noise& noise);

}  // namespace tt::accept
