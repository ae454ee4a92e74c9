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

const char* to_string(Symptom s) {
  switch (s) {
    case Symptom::Silent: return "silent";
    case Symptom::CommStalled: return "collective stalled";
    case Symptom::NoProgress: return "no progress";
  }
  return "?";
}

Detector detector_for(Symptom s) {
  switch (s) {
    case Symptom::Silent: return Detector::Heartbeat;
    case Symptom::CommStalled: return Detector::Communication;
    case Symptom::NoProgress: return Detector::Watchdog;
  }
  return Detector::None;
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
