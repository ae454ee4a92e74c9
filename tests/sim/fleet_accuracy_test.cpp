// Accuracy of the fleet-scale shortcuts (issue 8): fast-forward, re-measuring only the jobs whose shared links saw the
// others' nominal load drift past sim.remeasure_threshold, reusing a lone job's pace for an identical signature and
// across checkpoints, and merged flows must not move job end times by more than 1% compared with simulating every
// iteration explicitly, on a generated fleet and on two jobs contending for 8:1 oversubscribed uplinks. At 64:1 the
// fast-forward load overstates contention (the last case bounds it).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "sim_fixtures.hpp"

using namespace tt;
using nlohmann::json;

namespace {

// 8 nodes of 8 H100 in two leaf groups with 2:1 oversubscribed spines, so that multi-node jobs contend; a generated
// workload of 8 to 32 GPU jobs arriving over two hours, checkpoints every 20 iterations, backfill and preemption.
const char* const kFleet = R"({
  "name": "small-fleet", "seed": 5,
  "topology": {"name": "t-8x8", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 8, "gpus_per_node": 8,
               "nic_bandwidth": "400Gbps", "nodes_per_group": 4, "spines": 2, "oversubscription": 2,
               "storage": {"bandwidth": "100GB/s"}},
  "queues": [{"name": "a", "gpu_quota": 40, "cohort": "c", "preemption": {"reclaim_within_cohort": "Any"}},
             {"name": "b", "gpu_quota": 24, "cohort": "c"}],
  "scheduler": {"backfill": "easy"},
  "workload": {
    "arrivals": {"per_hour": 6, "until": "2h"},
    "sizes": [{"gpus": 8, "weight": 2}, {"gpus": 16, "weight": 2}, {"gpus": 32}],
    "models": [{"preset": "llama3-8b"}],
    "iterations": {"shape": "uniform", "min": 60, "max": 200},
    "queues": [{"name": "a"}, {"name": "b"}],
    "micro_batches": 4
  },
  "sim": {"horizon": "2d"}
})";

}  // namespace

TEST_CASE("fleet: fast-forward and targeted re-measuring keep job end times within 1% of explicit simulation",
          "[sim]") {
  Scenario s = read_scenario(parse_json_text(kFleet, "small-fleet.json"), "small-fleet.json");
  for (JobSpec& j : s.jobs) j.checkpoint_every = 20;
  REQUIRE(s.jobs.size() >= 8);
  s.sim.fast_forward = true;
  const json fast = testing::simulate(s);
  s.sim.fast_forward = false;
  const json exact = testing::simulate(s);
  CHECK(fast["activities"].get<long long>() < exact["activities"].get<long long>() / 4);  // the shortcut is real
  REQUIRE(fast["jobs"].size() == exact["jobs"].size());
  int multi_node = 0;
  for (std::size_t i = 0; i < fast["jobs"].size(); ++i) {
    const json& f = fast["jobs"][i];
    const json& e = exact["jobs"][i];
    INFO(f["name"].get<std::string>());
    REQUIRE(e["end"].get<double>() > 0);
    REQUIRE(f["end"].get<double>() > 0);
    CHECK(std::abs(f["end"].get<double>() - e["end"].get<double>()) <= 0.01 * e["end"].get<double>());
    multi_node += s.jobs[i].gpus > 8;
  }
  CHECK(multi_node >= 2);
  CHECK(fast["pace_reuses"].get<long long>() > 0);  // single-node jobs of the same shape measure once
}

TEST_CASE("fleet: re-measuring at every load change and at the default threshold agree within 1%", "[sim]") {
  Scenario s = read_scenario(parse_json_text(kFleet, "small-fleet.json"), "small-fleet.json");
  for (JobSpec& j : s.jobs) j.checkpoint_every = 20;
  s.sim.remeasure_threshold = 0;
  const json every = testing::simulate(s);
  s.sim.remeasure_threshold = 0.02;
  const json drift = testing::simulate(s);
  CHECK(drift["measurements"].get<long long>() <= every["measurements"].get<long long>());
  REQUIRE(drift["jobs"].size() == every["jobs"].size());
  for (std::size_t i = 0; i < drift["jobs"].size(); ++i) {
    INFO(drift["jobs"][i]["name"].get<std::string>());
    const double a = drift["jobs"][i]["end"].get<double>(), b = every["jobs"][i]["end"].get<double>();
    CHECK(std::abs(a - b) <= 0.01 * b);
  }
}

