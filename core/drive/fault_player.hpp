// FaultPlayer: the scenario's faults (scripted, then stochastic ones drawn from its seed: core/fault/stochastic.hpp)
// as one ordered stream of changes, the same for every driver. A fault starts at `at` and, unless its kind has no
// repair (core/fault/fault_kind.hpp), ends at `at + repair`. Order: by time; at equal times by fault order (scripted
// faults first, in file order, then stochastic ones by time), a fault's start before its own repair. Changes at or
// after the horizon are never played. Targets are resolved once against the topology (std::invalid_argument naming
// the fault when one does not exist); a driver executes a change on what the target names and reports what it saw.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/model/scenario.hpp"

namespace tt {

// What a fault strikes, as topology and scenario indices.
struct FaultTarget {
  int node = -1;            // node_crash, hang, deadlock; the GPU's node for gpu_failure, nic_down, straggler
  std::vector<int> gpus;    // global GPU indices: the node's for node_crash, hang, deadlock; the one GPU otherwise
  std::vector<int> cables;  // Topology link ids, sorted: every cable at the node's GPUs (node_crash), at the GPU
                            // (gpu_failure), its NIC cables (nic_down), the cable (link_down), the switch's or the
                            // storage's cables (switch_down, storage_slow)
  int job = -1;             // checkpoint_corrupt
};

struct FaultChange {
  Seconds at;
  std::size_t fault = 0;  // index in FaultPlayer::faults()
  bool starts = true;     // false: the fault is repaired
};

class FaultPlayer {
 public:
  // Every fault of the scenario up to its horizon.
  explicit FaultPlayer(const Scenario& scenario);
  FaultPlayer(const Scenario& scenario, std::vector<FaultSpec> faults);

  const std::vector<FaultSpec>& faults() const { return faults_; }
  const FaultTarget& target(std::size_t fault) const { return targets_[fault]; }
  const std::vector<FaultChange>& changes() const { return changes_; }
  // The time of the next change not yet taken; nullopt when none is left.
  std::optional<Seconds> next_at() const;
  // Takes the next change if it is due at or before `now`.
  std::optional<FaultChange> take_due(Seconds now);
  // What the change does, for logs: "node n3 crashed", "GPU n0/gpu2 back to full speed", ...
  std::string describe(const FaultChange& c) const;

 private:
  std::vector<FaultSpec> faults_;
  std::vector<FaultTarget> targets_;
  std::vector<FaultChange> changes_;
  std::size_t next_ = 0;
};

// What a fault does, for causes and logs: "node n3 crashed (GPU HBM3 memory)".
std::string describe_fault(const FaultSpec& fault);
// Resolves one fault's target (std::invalid_argument naming fault `index` when absent).
FaultTarget resolve_fault_target(const Scenario& scenario, const FaultSpec& fault, std::size_t index);
// The cables of a node's NICs (as a nic_down of each of its GPUs names them), sorted, for a bandwidth factor on them
// (a StorageSlow change scales any cable's bandwidth); empty on a topology without NICs.
FaultTarget node_nic_cables(const Scenario& scenario, int node);

}  // namespace tt
