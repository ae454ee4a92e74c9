#include "reports/events.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/input_error.hpp"

namespace tt {
namespace {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;

// A job attempt or the cluster lost something: a person should look. Anything else is the run going as planned.
constexpr std::array<std::string_view, 2> kErrorKinds = {"detect", "abandon"};
constexpr std::array<std::string_view, 6> kWarnKinds = {"node_down", "link_down", "kill",
                                                        "requeue",   "preempt",   "alert_firing"};

class LineReader {
 public:
  LineReader(const json& value, std::string where) : value_(value), where_(std::move(where)) {}

  const json& member(const char* key, const char* expected) const {
    auto it = value_.find(key);
    if (it == value_.end()) fail(key, std::string(expected) + ", found nothing");
    return *it;
  }
  std::string str(const char* key) const {
    const json& v = member(key, "a string");
    if (!v.is_string()) fail(key, std::string("a string, found ") + v.type_name());
    return v.get<std::string>();
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& expected) const {
    throw InputError(where_, pointer.empty() ? "" : "/" + pointer, expected);
  }

 private:
  const json& value_;
  std::string where_;
};

LogEvent parse_line(const std::string& line, const std::string& where) {
  json v;
  try {
    v = json::parse(line);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("syntax error");
    throw InputError(where, "",
                     "one JSON object per line; column " + std::to_string(e.byte) + ": " +
                         (pos == std::string::npos ? what : what.substr(pos)));
  }
  LineReader r(v, where);
  if (!v.is_object()) r.fail("", std::string("a JSON object, found ") + v.type_name());
  LogEvent e;
  const json& t = r.member("t_s", "a number of seconds");
  if (!t.is_number() || !std::isfinite(t.get<double>()))
    r.fail("t_s", std::string("a finite number of seconds, found ") + t.dump());
  e.t = Seconds(t.get<double>());
  std::string level = r.str("level");
  auto parsed = parse_level(level);
  if (!parsed) r.fail("level", "info, warn or error, found \"" + level + "\"");
  e.level = *parsed;
  e.kind = r.str("kind");
  const json& job = r.member("job", "a string or null");
  if (job.is_string())
    e.job = job.get<std::string>();
  else if (!job.is_null())
    r.fail("job", std::string("a string or null, found ") + job.type_name());
  const json& nodes = r.member("nodes", "an array of node names");
  if (!nodes.is_array()) r.fail("nodes", std::string("an array of node names, found ") + nodes.type_name());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].is_string())
      r.fail("nodes/" + std::to_string(i), std::string("a node name, found ") + nodes[i].type_name());
    e.nodes.push_back(nodes[i].get<std::string>());
  }
  e.message = r.str("message");
  return e;
}

template <class List>
bool any_of_or_empty(const List& list, const std::string& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

std::string nodes_cell(const std::vector<std::string>& nodes) {
  constexpr std::size_t kAll = 4, kShown = 3;  // up to 4 names, else 3 and a count
  if (nodes.empty()) return "-";
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && (i < kShown || nodes.size() <= kAll); ++i)
    out += (i ? "," : "") + nodes[i];
  if (nodes.size() > kShown) out += " +" + std::to_string(nodes.size() - kShown);
  return out;
}