namespace {

// scenarios/contended-uplinks.json: two 24-GPU jobs whose data-parallel rings leave the same leaf group over the same
// uplinks, at the oversubscription given.
Scenario contended_pair(double oversubscription) {
  const std::string path = std::string(TT_SOURCE_DIR) + "/scenarios/contended-uplinks.json";
  json doc = load_json_file(path);
  doc["topology"]["oversubscription"] = oversubscription;
  return read_scenario(doc, path);
}

// Each job's end time with fast-forward and simulated explicitly.
struct Ends {
  double fast, exact;
};

// Simulates the pair with fast-forward (the record returned) and explicitly; `ends` gets each job's two end times.
json simulate_both(double oversubscription, std::vector<Ends>& ends) {
  Scenario s = contended_pair(oversubscription);
  s.sim.fast_forward = true;
  const json fast = testing::simulate(s);
  s.sim.fast_forward = false;
  const json exact = testing::simulate(s);
  for (std::size_t i = 0; i < fast["jobs"].size(); ++i)
    ends.push_back({fast["jobs"][i]["end"].get<double>(), exact["jobs"][i]["end"].get<double>()});
  return fast;
}

}  // namespace

TEST_CASE("fleet: two jobs sharing 8:1 oversubscribed leaf uplinks end within 1% of explicit simulation", "[sim]") {
  // Here the fast-forward load matters: without it B would end exactly as explicitly simulated (their bursts
  // interleave), with it B ends 0.13% later (it measures with A's average rate on the shared uplinks).
  std::vector<Ends> ends;
  const json fast = simulate_both(8, ends);
  REQUIRE(ends.size() == 2);
  for (const Ends& t : ends) {
    REQUIRE(t.exact > 0);
    CHECK(std::abs(t.fast - t.exact) <= 0.01 * t.exact);
  }
  // B measured while A fast-forwarded on the same uplinks: slower than A, which measured alone.
  CHECK(fast["jobs"][1]["measured"].get<double>() > fast["jobs"][0]["measured"].get<double>());
}

TEST_CASE("fleet: at 64:1 oversubscription fast-forward ends within 12% of explicit simulation (a known limit)",
          "[sim]") {
  // Explicitly simulated jobs send in bursts that partly interleave (or lock into one way of overlapping until a
  // checkpoint shifts them), which a fast-forwarding job's steady load (World::steady_share) only approximates: where
  // communication is most of an iteration on a link 64 times oversubscribed the measured pace is off. With a leaf's
  // uplinks one bonded link (as the planner splits traffic evenly over them) both jobs end 8.3% and 11.2% early at 64:1
  // (0.9% late at 32:1, within 0.13% up to 8:1; bench_accuracy; 5.0% and 6.9% before the shipped corrections for three
  // nodes and more made the jobs' cross-node transfers longer). docs/scenario-format.md (Sim) says so; this bounds it
  // meanwhile.
  std::vector<Ends> ends;
  simulate_both(64, ends);
  REQUIRE(ends.size() == 2);
  for (const Ends& t : ends) CHECK(std::abs(t.fast - t.exact) <= 0.12 * t.exact);
}

namespace {

// bench/scenarios/accuracy-multi-job.json (six generated jobs; its seed unless `seed` > 0) at `oversubscription`, with
// fast-forward and with every iteration simulated: each job's end within `tolerance` of the explicit one.
void multi_job_ends_within(std::uint64_t seed, double oversubscription, double tolerance) {
  const std::string path = std::string(TT_SOURCE_DIR) + "/bench/scenarios/accuracy-multi-job.json";
  json doc = load_json_file(path);
  if (seed > 0) doc["seed"] = seed;
  doc["topology"]["oversubscription"] = oversubscription;
  Scenario s = read_scenario(doc, path);
  s.sim.fast_forward = true;
  const json fast = testing::simulate(s);
  s.sim.fast_forward = false;
  const json exact = testing::simulate(s);
  REQUIRE(fast["jobs"].size() == 6);
  REQUIRE(exact["jobs"].size() == 6);
  for (std::size_t i = 0; i < fast["jobs"].size(); ++i) {
    INFO(fast["jobs"][i]["name"].get<std::string>());
    const double f = fast["jobs"][i]["end"].get<double>(), e = exact["jobs"][i]["end"].get<double>();
    REQUIRE(e > 0);
    CHECK(std::abs(f - e) <= tolerance * e);
  }
}

}  // namespace

TEST_CASE("fleet: six generated jobs sharing 2:1 uplinks on and off end within 2% of explicit simulation", "[sim]") {
  // Seed 1: short, communication-heavy iterations, a node crash. Each fast-forwarding job sets aside the steady load
  // its bursts amount to for the jobs measuring beside it (World::steady_share); with its average rate instead, one
  // job measured an 18% slower pace than it has explicitly and ended 6.2% late; with the short transfers' load alone,
  // 1.96% late; with the steady load, 1.55% early until 03931f5, within 0.2% since (bench_accuracy --multi-job has the
  // other levels and seeds).
  multi_job_ends_within(0, 2, 0.02);
}

