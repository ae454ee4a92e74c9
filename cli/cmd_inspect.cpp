// traintwin validate SCENARIO and traintwin topo TOPOLOGY: look at inputs without running anything.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "core/io/scenario_reader.hpp"

namespace tt::cli {

Registered add_validate(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("validate", "Check a scenario file and exit (0 valid, 2 invalid)");
  sub->add_option("scenario", *path, "scenario JSON file")->required();
  return {sub, [path] {
            Scenario s = read_scenario_file(*path);
            std::printf("%s: valid scenario \"%s\": %d GPUs (%zu nodes), %zu queues, %zu jobs, %zu faults, %zu checks\n",
                        path->c_str(), s.name.c_str(), s.topology.total_gpus(), s.topology.nodes().size(),
                        s.queues.size(), s.jobs.size(), s.faults.size(), s.checks.size());
            return 0;
          }};
}

Registered add_topo(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("topo", "Describe a topology file: counts, bisection and storage bandwidth");
  sub->add_option("topology", *path, "topology JSON file")->required();
  return {sub, [path] {
            Topology t = read_topology_file(*path);
            std::printf("topology %s (%s): %zu nodes x %d %s = %d GPUs\n", t.name().c_str(), t.generator().c_str(),
                        t.nodes().size(), t.gpus_per_node(), t.gpu().name.c_str(), t.total_gpus());
            std::printf("  switches: %d leaf, %d spine; %zu links; %d leaf group(s)\n",
                        t.switch_count(VertexKind::Leaf), t.switch_count(VertexKind::Spine), t.edges().size(),
                        t.groups());
            std::printf("  bisection bandwidth: %s; storage: %s\n", format_bandwidth(t.bisection_bandwidth()).c_str(),
                        format_bandwidth(t.storage_bandwidth()).c_str());
            return 0;
          }};
}

}  // namespace tt::cli
