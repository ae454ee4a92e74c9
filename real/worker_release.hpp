// What a node's release does to a worker, for real (docs/rollout.md, "For real"). Two settings a worker runs with:
// - release_stretch: the worker's iteration takes release_stretch x max(pace, work) of real time. The worker really
//   trains slower (it sleeps the difference in its training loop, as a slower device would leave it waiting), and
//   its measured iteration, which the Controller samples, grows with it. A stretch is needed because the worker paces
//   every iteration to the plan's prediction (real/driver.hpp): extra work that still fits under the pace would not
//   show at all.
// - hang_per_collective: one rank of the job (hang_rank, the first on a node of the hanging release) withholds its
//   contribution to a collective call and never returns; every other rank enters the Gloo all-reduce and really blocks
//   in it. The processes stay alive and keep their heartbeats: only a progress watchdog notices. Which call is drawn
//   as the simulator draws it (collective_calls_before_hang, core/drive/release_effects.hpp), so both drivers hang
//   the same attempt after the same number of iterations.
#pragma once

#include <cstdint>

#include "real/worker.hpp"

namespace tt::real {

// The release settings are in range: stretch > 0 and finite, hang_per_collective in [0, 1], calls >= 0,
// hang_rank in [-1, world).
bool release_settings_valid(const WorkerConfig& c);

// One line on the worker's log naming its release and what it does (nothing when the driver set no release).
void announce_release(const WorkerConfig& c);

// The absolute iteration in whose collective the job hangs (the call is the one after this many iterations);
// -1 when it never hangs within the job's iterations.
std::int64_t hang_iteration(const WorkerConfig& c);

// At the hanging collective. The hanging rank logs the call and blocks forever (its heartbeat thread keeps running);
// every other rank logs that its peer never joins and returns, to block in the all-reduce itself.
void hang_in_collective(const WorkerConfig& c, std::int64_t iteration);

}  // namespace tt::real
