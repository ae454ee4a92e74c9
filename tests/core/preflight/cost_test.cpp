#include "core/preflight/cost.hpp"

#include <catch2/catch.hpp>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

namespace {

const std::string kDrill = std::string(TT_SOURCE_DIR) + "/scenarios/drill-partial-upgrade.json";
const std::string kFallback = std::string(TT_SOURCE_DIR) + "/scenarios/drill-attention-fallback.json";

tt::Scenario drill(bool gate) {
  auto doc = tt::load_json_file(kDrill);
  doc["preflight"]["gate"] = gate;
  return tt::read_scenario(doc, kDrill);
}

tt::JobRecord job(std::string name, int gpus, std::vector<std::string> nodes, double start, double end) {
  tt::JobRecord j;
  j.name = std::move(name);
  j.gpus = gpus;
  tt::Segment s;
  s.start = tt::Seconds(start);
  s.end = tt::Seconds(end);
  s.nodes = std::move(nodes);
  j.segments.push_back(s);
  return j;
}

const tt::PreflightCost& row(const std::vector<tt::PreflightCost>& costs, const std::string& check) {
  for (const auto& c : costs)
    if (c.check == check) return c;
  FAIL("no row for " << check);
  throw;
}

}  // namespace

TEST_CASE("preflight cost: a setup hang is charged to the NCCL difference that the failure names",
          "[unit][preflight]") {
  const auto sc = drill(false);
  tt::RunRecord r;
  r.end_time = tt::Seconds(12 * 3600);
  auto j = job("pretrain", 64, {"n0", "n4"}, 0, 3600);
  for (double lost : {10.0, 5.0}) {
    tt::FailureRecord f;
    f.cause = "job deadlocked on node n0 (NCCL 2.21.5 on n0 and 2.18.3 on n4: nccl-same-version, communicator setup "
              "hangs)";
    f.lost_gpu_hours = lost;
    j.failures.push_back(f);
  }
  tt::FailureRecord unrelated;
  unrelated.cause = "GPU n9/gpu1 failed";
  unrelated.lost_gpu_hours = 100;
  j.failures.push_back(unrelated);
  r.jobs.push_back(j);

  const auto costs = tt::preflight::difference_costs(sc.topology, sc.preflight, r);
  REQUIRE(costs.size() == 4);  // driver, cuda_runtime, nccl (blocking); nccl_cuda (warning)
  CHECK(costs.front().check == "nccl");
  CHECK(costs.front().rank == 1);
  CHECK(costs.front().failed_launches == 2);
  CHECK(costs.front().lost_gpu_hours == Approx(15));
  CHECK(costs.front().gpu_hours_per_day == Approx(30));  // 15 GPU-hours in half a day
  CHECK(costs.front().nodes == std::vector<std::string>{"n4", "n5", "n6", "n7"});
  for (const char* other : {"driver", "cuda_runtime", "nccl_cuda"}) {
    INFO(other);
    CHECK(row(costs, other).lost_gpu_hours == 0);
    CHECK(row(costs, other).withheld_gpu_hours == 0);  // gating off: nothing cordoned
  }
  CHECK(costs.back().severity == "warning");  // ties: blocking first
}

TEST_CASE("preflight cost: gating withholds the cordoned nodes' capacity from every blocking difference",
          "[unit][preflight]") {
  const auto sc = drill(true);
  tt::RunRecord r;
  r.end_time = tt::Seconds(6 * 3600);
  const auto costs = tt::preflight::difference_costs(sc.topology, sc.preflight, r);
  for (const char* blocking : {"driver", "cuda_runtime", "nccl"}) {
    INFO(blocking);
    CHECK(row(costs, blocking).withheld_gpu_hours == Approx(4 * 8 * 6.0));  // n4-n7, 8 GPUs, 6 hours
    CHECK(row(costs, blocking).gpu_hours_per_day == Approx(4 * 8 * 24.0));
  }
  CHECK(row(costs, "nccl_cuda").withheld_gpu_hours == 0);
}

TEST_CASE("preflight cost: a node whose attention library falls back slows every job placed on it",
          "[unit][preflight]") {
  const auto sc = tt::read_scenario_file(kFallback);  // n2 and n3 fall back, at 0.7
  tt::RunRecord r;
  r.end_time = tt::Seconds(20 * 3600);
  r.jobs.push_back(job("on-fallback", 16, {"n1", "n2"}, 0, 10 * 3600));  // one fallback node slows the whole job
  r.jobs.push_back(job("elsewhere", 16, {"n0", "n1"}, 0, 20 * 3600));
  const auto costs = tt::preflight::difference_costs(sc.topology, sc.preflight, r);
  const auto& fallback = row(costs, "rule:attention-requirements");
  CHECK(fallback.rank == 1);
  CHECK(fallback.slowed_gpu_hours == Approx(10 * 16 * 0.3));
  CHECK(fallback.nodes == std::vector<std::string>{"n2", "n3"});
  CHECK(row(costs, "attention").slowed_gpu_hours == 0);
}

TEST_CASE("preflight cost: none without a preflight section", "[unit][preflight]") {
  auto doc = tt::load_json_file(kDrill);
  doc.erase("preflight");
  const auto sc = tt::read_scenario(doc, kDrill);
  CHECK(tt::preflight::difference_costs(sc.topology, sc.preflight, tt::RunRecord{}).empty());
}

TEST_CASE("preflight cost: small socket buffers are charged the measured slowdown of jobs on the capped node",
          "[unit][preflight]") {
  const auto sc = tt::read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/drill-socket-buffers.json");
  tt::RunRecord r;
  r.end_time = tt::Seconds(4 * 3600);
  auto capped = job("throttled", 16, {"n2", "n3"}, 0, 3600);
  capped.predicted_iteration = tt::Seconds(1.0);
  capped.measured_iteration = tt::Seconds(1.25);  // a fifth of its time lost
  auto fine = job("steady", 16, {"n0", "n1"}, 0, 3600);
  fine.predicted_iteration = tt::Seconds(1.0);
  fine.measured_iteration = tt::Seconds(1.5);  // slow for another reason, but not on n3: not charged
  r.jobs = {capped, fine};
  const auto costs = tt::preflight::difference_costs(sc.topology, sc.preflight, r);
  const auto& rmem = row(costs, "kernel_params/net.core.rmem_max");
  CHECK(rmem.nodes == std::vector<std::string>{"n3"});
  CHECK(rmem.slowed_gpu_hours == Approx(16 * 0.2));  // 1 h x 16 GPUs x (1 - 1/1.25)
  CHECK(rmem.gpu_hours_per_day == Approx(3.2 * 6));  // a quarter of a day
  CHECK(rmem.rank == 1);
}
