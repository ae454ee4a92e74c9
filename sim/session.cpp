#include "sim/session.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>
#include <string>

namespace tt::sim {

namespace {
bool engine_created = false;
}

Session::Session(const Topology& topology) {
  if (engine_created)
    throw std::logic_error(
        "SimGrid allows one simulation per process: run each in its own process (sim/isolated.hpp)");
  engine_created = true;
#ifdef TRAINTWIN_SANITIZED
  // ASan cannot follow SimGrid's own stack switching (the packaged library has no fiber annotations): one thread per
  // actor instead, chosen before the engine makes its first context. Same decisions; not in settings_, so a sanitized
  // build writes the same report (docs/reliability.md).
  // Quietly: SimGrid announces a configuration change on stdout at INFO level, which would end up in commands'
  // output (e.g. `traintwin comm --json`) only in sanitized builds.
  std::string name = "traintwin", quiet = "--log=xbt_cfg.thres:warning", factory = "--cfg=contexts/factory:thread";
  char* argv[] = {name.data(), quiet.data(), factory.data(), nullptr};
  int argc = 3;
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
#else
  engine_ = std::make_unique<simgrid::s4u::Engine>("traintwin");
#endif
  settings_ = pin_network_model();
  platform_ = std::make_unique<Platform>(topology);
}

Session::~Session() = default;

void Session::run() { engine_->run(); }

}  // namespace tt::sim
