// bench_accuracy: how far fast-forward (fleet-scale shortcut, issue 8) moves job end times from simulating every
// iteration, as a fabric's oversubscription grows. scenarios/contended-uplinks.json (two 24-GPU jobs whose rings
// share leaf uplinks) runs at each oversubscription with fast-forward on and off, each simulation in its own process;
// prints each job's end time both ways, the relative difference, the SimGrid activities and wall time of each, the
// worst difference up to 8:1 as a ratio of the 1% goal, and the worst beyond (where the average-rate load of a
// fast-forwarding job overstates contention: docs/scenario-format.md, "Sim"). Never fails on accuracy:
// tests/sim/fleet_accuracy_test.cpp does.
// --multi-job: bench/scenarios/accuracy-multi-job.json instead (six generated jobs of mixed sizes, models and
// parallelism, checkpoints and a node crash, on 8 nodes in four leaf groups) at 2:1 to 16:1; --seeds N runs each
// level with seeds 1..N (the seed draws a generated workload) and prints the worst difference per level too;
// --first-seed S starts them at S (S..S+N-1: other workloads than the documented figures').
// --sensitivity X: the explicit simulation once more with compute X faster (perf.compute_efficiency x (1 + X), e.g.
// 1e-4): how far the reference itself moves under a change that should not matter. A workload whose jobs lock into an
// interleaving of their transfers (docs/scenario-format.md, "Sim") amplifies it; a fast-forward difference within
// that is within what the explicit simulation can tell.
// --ensemble K: K explicit simulations per level and seed, the reference and K - 1 moved by 0.01% in turn, compute
// then the NICs' bandwidth (compute x 1.0001, NIC x 1.0001, compute x 1.0002, NIC x 1.0002, ...): where jobs lock
// into an interleaving the reference is one draw of several, and fast-forward is judged against their mean as well
// (each job's end: fast-forward / mean - 1, the spread (max - min) / mean, and whether fast-forward lies between the
// least and the most, widened by the largest move itself: a job that shares no link ends where the reference does, and
// the moved runs' compute shifts it by that much).
//
//   bench_accuracy [--scenario PATH | --multi-job] [--oversubscription X]... [--seeds N] [--first-seed S]
//                  [--sensitivity X] [--ensemble K] [--json]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/control/controller.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "sim/driver.hpp"
#include "sim/isolated.hpp"

using namespace tt;
using Json = nlohmann::json;

