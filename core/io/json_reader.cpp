#include "core/io/json_reader.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace tt {

InputError::InputError(std::string file, std::string pointer, std::string expected)
    : std::runtime_error(file + ": at " + (pointer.empty() ? std::string("/") : pointer) + ": " + expected),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      expected_(std::move(expected)) {}

namespace {

// Line and column of a byte offset, for syntax errors.
std::string line_col(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

std::string type_name(const nlohmann::json& v) { return v.type_name(); }

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& file_label) {
  try {
    return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("syntax error");
    std::string detail = pos == std::string::npos ? what : what.substr(pos);
    throw InputError(file_label, "", "valid JSON (comments allowed); " + line_col(text, e.byte > 0 ? e.byte - 1 : 0) +
                                         ": " + detail);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double ("1e400"): nlohmann reports it as out_of_range 406, naming the number but no offset.
    std::string what = e.what();
    const auto quote = what.find('\'');
    const std::string number = quote == std::string::npos ? "" : what.substr(quote + 1, what.rfind('\'') - quote - 1);
    const auto at = number.empty() ? std::string::npos : text.find(number);
    throw InputError(file_label, "",
                     "valid JSON with numbers a double can hold; " +
                         (at == std::string::npos ? std::string() : line_col(text, at) + ": ") + "number " +
                         (number.empty() ? what : number) + " is out of range");
  }
}

nlohmann::json load_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable file (it does not exist or cannot be opened)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path);
}

std::string pointer_escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

JsonObject::JsonObject(const nlohmann::json& value, std::string file, std::string pointer)
    : value_(value), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!value_.is_object()) throw InputError(file_, pointer_, "an object, found " + type_name(value_));
}

std::string JsonObject::child_pointer(const std::string& key) const { return pointer_ + "/" + pointer_escape(key); }

void JsonObject::fail(const std::string& key, const std::string& expected) const {
  throw InputError(file_, child_pointer(key), expected);
}
void JsonObject::fail_here(const std::string& expected) const { throw InputError(file_, pointer_, expected); }

bool JsonObject::has(const std::string& key) const { return value_.contains(key); }

const nlohmann::json& JsonObject::raw(const std::string& key) {
  read_.insert(key);
  auto it = value_.find(key);
  if (it == value_.end()) fail(key, "a value for required key \"" + key + "\"");
  return *it;
}

std::string JsonObject::str(const std::string& key) {
  const auto& v = raw(key);
  if (!v.is_string()) fail(key, "a string, found " + type_name(v));
  auto s = v.get<std::string>();
  if (s.empty()) fail(key, "a non-empty string");
  return s;
}

std::optional<std::string> JsonObject::opt_str(const std::string& key) {
  read_.insert(key);
  if (!has(key)) return std::nullopt;
  return str(key);
}

std::int64_t JsonObject::integer(const std::string& key, std::int64_t min) {
  const auto& v = raw(key);
  if (!v.is_number_integer() && !v.is_number_unsigned()) {
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (std::floor(d) == d && std::fabs(d) < 9e15) {
        auto i = static_cast<std::int64_t>(d);
        if (i < min) fail(key, "an integer >= " + std::to_string(min) + ", found " + std::to_string(i));
        return i;
      }
    }
    fail(key, "an integer, found " + (v.is_number() ? v.dump() : type_name(v)));
  }
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    fail(key, "an integer that fits in 64 bits");
  auto i = v.get<std::int64_t>();
  if (i < min) fail(key, "an integer >= " + std::to_string(min) + ", found " + std::to_string(i));
  return i;
}

std::optional<std::int64_t> JsonObject::opt_integer(const std::string& key, std::int64_t min) {
  read_.insert(key);
  if (!has(key)) return std::nullopt;
  return integer(key, min);
}

