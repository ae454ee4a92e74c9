// GPU catalog: dense bf16 peak, HBM capacity and NVLink bandwidth per GPU, from vendor datasheets.
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
};

const GpuSpec* find_gpu(std::string_view name);
const std::vector<GpuSpec>& gpu_catalog();

}  // namespace tt
