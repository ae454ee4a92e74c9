#include "core/sched/quota.hpp"

#include <climits>
#include <map>

namespace tt {

CohortQuota::CohortQuota(const std::vector<QueueSpec>& queues) : queues_(queues) {
  std::map<std::string, int> cohorts;
  for (const auto& q : queues_) {
    int c;
    if (q.cohort.empty()) {
      c = static_cast<int>(pool_.size());
      pool_.push_back(0);
    } else if (auto it = cohorts.find(q.cohort); it != cohorts.end()) {
      c = it->second;
    } else {
      c = static_cast<int>(pool_.size());
      cohorts.emplace(q.cohort, c);
      pool_.push_back(0);
    }
    int lend = q.cohort.empty() ? q.gpu_quota : std::min(q.gpu_quota, q.lending_limit.value_or(INT_MAX));
    cohort_of_.push_back(c);
    guaranteed_.push_back(q.gpu_quota - lend);
    pool_[c] += lend;
  }
}

QuotaUsage CohortQuota::empty_usage() const {
  return QuotaUsage{std::vector<int>(queues_.size(), 0), std::vector<int>(pool_.size(), 0)};
}

void CohortQuota::charge(QuotaUsage& u, int queue, int gpus) const {
  int before = pool_use(queue, u.used[queue]);
  u.used[queue] += gpus;
  u.pool_used[cohort_of_[queue]] += pool_use(queue, u.used[queue]) - before;
}

int CohortQuota::max_usable(int queue) const {
  const QueueSpec& q = queues_[queue];
  if (q.cohort.empty()) return q.gpu_quota;
  long long cap = static_cast<long long>(guaranteed_[queue]) + pool_[cohort_of_[queue]];
  if (q.borrowing_limit) cap = std::min<long long>(cap, static_cast<long long>(q.gpu_quota) + *q.borrowing_limit);
  return static_cast<int>(std::min<long long>(cap, INT_MAX));
}

bool CohortQuota::fits(const QuotaUsage& u, int queue, int gpus) const {
  const QueueSpec& q = queues_[queue];
  const int after = u.used[queue] + gpus;
  if (q.cohort.empty()) return after <= q.gpu_quota;
  if (q.borrowing_limit && after - q.gpu_quota > *q.borrowing_limit) return false;
  const int c = cohort_of_[queue];
  return u.pool_used[c] - pool_use(queue, u.used[queue]) + pool_use(queue, after) <= pool_[c];
}

PendingReason CohortQuota::why_not(const QuotaUsage& u, int queue, int gpus) const {
  PendingReason r;
  r.kind = WaitKind::Quota;
  r.queue = queue;
  r.a = u.used[queue];
  r.b = nominal(queue);
  r.c = borrowed(u, queue);
  r.d = std::max(0, pool_left(u, queue));
  r.e = gpus;
  r.cohort = in_cohort(queue);
  return r;
}

}  // namespace tt
