// Readers for scenario and topology files. The only code that parses input: everything they return is validated
// (units, ranges, references between sections, jobs that fit the cluster). Bad input throws InputError.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/model/scenario.hpp"
#include "core/topo/topology.hpp"

namespace tt {

// A topology document (topologies/*.json, or the inline "topology" object of a scenario).
// `file` and `pointer` locate it for error messages.
Topology read_topology(const nlohmann::json& doc, const std::string& file, const std::string& pointer);
Topology read_topology_file(const std::string& path);

// A scenario file. A "topology" given as a string is a path, relative to the scenario file's directory.
Scenario read_scenario_file(const std::string& path);
// The same with its seed replaced: the seed goes into the document before it is read, because a generated workload
// and stochastic faults are drawn from it while the scenario is read (setting Scenario::seed afterwards is too late).
Scenario read_scenario_file(const std::string& path, std::uint64_t seed);
Scenario read_scenario(const nlohmann::json& doc, const std::string& file);

}  // namespace tt
