// The NCCL settings a real run of a placed job uses: environment variables and the NCCL_TOPO_FILE XML of a node,
// generated from our Topology and the plan's choices; and the communication timeout the InfiniBand settings imply.
// Pure functions; nothing is written to disk here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/plan/comm_constants.hpp"
#include "core/plan/iteration_plan.hpp"
#include "core/topo/topology.hpp"

namespace tt {

// How long NCCL's InfiniBand transport waits before it reports a connection broken: each try waits the local ACK
// timeout 4.096 us x 2^ib_timeout (the InfiniBand encoding of NCCL_IB_TIMEOUT), and a send is tried 1 + ib_retry_cnt
// times (the first try and NCCL_IB_RETRY_CNT retries). Defaults 20 and 7: 8 x 4.29 s = 34.4 s.
Seconds ib_comm_timeout(int ib_timeout, int ib_retry_cnt);
inline Seconds ib_comm_timeout(const CommConstants& k) { return ib_comm_timeout(k.ib_timeout, k.ib_retry_cnt); }

// The NIC of local GPU i is "mlx5_<i>" (one NIC per GPU, on its rail), as on DGX/HGX systems.
std::string nic_name(int local_gpu);

// NCCL_ALGO and NCCL_PROTO: the algorithms and protocols the plan chose (hierarchical groups run NCCL rings on the
// split intra- and inter-node communicators, so they add "Ring"); NCCL_MIN_CTAS: the most ring channels a group
// uses, NCCL_MAX_CTAS: the constants' channels; NCCL_IB_HCA: the NICs of the local GPUs the job uses ("=" for an
// exact match, port 1); NCCL_SOCKET_IFNAME, NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT from the constants; NCCL_TOPO_FILE
// when `topo_file` is not empty. In a stable order. Every group that moves something must be planned
// (require_planned()).
std::vector<std::pair<std::string, std::string>> nccl_env(const Topology& topo, const std::vector<int>& gpus,
                                                          const std::vector<CommStep>& steps, const CommConstants& k,
                                                          const std::string& topo_file = "");

// The NCCL topology XML of node `node` (NCCL_TOPO_FILE): <system> with two <cpu> NUMA domains; under them one PCIe
// switch per GPU holding the GPU (<gpu> with its <nvlink> to the NVSwitch) and, when the GPU has a NIC link, its NIC
// (<nic><net name="mlx5_i" speed=... in Mb/s>). Bus ids are synthetic but stable.
std::string nccl_topo_xml(const Topology& topo, int node);

}  // namespace tt
