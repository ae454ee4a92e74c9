// CohortQuota: Kueue quota arithmetic. Each queue has a nominal quota; queues of a cohort share the quota they lend
// (gpu_quota, or lending_limit when set) as one pool, and the rest of a queue's quota (gpu_quota - lending_limit) is
// guaranteed to it. A queue's usage above its guaranteed part draws on the pool; a queue may use at most
// gpu_quota + borrowing_limit. A queue in no cohort is a cohort of one (it uses at most its quota). Pure: usage is
// passed in, and charge() is the only way to change it so the cohort sums stay consistent.
#pragma once

#include <string>
#include <vector>

#include "core/model/scenario.hpp"
#include "core/sched/pending_reason.hpp"

namespace tt {

struct QuotaUsage {
  std::vector<int> used;       // GPUs held by each queue's running jobs
  std::vector<int> pool_used;  // per cohort: sum over its queues of max(0, used - guaranteed)
};

class CohortQuota {
 public:
  explicit CohortQuota(const std::vector<QueueSpec>& queues);
  const char* name() const { return "kueue-cohorts"; }

  QuotaUsage empty_usage() const;
  void charge(QuotaUsage& u, int queue, int gpus) const;  // gpus < 0 releases

  int cohort_of(int queue) const { return cohort_of_[queue]; }
  bool in_cohort(int queue) const { return !queues_[queue].cohort.empty(); }
  int nominal(int queue) const { return queues_[queue].gpu_quota; }
  int guaranteed(int queue) const { return guaranteed_[queue]; }
  int borrowed(const QuotaUsage& u, int queue) const { return std::max(0, u.used[queue] - nominal(queue)); }
  bool borrowing(const QuotaUsage& u, int queue) const { return u.used[queue] > nominal(queue); }
  int pool_left(const QuotaUsage& u, int queue) const {
    return pool_[cohort_of_[queue]] - u.pool_used[cohort_of_[queue]];
  }
  // The most GPUs one job of the queue could ever hold (its quota plus what it may borrow from an idle cohort).
  int max_usable(int queue) const;

  bool fits(const QuotaUsage& u, int queue, int gpus) const;
  PendingReason why_not(const QuotaUsage& u, int queue, int gpus) const;

 private:
  int pool_use(int queue, int used) const { return std::max(0, used - guaranteed_[queue]); }
  std::vector<QueueSpec> queues_;
  std::vector<int> cohort_of_;
  std::vector<int> guaranteed_;
  std::vector<int> pool_;  // per cohort: sum of what its queues lend
};

}  // namespace tt
