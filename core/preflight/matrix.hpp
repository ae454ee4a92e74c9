// Matrix: the pinned version matrix. A release is a named set of versions (driver, CUDA runtime, NCCL, attention
// library, training framework) upgraded and validated as one unit; a rollout names a release. The matrix also states
// the node settings every node must meet. Plain values, read by core/io/inventory_reader.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/preflight/inventory.hpp"

namespace tt::preflight {

struct Release {
  std::string name;  // "2026.11"
  Version driver;    // a minimum: newer drivers run older runtimes (CUDA backward compatibility)
  Version cuda_runtime;
  Version nccl;
  std::optional<Library> attention;
  std::optional<Library> framework;
};

struct NodeRequirements {
  std::optional<Bytes> dev_shm;                        // at least
  std::optional<Limit> nofile;                         // at least
  std::optional<Limit> memlock;                        // at least, bytes
  std::map<std::string, std::int64_t> kernel_params;  // each at least
  bool clock_synced = true;
  std::optional<Seconds> clock_max_error;              // at most
};

// A node's own settings where they differ from what its release sets (the twin's preflight section "nodes"): each
// field given replaces the matrix's node value, kernel_params key by key. Same keys as the matrix's "node" object.
struct NodeOverrides {
  std::optional<Bytes> dev_shm;
  std::optional<Limit> nofile;
  std::optional<Limit> memlock;
  std::map<std::string, std::int64_t> kernel_params;
  std::optional<bool> clock_synced;
  std::optional<Seconds> clock_max_error;
};

struct Matrix {
  std::string source_file;
  std::vector<Release> releases;  // names unique
  std::string current;            // the release nodes must run; one of `releases`
  NodeRequirements node;

  const Release* find(const std::string& name) const;
  const Release& current_release() const { return *find(current); }
};

}  // namespace tt::preflight
