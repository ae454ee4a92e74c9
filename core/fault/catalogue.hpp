// Published failure rates by cause, turned into per-component rates for a topology. A scenario says
// "stochastic": {"rates": "llama3-h100", "scale": 2.0}; each cause becomes one FaultRate of the fault kind it maps to.
//
// "llama3-h100": Dubey et al. 2024, "The Llama 3 Herd of Models" (arXiv:2407.21783), section 3.3.4 and table 5:
// 419 unexpected interruptions in a 54-day snapshot of Llama 3 405B pre-training on up to 16,384 H100 GPUs
// (2,048 nodes of 8), by root cause. The counts are used (they sum to 419; the table's percentage for "Faulty GPU",
// 30.1%, does not match its count, 148 of 419 = 35.3%). The paper gives no repair times: those below are ours.
// Software bugs, NCCL watchdog timeouts and dependency failures run as deadlocks (the watchdog notices them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/scenario.hpp"
#include "core/topo/topology.hpp"

namespace tt {

struct CatalogueCause {
  std::string cause;  // as the source names it
  int count = 0;      // interruptions in the observation
  FaultKind kind;     // how traintwin executes it
  RepairDistribution repair;
};

struct Catalogue {
  std::string name;
  std::string source;      // the publication
  double gpus = 0;         // fleet size observed
  double gpus_per_node = 0;
  Seconds observed;        // observation length
  std::vector<CatalogueCause> causes;
};

const Catalogue* find_catalogue(const std::string& name);
std::vector<std::string> catalogue_names();

// One FaultRate per cause with candidates in `topo`: the cluster-wide rate is the published rate per GPU x the
// topology's GPUs x scale, spread evenly over the kind's components (core/fault/fault_kind.hpp). Causes of a kind
// with no candidate (no fabric cable, no storage) are left out.
std::vector<FaultRate> catalogue_rates(const Catalogue& c, const Topology& topo, double scale);

}  // namespace tt
