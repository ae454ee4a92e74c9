// bench_comm: predicted all-reduce bus bandwidth of 8 x H100 nodes, closed form beside the SimGrid measurement.
//   - one node (NVSwitch): ring only, and NVLS only;
//   - 2, 4 and 16 nodes with 8 x 400 Gb/s NICs each (rail-optimized, one leaf group): the planner's choice;
//   - 16 nodes in two leaf groups of 8 behind 8 spines (non-blocking): the closed form splits cross-group traffic
//     evenly over the spines (ideal ECMP), the simulation hashes each flow onto one, as switches do.
// Sizes 1 KiB to 8 GiB, doubling. Prints figures and ratios; never fails on them (STYLE.md). --json for machines.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/model/gpu.hpp"
#include "core/plan/comm_sweep.hpp"
#include "core/topo/generators.hpp"
#include "sim/comm_sweep.hpp"

using namespace tt;

namespace {

struct Config {
  std::string name;
  int nodes;
  std::optional<Algorithm> only;
  int nodes_per_group = 32;
};

Topology h100_cluster(int nodes, int nodes_per_group) {
  FabricParams p;
  p.name = "bench-" + std::to_string(nodes) + "x8-h100";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = nodes;
  p.gpus_per_node = 8;
  p.nic_bandwidth = BytesPerSecond(50e9);  // 400 Gb/s per GPU
  p.nodes_per_group = nodes_per_group;
  p.storage_bandwidth = BytesPerSecond(100e9);
  return nodes == 1 ? make_single_node(p) : make_rail_optimized(p);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_comm: all-reduce busbw of 8 x H100 nodes, closed form and SimGrid"};
  bool json = false;
  std::string max = "8GiB";
  app.add_flag("--json", json, "print JSON");
  app.add_option("--max", max, "largest size (default 8GiB)");
  CLI11_PARSE(app, argc, argv);
  const Bytes end = parse_bytes(max).value_or(Bytes(8.0 * (1ull << 30)));

  const std::vector<Config> configs = {
      {"1 node, ring", 1, Algorithm::Ring}, {"1 node, NVLS", 1, Algorithm::Nvls},
      {"2 nodes", 2, std::nullopt},         {"4 nodes", 4, std::nullopt},
      {"16 nodes", 16, std::nullopt},       {"16 nodes, 2 leaf groups", 16, std::nullopt, 8}};
  nlohmann::json out = nlohmann::json::array();
  for (const Config& c : configs) {
    Topology topo = h100_cluster(c.nodes, c.nodes_per_group);
    CommOverrides o;
    if (c.only) o.algorithms = std::vector<Algorithm>{*c.only};
    CommPlanner planner(topo, comm_constants(topo.gpu(), o));
    std::vector<int> gpus = pick_gpus(topo, 8 * c.nodes, c.nodes);
    Sweep sweep = plan_sweep(planner, Collective::AllReduce, gpus, sweep_sizes(Bytes(1024), end, 2));
    const auto t0 = std::chrono::steady_clock::now();
    std::string error;
    const int errors = sim::measure_sweep(topo, sweep, &error);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (json) {
      nlohmann::json j = sweep_json(sweep, errors);
      j["config"] = c.name;
      j["sim_wall_s"] = wall;
      if (!error.empty()) j["error"] = error;
      out.push_back(std::move(j));
      continue;
    }
    std::printf("== all_reduce, %s: %d x H100-SXM%s (sim %.2f s wall)\n", c.name.c_str(), 8 * c.nodes,
                c.nodes == 1        ? ", NVSwitch"
                : topo.groups() > 1 ? ", 8 x 400 Gb/s NICs per node, rail-optimized, 8 spines"
                                    : ", 8 x 400 Gb/s NICs per node, rail-optimized",
                wall);
    std::printf("%12s  %-19s %10s %10s %10s %7s\n", "size (B)", "algorithm/protocol", "time (us)", "busbw", "sim busbw",
                "sim/cf");
    double peak = 0, peak_sim = 0;
    for (const SweepRow& r : sweep.rows) {
      const double cf = r.predicted.busbw.value / 1e9, sim = r.measured ? r.measured_bw.busbw.value / 1e9 : 0;
      peak = std::max(peak, cf);
      peak_sim = std::max(peak_sim, sim);
      const std::string choice = std::string(to_string(r.group.algorithm)) + "/" + to_string(r.group.protocol);
      std::printf("%12.0f  %-19s %10.1f %10.2f %10.2f %7.3f\n", r.size.value, choice.c_str(),
                  r.group.predicted.value * 1e6, cf, sim, cf > 0 ? sim / cf : 0.0);
    }
    std::printf("peak busbw %.1f GB/s closed form, %.1f GB/s simulated; average %.1f / %.1f GB/s%s%s\n\n", peak,
                peak_sim, average_busbw(sweep, false) / 1e9, average_busbw(sweep, true) / 1e9,
                error.empty() ? "" : "; sim error: ", error.c_str());
  }
  if (json) std::cout << out.dump(2) << "\n";
  return 0;
}
