// Scheduler policies: given the waiting jobs, the cluster and the queues' quotas, which jobs start now and where, and
// for each job that does not, one reason a user can act on. Pure: it works on copies and decides nothing twice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sched/cluster_state.hpp"
#include "core/sched/placement.hpp"

namespace tt {

struct PendingJob {
  int job = 0;
  const std::string* name = nullptr;
  int priority = 0;
  int gpus = 0;
  int queue = 0;
  std::int64_t order = 0;  // among equal priorities, lower goes first (a requeued job gets a lower order: the head)
};

struct QueueUsage {
  std::vector<std::string> names;
  std::vector<int> quota;
  std::vector<int> used;
};

struct ScheduleResult {
  struct Start {
    int job;
    std::vector<int> gpus;
  };
  struct Wait {
    int job;
    std::string reason;
  };
  std::vector<Start> starts;
  std::vector<Wait> waits;
};

// Priority, then FIFO, all queues in one order. A job over its queue's quota waits without holding others back; a job
// that fits its quota but not the cluster blocks every job after it (no backfill), so large jobs are not starved.
class PriorityFifoScheduler {
 public:
  const char* name() const { return "priority-fifo"; }
  ScheduleResult schedule(std::vector<PendingJob> pending, ClusterState state, QueueUsage usage) const;

 private:
  PackPlacement placement_;
};

}  // namespace tt
