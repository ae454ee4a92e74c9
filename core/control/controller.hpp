// Controller: the sans-IO heart of traintwin. Events in, actions out; it never waits, sleeps, reads a clock or starts
// a process. A driver owns time: it calls handle() with each event and the current time (non-decreasing), calls
// handle(Timer{}) when next_deadline() is reached, and finish() once at the end. The same scenario gives the same
// decisions under any driver. The Controller keeps a reference to the Scenario, which must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <memory>
#include <optional>
#include <vector>

#include "core/control/events.hpp"
#include "core/control/run_record.hpp"
#include "core/model/scenario.hpp"

namespace tt {

class Controller {
 public:
  explicit Controller(const Scenario& scenario);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  std::vector<Action> handle(const Event& event, Seconds now);
  std::optional<Seconds> next_deadline() const;
  // True when every job has completed or been abandoned and no timer is pending: a driver may stop.
  bool done() const;
  // Closes the record at `now`: open segments end, figures and checks are computed.
  void finish(Seconds now);
  const RunRecord& record() const;
  // The driver names itself and its model settings (e.g. the pinned SimGrid network model) for the report.
  void set_driver(std::string name, std::map<std::string, std::string> info);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tt
