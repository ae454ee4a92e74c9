// The scenario reader: the comm and scheduling sections and their errors.
#include <catch2/catch.hpp>

#include "core/plan/comm_constants.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "tests/core/io/scenario_reader_support.hpp"

using namespace tt;
using namespace tt::testing;
using nlohmann::json;

TEST_CASE("the comm section overrides the communication model's NCCL constants", "[unit]") {
  auto s = read_scenario(patched(R"([{"op": "add", "path": "/comm", "value": {
      "nvls": false, "algorithms": ["ring", "Tree"], "protocols": ["LL128", "simple"], "channels": 16,
      "nvlink_efficiency": 0.8, "net_efficiency": 0.95,
      "base_latency": {"ring": {"Simple": "9us"}},
      "hw_latency": {"net": {"tree": {"LL": "6us"}}},
      "caps": {"ll_max": ["80GB/s", "40GB/s", "20GB/s"]},
      "ib_timeout": 22, "ib_retry_cnt": 5, "socket_ifname": "ib0", "selection": "fastest"}}])"),
                         "comm.json");
  const CommOverrides& c = s.perf.comm;
  CHECK(c.nvls == false);
  CHECK(*c.algorithms == std::vector<Algorithm>{Algorithm::Ring, Algorithm::Tree});
  CHECK(*c.protocols == std::vector<Protocol>{Protocol::LL128, Protocol::Simple});
  CHECK(c.channels == 16);
  CHECK(*c.nvlink_efficiency == 0.8);
  CHECK(*c.net_efficiency == 0.95);
  CHECK(c.base_latency[0][2]->value == Approx(9e-6));
  CHECK_FALSE(c.base_latency[0][0]);
  CHECK(c.hw_latency[2][1][0]->value == Approx(6e-6));
  CHECK((*c.ll_max_bandwidth)[1].value == Approx(40e9));
  CHECK_FALSE(c.tree_per_channel);
  CHECK(c.ib_timeout == 22);
  CHECK(c.ib_retry_cnt == 5);
  CHECK(c.socket_ifname == "ib0");
  CHECK(c.selection == Selection::Fastest);
  CHECK_FALSE(read_scenario(base(), "base.json").perf.comm.channels);
  CHECK_FALSE(read_scenario(base(), "base.json").perf.comm.selection);
}