std::string upper(const char* s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Display width, counting each UTF-8 sequence as one column.
std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

const char* to_string(Level level) {
  switch (level) {
    case Level::Info:
      return "info";
    case Level::Warn:
      return "warn";
    case Level::Error:
      return "error";
  }
  return "info";
}

std::optional<Level> parse_level(std::string_view text) {
  for (Level l : {Level::Info, Level::Warn, Level::Error})
    if (text == to_string(l)) return l;
  return std::nullopt;
}

Level event_level(std::string_view kind) {
  if (std::find(kErrorKinds.begin(), kErrorKinds.end(), kind) != kErrorKinds.end()) return Level::Error;
  if (std::find(kWarnKinds.begin(), kWarnKinds.end(), kind) != kWarnKinds.end()) return Level::Warn;
  return Level::Info;
}

LogEvent log_event(const Decision& d) { return {d.t, event_level(d.kind), d.kind, d.job, d.nodes, d.reason}; }

std::vector<LogEvent> log_events(const RunRecord& record) {
  std::vector<LogEvent> out;
  out.reserve(record.decisions.size());
  for (const auto& d : record.decisions) out.push_back(log_event(d));
  return out;
}

std::string event_json_line(const LogEvent& e) {
  ordered_json j;  // keys in insertion order
  j["t_s"] = e.t.value;
  j["level"] = to_string(e.level);
  j["kind"] = e.kind;
  j["job"] = e.job.empty() ? ordered_json(nullptr) : ordered_json(e.job);
  j["nodes"] = e.nodes;
  j["message"] = e.message;
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

// Each decision's line as event_json_line(log_event(d)) writes it, without building the object (a fleet month writes millions of lines).
void write_events_jsonl(std::ostream& out, const RunRecord& record) {
  auto scalar = [](const ordered_json& v) { return v.dump(-1, ' ', false, ordered_json::error_handler_t::replace); };
  for (const auto& d : record.decisions) {
    out << "{\"t_s\":" << scalar(d.t.value) << ",\"level\":\"" << to_string(event_level(d.kind))
        << "\",\"kind\":" << scalar(d.kind) << ",\"job\":" << (d.job.empty() ? "null" : scalar(d.job)) << ",\"nodes\":[";
    for (std::size_t i = 0; i < d.nodes.size(); ++i) out << (i ? "," : "") << scalar(d.nodes[i]);
    out << "],\"message\":" << scalar(d.reason.str()) << "}\n";
  }
}

std::string events_jsonl(const RunRecord& record) {
  std::ostringstream out;
  write_events_jsonl(out, record);
  return out.str();
}

std::vector<LogEvent> read_events(std::string_view text, const std::string& file) {
  std::vector<LogEvent> out;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out.push_back(parse_line(line, file + ":" + std::to_string(line_no)));
  }
  return out;
}

std::vector<LogEvent> read_events_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string file = fs::is_directory(path, ec) ? (fs::path(path) / "events.jsonl").string() : path;
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw InputError(file, "",
                     "a readable events log (it does not exist or cannot be opened; `traintwin run SCENARIO --out "
                     "DIR` writes DIR/events.jsonl)");
  std::stringstream ss;
  ss << in.rdbuf();
  return read_events(ss.str(), file);
}

bool matches(const LogEvent& e, const EventFilter& f) {
  return e.level >= f.min_level && (!f.since || e.t >= *f.since) && (!f.until || e.t <= *f.until) &&
         any_of_or_empty(f.kinds, e.kind) && (f.jobs.empty() || (!e.job.empty() && any_of_or_empty(f.jobs, e.job)));
}

std::vector<LogEvent> filter_events(const std::vector<LogEvent>& events, const EventFilter& filter) {
  std::vector<LogEvent> out;
  for (const auto& e : events)
    if (matches(e, filter)) out.push_back(e);
  return out;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  return s;
}

std::string format_clock(Seconds t) {
  double v = t.value;
  if (!std::isfinite(v)) return std::to_string(v);
  const char* sign = v < 0 ? "-" : "";
  long long ms = std::llround(std::abs(v) * 1000);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%lld:%02lld:%02lld.%03lld", sign, ms / 3600000, ms / 60000 % 60, ms / 1000 % 60,
                ms % 1000);
  return buf;
}

std::string events_table(const std::vector<LogEvent>& events) {
  std::vector<std::array<std::string, 6>> rows;
  rows.reserve(events.size());
  for (const auto& e : events)
    rows.push_back({format_clock(e.t), upper(to_string(e.level)), one_line(e.kind),
                    e.job.empty() ? "-" : one_line(e.job), one_line(nodes_cell(e.nodes)), one_line(e.message)});
  std::array<std::size_t, 5> width{};
  for (const auto& r : rows)
    for (std::size_t i = 0; i < width.size(); ++i) width[i] = std::max(width[i], columns(r[i]));
  std::string out;
  for (const auto& r : rows) {
    out += std::string(width[0] - columns(r[0]), ' ') + r[0];  // times align on the right
    for (std::size_t i = 1; i < width.size(); ++i) out += "  " + r[i] + std::string(width[i] - columns(r[i]), ' ');
    out += "  " + r[5] + "\n";
  }
  return out;
}

}  // namespace tt
