// Fault kinds: the component each one strikes, its names in scenario files, the candidates a stochastic fault picks
// from. A pure description: the drivers execute faults and report what they see; the Controller detects failures
// from that (core/fault/detection.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fault/detection.hpp"
#include "core/model/scenario.hpp"
#include "core/topo/topology.hpp"

namespace tt {

enum class Component { Node, Gpu, Link, Switch, Storage, Job };
const char* to_string(Component c);

Component component_of(FaultKind kind);
// The key naming the target in a scripted fault: "node", "gpu", "link", "switch", "storage" or "job".
const char* target_key(FaultKind kind);
// "node_crash" ... ; "link_flap" reads as LinkDown.
std::optional<FaultKind> parse_fault_kind(std::string_view name);
std::vector<std::string> fault_kind_names();
// Straggler and storage_slow degrade, the others stop work: a job they strike stalls.
// Hang and deadlock strike jobs, not the node, and a corrupt checkpoint stays corrupt: they have no repair.
inline bool without_repair(FaultKind kind) {
  return kind == FaultKind::Hang || kind == FaultKind::Deadlock || kind == FaultKind::CheckpointCorrupt;
}
// Scripted only: a stochastic rate per component makes no sense for it (a job is not a component of the cluster).
inline bool scripted_only(FaultKind kind) { return kind == FaultKind::CheckpointCorrupt; }
bool degrades_only(FaultKind kind);
// Names of the components of the topology a fault of this kind may strike: nodes; GPUs (for nic_down, those with a
// NIC cable); fabric cables (NIC cables when there are none); leaf and spine switches; "storage"; none for a job.
std::vector<std::string> fault_candidates(FaultKind kind, const Topology& topo);

}  // namespace tt
