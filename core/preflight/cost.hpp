// What each preflight difference cost in a run, and which to fix first (docs/preflight.md, "What a mismatch costs").
// The twin plays the consequences the rules name (core/drive/preflight_effects.hpp); this attributes what the run
// recorded back to the difference that caused it:
// - failed launches and the GPU-hours they lost: the failures whose cause names the difference's rule (a job placed
//   across NCCL versions hangs at communicator setup: rule nccl-same-version);
// - slowed GPU-hours: each attempt of a job on a node whose attention library falls back, (1 - fallback speed) of its
//   wall time times its GPUs (synchronous training runs at its slowest rank, so the whole job is slowed);
// - slowed GPU-hours of small socket buffers (socket transport): each attempt of a job on a node whose buffers cap its
//   network (socket_limits), its wall time times its GPUs times the job's measured slowdown against its plan
//   (1 - predicted / measured iteration time: contention the plan did not foresee counts too, an upper bound);
// - withheld GPU-hours: with gating on, the capacity of the cordoned nodes over the run, charged in full to every
//   blocking difference of those nodes (the capacity returns only when all of them are fixed: not additive).
// Ranked by GPU-hours per day of the run, blocking before warning on ties, then in the verdict's order.
#pragma once

#include <vector>

#include "core/control/run_record.hpp"
#include "core/preflight/twin.hpp"

namespace tt::preflight {

std::vector<PreflightCost> difference_costs(const Topology& topo, const TwinPreflight& preflight,
                                            const RunRecord& record);

}  // namespace tt::preflight
