// Preflight in the twin: which release each topology node runs (a scenario's "preflight" section, docs/preflight.md),
// which nodes fail preflight against the matrix's current release (they are gated: cordoned with the reason, when the
// scenario says so), and the consequence the rules name for a job placed across nodes that disagree on NCCL: its
// communicator never forms, so it hangs at setup (played by core/drive/preflight_effects.hpp). A node may also carry
// its own settings (kernel parameters, /dev/shm, limits, clock) where they differ from its release's; with a socket
// transport, small socket buffers cap that node's network throughput (socket_limits()).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/preflight/matrix.hpp"
#include "core/preflight/verdict.hpp"
#include "core/topo/topology.hpp"

namespace tt::preflight {

// How the cluster's communication library moves inter-node data: RDMA (InfiniBand or RoCE verbs: the kernel's TCP
// socket buffers play no part) or TCP sockets (NCCL's socket transport, as on clouds without RDMA).
enum class NetTransport { Rdma, Socket };

struct TwinPreflight {
  std::optional<Matrix> matrix;           // unset: the scenario has no preflight section
  std::vector<std::string> node_release;  // by topology node index
  std::map<int, NodeOverrides> node_settings;  // by topology node index: where a node's settings differ from its release's
  NetTransport transport = NetTransport::Rdma;
  // Concurrent TCP connections that carry one NIC's traffic with the socket transport: NCCL_SOCKET_NTHREADS x
  // NCCL_NSOCKS_PERTHREAD per connection (NCCL's automatic choice is 1 x 1, and 2 x 8 on AWS ENA NICs:
  // src/transport/net_socket.cc, ncclSocketGetNsockNthread), times the channels NCCL runs through the NIC (2 here).
  int socket_streams = 2;
  // Share of a socket's buffer that its TCP window may use: Linux reserves part of the buffer for overhead; with
  // net.ipv4.tcp_adv_win_scale = 1 (Linux's default from 3.x until 6.5) the window is half the buffer.
  double socket_window_share = 0.5;
  // Round trip between two nodes for TCP; unset: twice the latency of the topology's path between two nodes' GPU 0
  // (the fabric alone: the kernel's stack adds to it on real hosts, so give a measured one when you have it).
  std::optional<Seconds> socket_rtt;
  bool gate = true;                       // cordon the nodes that fail preflight; false: place on them anyway
  // Speed a node keeps when its attention library cannot run its GPU and falls back to a slower kernel (rule
  // attention-requirements). 0.7: attention taken as 20% of a step, 3x slower without FlashAttention (the
  // FlashAttention-2 paper measures 2-4x over PyTorch's standard attention): 1 / (0.8 + 0.2 x 3) = 0.71.
  double attention_fallback_speed = 0.7;
  bool enabled() const { return matrix.has_value(); }
};

// Each node's inventory as its release defines it (the versions; node settings as the matrix requires them).
std::vector<Inventory> node_inventories(const Topology& topo, const TwinPreflight& p);
// The verdict of the topology's nodes against the current release.
Verdict judge_nodes(const Topology& topo, const TwinPreflight& p);
// Node index -> the reason it fails preflight ("nccl 2.18.3, expected 2.21.5: ..."), for the blocking differences.
std::map<int, std::string> blocked_nodes(const Topology& topo, const TwinPreflight& p);
// Nodes whose release breaks the attention library's requirements on the topology's GPU: they compute slower.
std::vector<int> attention_fallback_nodes(const Topology& topo, const TwinPreflight& p);
// A node whose socket buffers cap its throughput below its NIC's bandwidth (socket transport only): a TCP stream
// carries at most window / RTT, and the node's NIC carries socket_streams of them, so its network efficiency is
// min(1, streams x share x buffer / (RTT x NIC bandwidth)), where buffer is the smaller of net.core.rmem_max and
// net.core.wmem_max as the node's inventory gives them (a node without either is not capped).
struct SocketLimit {
  int node = 0;
  Bytes buffer;
  Seconds rtt;
  BytesPerSecond nic;
  double efficiency = 1;  // < 1
};
std::vector<SocketLimit> socket_limits(const Topology& topo, const TwinPreflight& p);
// Nodes of one job that disagree on NCCL: the reason its communicator setup hangs, else nullopt.
std::optional<std::string> setup_hang(const TwinPreflight& p, const Topology& topo, const std::vector<int>& nodes);

}  // namespace tt::preflight
