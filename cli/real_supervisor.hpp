// The supervisor of `traintwin real` for a scenario with a control_plane_crash fault: what a service manager does for
// a driver that crashes (systemd's Restart=on-abnormal). The driver runs in a child process; when it dies by a signal
// it is started again as `traintwin real --resume OUT --supervised` after a pause: the outage's length (repair / time
// scale) when its journal ends with an outage starting (the drill's planned crash), else 100 ms (a crash
// nobody planned, such as a SIGKILL from outside). At most 20 restarts. The driver's exit code is the supervisor's.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include <vector>

#include "core/model/control_plane.hpp"

namespace tt::cli {

struct Supervision {
  std::filesystem::path out;      // the run's --out directory (its journal is out/run/journal)
  std::string self;               // the traintwin executable, for the restarts
  double time_scale = 1;
  bool quiet = false;
  std::vector<ControlPlaneOutage> outages;  // the scenario's (core/io/control_plane_reader.hpp)
};

// Runs `first_run` (the driver's first start) in a child and restarts it as above. Returns the exit code of the driver
// that ended the run, or kExitInternal when it kept dying.
int supervise(const Supervision& s, const std::function<int()>& first_run);

}  // namespace tt::cli
