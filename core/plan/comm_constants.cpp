#include "core/plan/comm_constants.hpp"

namespace tt {

namespace {

constexpr double us = 1e-6;
constexpr double GBps = 1e9;

// tuning.cc baseLat, reordered to our [Ring, Tree, Nvls, NvlsTree] x [LL, LL128, Simple], microseconds.
constexpr double kBaseLat[kTabledAlgorithms][kProtocols] = {{6.6, 14.0, 8.4}, {6.8, 14.0, 0}, {0, 0, 0}, {0, 0, 0}};
// tuning.cc hwLat [NVLink, PCI, Net], same order, microseconds.
constexpr double kHwLat[kMedia][kTabledAlgorithms][kProtocols] = {
    {{.6, 1.9, 3.4}, {.6, 1.25, 28}, {0, 0, 23}, {0, 0, 23}},
    {{1.0, 2.5, 5.7}, {1.0, 1.9, 28}, {0, 0, 0}, {0, 0, 0}},
    {{2.7, 4.0, 14.0}, {5.0, 8.5, 28}, {0, 0, 18}, {0, 0, 14}},
};
// tuning.cc treeCorrectionFactor [LL, LL128, Simple] by log2(bytes >> 6).
constexpr double kTreeCorrection[kProtocols][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};

struct Generation {
  double ll_single_node;  // llMaxBws[compCap][N1]
  CommConstants::ByNodes ring_ll128, tree_ll128, tree;
  double nvlink_per_link;  // topo.h SMxx_NVLINK_BW: what NCCL counts per NVLink
  double nvlink_raw;       // the link's raw rate per direction (NVLink3/4: 25 GB/s, NVLink5: 50 GB/s)
  bool ll128;              // LL128 on by default
};

Generation generation(int cc) {
  if (cc >= 100) return {87.7, {36.7, 36.7, 36.7}, {36.7, 36.7, 29.0}, {38.7, 41.4, 36.0}, 40.1, 50.0, false};
  if (cc >= 90) return {87.7, {36.7, 36.7, 36.7}, {36.7, 36.7, 29.0}, {38.7, 41.4, 36.0}, 20.6, 25.0, true};
  return {87.7, {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {24.0, 23.6, 17.8}, 20.0, 25.0, true};
}

CommConstants::ByNodes scaled(const CommConstants::ByNodes& v) { return {v[0] * GBps, v[1] * GBps, v[2] * GBps}; }

void apply(CommConstants::ByNodes& to, const std::optional<std::array<BytesPerSecond, 3>>& from) {
  if (from)
    for (int i = 0; i < 3; ++i) to[i] = (*from)[i].value;
}

void apply(CommConstants::ByAlgoProto& to, const CommOverrides::ByAlgoProto<Seconds>& from) {
  for (int a = 0; a < kTabledAlgorithms; ++a)
    for (int p = 0; p < kProtocols; ++p)
      if (from[a][p]) to[a][p] = from[a][p]->value;
}

// Corrections of NVLS all-reduce on one Hopper node (sm90 with NVLink SHARP), by size band: fitted to both public
// Azure tables (tests/data/nccl/azure-nd-h100-v5 and -h200-v5 .all_reduce.busbw.csv; NCCL 2.18.5 and 2.20.5) against
// the NCCL figures above: `traintwin calibrate` of both files on topologies/single-node-8xh100.json
// (docs/calibration.md), rounded to three digits. Small sizes: NCCL's 23 us NVLS latency is short of the measured
// 26-30 us (kernel launch included); mid sizes: the measured time stays at 31-45 us up to 2 MiB; large sizes: the bus
// bandwidth peaks at ~480 GB/s where 20.6 GB/s per NVLink implies 540 GB/s.
constexpr RegimeFactors kHopperNvls[kSizeBands] = {{1.20, 0.0274}, {1.43, 0.581}, {2.83, 0.865}};
// Corrections across Hopper nodes (8 x 400 Gb/s NICs each), one per algorithm, protocol and size band that NCCL's
// figures pick for some size of a public table (the planner picks as NCCL does, comm_constants.hpp `selection`, so a
// correction moves no choice), fitted by `traintwin calibrate` of the table on its topology (docs/calibration.md) and
// rounded to three digits; tests/core/calib/calibration_test.cpp fits them again.
// Two nodes: NVIDIA/nccl-tests#309's first table (tests/data/nccl/nccl-tests-309-h100-2node.all_reduce.time.csv, NCCL
// 2.26.2, 1 KiB-16 GiB, topologies/rail-2x8-h100.json); NCCL's figures put NVLSTree's bus bandwidth at 579 GB/s where
// the hosts reach 469. Another operator's two-node table (-2node-b) is the out-of-sample check.
// Three nodes and more: that operator's four-node table (-4node-b, 1 MiB-8 GiB, topologies/rail-16x8-h100.json), where
// NCCL's figures are 25% fast from 16 MiB up (the hosts reach ~320 GB/s bus bandwidth); its eight-node table (-8node-b)
// is the out-of-sample check. Beyond eight nodes no public table was found: the corrections are carried as they are.
struct NodeRegime {
  int node_class;  // 1: two nodes, 2: more
  Algorithm algorithm;
  Protocol protocol;
  SizeBand band;
  RegimeFactors factors;
};
constexpr NodeRegime kHopperNodes[] = {
    {1, Algorithm::Tree, Protocol::LL, SizeBand::Small, {1.20, 1.15}},                // 7 sizes, 1-64 KiB
    {1, Algorithm::Hierarchical, Protocol::LL, SizeBand::Medium, {0.751, 0.309}},     // 3 sizes, 128-512 KiB
    {1, Algorithm::NvlsTree, Protocol::Simple, SizeBand::Medium, {1.20, 0.391}},      // 4 sizes, 1-8 MiB
    {1, Algorithm::NvlsTree, Protocol::Simple, SizeBand::Large, {2.55, 0.785}},       // 11 sizes, 16 MiB-16 GiB
    {2, Algorithm::Tree, Protocol::LL128, SizeBand::Medium, {0.906, 0.246}},          // 4 sizes, 1-8 MiB
    {2, Algorithm::Tree, Protocol::LL128, SizeBand::Large, {1.71, 0.585}},            // 1 size, 16 MiB
    {2, Algorithm::Ring, Protocol::Simple, SizeBand::Large, {0.354, 0.817}},          // 4 sizes, 1-8 GiB
    {2, Algorithm::NvlsTree, Protocol::Simple, SizeBand::Large, {2.73, 0.818}},       // 5 sizes, 32-512 MiB
};

void default_regimes(CommConstants& k) {
  if (k.compute_capability != 90 || !k.nvls) return;
  auto& nvls = k.regime[static_cast<int>(Algorithm::Nvls)][static_cast<int>(Protocol::Simple)][0];
  for (int b = 0; b < kSizeBands; ++b) nvls[b] = kHopperNvls[b];
  for (const NodeRegime& r : kHopperNodes)
    k.regime[static_cast<int>(r.algorithm)][static_cast<int>(r.protocol)][r.node_class][static_cast<int>(r.band)] =
        r.factors;
  k.regime_source =
      "NVLS fitted to public Azure ND H100 v5 / ND H200 v5 all_reduce tables, two nodes and more to "
      "NVIDIA/nccl-tests#309 (docs/calibration.md)";
}

}  // namespace

CommConstants comm_constants(const GpuSpec& gpu, const CommOverrides& o) {
  CommConstants k = nccl_constants(gpu, o);
  if (o.regimes) {
    for (const RegimeOverride& r : *o.regimes)
      k.regime[static_cast<int>(r.algorithm)][static_cast<int>(r.protocol)][r.node_class][static_cast<int>(r.band)] =
          r.factors;
    k.regime_source = "the scenario's comm.regimes";
  } else {
    default_regimes(k);
  }
  return k;
}

CommConstants nccl_constants(const GpuSpec& gpu, const CommOverrides& o) {
  CommConstants k;
  const int cc = gpu.compute_capability > 0 ? gpu.compute_capability : 90;
  const Generation g = generation(cc);
  k.compute_capability = cc;
  k.nvls = gpu.nvls;
  k.protocol_enabled[static_cast<int>(Protocol::LL128)] = g.ll128;
  k.nvlink_efficiency = g.nvlink_per_link / g.nvlink_raw;
  for (int a = 0; a < kTabledAlgorithms; ++a)
    for (int p = 0; p < kProtocols; ++p) {
      k.base_latency[a][p] = kBaseLat[a][p] * us;
      for (int m = 0; m < kMedia; ++m) k.hw_latency[m][a][p] = kHwLat[m][a][p] * us;
    }
  // llMaxBws: one node by GPU generation; several by host CPU (Intel row: 39.0 for two nodes, 20.4 beyond).
  k.ll_max_bandwidth = {g.ll_single_node * GBps, 39.0 * GBps, 20.4 * GBps};
  k.ring_ll128_per_channel = scaled(g.ring_ll128);
  k.tree_per_channel = scaled(g.tree);
  k.tree_ll128_per_channel = scaled(g.tree_ll128);
  for (int p = 0; p < kProtocols; ++p)
    for (int i = 0; i < 23; ++i) k.tree_correction[p][i] = kTreeCorrection[p][i];
  k.source = "NVIDIA/nccl src/graph/tuning.cc, topo.h @ b6475625 (2.20/2.21), sm" + std::to_string(cc) + " tables";

  if (o.nvls) k.nvls = *o.nvls;
  if (o.selection) k.selection = *o.selection;
  if (o.algorithms) {
    k.algorithm_enabled.fill(false);
    for (Algorithm a : *o.algorithms) k.algorithm_enabled[static_cast<int>(a)] = true;
    k.algorithm_enabled[static_cast<int>(Algorithm::P2p)] = true;  // alltoall and sendrecv have no other path
  }
  if (o.protocols) {
    k.protocol_enabled.fill(false);
    for (Protocol p : *o.protocols) k.protocol_enabled[static_cast<int>(p)] = true;
  }
  if (o.channels) k.channels = *o.channels;
  if (o.nvlink_efficiency) k.nvlink_efficiency = *o.nvlink_efficiency;
  if (o.net_efficiency) k.net_efficiency = *o.net_efficiency;
  apply(k.base_latency, o.base_latency);
  for (int m = 0; m < kMedia; ++m) apply(k.hw_latency[m], o.hw_latency[m]);
  apply(k.ll_max_bandwidth, o.ll_max_bandwidth);
  apply(k.ring_ll128_per_channel, o.ring_ll128_per_channel);
  apply(k.tree_per_channel, o.tree_per_channel);
  apply(k.tree_ll128_per_channel, o.tree_ll128_per_channel);
  if (o.ib_timeout) k.ib_timeout = *o.ib_timeout;
  if (o.ib_retry_cnt) k.ib_retry_cnt = *o.ib_retry_cnt;
  if (o.socket_ifname) k.socket_ifname = *o.socket_ifname;
  return k;
}

}  // namespace tt
