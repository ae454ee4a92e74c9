#include "core/plan/perf_model.hpp"

#include <catch2/catch.hpp>
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "tests/core/scenario_fixture.hpp"

using namespace tt;

TEST_CASE("perf model: compute time is training FLOPs over peak x efficiency, with the pipeline bubble",
          "[unit][plan]") {
  Topology topo = testing::rail_cluster(4);
  JobSpec j = testing::job("j", "q", 32);
  j.parallel = {8, 2, 2};
  j.global_batch = 64;
  j.seq_len = 4096;
  std::vector<int> gpus(32);
  for (int i = 0; i < 32; ++i) gpus[i] = i;
  PerfConstants k;
  IterationPlan plan = plan_iteration(j, topo, gpus, k);
  double flops = j.model.train_flops_per_token(4096) * 64 * 4096 / 32;
  double bubble = 1 + 1.0 / 32;  // pp - 1 over 32 micro-batches per replica
  CHECK(plan.compute.value == Approx(flops / (989e12 * k.compute_efficiency) * bubble));
  REQUIRE(plan.steps.size() == 3);
  CHECK(plan.steps[0].label == "tp");
  CHECK(plan.steps[1].label == "pp");
  CHECK(plan.steps[2].label == "dp");
  CHECK(plan.predicted_iteration > plan.compute);
}

TEST_CASE("perf model: groups follow Megatron rank order, data-parallel rings stay on one rail", "[unit][plan]") {
  Topology topo = testing::rail_cluster(4);
  JobSpec j = testing::job("j", "q", 32);
  j.parallel = {8, 1, 4};
  std::vector<int> gpus(32);
  for (int i = 0; i < 32; ++i) gpus[i] = i;
  IterationPlan plan = plan_iteration(j, topo, gpus, PerfConstants{});
  REQUIRE(plan.steps.size() == 2);
  const CommStep& tp = plan.steps[0];
  REQUIRE(tp.groups.size() == 4);
  CHECK(tp.groups[1].gpus == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});  // one node
  const CommStep& dp = plan.steps[1];
  REQUIRE(dp.groups.size() == 8);
  CHECK(dp.groups[3].gpus == std::vector<int>{3, 11, 19, 27});  // local GPU 3 of each node: rail 3
  double shard_params = j.model.parameters() / 8;
  CHECK(dp.groups[0].bytes.value == Approx(shard_params * 2));
  // Checkpoint: the 8 ranks of data-parallel replica 0 each write their shard (14 bytes per parameter).
  CHECK(plan.checkpoint_writers == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(plan.checkpoint_bytes_per_writer.value == Approx(j.model.parameters() * 14 / 8));
}

TEST_CASE("perf model: an iteration costs its compute plus each step's slowest planned group", "[unit][plan]") {
  Topology topo = testing::rail_cluster(4);
  JobSpec j = testing::job("j", "q", 32);
  j.parallel = {8, 2, 2};
  std::vector<int> gpus(32);
  for (int i = 0; i < 32; ++i) gpus[i] = i;
  IterationPlan plan = plan_iteration(j, topo, gpus, PerfConstants{});
  Seconds expected = plan.compute;
  for (const CommStep& step : plan.steps) {
    Seconds slowest(0);
    for (const CommGroup& g : step.groups) {
      INFO(step.label << ": " << describe(g));
      REQUIRE(!g.phases.empty());
      CHECK(comm_group_time(g) == g.predicted);
      slowest = std::max(slowest, g.predicted);
    }
    CHECK(slowest.value > 0);
    expected += slowest;
  }
  CHECK(plan.predicted_iteration.value == Approx(expected.value));
}