TEST_CASE("comm section errors name the value", "[unit]") {
  check_bad_cases({
      {"unknown algorithm", R"([{"op": "add", "path": "/comm", "value": {"algorithms": ["ring", "rign2"]}}])",
       "/comm/algorithms/1", "one of ring, tree, nvls, nvls_tree, hierarchical"},
      {"p2p is not selectable", R"([{"op": "add", "path": "/comm", "value": {"algorithms": ["p2p"]}}])",
       "/comm/algorithms/0", "one of ring"},
      {"repeated protocol", R"([{"op": "add", "path": "/comm", "value": {"protocols": ["LL", "ll"]}}])",
       "/comm/protocols/1", "each name once"},
      {"empty protocols", R"([{"op": "add", "path": "/comm", "value": {"protocols": []}}])", "/comm/protocols",
       "a non-empty array"},
      {"channels out of range", R"([{"op": "add", "path": "/comm", "value": {"channels": 65}}])", "/comm/channels",
       "an integer in [1, 64]"},
      {"efficiency above one", R"([{"op": "add", "path": "/comm", "value": {"net_efficiency": 1.5}}])",
       "/comm/net_efficiency", "a number in (0, 1]"},
      {"latency without a unit",
       R"([{"op": "add", "path": "/comm", "value": {"base_latency": {"ring": {"LL": 5}}}}])",
       "/comm/base_latency/ring/LL", "a quantity with its unit"},
      {"unknown medium", R"([{"op": "add", "path": "/comm", "value": {"hw_latency": {"nvlnk": {}}}}])",
       "/comm/hw_latency/nvlnk", "did you mean \"nvlink\"?"},
      {"unknown protocol key",
       R"([{"op": "add", "path": "/comm", "value": {"base_latency": {"tree": {"LL256": "1us"}}}}])",
       "/comm/base_latency/tree/LL256", "allowed here: LL, LL128, Simple"},
      {"caps of the wrong length", R"([{"op": "add", "path": "/comm", "value": {"caps": {"ll_max": ["1GB/s"]}}}])",
       "/comm/caps/ll_max", "an array of three bandwidths"},
      {"a cap without a unit",
       R"([{"op": "add", "path": "/comm", "value": {"caps": {"tree_per_channel": ["1GB/s", 2, "3GB/s"]}}}])",
       "/comm/caps/tree_per_channel/1", "a bandwidth greater than zero"},
      {"unknown selection", R"([{"op": "add", "path": "/comm", "value": {"selection": "best"}}])",
       "/comm/selection", "how the planner picks (nccl, fastest)"},
      {"ib_timeout out of range", R"([{"op": "add", "path": "/comm", "value": {"ib_timeout": 32}}])",
       "/comm/ib_timeout", "an integer in [1, 31]"},
      {"ib_retry_cnt out of range", R"([{"op": "add", "path": "/comm", "value": {"ib_retry_cnt": 8}}])",
       "/comm/ib_retry_cnt", "an integer in [0, 7]"},
      {"misspelt comm key", R"([{"op": "add", "path": "/comm", "value": {"channel": 8}}])", "/comm/channel",
       "did you mean \"channels\"?"},
      {"unknown size band",
       R"([{"op": "add", "path": "/comm", "value": {"regimes": [{"algorithm": "nvls", "protocol": "Simple",
           "nodes": 1, "band": "<=64K", "latency_factor": 1.2, "bandwidth_factor": 0.5}]}}])",
       "/comm/regimes/0/band", "a size band"},
      {"regime nodes out of range",
       R"([{"op": "add", "path": "/comm", "value": {"regimes": [{"algorithm": "ring", "protocol": "LL",
           "nodes": 4, "band": ">=16MiB", "latency_factor": 1.2, "bandwidth_factor": 0.5}]}}])",
       "/comm/regimes/0/nodes", "an integer in [1, 3]"},
      {"repeated regime",
       R"([{"op": "add", "path": "/comm", "value": {"regimes": [
           {"algorithm": "ring", "protocol": "LL", "nodes": 1, "band": ">=16MiB", "latency_factor": 1, "bandwidth_factor": 1},
           {"algorithm": "ring", "protocol": "LL", "nodes": 1, "band": ">=16MiB", "latency_factor": 2, "bandwidth_factor": 1}]}}])",
       "/comm/regimes/1", "each algorithm, protocol, nodes and band once"},
  });
}

TEST_CASE("comm.regimes, as traintwin calibrate writes them, replace the default corrections", "[unit]") {
  auto s = read_scenario(patched(R"([{"op": "add", "path": "/comm", "value": {"regimes": [
      {"algorithm": "nvls", "protocol": "Simple", "nodes": 1, "band": ">=16MiB", "latency_factor": 2.5,
       "bandwidth_factor": 0.9, "points": 10}]}}])"),
                         "comm.json");
  REQUIRE(s.perf.comm.regimes);
  REQUIRE(s.perf.comm.regimes->size() == 1);
  const CommConstants k = comm_constants(s.topology.gpu(), s.perf.comm);
  const auto& nvls = k.regime[static_cast<int>(Algorithm::Nvls)][static_cast<int>(Protocol::Simple)][0];
  CHECK(nvls[2].latency == 2.5);
  CHECK(nvls[2].bandwidth == 0.9);
  CHECK(nvls[0].latency == 1.0);  // the default small-band correction is replaced, not kept
  CHECK(comm_constants(s.topology.gpu()).regime[static_cast<int>(Algorithm::Nvls)][static_cast<int>(Protocol::Simple)]
                                                                                  [0][0].latency != 1.0);
}

