#include "core/sched/pending_reason.hpp"

namespace tt {

const char* to_string(WaitKind k) {
  switch (k) {
    case WaitKind::None:
      return "none";
    case WaitKind::Quota:
      return "quota";
    case WaitKind::StrictFifo:
      return "strict_fifo";
    case WaitKind::Capacity:
      return "capacity";
    case WaitKind::Topology:
      return "topology";
    case WaitKind::Fragmentation:
      return "fragmentation";
    case WaitKind::Reservation:
      return "reservation";
    case WaitKind::Behind:
      return "behind";
    case WaitKind::Preempted:
      return "preempted";
    case WaitKind::Site:
      return "site";
  }
  return "?";
}

std::string describe(const PendingReason& r, const std::vector<std::string>& jobs,
                     const std::vector<std::string>& queues) {
  auto s = [](auto v) { return std::to_string(v); };
  auto job = [&](int j) { return j >= 0 ? jobs[j] : std::string("?"); };
  auto queue = [&](int q) { return q >= 0 ? queues[q] : std::string("?"); };
  switch (r.kind) {
    case WaitKind::None:
      return "not examined yet";
    case WaitKind::Quota:
      if (r.cohort)
        return "quota of queue " + queue(r.queue) + " exhausted: " + s(r.a) + " GPUs in use of a nominal " + s(r.b) +
               " (" + s(r.c) + " borrowed; " + s(r.d) + " left in the cohort's pool), " + s(r.e) + " needed";
      return "quota of queue " + queue(r.queue) + " exhausted: " + s(r.a) + " of " + s(r.b) + " GPUs in use, " +
             s(r.e) + " needed";
    case WaitKind::StrictFifo:
      return "behind " + job(r.job) + ", the blocked head of StrictFIFO queue " + queue(r.queue);
    case WaitKind::Capacity:
      if (r.c > 0)
        return "waiting for " + s(r.c) + " whole nodes (" + s(r.a) + " GPUs): " + s(r.b) + " whole nodes free, " +
               s(r.d) + " GPUs free in all";
      return "waiting for " + s(r.a) + " GPUs on one node: " + s(r.b) + " free";
    case WaitKind::Topology:
      return "waiting for " + s(r.b) + " whole nodes in at most " + s(r.a) + " leaf group(s): at most " + s(r.c) +
             " whole nodes free in one group" +
             (r.until.value > 0 ? "; the constraint is relaxed at " + format_seconds(r.until)
                                : std::string(" (required)"));
    case WaitKind::Fragmentation:
      if (r.a > r.gpus_per_node)
        return "fragmentation: " + s(r.b) + " GPUs free across " + s(r.c) + " nodes, but only " + s(r.d) +
               " whole nodes, " + s(r.a / r.gpus_per_node) + " needed";
      return "fragmentation: " + s(r.b) + " GPUs free across " + s(r.c) + " nodes, at most " + s(r.d) +
             " on any one node, " + s(r.a) + " needed on one node";
    case WaitKind::Reservation:
      return "behind the reservation of " + job(r.job) + " until " + format_seconds(r.until) +
             " (backfill: this job would not end before it and needs its GPUs)";
    case WaitKind::Behind:
      return "behind " + job(r.job) + " (priority " + s(r.a) + "), which waits for capacity";
    case WaitKind::Preempted:
      return "preempted by " + job(r.job);
    case WaitKind::Site:
      return "waiting for " + s(r.a) + " GPUs within one site: they are free only across sites, and the job may " +
             "not span sites";
  }
  return "?";
}

}  // namespace tt
