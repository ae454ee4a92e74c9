// Collects this machine's inventory (core/preflight/inventory.hpp) from the kernel, the C library and the libraries
// themselves: /proc and /sys, uname, getrlimit, statvfs(/dev/shm), adjtimex, getifaddrs; the NVIDIA driver through
// libcuda (cuDriverGetVersion, device attributes), the CUDA runtime through cudaRuntimeGetVersion and NCCL through
// ncclGetVersion, each loaded with dlopen. Whatever cannot be found is absent, never guessed; `notes` says where each
// value came from or why it is absent.
#pragma once

#include <string>
#include <vector>

#include "core/preflight/inventory.hpp"

namespace tt::real {

struct Probe {
  preflight::Inventory inventory;
  std::vector<std::string> notes;  // "nccl: 2.28.9 from /usr/local/cuda/lib64/libnccl.so.2 (ncclGetVersion)"
};

Probe probe_inventory();

}  // namespace tt::real
