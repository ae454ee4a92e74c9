// The Scheduler's running jobs as the preemption search reads them: per queue and priority, in settled, fresh and
// parked runs (RunningList), where their active ones hold GPUs (NodeHolders), and the jobs each one preempted. The
// pass is in scheduler.cpp, the search in scheduler_preempt.cpp.
#include "core/sched/scheduler.hpp"

#include <algorithm>

namespace tt {

void Scheduler::swap_running(RunningList& list, std::size_t a, std::size_t b) {
  if (a == b) return;
  std::swap(list.jobs[a], list.jobs[b]);
  jobs_[list.jobs[a].job].run_slot = static_cast<int>(a);
  jobs_[list.jobs[b].job].run_slot = static_cast<int>(b);
}

void Scheduler::add_running(int job, int sign) {
  const Job& x = jobs_[job];
  const int q = x.spec.queue;
  RunningList& same = running_in_[q][x.spec.priority];
  if (same.bit < 0) same.bit = next_list_bit_ < kOtherLists ? next_list_bit_++ : kOtherLists;
  if (sign > 0) {  // among the active ones: the first search that meets it while exempt parks it
    hold(x, -1, same.bit);
    same.jobs.push_back({job, x.spec.gpus, x.start, x.enqueued, x.last_checkpoint, x.admission});
    jobs_[job].run_slot = static_cast<int>(same.jobs.size() - 1);
    swap_running(same, same.active++, same.jobs.size() - 1);  // the last fresh one
    same.active_gpus += x.spec.gpus;
    same.grown = ++stamp_;
    running_gpus_[q][x.spec.priority] += x.spec.gpus;
  } else {
    auto slot = static_cast<std::size_t>(x.run_slot);
    hold(x, slot < same.active ? same.bit : kOtherLists, -1);
    if (slot < same.settled) swap_running(same, slot, --same.settled), slot = same.settled;  // now the first fresh
    if (slot < same.active) {
      swap_running(same, slot, --same.active), slot = same.active;  // now the first parked
      same.active_gpus -= x.spec.gpus;
    }
    swap_running(same, slot, same.jobs.size() - 1);
    same.jobs.pop_back();
    jobs_[job].run_slot = -1;
    if ((running_gpus_[q][x.spec.priority] -= x.spec.gpus) == 0) running_gpus_[q].erase(x.spec.priority);
  }
}

void Scheduler::sync_holders(const ClusterState& cluster) {
  if (holders_.ready() && cluster_nodes_ == cluster.nodes()) return;
  cluster_nodes_ = cluster.nodes();
  std::vector<int> groups(static_cast<std::size_t>(cluster.nodes()));
  for (int n = 0; n < cluster.nodes(); ++n) groups[static_cast<std::size_t>(n)] = cluster.group_of(n);
  holders_.set_groups(std::move(groups));
  for (const auto& by_priority : running_in_)
    for (const auto& [prio, list] : by_priority)
      for (std::size_t i = 0; i < list.jobs.size(); ++i)
        hold(jobs_[list.jobs[i].job], -1, i < list.active ? list.bit : kOtherLists);
}

void Scheduler::unpark(int job, Seconds now) {
  const Job& x = jobs_[job];
  if (x.state != State::Running) {  // a waiting job's topology constraint relaxed: its own search may fit now
    freed_stamp_ = ++stamp_;
    return;
  }
  RunningList& same = running_in_[x.spec.queue][x.spec.priority];
  const auto slot = static_cast<std::size_t>(x.run_slot);
  // Parked, and this relax time is its own admission's exemption end (a stale one of an earlier admission is earlier).
  if (slot < same.active || same.jobs[slot].start + options_.preemption_exempt_time > now) return;
  // Among the settled ones (its exemption ended): first the first parked, then the first fresh one's place.
  swap_running(same, slot, same.active);
  swap_running(same, same.active++, same.settled++);
  hold(x, kOtherLists, same.bit);
  same.active_gpus += x.spec.gpus;
  same.grown = ++stamp_;
}

// Its victims that still name it are not quiet any more; they stay listed, as they are quiet again once it runs again
// and they are examined (wait()).
void Scheduler::stopped_running(int job) {
  std::erase_if(victims_of_[static_cast<std::size_t>(job)], [&](int v) {
    if (jobs_[v].preempted_by != job) return true;
    set_quiet(v);
    return false;
  });
}

}  // namespace tt