TEST_CASE("perf model: a group the planner did not plan is refused, one that moves nothing costs nothing",
          "[unit][plan]") {
  CommGroup g;
  g.gpus = {0, 8, 16, 24};
  g.bytes = Bytes(1e9);
  CHECK_THROWS_MATCHES(comm_group_time(g), std::logic_error,
                       Catch::Message("communication group not planned by the CommPlanner (no phases): all_reduce of "
                                      "1e+09 bytes on GPUs 0, 8, 16, 24"));
  g.gpus = {3, 3};
  CHECK(comm_group_time(g).value == 0);
}

TEST_CASE("perf model: comm settings that cannot run a job's group stop the plan with the job's name",
          "[unit][plan]") {
  Topology topo = testing::rail_cluster(4);
  JobSpec j = testing::job("j", "q", 16);
  j.parallel = {8, 1, 2};  // data-parallel pairs across two nodes
  std::vector<int> gpus(16);
  for (int i = 0; i < 16; ++i) gpus[i] = i;
  PerfConstants k;
  k.comm.algorithms = std::vector<Algorithm>{Algorithm::Nvls};  // NVLS runs inside one node only
  CHECK_THROWS_WITH(plan_iteration(j, topo, gpus, k),
                    Catch::StartsWith("job j: the comm settings") && Catch::Contains("all_reduce") &&
                        Catch::Contains("GPUs 0, 8"));
  // Send/recv runs Simple whatever the protocols allow, as in NCCL: a pipeline under LL alone still plans.
  j.parallel = {8, 2, 1};
  k.comm = CommOverrides{};
  k.comm.protocols = std::vector<Protocol>{Protocol::LL};
  IterationPlan plan = plan_iteration(j, topo, gpus, k);
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[1].label == "pp");
  for (const CommGroup& g : plan.steps[1].groups) {
    CHECK(g.algorithm == Algorithm::P2p);
    CHECK(g.protocol == Protocol::Simple);
  }
}

TEST_CASE("perf model: uneven pipeline stages as Llama 3 405B ran them, the heaviest stage sets the pace",
          "[unit][plan]") {
  // 126 layers on 16 stages: 7 + 14 x 8 + 7 (Llama 3 paper, section 3.3.2).
  const std::vector<int> llama = pipeline_stage_layers(126, 16);
  CHECK(llama.front() == 7);
  CHECK(llama.back() == 7);
  CHECK(std::count(llama.begin(), llama.end(), 8) == 14);
  CHECK(pipeline_stage_layers(80, 4) == std::vector<int>{20, 20, 20, 20});
  CHECK(pipeline_stage_layers(10, 4) == std::vector<int>{2, 3, 3, 2});
  CHECK(pipeline_stage_layers(5, 4) == std::vector<int>{1, 1, 2, 1});  // the excess goes first, last, second, ...
  for (int layers : {1, 7, 80, 126})
    for (int pp = 1; pp <= layers; ++pp) {
      const std::vector<int> s = pipeline_stage_layers(layers, pp);
      REQUIRE(std::accumulate(s.begin(), s.end(), 0) == layers);
      CHECK(*std::min_element(s.begin(), s.end()) >= 1);
      CHECK(heaviest_stage_share(layers, pp) ==
            Approx(static_cast<double>(*std::max_element(s.begin(), s.end())) * pp / layers));
    }

  // The same job on 3 stages of 80 layers (27 + 27 + 26) computes like 81 layers' worth on each of them.
  Topology topo = testing::rail_cluster(4);
  JobSpec j = testing::job("j", "q", 24);
  j.model = *find_model_preset("llama3-70b");
  j.parallel = {8, 3, 1};
  j.global_batch = 64;
  std::vector<int> gpus(24);
  for (int i = 0; i < 24; ++i) gpus[i] = i;
  const PerfConstants k;
  const IterationPlan uneven = plan_iteration(j, topo, gpus, k);
  const double flops = j.model.train_flops_per_token(j.seq_len) * j.global_batch * j.seq_len / 24;
  CHECK(uneven.compute.value ==
        Approx(flops * (27.0 * 3 / 80) / (989e12 * k.compute_efficiency) * (1 + 2.0 / 64)));
}
