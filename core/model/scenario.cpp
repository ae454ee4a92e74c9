#include "core/model/scenario.hpp"

namespace tt {

const char* to_string(FaultKind k) {
  switch (k) {
    case FaultKind::NodeCrash:
      return "node_crash";
    case FaultKind::LinkDown:
      return "link_down";
    case FaultKind::GpuFailure:
      return "gpu_failure";
    case FaultKind::NicDown:
      return "nic_down";
    case FaultKind::SwitchDown:
      return "switch_down";
    case FaultKind::Straggler:
      return "straggler";
    case FaultKind::StorageSlow:
      return "storage_slow";
    case FaultKind::Hang:
      return "hang";
    case FaultKind::Deadlock:
      return "deadlock";
    case FaultKind::CheckpointCorrupt:
      return "checkpoint_corrupt";
  }
  return "?";
}

const char* to_string(QueueingStrategy s) {
  return s == QueueingStrategy::StrictFifo ? "StrictFIFO" : "BestEffortFIFO";
}

const char* to_string(WithinQueuePreemption p) {
  switch (p) {
    case WithinQueuePreemption::Never: return "Never";
    case WithinQueuePreemption::LowerPriority: return "LowerPriority";
    case WithinQueuePreemption::LowerOrNewerEqualPriority: return "LowerOrNewerEqualPriority";
  }
  return "?";
}

const char* to_string(ReclaimPreemption p) {
  switch (p) {
    case ReclaimPreemption::Never: return "Never";
    case ReclaimPreemption::LowerPriority: return "LowerPriority";
    case ReclaimPreemption::Any: return "Any";
  }
  return "?";
}

const char* to_string(CheckOp op) {
  switch (op) {
    case CheckOp::Le:
      return "<=";
    case CheckOp::Lt:
      return "<";
    case CheckOp::Ge:
      return ">=";
    case CheckOp::Gt:
      return ">";
    case CheckOp::Eq:
      return "==";
  }
  return "?";
}

}  // namespace tt
