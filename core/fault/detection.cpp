#include "core/fault/detection.hpp"

#include <cassert>
#include <cmath>
#include <limits>

namespace tt {

const char* to_string(Detector d) {
  switch (d) {
    case Detector::None: return "none";
    case Detector::Heartbeat: return "heartbeat";
    case Detector::Communication: return "communication timeout";
    case Detector::Watchdog: return "training watchdog";
  }
  return "?";
}

Seconds nccl_ib_timeout(int timeout, int retry_cnt) {
  assert(timeout >= 1 && timeout <= 31 && retry_cnt >= 1 && retry_cnt <= 7);
  return Seconds(4.096e-6 * std::ldexp(1.0, timeout) * retry_cnt);
}

Seconds DetectionRules::time_to_detect(Detector d) const {
  switch (d) {
    case Detector::Heartbeat: return heartbeat_;
    case Detector::Communication: return comm_;
    case Detector::Watchdog: return watchdog_;
    case Detector::None: break;
  }
  return Seconds(std::numeric_limits<double>::infinity());
}

}  // namespace tt
