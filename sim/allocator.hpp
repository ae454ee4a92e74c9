// The allocator's settings for a simulation (sim/allocator.cpp).
#pragma once

namespace tt::sim {

// Hands the pages the allocator kept for reuse during a simulation back to the kernel (sim/allocator.cpp: jemalloc's
// options); called as sim::run() returns. A no-op without jemalloc.
void release_freed_memory();

}  // namespace tt::sim
