// A valid inventory and matrix as JSON for the preflight tests to patch (RFC 6902), and the fleets made from them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io/inventory_reader.hpp"

namespace tt::testing {

inline nlohmann::json inventory_json(const std::string& host) {
  auto j = nlohmann::json::parse(R"({
    "format": "traintwin-inventory/1", "host": "h",
    "gpu": {"model": "NVIDIA H100 80GB HBM3", "count": 8, "memory": "80GiB", "compute_capability": "9.0"},
    "driver": {"version": "550.54.15", "cuda": "12.4"}, "cuda_runtime": "12.4",
    "nccl": {"version": "2.21.5", "cuda": "12.4"},
    "attention": {"name": "flash-attn", "version": "2.5.8"}, "framework": {"name": "torch", "version": "2.3.1"},
    "os": {"release": "Ubuntu 22.04.4 LTS", "kernel": "5.15.0-105-generic"},
    "kernel_params": {"net.core.rmem_max": 67108864, "net.core.wmem_max": 67108864},
    "ulimits": {"nofile": 1048576, "memlock": "unlimited"}, "dev_shm": "512GiB",
    "clock": {"synced": true, "max_error": "1500us"},
    "network": {"interface": "eth0", "address": "10.0.0.1/24", "speed": "100000Mbps", "port_range": [32768, 60999]}
  })");
  j["host"] = host;
  return j;
}

inline nlohmann::json matrix_json() {
  return nlohmann::json::parse(R"({
    "format": "traintwin-matrix/1",
    "releases": [
      {"name": "2026.08", "driver": "535.129.03", "cuda_runtime": "12.2", "nccl": "2.18.3"},
      {"name": "2026.11", "driver": "550.54.15", "cuda_runtime": "12.4", "nccl": "2.21.5",
       "attention": {"name": "flash-attn", "version": "2.5.8"}, "framework": {"name": "torch", "version": "2.3.1"}}],
    "current": "2026.11",
    "node": {"dev_shm": "64GiB", "nofile": 1048576, "memlock": "unlimited",
             "kernel_params": {"net.core.rmem_max": 16777216}, "clock_max_error": "10ms"}
  })");
}

inline preflight::Inventory inventory(const std::string& host, const nlohmann::json& patch = nlohmann::json::array()) {
  return read_inventory(inventory_json(host).patch(patch), host + ".json");
}

// n alike nodes named node-01 ... node-n.
inline std::vector<preflight::Inventory> fleet(int n) {
  std::vector<preflight::Inventory> out;
  for (int i = 1; i <= n; ++i) out.push_back(inventory((i < 10 ? "node-0" : "node-") + std::to_string(i)));
  return out;
}

}  // namespace tt::testing
