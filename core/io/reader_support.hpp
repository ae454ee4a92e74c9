// Helpers the scenario section readers share on top of JsonObject: near-miss suggestions, name lists for messages,
// strict opening of objects (unknown keys rejected before any value is read) and bounded numbers. Every failure
// throws InputError naming the file and the JSON pointer; the message texts are part of the input contract.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/io/json_reader.hpp"

namespace tt::reader {

// " (did you mean \"x\"?)" for a near miss among `allowed`, else "".
std::string suggestion(const std::string& wrong, const std::vector<std::string>& allowed);
// Names joined by ", " for a message; a list longer than `max_shown` is cut, keeping the count.
std::string list_names(const std::vector<std::string>& names, std::size_t max_shown = 12);
std::string in_quotes(const std::string& s);
// The value as written: a string without its quotes, anything else as JSON.
std::string str_of(const nlohmann::json& v);

// Opens an object and rejects unknown keys before any value is read, so a misspelt key is reported as such rather
// than as the required key it was meant to be. finish() must still be called: it proves every allowed key was read.
JsonObject open(const nlohmann::json& value, const std::string& file, const std::string& pointer,
                const std::vector<std::string>& allowed);
JsonObject open_child(JsonObject& parent, const std::string& key, const std::vector<std::string>& allowed);

// True when the key is there; an absent key is marked read, so finish() treats an optional key as handled.
bool present(JsonObject& o, const std::string& key);

int int_in(JsonObject& o, const std::string& key, std::int64_t min, std::int64_t max = INT_MAX);
std::optional<int> opt_int_in(JsonObject& o, const std::string& key, std::int64_t min, std::int64_t max = INT_MAX);
Seconds positive_seconds(JsonObject& o, const std::string& key);
std::optional<Seconds> opt_positive_seconds(JsonObject& o, const std::string& key);
std::optional<double> opt_positive(JsonObject& o, const std::string& key, double max);  // a number in (0, max]
// One of a fixed set of words (its index), with a suggestion for a near miss.
std::size_t choice(JsonObject& o, const std::string& key, const std::vector<std::string>& allowed,
                   const std::string& what);

}  // namespace tt::reader
