// GPU catalog: dense bf16 peak, HBM capacity and NVLink bandwidth per GPU, from vendor datasheets; the CUDA compute
// capability (which of NCCL's tuning tables applies) and whether its NVSwitch does in-switch reductions (NVLS).
// find_gpu() returns nullptr for an unknown name; core/io reports that as an input error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

struct GpuSpec {
  std::string name;
  FlopsPerSecond dense_bf16;   // tensor-core peak, dense (no sparsity)
  Bytes memory;                // HBM capacity
  BytesPerSecond nvlink;       // NVLink bandwidth per direction
  std::string source;          // where the figures come from
  int compute_capability = 0;  // 80 Ampere, 90 Hopper, 100 Blackwell
  bool nvls = false;           // NVSwitch with SHARP (NVLink SHARP): NCCL's NVLS algorithm is available in a node
};

const GpuSpec* find_gpu(std::string_view name);
const std::vector<GpuSpec>& gpu_catalog();

}  // namespace tt
