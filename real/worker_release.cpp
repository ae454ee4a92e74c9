#include "real/worker_release.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/drive/release_effects.hpp"

namespace tt::real {

bool release_settings_valid(const WorkerConfig& c) {
  return c.release_stretch > 0 && std::isfinite(c.release_stretch) && c.hang_per_collective >= 0 &&
         c.hang_per_collective <= 1 && c.collectives_per_iteration >= 0 && c.hang_rank >= -1 && c.hang_rank < c.world;
}

void announce_release(const WorkerConfig& c) {
  if (c.release == "-") return;
  const std::int64_t at = hang_iteration(c);
  std::fprintf(stderr, "worker %s rank %d/%d attempt %d: release %s: iterations take %.4g x their paced time; %s\n",
               c.job_name.c_str(), c.rank, c.world, c.attempt, c.release.c_str(), c.release_stretch,
               at < 0 ? "no collective hangs"
                      : ("the collective of iteration " + std::to_string(at + 1) + " hangs on rank " +
                         std::to_string(c.hang_rank))
                            .c_str());
}

std::int64_t hang_iteration(const WorkerConfig& c) {
  if (c.hang_rank < 0 || !(c.hang_per_collective > 0) || c.collectives_per_iteration <= 0) return -1;
  const double calls = collective_calls_before_hang(c.hang_seed, c.job, c.attempt, c.hang_per_collective);
  const double iterations = std::floor(calls / c.collectives_per_iteration);
  if (iterations >= static_cast<double>(c.iterations - c.start_iteration)) return -1;
  return c.start_iteration + static_cast<std::int64_t>(iterations);
}

void hang_in_collective(const WorkerConfig& c, std::int64_t iteration) {
  if (c.rank != c.hang_rank) {
    std::fprintf(stderr,
                 "worker %s rank %d/%d attempt %d: iteration %lld's all-reduce waits for rank %d, which never joins "
                 "(release hangs a collective call)\n",
                 c.job_name.c_str(), c.rank, c.world, c.attempt, static_cast<long long>(iteration + 1), c.hang_rank);
    return;
  }
  std::fprintf(stderr,
               "worker %s rank %d/%d attempt %d: release %s: the collective of iteration %lld never completes on this "
               "rank (hang_per_collective %g, %d planned calls per iteration); alive, heartbeating, no progress\n",
               c.job_name.c_str(), c.rank, c.world, c.attempt, c.release.c_str(), static_cast<long long>(iteration + 1),
               c.hang_per_collective, c.collectives_per_iteration);
  std::fflush(stderr);
  for (;;) ::pause();  // until the driver kills the attempt (the speed signal only wakes it up)
}

}  // namespace tt::real
