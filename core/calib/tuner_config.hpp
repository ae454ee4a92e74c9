// NCCL's tuner-plugin configuration (NVIDIA/nccl ext-tuner/example, nccl_tuner.conf: collective_type,min_bytes,
// max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff) from the planner's choices, so that a real
// run pins the algorithm and protocol the rehearsal assumed. Pure: returns the file's text.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/plan/comm_planner.hpp"

namespace tt {

// For each communicator (a collective on its GPUs; repeated shapes once), the planner's choice at every power of two
// from 1 B to 4 GiB, merged into size ranges (a boundary halfway between two sizes whose choices differ) that cover
// 0 .. 4294967295. Collectives the tuner cannot steer (alltoall, sendrecv) and choices NCCL has no name for
// (hierarchical) are listed as comments.
std::string tuner_config_csv(const CommPlanner& planner,
                             const std::vector<std::pair<Collective, std::vector<int>>>& communicators);

}  // namespace tt
