#include "core/io/reader_support.hpp"

#include <algorithm>
#include <cfloat>
#include <sstream>

namespace tt::reader {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string suggestion(const std::string& wrong, const std::vector<std::string>& allowed) {
  const std::string* best = nullptr;
  std::size_t best_d = std::max<std::size_t>(2, wrong.size() / 3) + 1;
  for (const auto& a : allowed) {
    std::size_t d = edit_distance(wrong, a);
    if (d < best_d) best = &a, best_d = d;
  }
  return best ? " (did you mean \"" + *best + "\"?)" : "";
}

std::string list_names(const std::vector<std::string>& names, std::size_t max_shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < max_shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > max_shown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

std::string str_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

JsonObject open(const nlohmann::json& value, const std::string& file, const std::string& pointer,
                const std::vector<std::string>& allowed) {
  JsonObject o(value, file, pointer);
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    o.fail(it.key(), "a known key; " + in_quotes(it.key()) + " is not one" + suggestion(it.key(), allowed) +
                         " (allowed here: " + list_names(allowed, allowed.size()) + ")");
  }
  return o;
}

JsonObject open_child(JsonObject& parent, const std::string& key, const std::vector<std::string>& allowed) {
  return open(parent.raw(key), parent.file(), parent.child_pointer(key), allowed);
}

bool present(JsonObject& o, const std::string& key) {
  if (o.has(key)) return true;
  o.opt_str(key);
  return false;
}

int int_in(JsonObject& o, const std::string& key, std::int64_t min, std::int64_t max) {
  auto v = o.integer(key, min);
  if (v > max)
    o.fail(key, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], found " + std::to_string(v));
  return static_cast<int>(v);
}

std::optional<int> opt_int_in(JsonObject& o, const std::string& key, std::int64_t min, std::int64_t max) {
  if (!present(o, key)) return std::nullopt;
  return int_in(o, key, min, max);
}

Seconds positive_seconds(JsonObject& o, const std::string& key) {
  auto s = o.seconds(key);
  if (s.value <= 0) o.fail(key, "a duration greater than zero, e.g. \"30m\"");
  return s;
}

std::optional<Seconds> opt_positive_seconds(JsonObject& o, const std::string& key) {
  if (!present(o, key)) return std::nullopt;
  return positive_seconds(o, key);
}

std::optional<double> opt_positive(JsonObject& o, const std::string& key, double max) {
  auto v = o.opt_number(key, -DBL_MAX, DBL_MAX);
  if (v && (*v <= 0 || *v > max)) {
    std::ostringstream os;
    os << "a number in (0, " << max << "], found " << *v;
    o.fail(key, os.str());
  }
  return v;
}

std::size_t choice(JsonObject& o, const std::string& key, const std::vector<std::string>& allowed,
                   const std::string& what) {
  std::string v = o.str(key);
  auto it = std::find(allowed.begin(), allowed.end(), v);
  if (it == allowed.end())
    o.fail(key,
           what + " (" + list_names(allowed, allowed.size()) + "), found " + in_quotes(v) + suggestion(v, allowed));
  return static_cast<std::size_t>(it - allowed.begin());
}

}  // namespace tt::reader
