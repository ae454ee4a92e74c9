// The allocator's settings for a simulation, linked into every binary that runs one (sim::run() calls
// release_freed_memory(), which pulls this file out of the library).
#include "sim/allocator.hpp"

#include <cstddef>

// jemalloc, linked with the simulation (CMakeLists.txt), reads its options from this symbol. SimGrid gives each actor a
// stack of its own and frees it when the actor ends, thousands of times a simulated day; by default jemalloc hands
// freed pages back to the kernel after 10 s (madvise) and the next stacks fault them in again, zeroed: 6% of the
// 16,384-GPU month went to madvise alone. Freed pages are kept for reuse while a simulation runs instead, and handed
// back once at its end (release_freed_memory(): the report views that follow allocate other sizes).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:-1";
// jemalloc's control interface; null where the process runs without jemalloc (sanitizer builds).
int mallctl(const char* name, void* oldp, std::size_t* oldlenp, void* newp, std::size_t newlen) __attribute__((weak));
}

namespace tt::sim {

void release_freed_memory() {
  // "arena.<MALLCTL_ARENAS_ALL>.purge" (4096 in jemalloc 5): every arena's unused dirty pages back to the kernel.
  if (mallctl != nullptr) mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
}

}  // namespace tt::sim
