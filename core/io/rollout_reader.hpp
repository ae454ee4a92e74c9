// Reads a scenario's "rollout" and "noise" sections (docs/rollout.md). The rollout needs the topology, the jobs and
// the preflight section's matrix, so it is read after them; it appends the canary and baseline copies of the named
// job to the scenario's jobs. Throws InputError with the file and the JSON pointer; an absent section: no rollout,
// no noise.
#pragma once

#include "core/io/json_reader.hpp"
#include "core/model/scenario.hpp"

namespace tt::reader {

void read_rollout(JsonObject& root, Scenario& s);

}  // namespace tt::reader