double JsonObject::number(const std::string& key, double min, double max) {
  const auto& v = raw(key);
  if (!v.is_number()) fail(key, "a number, found " + type_name(v));
  double d = v.get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    std::ostringstream os;
    os << "a number in [" << min << ", " << max << "], found " << v.dump();
    fail(key, os.str());
  }
  return d;
}

std::optional<double> JsonObject::opt_number(const std::string& key, double min, double max) {
  read_.insert(key);
  if (!has(key)) return std::nullopt;
  return number(key, min, max);
}

bool JsonObject::boolean(const std::string& key) {
  const auto& v = raw(key);
  if (!v.is_boolean()) fail(key, "true or false, found " + type_name(v));
  return v.get<bool>();
}

std::optional<bool> JsonObject::opt_boolean(const std::string& key) {
  read_.insert(key);
  if (!has(key)) return std::nullopt;
  return boolean(key);
}

namespace {
template <class T, class Parse>
T parse_unit(JsonObject& o, const std::string& key, Parse parse, const char* example) {
  const auto& v = o.raw(key);
  if (!v.is_string()) {
    if (v.is_number())
      o.fail(key, std::string("a quantity with its unit, e.g. \"") + example + "\", found the bare number " + v.dump());
    o.fail(key, std::string("a quantity with its unit, e.g. \"") + example + "\", found " + v.type_name());
  }
  auto s = v.get<std::string>();
  auto parsed = parse(s);
  if (!parsed) {
    std::string why = !s.empty() && s.front() == '-' ? "a non-negative quantity" : "a quantity with a known unit";
    o.fail(key, why + ", e.g. \"" + example + "\", found \"" + s + "\"");
  }
  return *parsed;
}
}  // namespace

Seconds JsonObject::seconds(const std::string& key) { return parse_unit<Seconds>(*this, key, parse_seconds, "30m"); }

std::optional<Seconds> JsonObject::opt_seconds(const std::string& key) {
  read_.insert(key);
  if (!has(key)) return std::nullopt;
  return seconds(key);
}

Bytes JsonObject::bytes(const std::string& key) { return parse_unit<Bytes>(*this, key, parse_bytes, "80GiB"); }

BytesPerSecond JsonObject::bandwidth(const std::string& key) {
  auto bw = parse_unit<BytesPerSecond>(*this, key, parse_bandwidth, "400Gbps");
  if (bw.value <= 0) fail(key, "a bandwidth greater than zero");
  return bw;
}

std::optional<BytesPerSecond> JsonObject::opt_bandwidth(const std::string& key) {
  read_.insert(key);
  if (!has(key)) return std::nullopt;
  return bandwidth(key);
}

FlopsPerSecond JsonObject::flops_rate(const std::string& key) {
  return parse_unit<FlopsPerSecond>(*this, key, parse_flops_rate, "989TFLOPS");
}

JsonObject JsonObject::object(const std::string& key) { return JsonObject(raw(key), file_, child_pointer(key)); }

std::optional<JsonObject> JsonObject::opt_object(const std::string& key) {
  read_.insert(key);
  if (!has(key)) return std::nullopt;
  return object(key);
}

std::vector<std::pair<const nlohmann::json*, std::string>> JsonObject::array(const std::string& key, bool allow_empty) {
  const auto& v = raw(key);
  if (!v.is_array()) fail(key, "an array, found " + type_name(v));
  if (!allow_empty && v.empty()) fail(key, "a non-empty array");
  std::vector<std::pair<const nlohmann::json*, std::string>> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.emplace_back(&v[i], child_pointer(key) + "/" + std::to_string(i));
  return out;
}

void JsonObject::finish() const {
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    if (read_.count(it.key())) continue;
    std::string allowed;
    for (const auto& k : read_) allowed += (allowed.empty() ? "" : ", ") + k;
    throw InputError(file_, child_pointer(it.key()),
                     "a known key; \"" + it.key() + "\" is not one (allowed here: " + allowed + ")");
  }
}

}  // namespace tt
