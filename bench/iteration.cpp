// bench_iteration: one training iteration of GPT-3 175B (tp 8, pp 8, dp 16; 1,536 sequences of 2,048 tokens) on
// 1,024 H100 (128 nodes x 8, rail-optimized, 400 Gb/s per GPU), simulated with contention at flow level, from the
// scheduler's placement (Controller) through the comm planner to the end of the gradient all-reduce in SimGrid.
// Runs at a quarter, half and full size (dp 4, 8, 16; the global batch scales with dp), each in its own process, and
// prints the wall time per simulated iteration (whole run, and the planning part alone), the predicted (closed form)
// and simulated iteration times, and how wall time grows with size. Goals (issue 23; issue 8's 1 s at full size is
// met): at most 0.1 s wall at full size (1,024 GPUs) and 1 s at 16,384 GPUs. Never fails on time.
//
//   bench_iteration [--scale 0.25|0.5|1|16] [--json]   (16: 16,384 GPUs, dp 256)

#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/control/controller.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/plan/perf_model.hpp"
#include "sim/driver.hpp"
#include "sim/isolated.hpp"

using namespace tt;
using Json = nlohmann::json;

namespace {

Json iteration_document(double scale) {
  const int dp = static_cast<int>(16 * scale);
  const int nodes = 8 * dp;  // tp 8 x pp 8 x dp GPUs, 8 per node
  Json doc = {{"name", "bench-iteration"},
              {"topology", bench::rail_h100_topology(nodes, 32, "400GB/s")},
              {"queues", {{{"name", "train"}, {"gpu_quota", nodes * 8}}}},
              {"jobs",
               {{{"name", "gpt3-175b"},
                 {"queue", "train"},
                 {"gpus", nodes * 8},
                 {"model", "gpt3-175b"},
                 {"parallel", {{"tp", 8}, {"pp", 8}, {"dp", dp}}},
                 {"iterations", 1},
                 {"global_batch", 96 * dp},
                 {"seq_len", 2048}}}},
              {"sim", {{"measure_iterations", 1}}}};
  if (nodes <= 32) doc["topology"].erase("spines");  // one leaf group: no spine layer
  return doc;
}

std::string run_one(double scale) {
  // The run first, on a topology read fresh (its hop-distance tables are cached on the topology and shared by its
  // copies: timing the run after a planning pass on the same topology would leave the searches out of it); then the
  // planning alone, on a second fresh read.
  const auto t0 = std::chrono::steady_clock::now();
  Scenario s = read_scenario(iteration_document(scale), "bench/iteration");
  const auto t1 = std::chrono::steady_clock::now();
  Controller controller(s);
  sim::RunStats stats = sim::run(s, controller);
  const auto t2 = std::chrono::steady_clock::now();
  const Scenario fresh = read_scenario(iteration_document(scale), "bench/iteration");
  std::vector<int> gpus(static_cast<std::size_t>(fresh.jobs[0].gpus));
  for (std::size_t i = 0; i < gpus.size(); ++i) gpus[i] = static_cast<int>(i);
  const auto t3 = std::chrono::steady_clock::now();
  const IterationPlan plan = plan_iteration(fresh.jobs[0], fresh.topology, gpus, fresh.perf);
  const auto t4 = std::chrono::steady_clock::now();
  const JobRecord& j = controller.record().jobs.at(0);
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  long long flows = 0;
  for (const CommStep& st : plan.steps)
    for (const CommGroup& g : st.groups)
      for (const CommPhase& p : g.phases) flows += static_cast<long long>(p.size());
  Json out = {{"scale", scale},
              {"gpus", s.jobs[0].gpus},
              {"dp", s.jobs[0].parallel.dp},
              {"wall_s", secs(t1, t2)},       // the run: placement, planning and simulation
              {"plan_wall_s", secs(t3, t4)},  // planning alone (comm planner and perf model)
              {"read_wall_s", secs(t0, t1)},
              {"predicted_iteration_s", plan.predicted_iteration.value},
              {"simulated_iteration_s", j.measured_iteration.value},
              {"iterations", j.iterations_done},
              {"planned_transfers", flows},
              {"simgrid_activities", stats.simgrid_activities},
              {"peak_rss_mib", bench::peak_rss_mib()}};
  return out.dump();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> scales = {0.25, 0.5, 1.0};
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
      scales = {std::stod(argv[++i])};
    } else if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      std::fprintf(stderr, "usage: bench_iteration [--scale 0.25|0.5|1|16] [--json]\n");
      return 2;
    }
  }
  Json runs = Json::array();
  for (double scale : scales) {
    Json r;
    try {
      r = Json::parse(sim::run_isolated([&] { return run_one(scale); }));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_iteration: scale %g: %s\n", scale, e.what());
      return 3;
    }
    runs.push_back(r);
    if (!json)
      std::printf(
          "scale %-4g %5d GPUs (dp %2d)  wall %.3f s per simulated iteration (planning %.3f s)  predicted %.3f s  "
          "simulated %.3f s (x%.3f)  %lld planned transfers  %lld SimGrid activities  peak RSS %.0f MiB\n",
          scale, r["gpus"].get<int>(), r["dp"].get<int>(), r["wall_s"].get<double>(), r["plan_wall_s"].get<double>(),
          r["predicted_iteration_s"].get<double>(), r["simulated_iteration_s"].get<double>(),
          r["simulated_iteration_s"].get<double>() / r["predicted_iteration_s"].get<double>(),
          r["planned_transfers"].get<long long>(), r["simgrid_activities"].get<long long>(),
          r["peak_rss_mib"].get<double>());
    std::fflush(stdout);
  }
  Json growth = Json::array();
  for (std::size_t i = 1; i < runs.size(); ++i)
    growth.push_back({{"from", runs[i - 1]["scale"]},
                      {"to", runs[i]["scale"]},
                      {"gpus", runs[i]["gpus"].get<double>() / runs[i - 1]["gpus"].get<double>()},
                      {"wall", runs[i]["wall_s"].get<double>() / runs[i - 1]["wall_s"].get<double>()}});
  const Json& last = runs.back();
  // The goal of the last size run: 0.1 s at 1,024 GPUs, 1 s at 16,384 (issue 23); none at the smaller sizes.
  const int gpus = last["gpus"].get<int>();
  const double goal = gpus == 16384 ? 1.0 : gpus == 1024 ? 0.1 : 0.0;
  if (json) {
    std::printf("%s\n", Json({{"bench", "iteration"},
                              {"runs", runs},
                              {"growth", growth},
                              {"goal_wall_s", goal > 0 ? Json(goal) : Json(nullptr)},
                              {"wall_to_goal", goal > 0 ? Json(last["wall_s"].get<double>() / goal) : Json(nullptr)}})
                            .dump()
                            .c_str());
    return 0;
  }
  for (const Json& g : growth)
    std::printf("scale %g -> %g: GPUs x%.2f, wall x%.2f\n", g["from"].get<double>(), g["to"].get<double>(),
                g["gpus"].get<double>(), g["wall"].get<double>());
  if (goal > 0)
    std::printf("scale %g: %.3f s per simulated iteration = %.2fx the %g s goal\n", last["scale"].get<double>(),
                last["wall_s"].get<double>(), last["wall_s"].get<double>() / goal, goal);
  else
    std::printf("scale %g: %.3f s per simulated iteration (goals are set at 1,024 and 16,384 GPUs)\n",
                last["scale"].get<double>(), last["wall_s"].get<double>());
  return 0;
}
