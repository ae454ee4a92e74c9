#include "core/sched/scheduler.hpp"

#include <algorithm>

namespace tt {

ScheduleResult PriorityFifoScheduler::schedule(std::vector<PendingJob> pending, ClusterState state,
                                               QueueUsage usage) const {
  std::stable_sort(pending.begin(), pending.end(), [](const PendingJob& a, const PendingJob& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.order < b.order;
  });
  ScheduleResult result;
  const PendingJob* blocker = nullptr;
  for (const auto& job : pending) {
    const int q = job.queue;
    if (usage.used[q] + job.gpus > usage.quota[q]) {
      result.waits.push_back({job.job, "quota of queue " + usage.names[q] + " exhausted: " +
                                           std::to_string(usage.used[q]) + " of " + std::to_string(usage.quota[q]) +
                                           " GPUs in use, " + std::to_string(job.gpus) + " needed"});
      continue;
    }
    if (blocker) {
      result.waits.push_back({job.job, "behind " + *blocker->name + " (priority " + std::to_string(blocker->priority) +
                                           "), which waits for capacity"});
      continue;
    }
    PlacementOutcome placed = placement_.place(state, job.gpus);
    if (placed.gpus.empty()) {
      result.waits.push_back({job.job, placed.why_not});
      blocker = &job;
      continue;
    }
    state.allocate(placed.gpus);
    usage.used[q] += job.gpus;
    result.starts.push_back({job.job, std::move(placed.gpus)});
  }
  return result;
}

}  // namespace tt
