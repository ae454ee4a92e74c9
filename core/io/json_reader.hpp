// JsonObject: strict reading of one JSON object. Every get names its key; finish() rejects keys nobody read, so a
// typo is an error, not a silent default. Errors are InputError with the file and the JSON pointer of the value.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/io/input_error.hpp"
#include "core/model/units.hpp"

namespace tt {

// Parses a file (comments allowed). Throws InputError for a missing file or a syntax error (with line and column).
nlohmann::json load_json_file(const std::string& path);
nlohmann::json parse_json_text(const std::string& text, const std::string& file_label);

class JsonObject {
 public:
  // Throws when `value` is not an object.
  JsonObject(const nlohmann::json& value, std::string file, std::string pointer);

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  std::string child_pointer(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& expected) const;
  [[noreturn]] void fail_here(const std::string& expected) const;

  bool has(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key);  // marks the key read; throws when absent

  std::string str(const std::string& key);
  std::optional<std::string> opt_str(const std::string& key);
  // Integers: reject fractions, out-of-range values and values below `min`.
  std::int64_t integer(const std::string& key, std::int64_t min = 0);
  std::optional<std::int64_t> opt_integer(const std::string& key, std::int64_t min = 0);
  double number(const std::string& key, double min, double max);
  std::optional<double> opt_number(const std::string& key, double min, double max);
  bool boolean(const std::string& key);
  std::optional<bool> opt_boolean(const std::string& key);
  // Human units; a bare number is rejected.
  Seconds seconds(const std::string& key);
  std::optional<Seconds> opt_seconds(const std::string& key);
  Bytes bytes(const std::string& key);
  BytesPerSecond bandwidth(const std::string& key);  // must be > 0
  std::optional<BytesPerSecond> opt_bandwidth(const std::string& key);
  FlopsPerSecond flops_rate(const std::string& key);
  // Children.
  JsonObject object(const std::string& key);
  std::optional<JsonObject> opt_object(const std::string& key);
  // An array; each element is handed to the caller with its pointer ("/jobs/3").
  std::vector<std::pair<const nlohmann::json*, std::string>> array(const std::string& key, bool allow_empty = false);

  // Throws on the first key that was never read, naming the keys that are allowed.
  void finish() const;

 private:
  const nlohmann::json& value_;
  std::string file_;
  std::string pointer_;
  mutable std::set<std::string> read_;
};

// Escapes a key for use in a JSON pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string pointer_escape(const std::string& key);

}  // namespace tt
