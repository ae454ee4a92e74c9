// Detection rules: how long after a fault the Controller declares a job failed. Heartbeat (a node or GPU that stops
// heartbeating), communication timeout (an InfiniBand transfer that gets no completion: NCCL_IB_TIMEOUT and
// NCCL_IB_RETRY_CNT) and the training watchdog (a job that stops progressing). A pure policy of the scenario's
// RecoveryPolicy. The communication timeout itself comes from core/plan/nccl_settings.hpp (ib_comm_timeout) unless
// the scenario sets recovery.comm_timeout.
#pragma once

#include "core/model/scenario.hpp"
#include "core/model/units.hpp"

namespace tt {

enum class Detector { None, Heartbeat, Communication, Watchdog };
const char* to_string(Detector d);

class DetectionRules {
 public:
  explicit DetectionRules(const RecoveryPolicy& p)
      : heartbeat_(p.detection_timeout), comm_(p.comm_timeout), watchdog_(p.watchdog_timeout) {}
  const char* name() const { return "heartbeat/communication/watchdog"; }
  // Time from the fault to the declaration; a Detector::None fault is never declared.
  Seconds time_to_detect(Detector d) const;
  // A link fault of this length fails the jobs it strikes; a shorter one only holds them up.
  bool fails_job(Seconds link_down_for) const { return link_down_for >= comm_; }

 private:
  Seconds heartbeat_, comm_, watchdog_;
};

}  // namespace tt
