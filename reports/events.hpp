// The structured event log (events.jsonl): one JSON object per line, one line per RunRecord decision in record order,
// keys in this order: {"t_s": 5400, "level": "warn", "kind": "node_down", "job": null, "nodes": ["n3"],
// "message": "node n3 crash"}; "job" is null for cluster events. The level follows from the kind (event_level).
// read_events parses a log back, throwing InputError that names the file and line; filter_events and events_table
// serve `traintwin logs`. Deterministic: same record, same bytes.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/control/run_record.hpp"

namespace tt {

enum class Level { Info, Warn, Error };
const char* to_string(Level level);                       // "info", "warn", "error"
std::optional<Level> parse_level(std::string_view text);  // the inverse; nullopt for anything else

// error: a job failed or was given up (detect, abandon); warn: something a person may want to look at (node_down,
// link_down, kill, requeue, preempt, alert_firing); info: everything else, including kinds this build does not know.
Level event_level(std::string_view kind);

struct LogEvent {
  Seconds t;
  Level level = Level::Info;
  std::string kind;
  std::string job;  // empty for cluster events
  std::vector<std::string> nodes;
  std::string message;
  bool operator==(const LogEvent&) const = default;
};

LogEvent log_event(const Decision& decision);
std::vector<LogEvent> log_events(const RunRecord& record);
std::string event_json_line(const LogEvent& event);  // one line, "\n" included
std::string events_jsonl(const RunRecord& record);
void write_events_jsonl(std::ostream& out, const RunRecord& record);  // the same lines, one decision at a time
// Parses events.jsonl text; `file` names it in errors ("FILE:LINE: at /t_s: a number, found string"). Blank lines
// are skipped; unknown keys are ignored so that later versions may add some.
std::vector<LogEvent> read_events(std::string_view text, const std::string& file);
// Reads DIR/events.jsonl, or the file itself when `path` is a file; throws InputError when it is missing or corrupt.
std::vector<LogEvent> read_events_file(const std::string& path);

struct EventFilter {
  std::vector<std::string> jobs;  // any of these; empty: every job and the cluster events
  Level min_level = Level::Info;
  std::optional<Seconds> since;    // t >= since
  std::optional<Seconds> until;    // t <= until
  std::vector<std::string> kinds;  // any of these; empty: every kind
};

bool matches(const LogEvent& event, const EventFilter& filter);
std::vector<LogEvent> filter_events(const std::vector<LogEvent>& events, const EventFilter& filter);
// Aligned lines for a terminal: time (h:mm:ss.mmm), LEVEL, kind, job ("-" for cluster events), nodes, message.
std::string events_table(const std::vector<LogEvent>& events);
// "1:30:00.000"; hours are not bounded.
std::string format_clock(Seconds t);
// The text on one terminal line: control characters (line breaks, carriage returns, escapes) become spaces.
std::string one_line(std::string text);

}  // namespace tt
