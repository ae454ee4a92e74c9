// Detection: the one place that says which rule notices a stalled job and how long after the fault it declares the
// job failed. A driver reports only what it saw (a Symptom); the Controller picks the Detector here. Heartbeat (ranks
// that fell silent: exited, killed with their node, stopped), communication timeout (a collective waiting on a cable:
// NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT) and the training watchdog (ranks alive and heartbeating but not progressing).
// A pure policy of the scenario's RecoveryPolicy; the communication timeout comes from core/plan/nccl_settings.hpp
// (ib_comm_timeout) unless the scenario sets recovery.comm_timeout.
#pragma once

#include "core/model/scenario.hpp"
#include "core/model/units.hpp"

namespace tt {

enum class Detector { None, Heartbeat, Communication, Watchdog };
const char* to_string(Detector d);

// What a driver observed of a job that stopped making progress.
enum class Symptom {
  Silent,       // a rank stopped heartbeating: it exited, died with its node or GPU, or was stopped
  CommStalled,  // a collective waits on cables that are down; the ranks are alive
  NoProgress,   // every rank heartbeats but no iteration completes
};
const char* to_string(Symptom s);
Detector detector_for(Symptom s);

class DetectionRules {
 public:
  explicit DetectionRules(const RecoveryPolicy& p)
      : heartbeat_(p.detection_timeout), comm_(p.comm_timeout), watchdog_(p.watchdog_timeout) {}
  const char* name() const { return "heartbeat/communication/watchdog"; }
  // Time from the fault to the declaration; a Detector::None fault is never declared.
  Seconds time_to_detect(Detector d) const;
  // A link outage of this length fails the jobs it strikes (the timeout fires once the outage reaches it); a
  // shorter one only holds them up. The Controller applies the same boundary: a repair at the detection instant
  // comes too late.
  bool fails_job(Seconds link_down_for) const { return link_down_for >= comm_; }

 private:
  Seconds heartbeat_, comm_, watchdog_;
};

}  // namespace tt
