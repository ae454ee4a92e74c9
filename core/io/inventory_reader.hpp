// Readers for node inventories, fleets and the version matrix (formats in docs/preflight.md). Every key is required,
// and a component the collector did not find is written as null: an inventory never leaves "absent" to a default.
// Bad input throws InputError naming the file, the JSON pointer and what was expected.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "core/preflight/inventory.hpp"
#include "core/preflight/matrix.hpp"

namespace tt {

preflight::Inventory read_inventory(const nlohmann::json& doc, const std::string& file);
preflight::Inventory read_inventory_file(const std::string& path);
// A fleet: each path is an inventory file or a directory whose *.json files are inventories (read in name order).
// Two inventories of one host are an error naming both files.
std::vector<preflight::Inventory> read_fleet(const std::vector<std::string>& paths);

preflight::Matrix read_matrix(const nlohmann::json& doc, const std::string& file);
preflight::Matrix read_matrix_file(const std::string& path);
// A matrix's "node" object: the keys node_setting_keys() names (dev_shm, nofile, memlock, kernel_params, clock_synced,
// clock_max_error), each optional. `o` must have been opened with those keys allowed; finishes it.
const std::vector<std::string>& node_setting_keys();
preflight::NodeOverrides read_node_settings(JsonObject& o);

}  // namespace tt
