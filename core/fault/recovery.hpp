// Recovery and checkpoint policies: small const objects and closed forms the Controller applies.
//  - LemonPolicy: a node failing `failures` times within `window` is drained (kept out after repair).
//  - lost work of a failure: progress since the last checkpoint + detection + restart, in GPU-hours.
//  - Young/Daly: the checkpoint interval that minimises expected waste, sqrt(2 x checkpoint cost x MTBF)
//    (Young 1974; Daly 2006, first order).
//  - async snapshot: the training stall of an async checkpoint, a shard copied to host memory.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

class LemonPolicy {
 public:
  LemonPolicy(int failures, Seconds window) : failures_(failures), window_(window) {}
  const char* name() const { return "lemon-node"; }
  // `failure_times`: the node's failures so far, the latest at `now`.
  bool drain(const std::vector<Seconds>& failure_times, Seconds now) const;

 private:
  int failures_;
  Seconds window_;
};

struct LostWork {
  Seconds progress;  // iterations since the checkpoint x iteration time
  Seconds detection;
  Seconds restart;
  Seconds total() const { return progress + detection + restart; }
  double gpu_hours(int gpus) const { return total().value * gpus / 3600.0; }
};
LostWork lost_work(std::int64_t iterations_since_checkpoint, Seconds iteration_time, Seconds detection,
                   Seconds restart);

Seconds young_daly_interval(Seconds checkpoint_cost, Seconds mtbf);
Seconds snapshot_stall(Bytes per_writer, BytesPerSecond snapshot_bandwidth);

}  // namespace tt
