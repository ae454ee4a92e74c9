#include "sim/session.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>

namespace tt::sim {

namespace {
bool engine_created = false;
}

Session::Session(const Topology& topology) {
  if (engine_created)
    throw std::logic_error(
        "SimGrid allows one simulation per process: run each in its own process (sim/isolated.hpp)");
  engine_created = true;
  engine_ = std::make_unique<simgrid::s4u::Engine>("traintwin");
  settings_ = pin_network_model();
  platform_ = std::make_unique<Platform>(topology);
}

Session::~Session() = default;

void Session::run() { engine_->run(); }

}  // namespace tt::sim
