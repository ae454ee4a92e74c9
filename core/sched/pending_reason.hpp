// Why a job waits: one reason a user can act on, as a compact value (cheap to compute at every decision) that is
// turned into words only when it changes. `kind` names the category the report accounts pending time under.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

enum class WaitKind : unsigned char {
  None,           // not pending, or not yet examined
  Quota,          // queue Q exhausted: a = used, b = nominal, c = borrowed, d = the cohort can still lend, e = needed
  StrictFifo,     // behind `job`, the blocked head of StrictFIFO queue Q
  Capacity,       // not enough GPUs: a = needed, b = free (whole nodes when c > 0), c = whole nodes needed
  Topology,       // enough whole nodes, not within `a` leaf groups: b = needed nodes, c = most whole nodes in a group
  Fragmentation,  // a = needed, b = free GPUs in all, c = nodes they are on, d = most free on one node
  Reservation,    // behind the reservation of `job` until `until`
  Behind,         // behind `job` (priority a), which waits for capacity; backfill is off
  Preempted,      // preempted by `job`
  Site,           // the GPUs are free, but only across sites: a = needed; the job may not span sites (docs/sites.md)
};
inline constexpr std::size_t kWaitKinds = static_cast<std::size_t>(WaitKind::Site) + 1;
const char* to_string(WaitKind k);  // "quota", "strict_fifo", "capacity", ... (report keys)

struct PendingReason {
  WaitKind kind = WaitKind::None;
  int job = -1;    // the other job named by the reason
  int queue = -1;  // the queue named by the reason
  int a = 0, b = 0, c = 0, d = 0, e = 0;
  bool cohort = false;  // Quota: the queue is in a cohort
  Seconds until;        // Reservation: when it starts; Topology: when the constraint is relaxed (zero: never)
  int gpus_per_node = 0;
};

// Words for a reason. Names are looked up by index.
std::string describe(const PendingReason& r, const std::vector<std::string>& job_names,
                     const std::vector<std::string>& queue_names);

}  // namespace tt