TEST_CASE("scheduling keys: cohorts, limits, strategies, preemption, priority classes, scheduler, job constraints",
          "[unit][sched]") {
  const char* good = R"([
    {"op": "replace", "path": "/queues", "value": [
      {"name": "research", "gpu_quota": 64, "cohort": "all", "borrowing_limit": 32, "lending_limit": 16,
       "queueing_strategy": "StrictFIFO", "preemption": {"within_queue": "LowerPriority", "reclaim_within_cohort": "Any"}},
      {"name": "prod", "gpu_quota": 128, "cohort": "all"},
      {"name": "scavenger", "gpu_quota": 0, "cohort": "all", "preemption": {"within_queue": "LowerOrNewerEqualPriority",
       "reclaim_within_cohort": "LowerPriority",
       "borrow_within_cohort": {"policy": "LowerPriority", "max_priority_threshold": -1}}}]},
    {"op": "add", "path": "/priority_classes", "value": [{"name": "high", "value": 1000}, {"name": "low", "value": -5}]},
    {"op": "add", "path": "/scheduler", "value": {"ordering": "fair_share", "fair_share_half_life": "2d",
                                                   "backfill": "easy", "placement": "spread",
                                                   "victim_order": "least_work_lost"}},
    {"op": "remove", "path": "/jobs/0/priority"},
    {"op": "add", "path": "/jobs/0/priority_class", "value": "high"},
    {"op": "add", "path": "/jobs/0/estimated_runtime", "value": "5h"},
    {"op": "add", "path": "/jobs/0/topology", "value": {"max_leaf_groups": 1, "max_wait": "30m"}},
    {"op": "add", "path": "/jobs/1/topology", "value": {"max_leaf_groups": 2, "mode": "preferred"}},
    {"op": "replace", "path": "/jobs/1/queue", "value": "scavenger"}
  ])";
  auto s = read_scenario(patched(good), "good.json");
  const auto& q = s.queues[0];
  CHECK(q.cohort == "all");
  CHECK(q.borrowing_limit == 32);
  CHECK(q.lending_limit == 16);
  CHECK(q.strategy == QueueingStrategy::StrictFifo);
  CHECK(q.within_queue == WithinQueuePreemption::LowerPriority);
  CHECK(q.reclaim == ReclaimPreemption::Any);
  CHECK_FALSE(q.borrow_within_cohort);
  CHECK(s.queues[1].strategy == QueueingStrategy::BestEffortFifo);
  const auto& scavenger = s.queues[2];  // a nominal quota of 0: it only borrows
  CHECK(scavenger.gpu_quota == 0);
  CHECK(scavenger.within_queue == WithinQueuePreemption::LowerOrNewerEqualPriority);
  CHECK(scavenger.borrow_within_cohort);
  CHECK(scavenger.max_priority_threshold == -1);
  CHECK(s.scheduler.victim_order == VictimOrder::LeastWorkLost);
  CHECK(s.jobs[1].queue == "scavenger");  // it can only run by borrowing: accepted, it pends with a quota reason
  CHECK_FALSE(s.queues[1].borrowing_limit);
  CHECK(s.scheduler.ordering == QueueOrdering::FairShare);
  CHECK(s.scheduler.fair_share_half_life.value == 2 * 86400.0);
  CHECK(s.scheduler.backfill);
  CHECK(s.scheduler.placement == PlacementKind::Spread);
  CHECK(s.jobs[0].priority == 1000);
  CHECK(s.jobs[0].priority_class == "high");
  CHECK(s.jobs[0].estimated_runtime->value == 5 * 3600.0);
  CHECK(s.jobs[0].topology.max_leaf_groups == 1);
  CHECK(s.jobs[0].topology.required);
  CHECK(s.jobs[0].topology.max_wait->value == 1800);
  CHECK_FALSE(s.jobs[1].topology.required);

  auto defaults = read_scenario(base(), "base.json");
  CHECK(defaults.scheduler.ordering == QueueOrdering::Priority);
  CHECK_FALSE(defaults.scheduler.backfill);
  CHECK(defaults.scheduler.placement == PlacementKind::Pack);
  CHECK(defaults.queues[0].reclaim == ReclaimPreemption::Never);
  CHECK(defaults.queues[0].within_queue == WithinQueuePreemption::Never);
  CHECK_FALSE(defaults.queues[0].borrow_within_cohort);
  CHECK(defaults.scheduler.victim_order == VictimOrder::Kueue);
  CHECK(defaults.jobs[0].topology.max_leaf_groups == 0);

  check_bad_cases({
      {"borrowing limit without a cohort", R"([{"op": "add", "path": "/queues/0/borrowing_limit", "value": 8}])",
       "/queues/0/borrowing_limit", "for a queue in no cohort"},
      {"lending limit above the quota",
       R"([{"op": "add", "path": "/queues/0/cohort", "value": "c"}, {"op": "add", "path": "/queues/0/lending_limit", "value": 65}])",
       "/queues/0/lending_limit", "an integer in [0, 64]"},
      {"negative borrowing limit",
       R"([{"op": "add", "path": "/queues/0/cohort", "value": "c"}, {"op": "add", "path": "/queues/0/borrowing_limit", "value": -1}])",
       "/queues/0/borrowing_limit", ">= 0"},
      {"unknown strategy", R"([{"op": "add", "path": "/queues/0/queueing_strategy", "value": "StrictFifo"}])",
       "/queues/0/queueing_strategy", "did you mean \"StrictFIFO\""},
      {"reclaim without a cohort",
       R"([{"op": "add", "path": "/queues/0/preemption", "value": {"reclaim_within_cohort": "Any"}}])",
       "/queues/0/preemption/reclaim_within_cohort", "no reclaim for a queue in no cohort"},
      {"unknown preemption key",
       R"([{"op": "add", "path": "/queues/0/preemption", "value": {"within": "Never"}}])",
       "/queues/0/preemption/within", "allowed here: within_queue, reclaim_within_cohort"},
      {"bad within-queue policy",
       R"([{"op": "add", "path": "/queues/0/preemption", "value": {"within_queue": "Any"}}])",
       "/queues/0/preemption/within_queue",
       "a within-queue preemption policy (Never, LowerPriority, LowerOrNewerEqualPriority)"},
      {"borrow within cohort without a cohort",
       R"([{"op": "add", "path": "/queues/0/preemption", "value": {"borrow_within_cohort": {"policy": "LowerPriority"}}}])",
       "/queues/0/preemption/borrow_within_cohort", "no borrow_within_cohort for a queue in no cohort"},
      {"threshold without a policy",
       R"([{"op": "add", "path": "/queues/0/cohort", "value": "c"}, {"op": "add", "path": "/queues/0/preemption", "value": {"borrow_within_cohort": {"policy": "Never", "max_priority_threshold": 3}}}])",
       "/queues/0/preemption/borrow_within_cohort/max_priority_threshold", "no threshold unless"},
      {"borrow within cohort policy missing",
       R"([{"op": "add", "path": "/queues/0/cohort", "value": "c"}, {"op": "add", "path": "/queues/0/preemption", "value": {"borrow_within_cohort": {}}}])",
       "/queues/0/preemption/borrow_within_cohort/policy", "required"},
      {"negative quota", R"([{"op": "replace", "path": "/queues/0/gpu_quota", "value": -1}])", "/queues/0/gpu_quota",
       ">= 0"},
      {"unknown victim order", R"([{"op": "add", "path": "/scheduler", "value": {"victim_order": "least-work-lost"}}])",
       "/scheduler/victim_order", "did you mean \"least_work_lost\""},
      {"duplicate priority class",
       R"([{"op": "add", "path": "/priority_classes", "value": [{"name": "a", "value": 1}, {"name": "a", "value": 2}]}])",
       "/priority_classes/1/name", "already /priority_classes/0"},
      {"unknown priority class",
       R"([{"op": "add", "path": "/priority_classes", "value": [{"name": "high", "value": 1}]}, {"op": "remove", "path": "/jobs/0/priority"}, {"op": "add", "path": "/jobs/0/priority_class", "value": "hihg"}])",
       "/jobs/0/priority_class", "did you mean \"high\""},
      {"priority and priority class", R"([{"op": "add", "path": "/jobs/0/priority_class", "value": "x"}])",
       "/jobs/0/priority_class", "either \"priority\" or \"priority_class\""},
      {"unknown ordering", R"([{"op": "add", "path": "/scheduler", "value": {"ordering": "fairshare"}}])",
       "/scheduler/ordering", "did you mean \"fair_share\""},
      {"half-life without fair share",
       R"([{"op": "add", "path": "/scheduler", "value": {"fair_share_half_life": "1d"}}])",
       "/scheduler/fair_share_half_life", "no half-life unless"},
      {"backfill as a boolean", R"([{"op": "add", "path": "/scheduler", "value": {"backfill": true}}])",
       "/scheduler/backfill", "string"},
      {"unknown placement", R"([{"op": "add", "path": "/scheduler", "value": {"placement": "packed"}}])",
       "/scheduler/placement", "did you mean \"pack\""},
      {"estimated run time without a unit", R"([{"op": "add", "path": "/jobs/0/estimated_runtime", "value": "5"}])",
       "/jobs/0/estimated_runtime", "a quantity with a known unit"},
      {"zero estimated run time", R"([{"op": "add", "path": "/jobs/0/estimated_runtime", "value": "0s"}])",
       "/jobs/0/estimated_runtime", "greater than zero"},
      {"topology without max_leaf_groups", R"([{"op": "add", "path": "/jobs/0/topology", "value": {"mode": "required"}}])",
       "/jobs/0/topology/max_leaf_groups", ""},
      {"zero leaf groups", R"([{"op": "add", "path": "/jobs/0/topology", "value": {"max_leaf_groups": 0}}])",
       "/jobs/0/topology/max_leaf_groups", ">= 1"},
      {"max_wait with preferred",
       R"([{"op": "add", "path": "/jobs/0/topology", "value": {"max_leaf_groups": 1, "mode": "preferred", "max_wait": "1h"}}])",
       "/jobs/0/topology/max_wait", "no \"max_wait\" with \"mode\": \"preferred\""},
      {"unknown topology mode",
       R"([{"op": "add", "path": "/jobs/0/topology", "value": {"max_leaf_groups": 1, "mode": "require"}}])",
       "/jobs/0/topology/mode", "did you mean \"required\""},
      {"job above quota plus what the cohort lends",
       R"([{"op": "add", "path": "/queues/0/cohort", "value": "c"}, {"op": "add", "path": "/queues/1/cohort", "value": "c"}, {"op": "add", "path": "/queues/1/lending_limit", "value": 0}, {"op": "replace", "path": "/jobs/0/gpus", "value": 128}, {"op": "replace", "path": "/jobs/0/parallel/dp", "value": 4}])",
       "/jobs/0/gpus", "(64 GPUs: its gpu_quota 64 plus what it may borrow in cohort \"c\""},
  });
}

