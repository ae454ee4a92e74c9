// Preflight in the twin: which release each topology node runs (a scenario's "preflight" section, docs/preflight.md),
// which nodes fail preflight against the matrix's current release (they are gated: cordoned with the reason, when the
// scenario says so), and the consequence the rules name for a job placed across nodes that disagree on NCCL: its
// communicator never forms, so it hangs at setup (played by core/drive/preflight_effects.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/preflight/matrix.hpp"
#include "core/preflight/verdict.hpp"
#include "core/topo/topology.hpp"

namespace tt::preflight {

struct TwinPreflight {
  std::optional<Matrix> matrix;           // unset: the scenario has no preflight section
  std::vector<std::string> node_release;  // by topology node index
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
// Nodes of one job that disagree on NCCL: the reason its communicator setup hangs, else nullopt.
std::optional<std::string> setup_hang(const TwinPreflight& p, const Topology& topo, const std::vector<int>& nodes);

}  // namespace tt::preflight
