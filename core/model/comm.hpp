// Names of the communication vocabulary (collectives, algorithms, protocols) and the scenario's optional overrides of
// the communication cost model (the "comm" section, docs/scenario-format.md). Plain values; the planner that uses
// them is core/plan/comm_planner.hpp, the defaults they override are in core/plan/comm_constants.hpp.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

enum class Collective { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, AllToAll, SendRecv };
// Ring, Tree, Nvls and NvlsTree come first: they index NCCL's latency tables. NvlsTree is NCCL's NVLSTree (NVLink
// SHARP inside each node, a tree between nodes: its multi-node all-reduce on NVSwitch systems). Hierarchical runs
// rings inside nodes and across them; P2p is the point-to-point path of alltoall and sendrecv.
enum class Algorithm { Ring, Tree, Nvls, NvlsTree, Hierarchical, P2p };
enum class Protocol { LL, LL128, Simple };
enum class Medium { NvLink, Pci, Net };  // NCCL's hardware classes for latency
// Message-size regimes that calibration fits apart: <= 64 KiB (latency-bound), between, >= 16 MiB (bandwidth-bound).
enum class SizeBand { Small, Medium, Large };
// How the planner picks among the ways to run a collective. Nccl: as NCCL's own tuning does, by NCCL's figures (the
// calibrated corrections then change the predicted time, not the choice: what a run without a tuner plugin does).
// Fastest: the lowest corrected time (what a run pinned by `traintwin plan --tuner-csv` of that plan does).
enum class Selection { Nccl, Fastest };

inline constexpr int kCollectives = 7;
inline constexpr int kAlgorithms = 6;
inline constexpr int kTabledAlgorithms = 4;  // Ring, Tree, Nvls, NvlsTree
inline constexpr int kProtocols = 3;
inline constexpr int kMedia = 3;
inline constexpr int kSizeBands = 3;
inline constexpr int kNodeClasses = 3;  // one node, two nodes, more

SizeBand size_band(Bytes size);
const char* to_string(SizeBand b);  // "<=64KiB", "64KiB-16MiB", ">=16MiB"
std::optional<SizeBand> parse_size_band(std::string_view s);

// A calibrated correction of the cost model for one algorithm, protocol, node class and size band: one call takes
// latency x latency_factor + transfer / bandwidth_factor, where latency and transfer are NCCL's model's.
struct RegimeFactors {
  double latency = 1;
  double bandwidth = 1;
};
struct RegimeOverride {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int node_class = 0;  // 0: one node, 1: two nodes, 2: more
  SizeBand band = SizeBand::Large;
  RegimeFactors factors;
};

const char* to_string(Collective c);  // "all_reduce", as nccl-tests names its binaries
const char* to_string(Algorithm a);   // "ring", "tree", "nvls", "nvls_tree", "hierarchical", "p2p"
const char* to_string(Protocol p);    // "LL", "LL128", "Simple", as NCCL_PROTO spells them
const char* to_string(Medium m);      // "nvlink", "pci", "net"
std::optional<Collective> parse_collective(std::string_view s);
std::optional<Algorithm> parse_algorithm(std::string_view s);  // case-insensitive; NCCL_ALGO's "NVLSTree" too
std::optional<Protocol> parse_protocol(std::string_view s);    // case-insensitive
std::optional<Medium> parse_medium(std::string_view s);

// Every field is optional: unset means NCCL's default for the cluster's GPU (core/plan/comm_constants.hpp).
struct CommOverrides {
  template <class T>
  using ByAlgoProto = std::array<std::array<std::optional<T>, kProtocols>, kTabledAlgorithms>;

  std::optional<bool> nvls;                          // NVSwitch with SHARP (NVLink SHARP); default from the GPU catalog
  std::optional<std::vector<Algorithm>> algorithms;  // enabled algorithms (like NCCL_ALGO)
  std::optional<std::vector<Protocol>> protocols;    // enabled protocols (like NCCL_PROTO)
  std::optional<int> channels;                       // NCCL channels, for the per-channel caps and NCCL_MAX_CTAS
  std::optional<double> nvlink_efficiency;           // achieved fraction of the NVLink bandwidth
  std::optional<double> net_efficiency;              // achieved fraction of the NIC / fabric bandwidth
  ByAlgoProto<Seconds> base_latency;
  std::array<ByAlgoProto<Seconds>, kMedia> hw_latency;
  // Caps indexed by node count: [one node, two nodes, more].
  std::optional<std::array<BytesPerSecond, 3>> ll_max_bandwidth;
  std::optional<std::array<BytesPerSecond, 3>> ring_ll128_per_channel;
  std::optional<std::array<BytesPerSecond, 3>> tree_per_channel;
  std::optional<std::array<BytesPerSecond, 3>> tree_ll128_per_channel;
  std::optional<int> ib_timeout;             // NCCL_IB_TIMEOUT
  std::optional<int> ib_retry_cnt;           // NCCL_IB_RETRY_CNT
  std::optional<std::string> socket_ifname;  // NCCL_SOCKET_IFNAME
  std::optional<std::vector<RegimeOverride>> regimes;  // replace every default regime correction when given
  std::optional<Selection> selection;                  // default Selection::Nccl
};

}  // namespace tt
