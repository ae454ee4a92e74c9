// The constants of the communication cost model: NCCL's published tuning figures for one GPU generation, with the
// scenario's overrides (core/model/comm.hpp) applied. comm_constants() is a pure function of the GPU and overrides.
//
// Source of the NCCL figures: NVIDIA/nccl, src/graph/tuning.cc and src/graph/topo.h at commit b6475625 (the 2.20/2.21
// line, the first with MNNVL): base latencies (baseLat), per-hop latencies by medium (hwLat), the LL/LL128/tree
// bandwidth caps (llMaxBws, perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws), the tree correction
// factors, the network post overhead and the ring "plateau" factor; the per-NVLink bandwidth NCCL assumes
// (SM80 20.0, SM90 20.6, SM100 40.1 GB/s). Figures carry over; the model around them is ours (comm_planner.cpp).
#pragma once

#include <array>
#include <string>

#include "core/model/comm.hpp"
#include "core/model/gpu.hpp"

namespace tt {

struct CommConstants {
  using ByAlgoProto = std::array<std::array<double, kProtocols>, kTabledAlgorithms>;  // [Ring .. NvlsTree][proto]
  using ByNodes = std::array<double, 3>;  // [one node, two nodes, more], bytes per second

  int compute_capability = 90;
  bool nvls = true;
  std::array<bool, kAlgorithms> algorithm_enabled{true, true, true, true, true, true};
  std::array<bool, kProtocols> protocol_enabled{true, true, true};
  int channels = 32;
  double nvlink_efficiency = 20.6 / 25.0;
  double net_efficiency = 1.0;
  ByAlgoProto base_latency{};                    // seconds
  std::array<ByAlgoProto, kMedia> hw_latency{};  // seconds, by Medium
  ByNodes ll_max_bandwidth{};
  ByNodes ring_ll128_per_channel{};
  ByNodes tree_per_channel{};
  ByNodes tree_ll128_per_channel{};
  std::array<std::array<double, 23>, kProtocols> tree_correction{};  // by log2(bytes / 64), 64 B to 256 MiB
  double net_overhead = 1e-6;                                        // seconds per network post (x3 for Simple)
  double ring_plateau = 1.4;                                         // multi-node ring/Simple all-reduce latency factor
  double ll128_ppn1_factor = 0.7;  // ring LL128 with one rank per node (the GPU both sends and receives on its NIC)
  int ib_timeout = 20;             // NCCL_IB_TIMEOUT default (NCCL 2.14+)
  int ib_retry_cnt = 7;            // NCCL_IB_RETRY_CNT default
  std::string socket_ifname = "eth0";
  std::string source;
  // Calibrated corrections by [algorithm][protocol][node class][size band] (RegimeFactors): all 1 is NCCL's model as
  // the tables above give it. Defaults where public measurements show the model off (comm_constants.cpp).
  using Regimes = std::array<std::array<std::array<std::array<RegimeFactors, kSizeBands>, kNodeClasses>, kProtocols>,
                             kAlgorithms>;
  Regimes regime{};
  std::string regime_source;  // where the corrections come from; empty when there are none
  Selection selection = Selection::Nccl;  // what the planner compares: NCCL's figures or the corrected times
};

// NCCL's defaults for `gpu` with `overrides` applied. Multi-node LL caps assume Intel host CPUs (NCCL indexes them by
// CPU vendor). Blackwell (compute capability 100) uses the Hopper rows, which that NCCL line applies to sm >= 90; it
// also leaves LL128 off by default on sm 100, and so do we.
CommConstants comm_constants(const GpuSpec& gpu, const CommOverrides& overrides = {});
// NCCL's figures alone: comm_constants() without any regime correction (the baseline calibration fits against).
CommConstants nccl_constants(const GpuSpec& gpu, const CommOverrides& overrides = {});

// Index of a node count into a ByNodes table: 1 -> 0, 2 -> 1, more -> 2.
inline int node_class(int nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

}  // namespace tt
