// traintwin: the command line. Exit codes: 0 every check passed, 1 a check failed, 2 bad input, 3 internal error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <optional>

#include "core/control/controller.hpp"
#include "core/io/input_error.hpp"
#include "core/io/scenario_reader.hpp"
#include "reports/report.hpp"
#include "sim/driver.hpp"

namespace {

constexpr int kExitChecksFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitInternal = 3;

int cmd_run(const std::string& scenario_path, const std::string& out_dir, std::optional<std::uint64_t> seed,
            bool quiet) {
  tt::Scenario scenario = tt::read_scenario_file(scenario_path);
  if (seed) scenario.seed = *seed;
  tt::Controller controller(scenario);
  tt::sim::RunStats stats = tt::sim::run(scenario, controller);
  controller.set_driver("sim", stats.driver_info);
  const tt::RunRecord& record = controller.record();
  std::string path = tt::write_report(record, out_dir);
  if (!quiet) {
    std::cout << tt::summary_table(record);
    std::printf("simulated %s in %.2f s wall; report: %s\n", tt::format_seconds(record.end_time).c_str(),
                stats.wall_seconds, path.c_str());
  }
  return record.all_checks_passed() ? 0 : kExitChecksFailed;
}

int cmd_validate(const std::string& scenario_path) {
  tt::Scenario s = tt::read_scenario_file(scenario_path);
  std::printf("%s: valid scenario \"%s\": %d GPUs (%zu nodes), %zu queues, %zu jobs, %zu faults, %zu checks\n",
              scenario_path.c_str(), s.name.c_str(), s.topology.total_gpus(), s.topology.nodes().size(),
              s.queues.size(), s.jobs.size(), s.faults.size(), s.checks.size());
  return 0;
}

int cmd_topo(const std::string& path) {
  tt::Topology t = tt::read_topology_file(path);
  std::printf("topology %s (%s): %zu nodes x %d %s = %d GPUs\n", t.name().c_str(), t.generator().c_str(),
              t.nodes().size(), t.gpus_per_node(), t.gpu().name.c_str(), t.total_gpus());
  std::printf("  switches: %d leaf, %d spine; %zu links; %d leaf group(s)\n", t.switch_count(tt::VertexKind::Leaf),
              t.switch_count(tt::VertexKind::Spine), t.edges().size(), t.groups());
  std::printf("  bisection bandwidth: %s; storage: %s\n", tt::format_bandwidth(t.bisection_bandwidth()).c_str(),
              tt::format_bandwidth(t.storage_bandwidth()).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"traintwin: a digital twin and test harness for large-model training infrastructure"};
  app.require_subcommand(1);

  std::string scenario_path, out_dir = "out", topo_path;
  std::uint64_t seed = 0;
  bool quiet = false;
  auto* run = app.add_subcommand("run", "Simulate a scenario with SimGrid; write DIR/report.json; exit 1 if a check fails");
  run->add_option("scenario", scenario_path, "scenario JSON file")->required();
  run->add_option("--out", out_dir, "report directory")->capture_default_str();
  auto* seed_opt = run->add_option("--seed", seed, "override the scenario's seed");
  run->add_flag("--quiet", quiet, "print nothing; only the exit code and the report");

  auto* validate = app.add_subcommand("validate", "Check a scenario file and exit (0 valid, 2 invalid)");
  validate->add_option("scenario", scenario_path, "scenario JSON file")->required();

  auto* topo = app.add_subcommand("topo", "Describe a topology file: counts, bisection and storage bandwidth");
  topo->add_option("topology", topo_path, "topology JSON file")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  try {
    if (*run) return cmd_run(scenario_path, out_dir, seed_opt->count() ? std::optional(seed) : std::nullopt, quiet);
    if (*validate) return cmd_validate(scenario_path);
    if (*topo) return cmd_topo(topo_path);
  } catch (const tt::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitInternal;
}
