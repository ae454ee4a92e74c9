// Scheduler::audit: what the scheduler keeps to skip work, recounted from its jobs (for tests).
#include <algorithm>
#include <string>

#include "core/sched/scheduler.hpp"

namespace tt {

std::string Scheduler::audit(Seconds now, const ClusterState& cluster) const {
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const Job& x = jobs_[j];
    char quiet = 0;  // quiet_kind(), recounted
    if (x.preempted_by >= 0)
      quiet = x.reason.kind == WaitKind::Preempted && jobs_[x.preempted_by].state == State::Running ? 4 : 0;
    else if (x.reason.kind == WaitKind::Quota)
      quiet = 1;
    else if (x.reason.kind == WaitKind::Capacity)
      quiet = 2;
    else if (x.reason.kind == WaitKind::Reservation)
      quiet = 3;
    else if (x.reason.kind == WaitKind::Fragmentation)
      quiet = 5;
    if (x.state == State::Pending && quiet_[j] != quiet) return "job " + std::to_string(j) + ": quiet_ stale";
    if (started_in_pass_[j]) return "job " + std::to_string(j) + ": marked started after its pass";
  }
  for (const auto& list : pending_)
    for (const Key& k : list)
      if (jobs_[k.job].state != State::Pending) return "job " + std::to_string(k.job) + ": listed, not pending";
  for (const Key& k : pending_all_)
    if (jobs_[k.job].state != State::Pending) return "job " + std::to_string(k.job) + ": listed in all, not pending";
  const Seconds exempt = options_.preemption_exempt_time;
  std::vector<std::vector<int>> held;  // per list bit: GPUs per node
  for (const auto& by_priority : running_in_)
    for (const auto& [prio, list] : by_priority) {
      if (list.settled > list.active || list.active > list.jobs.size()) return "running list: runs out of order";
      long long gpus = 0;
      for (std::size_t i = 0; i < list.jobs.size(); ++i) {
        const Running& y = list.jobs[i];
        const Job& x = jobs_[y.job];
        if (x.state != State::Running || x.run_slot != static_cast<int>(i)) return "running list: a stale slot";
        if (i < list.settled && y.start + exempt > now) return "job " + std::to_string(y.job) + ": settled, exempt";
        if (i >= list.active && !relax_.contains({y.start + exempt, y.job}))
          return "job " + std::to_string(y.job) + ": parked, never unparked";
        if (i < list.active) gpus += y.gpus;
        const int bit = i < list.active ? list.bit : kOtherLists;
        if (held.size() <= static_cast<std::size_t>(bit)) held.resize(static_cast<std::size_t>(bit) + 1);
        for (const auto& [node, n] : x.per_node) {
          auto& h = held[static_cast<std::size_t>(bit)];
          if (h.size() <= static_cast<std::size_t>(node)) h.resize(static_cast<std::size_t>(node) + 1, 0);
          h[static_cast<std::size_t>(node)] += n;
        }
      }
      if (gpus != list.active_gpus) return "running list: active_gpus stale";
    }
  if (reserve_memo_ && reserve_memo_->cluster == &cluster && reserve_memo_->content == content_version_ &&
      reserve_memo_->ends == ends_version_ && cluster.changes() == cluster_changes_) {  // the next pass may reuse it
    ClusterState copy = cluster;
    EasyBackfill fresh;
    const PlacementRequest req{reserve_memo_->gpus, reserve_memo_->max_groups};
    const auto made = fresh.reserve(reserve_memo_->job, req, now, running_ends(), copy, *placement_);
    const auto& kept = reserve_memo_->answer;
    if (made.has_value() != kept.has_value() ||
        (made && (made->gpus != kept->gpus || made->start != std::max(kept->start, now))))
      return "job " + std::to_string(reserve_memo_->job) + ": the kept reservation differs from one made now";
  }
  if (!holders_.ready()) return "";
  const std::vector<int> none;
  for (int n = 0; n < cluster_nodes_; ++n)
    for (int b = 0; b < 64; ++b) {
      const auto& h = static_cast<std::size_t>(b) < held.size() ? held[static_cast<std::size_t>(b)] : none;
      const int want = static_cast<std::size_t>(n) < h.size() ? h[static_cast<std::size_t>(n)] : 0;
      if (holders_.held(n, b) != want) return "node " + std::to_string(n) + ": holders stale";
    }
  return holders_.audit();
}

}  // namespace tt
