// Session: the process's one SimGrid engine, with the network model pinned and the topology's platform built.
// SimGrid allows one engine per process: a second Session throws std::logic_error (run each simulation in its own
// process, see sim/isolated.hpp). Destroying the Session tears the engine down.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/topo/topology.hpp"
#include "sim/platform.hpp"

namespace simgrid::s4u {
class Engine;
}

namespace tt::sim {

class Session {
 public:
  explicit Session(const Topology& topology);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Platform& platform() { return *platform_; }
  const std::map<std::string, std::string>& settings() const { return settings_; }
  void run();  // runs the engine until no actor is left

 private:
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  std::map<std::string, std::string> settings_;
  std::unique_ptr<Platform> platform_;
};

}  // namespace tt::sim
