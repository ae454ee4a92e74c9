// The control-plane outages of a scenario document (core/model/control_plane.hpp): its "faults" entries of kind
// control_plane_crash, by start time. read_scenario() checks these entries (faults_reader.cpp) and leaves them out of
// Scenario::faults; the drivers that play outages read them here from the same document.
#pragma once

#include <string>
#include <vector>

#include "core/io/json_reader.hpp"
#include "core/model/control_plane.hpp"

namespace tt {

inline constexpr const char* kControlPlaneCrash = "control_plane_crash";

// Every control_plane_crash entry of doc["faults"], sorted by `at` (stable). InputError naming `file` and the entry's
// pointer for a malformed one (keys other than kind, at and repair; a missing or non-positive repair).
std::vector<ControlPlaneOutage> read_control_plane_outages(const nlohmann::json& doc, const std::string& file);

namespace reader {
// Reads one entry already opened with its kind read (faults_reader.cpp).
ControlPlaneOutage read_control_plane_crash(const nlohmann::json& entry, const std::string& file,
                                            const std::string& pointer, std::size_t index);
}  // namespace reader

}  // namespace tt
