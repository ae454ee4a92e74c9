// The compatibility rules preflight applies to each node's versions as a set, as data: each rule names its published
// source and the failure it leads to. The thresholds (driver floors per CUDA major, attention library requirements)
// are tables below, documented one for one in docs/preflight.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/preflight/inventory.hpp"

namespace tt::preflight {

enum class Severity { Warning, Blocking };
const char* to_string(Severity s);

struct Rule {
  const char* id;        // "cuda-driver-floor"
  Severity severity;
  const char* summary;   // what it checks
  const char* failure;   // what breaks when it does not hold
  const char* source;    // where the rule is published
};

// Every rule preflight knows, in report order.
const std::vector<Rule>& rules();
const Rule& rule(const std::string& id);  // asserts the id exists

// CUDA minor-version compatibility: the oldest driver that runs every runtime of a CUDA major version.
struct DriverFloor {
  int cuda_major;
  const char* driver;  // "525.60.13"
};
const std::vector<DriverFloor>& driver_floors();
std::optional<Version> driver_floor(int cuda_major);

// An attention library release line and what it needs.
struct AttentionRequirement {
  const char* library;         // as inventories name it: "flash-attn"
  int major;                   // the release line (2: FlashAttention-2)
  const char* min_capability;  // GPU compute capability
  const char* max_capability;  // "" when open-ended
  const char* min_cuda;        // CUDA runtime
};
const std::vector<AttentionRequirement>& attention_requirements();

// A rule broken on one node: the rule, and what was found against what it needs.
struct Violation {
  std::string rule;
  std::string found;
  std::string expected;
};

// The per-node rules (versions as a set on one node). The fleet-wide rule (one NCCL for every rank of a job) is
// applied by the verdict, which sees every node.
std::vector<Violation> check_node(const Inventory& inv);

}  // namespace tt::preflight
