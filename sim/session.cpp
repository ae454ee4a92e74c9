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
  std::string name = "traintwin", factory = "--cfg=contexts/factory:thread";
  char* argv[] = {name.data(), factory.data(), nullptr};
  int argc = 2;
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
