#include "core/fault/recovery.hpp"

#include <cmath>

namespace tt {

bool LemonPolicy::drain(const std::vector<Seconds>& failure_times, Seconds now) const {
  if (failures_ <= 0) return false;
  int recent = 0;
  for (Seconds t : failure_times) recent += t <= now && now - t <= window_;
  return recent >= failures_;
}

LostWork lost_work(std::int64_t iterations_since_checkpoint, Seconds iteration_time, Seconds detection,
                   Seconds restart) {
  return {iteration_time * static_cast<double>(iterations_since_checkpoint), detection, restart};
}

Seconds young_daly_interval(Seconds checkpoint_cost, Seconds mtbf) {
  return Seconds(std::sqrt(2.0 * checkpoint_cost.value * mtbf.value));
}

Seconds snapshot_stall(Bytes per_writer, BytesPerSecond snapshot_bandwidth) { return per_writer / snapshot_bandwidth; }

}  // namespace tt
