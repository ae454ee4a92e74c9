#include "core/sched/preemption.hpp"

namespace tt {

bool PreemptionPolicy::may_preempt(int queue, int priority, int gpus, VictimCandidate& c, const CohortQuota& quota,
                                   const QuotaUsage& usage) const {
  if (c.queue == queue) {
    c.reclaim = false;
    return preempts_within(queue) && c.priority < priority;
  }
  const ReclaimPreemption mode = queues_[queue].reclaim;
  if (mode == ReclaimPreemption::Never || !quota.in_cohort(queue) || quota.cohort_of(c.queue) != quota.cohort_of(queue))
    return false;
  if (usage.used[queue] + gpus > quota.nominal(queue)) return false;  // only a queue within its quota reclaims
  if (!quota.borrowing(usage, c.queue)) return false;
  if (mode == ReclaimPreemption::LowerPriority && c.priority >= priority) return false;
  c.reclaim = true;
  return true;
}

bool PreemptionPolicy::keeps_guarantee(const VictimCandidate& v, const CohortQuota& quota,
                                       const QuotaUsage& usage) const {
  return !v.reclaim || (quota.borrowing(usage, v.queue) && usage.used[v.queue] - v.gpus >= quota.guaranteed(v.queue));
}

bool PreemptionPolicy::before(const VictimCandidate& a, const VictimCandidate& b) const {
  if (a.reclaim != b.reclaim) return a.reclaim;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.admission != b.admission) return a.admission > b.admission;
  return a.job < b.job;
}

}  // namespace tt
