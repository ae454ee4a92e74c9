// Secrets by reference (docs/reliability.md): read_secrets() reads a scenario's "secrets" section (names, sources and
// jobs; never a value); the scenario reader checks it, and the real driver, the one that needs it, reads it again
// with read_scenario_secrets(); resolve_secrets() reads the values when a real run starts. A value comes from the driver's
// environment or from a regular file only its owner can read or write (no group or other bits: 0600 or 0400); a file
// with more, a missing variable or an empty value is refused with an InputError naming the scenario and the pointer.
// Values are handed to the workers' environment only; nothing here writes them anywhere.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/io/json_reader.hpp"
#include "core/model/scenario.hpp"
#include "core/model/secret.hpp"

namespace tt {

// name -> value, for one job's workers.
using JobSecrets = std::vector<std::pair<std::string, std::string>>;

// The "secrets" section (absent: none). `jobs` are the scenario's jobs, for the names each secret lists.
std::vector<SecretSpec> read_secrets(JsonObject& root, const std::vector<JobSpec>& jobs);

// The section of the scenario `doc` (as read_scenario read it into `scenario`).
std::vector<SecretSpec> read_scenario_secrets(const nlohmann::json& doc, const Scenario& scenario);

// Every job's secrets (indexed like scenario.jobs), values read now. Errors name scenario.source_file.
std::vector<JobSecrets> resolve_secrets(const Scenario& scenario, const std::vector<SecretSpec>& secrets);

// The environment of a worker: `parent` (NAME=value entries) without the variables any secret is read from or
// delivered as, then `own` added. So a worker sees its own job's secrets and no other job's, not even by the driver's
// variable that held them.
std::vector<std::string> worker_environment(const std::vector<std::string>& parent, const std::vector<SecretSpec>& all,
                                            const JobSecrets& own);

}  // namespace tt