TEST_CASE("a required topology constraint the cluster can never meet is rejected", "[unit][sched]") {
  // 64 GPUs = 8 nodes; the test topology has groups of 8 nodes, so one group holds it, but not 128 GPUs.
  auto doc = patched(R"([{"op": "replace", "path": "/queues/0/gpu_quota", "value": 128},
                         {"op": "replace", "path": "/jobs/0/gpus", "value": 128},
                         {"op": "replace", "path": "/jobs/0/parallel/dp", "value": 4},
                         {"op": "add", "path": "/jobs/0/topology", "value": {"max_leaf_groups": 1}}])");
  auto e = error_of(doc);
  REQUIRE(e);
  CHECK(e->pointer() == "/jobs/0/topology/max_leaf_groups");
  CHECK_THAT(e->expected(), Catch::Contains("the largest 1 group(s) hold 64"));
  doc["jobs"][0]["topology"]["max_wait"] = "1h";  // relaxed after an hour: allowed
  CHECK_NOTHROW(read_scenario(doc, "ok.json"));
}

TEST_CASE("comm.calibration takes the regimes of a traintwin calibrate --out file", "[unit]") {
  const Scenario s = read_scenario_file(TT_SOURCE_DIR "/tests/data/scenarios/calibrated-comm.json");
  REQUIRE(s.perf.comm.regimes);
  CHECK(s.perf.comm.regimes->size() == 3);  // NVLS / Simple / one node, three bands, from the H100 table's fit
  for (const RegimeOverride& r : *s.perf.comm.regimes) CHECK(r.algorithm == Algorithm::Nvls);
  check_bad_cases({
      {"missing calibration file", R"([{"op": "add", "path": "/comm", "value": {"calibration": "nowhere.json"}}])",
       "/comm/calibration", "does not exist"},
      {"calibration and regimes", R"([{"op": "add", "path": "/comm", "value": {"calibration": "x.json", "regimes": []}}])",
       "/comm/calibration", "not both"},
  });
}

// A file fitted under the fastest-option rule (`calibrate --comm` of a base with "selection": "fastest" writes it)
// makes the scenario pick that way; a scenario that asks for the other rule is refused, naming the one the file needs.
TEST_CASE("comm.calibration carries the selection its corrections were fitted under", "[unit]") {
  const std::string path = TT_SOURCE_DIR "/tests/data/scenarios/calibrated-comm.json";
  json doc = load_json_file(path);
  doc["comm"] = {{"calibration", "../nccl/calibration-fastest.json"}};
  CHECK(read_scenario(doc, path).perf.comm.selection == Selection::Fastest);
  doc["comm"]["selection"] = "fastest";
  CHECK(read_scenario(doc, path).perf.comm.selection == Selection::Fastest);
  doc["comm"]["selection"] = "nccl";
  try {
    read_scenario(doc, path);
    FAIL("a selection other than the file's was accepted");
  } catch (const InputError& e) {
    CHECK(e.pointer() == "/comm/selection");
    CHECK_THAT(e.expected(), Catch::Contains("\"fastest\", the rule the calibration file's corrections were fitted"));
  }
  // The shipped example, fitted under the default rule, leaves the default.
  CHECK_FALSE(read_scenario_file(path).perf.comm.selection);
}
