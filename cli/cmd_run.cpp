// traintwin run SCENARIO: simulate with SimGrid, write the report, print a summary; exit 1 when a check fails. On a
// terminal a progress line shows while the simulation runs; nothing of it reaches a pipe or a file.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/observed_log.hpp"
#include "cli/progress.hpp"
#include "core/control/controller.hpp"
#include "core/io/control_plane_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "reports/report.hpp"
#include "sim/driver.hpp"

namespace tt::cli {
namespace {

struct RunOptions {
  std::string scenario;
  std::string out = "out";
  std::uint64_t seed = 0;
  CLI::Option* seed_opt = nullptr;
  bool quiet = false;
  bool observed = false;
  double progress_interval = sim::RunOptions{}.progress_interval_s;
};

int run(const RunOptions& o) {
  const Scenario scenario =
      o.seed_opt->count() ? read_scenario_file(o.scenario, o.seed) : read_scenario_file(o.scenario);
  Controller controller(scenario);
  const bool terminal = !o.quiet && isatty(STDOUT_FILENO);
  ProgressLine progress(stdout, terminal, terminal ? expected_end(scenario) : Seconds(0));
  sim::RunOptions options;
  options.progress_interval_s = o.progress_interval;
  options.control_plane_outages = read_control_plane_outages(load_json_file(o.scenario), o.scenario);
  if (progress.enabled()) options.on_progress = [&progress](const sim::Progress& p) { progress.update(p); };
  std::optional<ObservedWriter> observed;
  if (o.observed) {
    observed.emplace(std::filesystem::path(o.out) / "observed.jsonl");
    options.on_event = observed->recorder();
  }
  sim::RunStats stats = sim::run(scenario, controller, options);
  if (observed) observed->finish(controller.record().end_time);
  progress.erase();
  controller.set_driver("sim", stats.driver_info);
  const RunRecord& record = controller.record();
  ReportFiles files = write_report(record, o.out);
  if (!o.quiet) {
    std::cout << summary_table(record);
    std::printf("simulated %s in %.2f s wall; reports in %s: %s\n", format_seconds(record.end_time).c_str(),
                stats.wall_seconds, files.dir.c_str(), files.file_names().c_str());
  }
  return record.all_checks_passed() ? 0 : kExitChecksFailed;
}

}  // namespace

Registered add_run(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* sub =
      app.add_subcommand("run", "Simulate a scenario with SimGrid; write reports to DIR; exit 1 if a check fails");
  sub->add_option("scenario", o->scenario, "scenario JSON file")->required();
  sub->add_option("--out", o->out, "report directory")->capture_default_str();
  o->seed_opt = sub->add_option("--seed", o->seed, "override the scenario's seed");
  sub->add_flag("--quiet", o->quiet, "print nothing; only the exit code and the report");
  sub->add_flag("--observed", o->observed,
                "also write DIR/observed.jsonl: every event the Controller was handed (`traintwin replay` reads it)");
  // Hidden, for tests: 0 redraws the progress line at every controller event, so that it shows whatever the machine.
  sub->add_option("--progress-interval", o->progress_interval, "seconds of wall time between progress redraws")
      ->check(CLI::NonNegativeNumber)
      ->group("");
  return {sub, [o] { return run(*o); }};
}

}  // namespace tt::cli