TEST_CASE("fleet: a job that measured beside a neighbour's first pace measures again once that neighbour's moved",
          "[sim]") {
  // Seed 11 at 4:1: m-00006 (32 GPUs over three leaves) starts beside m-00002 (16 GPUs over two of them) and measures
  // beside the load of m-00002's first pace; m-00002, woken, measures again beside it, and its steady load grows by
  // 15% (a slower pace, a larger share of its time in bursts). A pace measured again wakes no one, so until 2026-12-07
  // m-00006 kept its pace until m-00002 ended and finished 1.84% early; each job now checks its links between two
  // fast-forwarded stretches (sim/world.hpp) and measures again.
  multi_job_ends_within(11, 4, 0.01);
}

namespace {

// Four 24-GPU data-parallel jobs, a minute apart, on 12 nodes in leaf groups of two: each takes three nodes, so every
// ring crosses the spines, A and C with one shape (two nodes in a group, then one), B and D with the other;
// `oversubscription` sizes the spines.
Scenario crossing_quartet(double oversubscription) {
  json doc = json::parse(R"({
    "name": "crossing-quartet", "seed": 3,
    "topology": {"name": "rail-12x8", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 12, "gpus_per_node": 8,
                 "nic_bandwidth": "400Gbps", "nodes_per_group": 2, "spines": 2, "oversubscription": 1,
                 "storage": {"bandwidth": "100GB/s"}},
    "queues": [{"name": "q", "gpu_quota": 96}],
    "jobs": [],
    "sim": {"horizon": "2d"}
  })");
  doc["topology"]["oversubscription"] = oversubscription;
  for (int i = 0; i < 4; ++i)
    doc["jobs"].push_back({{"name", std::string(1, static_cast<char>('A' + i))},
                           {"queue", "q"},
                           {"submit", std::to_string(i) + "m"},
                           {"gpus", 24},
                           {"model", "llama3-8b"},
                           {"parallel", {{"tp", 8}, {"pp", 1}, {"dp", 3}}},
                           {"iterations", 300},
                           {"global_batch", 96},
                           {"seq_len", 8192},
                           {"checkpoint", {{"every", 100}}}});
  return read_scenario(doc, "crossing-quartet.json");
}

}  // namespace

TEST_CASE("fleet: a job crossing spines with room on them takes the pace measured for its signature", "[sim]") {
  // Non-blocking spines: each job's flows have room next to the others' load, so the later ones of the same shape
  // take the pace measured once (World::shared_paces) instead of measuring, and end as simulated explicitly.
  Scenario s = crossing_quartet(1);
  s.sim.fast_forward = true;
  const json fast = testing::simulate(s);
  s.sim.fast_forward = false;
  const json exact = testing::simulate(s);
  // Three measure, the fourth takes the pace kept for its shape. Each ring leaves a group over a bond of two spine
  // cables with a NIC's rate in its flow: counted per cable (the bond's members) it would fill one and never have room.
  CHECK(fast["shared_pace_reuses"].get<long long>() == 1);
  CHECK(fast["measurements"].get<long long>() == 3);
  REQUIRE(fast["jobs"].size() == 4);
  CHECK(fast["jobs"][3]["measured"].get<double>() == Approx(fast["jobs"][1]["measured"].get<double>()).epsilon(1e-9));
  for (std::size_t i = 0; i < 4; ++i) {
    INFO(fast["jobs"][i]["name"].get<std::string>());
    const double f = fast["jobs"][i]["end"].get<double>(), e = exact["jobs"][i]["end"].get<double>();
    REQUIRE(e > 0);
    CHECK(std::abs(f - e) <= 0.01 * e);
  }
}

TEST_CASE("fleet: a job whose flows fill the spines it crosses measures its own pace", "[sim]") {
  // 8:1 spines: one job's rings need more than a leaf's uplinks carry, so none is alone in effect: no shared pace is
  // taken and each measures next to the others' load. D ends 1.01% early against explicit simulation, as it did
  // before shared paces existed (the fast-forward load's known error where communication fills the uplinks).
  Scenario s = crossing_quartet(8);
  s.sim.fast_forward = true;
  const json fast = testing::simulate(s);
  CHECK(fast["shared_pace_reuses"].get<long long>() == 0);
  CHECK(fast["measurements"].get<long long>() >= 4);
  s.sim.fast_forward = false;
  const json exact = testing::simulate(s);
  for (std::size_t i = 0; i < 4; ++i) {
    INFO(fast["jobs"][i]["name"].get<std::string>());
    const double f = fast["jobs"][i]["end"].get<double>(), e = exact["jobs"][i]["end"].get<double>();
    REQUIRE(e > 0);
    CHECK(std::abs(f - e) <= 0.015 * e);
  }
}