namespace {

// One simulation in this process (the caller forks): each job's end time, the activities and the wall time.
std::string run_one(const std::string& path, double oversubscription, std::uint64_t seed, bool fast_forward,
                    double faster = 0, double nic_faster = 0) {
  Json doc = load_json_file(path);
  doc["topology"]["oversubscription"] = oversubscription;
  if (seed > 0) doc["seed"] = seed;
  if (nic_faster != 0) {  // "400Gbps" -> "400.04Gbps" for 1e-4: the number, then its unit as written
    const std::string text = doc["topology"].value("nic_bandwidth", std::string());
    std::size_t unit = 0;
    const double value = text.empty() ? 0 : std::stod(text, &unit);
    char moved[64];
    std::snprintf(moved, sizeof moved, "%.17g%s", value * (1 + nic_faster), text.substr(unit).c_str());
    doc["topology"]["nic_bandwidth"] = moved;
  }
  Scenario s = read_scenario(doc, path);
  s.sim.fast_forward = fast_forward;
  s.perf.compute_efficiency *= 1 + faster;
  const auto t0 = std::chrono::steady_clock::now();
  Controller controller(s);
  const sim::RunStats stats = sim::run(s, controller);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Json out = {{"activities", stats.simgrid_activities}, {"wall_s", wall}, {"jobs", Json::array()}};
  for (const JobRecord& j : controller.record().jobs)
    out["jobs"].push_back({{"name", j.name}, {"end", j.end ? j.end->value : -1.0}});
  return out.dump();
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = std::string(TT_SOURCE_DIR) + "/scenarios/contended-uplinks.json";
  std::vector<double> levels;
  bool json = false, multi_job = false;
  int seeds = 0;  // 0: the scenario's own seed
  int first_seed = 1;
  double sensitivity = 0;
  int ensemble = 0;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (arg("--scenario"))
      path = argv[++i];
    else if (arg("--oversubscription"))
      levels.push_back(std::stod(argv[++i]));
    else if (arg("--seeds"))
      seeds = std::max(1, std::atoi(argv[++i]));
    else if (arg("--first-seed"))
      first_seed = std::max(1, std::atoi(argv[++i]));
    else if (arg("--sensitivity"))
      sensitivity = std::stod(argv[++i]);
    else if (arg("--ensemble"))
      ensemble = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--multi-job") == 0)
      multi_job = true;
    else if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else {
      std::fprintf(stderr,
                   "usage: bench_accuracy [--scenario PATH | --multi-job] [--oversubscription X]... [--seeds N] "
                   "[--first-seed S] [--sensitivity X] [--ensemble K] [--json]\n");
      return 2;
    }
  }
  if (multi_job) path = std::string(TT_SOURCE_DIR) + "/bench/scenarios/accuracy-multi-job.json";
  if (levels.empty() && multi_job) levels = {2, 4, 8, 16};
  if (levels.empty()) levels = {1, 2, 4, 8, 16, 24, 32, 48, 64};
  if (ensemble == 1 || ensemble < 0) {
    std::fprintf(stderr, "bench_accuracy: --ensemble takes K >= 2 (the reference and K - 1 moved runs)\n");
    return 2;
  }
  if (ensemble > 2) {
    const Json doc = load_json_file(path);
    if (!doc.contains("topology") || !doc["topology"].is_object() || !doc["topology"].contains("nic_bandwidth") ||
        !doc["topology"]["nic_bandwidth"].is_string()) {
      std::fprintf(stderr,
                   "bench_accuracy: %s: /topology/nic_bandwidth: --ensemble K > 2 moves the NICs' bandwidth, and "
                   "expects it written in the scenario's topology as a string such as \"400Gbps\"\n",
                   path.c_str());
      return 2;
    }
  }
  std::vector<std::uint64_t> seed_list = {0};
  if (seeds > 0) {
    seed_list.clear();
    for (int k = first_seed; k < first_seed + seeds; ++k) seed_list.push_back(static_cast<std::uint64_t>(k));
  }
  Json per_level = Json::array();
  Json rows = Json::array();
  double worst = 0, worst_beyond = 0, worst_at = 0;  // up to 8:1; beyond 8:1, and where
  double worst_to_mean = 0;                           // up to 8:1, against the ensemble's mean
  for (double o : levels) {
    double level_worst = 0, level_sum = 0, level_sensitivity = 0, level_beyond = 0;
    double level_to_mean = 0, level_to_mean_sum = 0, level_spread = 0;
    int level_n = 0, level_outside = 0;
    for (std::uint64_t seed : seed_list) {
      Json fast, exact, moved;
      std::vector<Json> members;  // the ensemble: exact, then the moved runs
      try {
        fast = Json::parse(sim::run_isolated([&] { return run_one(path, o, seed, true); }));
        exact = Json::parse(sim::run_isolated([&] { return run_one(path, o, seed, false); }));
        if (sensitivity != 0)
          moved = Json::parse(sim::run_isolated([&] { return run_one(path, o, seed, false, sensitivity); }));
        if (ensemble > 1) members.push_back(exact);
        for (int k = 1; k < ensemble; ++k) {
          const double step = 1e-4 * ((k + 1) / 2);  // 1, 1, 2, 2, ... x 0.01%: compute, then the NICs
          const double compute = k % 2 == 1 ? step : 0, nic = k % 2 == 0 ? step : 0;
          members.push_back(
              Json::parse(sim::run_isolated([&] { return run_one(path, o, seed, false, compute, nic); })));
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_accuracy: %s at %g:1: %s\n", path.c_str(), o, e.what());
        return 3;
      }
      for (std::size_t j = 0; j < fast["jobs"].size(); ++j) {
        const double f = fast["jobs"][j]["end"].get<double>(), e = exact["jobs"][j]["end"].get<double>();
        const double diff = e > 0 && f > 0 ? f / e - 1 : NAN;
        if (!std::isnan(diff)) {
          level_worst = std::max(level_worst, std::abs(diff));
          level_sum += std::abs(diff);
          ++level_n;
        }
        if (!std::isnan(diff) && o <= 8) worst = std::max(worst, std::abs(diff));
        if (!std::isnan(diff) && o > 8 && std::abs(diff) > worst_beyond) {
          worst_beyond = std::abs(diff);
          worst_at = o;
        }
        double own = NAN;  // the explicit simulation's own move under the perturbation
        if (sensitivity != 0) {
          const double m = moved["jobs"][j]["end"].get<double>();
          own = e > 0 && m > 0 ? m / e - 1 : NAN;
          if (!std::isnan(own)) level_sensitivity = std::max(level_sensitivity, std::abs(own));
          if (!std::isnan(diff) && !std::isnan(own) && std::abs(diff) > std::abs(own))
            level_beyond = std::max(level_beyond, std::abs(diff));
        }
        Json row = {{"oversubscription", o},
                    {"seed", seed},
                    {"job", fast["jobs"][j]["name"]},
                    {"end_exact_s", e},
                    {"end_fast_s", f},
                    {"difference", diff},
                    {"activities_exact", exact["activities"]},
                    {"activities_fast", fast["activities"]},
                    {"wall_exact_s", exact["wall_s"]},
                    {"wall_fast_s", fast["wall_s"]}};
        if (sensitivity != 0) row["explicit_sensitivity"] = std::isnan(own) ? Json(nullptr) : Json(own);
        char moved_text[64] = "";
        if (sensitivity != 0) std::snprintf(moved_text, sizeof moved_text, "  explicit itself %+7.2f%%", 100 * own);
        char ensemble_text[96] = "";
        if (!members.empty()) {
          std::vector<double> ends;
          for (const Json& m : members) ends.push_back(m["jobs"][j]["end"].get<double>());
          const bool all_ended = std::all_of(ends.begin(), ends.end(), [](double x) { return x > 0; });
          row["ensemble_ends_s"] = ends;
          if (all_ended && f > 0) {
            double sum = 0;
            for (double x : ends) sum += x;
            const double mean_end = sum / static_cast<double>(ends.size());
            const auto [lo, hi] = std::minmax_element(ends.begin(), ends.end());
            const double to_mean = f / mean_end - 1, spread = (*hi - *lo) / mean_end;
            const double widen = 1e-4 * (ensemble / 2);  // the largest move (above)
            const bool within = f >= *lo * (1 - widen) && f <= *hi * (1 + widen);
            row["difference_to_mean"] = to_mean;
            row["ensemble_spread"] = spread;
            row["within_ensemble"] = within;
            level_to_mean = std::max(level_to_mean, std::abs(to_mean));
            level_to_mean_sum += std::abs(to_mean);
            level_spread = std::max(level_spread, spread);
            level_outside += within ? 0 : 1;
            if (o <= 8) worst_to_mean = std::max(worst_to_mean, std::abs(to_mean));
            std::snprintf(ensemble_text, sizeof ensemble_text, "  to the %zu runs' mean %+7.2f%% (spread %.2f%%%s)",
                          ends.size(), 100 * to_mean, 100 * spread, within ? "" : ", outside");
          }
        }
        if (!json)
          std::printf("%5g:1  %sjob %-8s  explicit %9.1f s  fast-forward %9.1f s  %+7.2f%%%s  activities %7lld vs %4lld  "
                      "wall %.2f s vs %.3f s%s\n",
                      o, seed > 0 ? ("seed " + std::to_string(seed) + "  ").c_str() : "",
                      row["job"].get<std::string>().c_str(), e, f, 100 * diff, moved_text,
                      row["activities_exact"].get<long long>(), row["activities_fast"].get<long long>(),
                      row["wall_exact_s"].get<double>(), row["wall_fast_s"].get<double>(), ensemble_text);
        rows.push_back(row);
      }
      std::fflush(stdout);
    }
    const double mean = level_n ? level_sum / level_n : NAN;
    per_level.push_back({{"oversubscription", o}, {"jobs", level_n}, {"worst", level_worst}, {"mean_abs", mean}});
    if (sensitivity != 0) {
      per_level.back()["explicit_sensitivity_worst"] = level_sensitivity;
      per_level.back()["worst_beyond_sensitivity"] = level_beyond;
    }
    if (ensemble > 1) {
      per_level.back()["ensemble"] = ensemble;
      per_level.back()["worst_to_mean"] = level_to_mean;
      per_level.back()["mean_abs_to_mean"] = level_n ? level_to_mean_sum / level_n : NAN;
      per_level.back()["ensemble_spread_worst"] = level_spread;
      per_level.back()["outside_ensemble"] = level_outside;
    }
    if (!json && seed_list.size() > 1)
      std::printf("%5g:1  %d job ends over %zu seeds: worst %.2f%%, mean |difference| %.2f%%\n", o, level_n,
                  seed_list.size(), 100 * level_worst, 100 * mean);
    if (!json && sensitivity != 0)
      std::printf("%5g:1  explicit simulation with compute %g faster: its job ends move by up to %.2f%%; worst "
                  "fast-forward difference larger than the explicit's own move: %.2f%%\n",
                  o, sensitivity, 100 * level_sensitivity, 100 * level_beyond);
    if (!json && ensemble > 1)
      std::printf("%5g:1  against the mean of %d explicit runs: worst %.2f%%, mean |difference| %.2f%%; the runs' "
                  "own spread up to %.2f%%; %d of %d job ends outside their range\n",
                  o, ensemble, 100 * level_to_mean, 100 * (level_n ? level_to_mean_sum / level_n : NAN),
                  100 * level_spread, level_outside, level_n);
  }
  if (json) {
    std::printf("%s\n",
                Json({{"bench", "accuracy"}, {"scenario", path}, {"rows", rows}, {"levels", per_level}, {"goal", 0.01},
                      {"worst_up_to_8", worst}, {"worst_to_goal", worst / 0.01}, {"worst_beyond_8", worst_beyond},
                      {"worst_beyond_8_at", worst_at}, {"ensemble", ensemble},
                      {"worst_to_mean_up_to_8", ensemble > 1 ? Json(worst_to_mean) : Json(nullptr)}})
                    .dump()
                    .c_str());
    return 0;
  }
  std::printf("up to 8:1: worst difference %.2f%% = %.2fx the 1%% goal\n", 100 * worst, worst / 0.01);
  if (ensemble > 1)
    std::printf("up to 8:1: worst difference to the mean of %d explicit runs %.2f%% = %.2fx the 1%% goal\n", ensemble,
                100 * worst_to_mean, worst_to_mean / 0.01);
  if (worst_at > 0) std::printf("beyond 8:1: worst difference %.2f%% at %g:1\n", 100 * worst_beyond, worst_at);
  return 0;
}
