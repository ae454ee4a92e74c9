// traintwin replay SCENARIO OBSERVED: feeds the events a run's driver handed its Controller (observed.jsonl) to a
// fresh Controller of the same scenario and writes its report. The decisions are the run's, exactly: the Controller
// decides from nothing else. With a changed scenario (another timeout, another preemption policy) it answers "what
// would the policy have decided on what that run saw". Exit 1 when a check fails, 2 for bad input.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/control/controller.hpp"
#include "core/io/input_error.hpp"
#include "core/io/observed_events.hpp"
#include "core/io/scenario_reader.hpp"
#include "reports/report.hpp"

namespace tt::cli {
namespace {

struct ReplayOptions {
  std::string scenario;
  std::string observed;
  std::string out = "out";
  bool quiet = false;
};

int replay(const ReplayOptions& o) {
  const Scenario scenario = read_scenario_file(o.scenario);
  std::ifstream in(o.observed);
  if (!in) throw InputError(o.observed, "", "a readable observed.jsonl");
  const ObservedLog log = read_observed_log(in, o.observed, &scenario);
  Controller controller(scenario);
  Seconds last;
  for (const auto& [t, event] : log.events) {
    controller.handle(event, t);
    last = t;
  }
  if (!log.finish)
    std::fprintf(stderr, "warning: %s has no finish line (the run did not end cleanly); closing at %s\n",
                 o.observed.c_str(), format_seconds(last).c_str());
  controller.finish(log.finish.value_or(last));
  controller.set_driver("replay", {{"observed", o.observed}, {"events", std::to_string(log.events.size())}});
  const RunRecord& record = controller.record();
  ReportFiles files = write_report(record, o.out);
  if (!o.quiet) {
    std::cout << summary_table(record);
    std::printf("replayed %zu events; reports in %s: %s\n", log.events.size(), files.dir.c_str(),
                files.file_names().c_str());
  }
  return record.all_checks_passed() ? 0 : kExitChecksFailed;
}

}  // namespace

Registered add_replay(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  auto* sub = app.add_subcommand(
      "replay", "Feed a run's observed events (observed.jsonl) to a fresh Controller; write its report to DIR");
  sub->add_option("scenario", o->scenario, "scenario JSON file")->required();
  sub->add_option("observed", o->observed, "observed.jsonl of a `run --observed` or `real` run")->required();
  sub->add_option("--out", o->out, "report directory")->capture_default_str();
  sub->add_flag("--quiet", o->quiet, "print nothing; only the exit code and the report");
  return {sub, [o] { return replay(*o); }};
}

}  // namespace tt::cli
