// A control-plane outage: the `faults` entry {"kind": "control_plane_crash", "at": T, "repair": D} of a scenario. The
// control plane (the Controller: scheduling, failure detection, recovery) is down from `at` for `down`; the drive loop
// plays it (core/drive/drive_loop.hpp), the real driver for real (docs/reliability.md). Kept beside the Scenario
// (core/io/control_plane_reader.hpp reads it from the document), not among Scenario::faults: it strikes no component
// of the cluster.
#pragma once

#include <cstddef>

#include "core/model/units.hpp"

namespace tt {

struct ControlPlaneOutage {
  Seconds at;
  Seconds down;
  std::size_t entry = 0;  // its index in the scenario's "faults" array, for messages
};

}  // namespace tt
