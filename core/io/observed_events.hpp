// The events a driver handed the Controller, as JSON lines: {"t": seconds, "event": "node_down", ...fields}, and a
// last line {"t": seconds, "event": "finish"}. A run's observed.jsonl (written by both drivers) fed to a fresh
// Controller of the same scenario gives exactly the run's decisions: the Controller decides from nothing else
// (`traintwin replay`, tests/e2e/replay_test.cpp). Doubles round-trip exactly (nlohmann_json writes the shortest
// form that reads back to the same value).
#pragma once

#include <istream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/control/events.hpp"
#include "core/model/scenario.hpp"

namespace tt {

nlohmann::json observed_to_json(const Event& event, Seconds t);
nlohmann::json finish_to_json(Seconds t);

struct ObservedLog {
  std::vector<std::pair<Seconds, Event>> events;
  std::optional<Seconds> finish;  // the time the driver closed the record, when the log is complete
};
// Reads a log; InputError naming the file, the line (as /N, 1-based) and what was expected. With `scenario`, every
// job, node, GPU and cable index must be one of its own.
ObservedLog read_observed_log(std::istream& in, const std::string& file, const Scenario* scenario = nullptr);

}  // namespace tt
