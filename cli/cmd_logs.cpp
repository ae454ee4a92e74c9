// traintwin logs REPORT_DIR: filter a run's event log (REPORT_DIR/events.jsonl) by job, level, time and kind; print
// aligned lines, or the matching JSON lines with --json. Exit 2 on a bad argument or a missing or corrupt log.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "reports/events.hpp"

namespace tt::cli {
namespace {

struct LogsArgs {
  std::string dir;
  std::vector<std::string> jobs;
  std::string level = "info";
  std::string since;
  std::string until;
  std::vector<std::string> kinds;
  bool json = false;
};

int bad_argument(const char* option, const std::string& value, const char* expected) {
  std::fprintf(stderr, "error: %s %s: expected %s\n", option, value.c_str(), expected);
  return kExitBadInput;
}

// "" -> no bound; "0" or a duration with its unit ("90s", "2h", "1h30m") -> seconds since the start of the run.
bool parse_bound(const std::string& text, std::optional<Seconds>& out) {
  if (text.empty()) return true;
  if (text == "0")
    out = Seconds(0);
  else if (auto s = parse_seconds(text); s && s->value >= 0)
    out = s;
  return out.has_value();
}

int logs(const LogsArgs& a) {
  constexpr const char* kDuration = "a time since the start of the run with its unit: 90s, 30m, 2h, 1h30m";
  EventFilter filter;
  filter.jobs = a.jobs;
  filter.kinds = a.kinds;
  auto level = parse_level(a.level);
  if (!level) return bad_argument("--level", a.level, "info, warn or error");
  filter.min_level = *level;
  if (!parse_bound(a.since, filter.since)) return bad_argument("--since", a.since, kDuration);
  if (!parse_bound(a.until, filter.until)) return bad_argument("--until", a.until, kDuration);
  if (filter.since && filter.until && *filter.until < *filter.since)
    return bad_argument("--until", a.until, ("a time at or after --since " + a.since).c_str());

  std::vector<LogEvent> events = filter_events(read_events_file(a.dir), filter);
  if (a.json) {
    for (const auto& e : events) std::cout << event_json_line(e);
  } else {
    std::cout << events_table(events);
  }
  return 0;
}

}  // namespace

Registered add_logs(CLI::App& app) {
  auto a = std::make_shared<LogsArgs>();
  auto* sub = app.add_subcommand("logs", "Filter a run's event log (REPORT_DIR/events.jsonl); exit 2 if unreadable");
  sub->add_option("report_dir", a->dir, "report directory written by `traintwin run` (or an events.jsonl file)")
      ->required();
  sub->add_option("--job", a->jobs, "only events of this job (repeatable)");
  sub->add_option("--level", a->level, "lowest level shown: info, warn or error")->capture_default_str();
  sub->add_option("--since", a->since, "only events at or after this simulated time (2h, 90m, 1h30m)");
  sub->add_option("--until", a->until, "only events at or before this simulated time");
  sub->add_option("--kind", a->kinds, "only events of this kind (repeatable): submit, launch, pending, node_down, ...");
  sub->add_flag("--json", a->json, "print the matching events as JSON lines (the format of events.jsonl)");
  return {sub, [a] { return logs(*a); }};
}

}  // namespace tt::cli
