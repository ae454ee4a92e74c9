#include "core/model/scenario.hpp"

namespace tt {

const char* to_string(FaultKind k) {
  switch (k) {
    case FaultKind::NodeCrash: return "node_crash";
    case FaultKind::LinkDown: return "link_down";
  }
  return "?";
}

}  // namespace tt
