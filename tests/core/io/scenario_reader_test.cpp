// The scenario reader: bad input named by file, JSON pointer and expectation; defaults and names.
#include <catch2/catch.hpp>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "tests/core/io/scenario_reader_support.hpp"

using namespace tt;
using namespace tt::testing;
using nlohmann::json;


TEST_CASE("the base scenario of the bad cases is valid", "[unit]") {
  auto s = read_scenario(base(), "base.json");
  CHECK(s.jobs.size() == 2);
  CHECK(s.faults.size() == 2);
}

TEST_CASE("scenario keys: unknown, missing and mistyped", "[unit]") {
  check_bad_cases({
      {"misspelt top-level key", R"([{"op": "move", "from": "/jobs", "path": "/jbos"}])", "/jbos",
       "did you mean \"jobs\"?"},
      {"unknown key in a job", R"([{"op": "add", "path": "/jobs/0/gpu", "value": 64}])", "/jobs/0/gpu",
       "a known key"},
      {"unknown key in a nested object", R"([{"op": "add", "path": "/jobs/0/parallel/ep", "value": 2}])",
       "/jobs/0/parallel/ep", "allowed here: tp, pp, dp"},
      {"missing scenario name", R"([{"op": "remove", "path": "/name"}])", "/name", "required key \"name\""},
      {"missing jobs", R"([{"op": "remove", "path": "/jobs"}])", "/jobs", "required key \"jobs\""},
      {"empty job list", R"([{"op": "replace", "path": "/jobs", "value": []}])", "/jobs", "a non-empty array"},
      {"gpus as a string", R"([{"op": "replace", "path": "/jobs/0/gpus", "value": "64"}])", "/jobs/0/gpus",
       "an integer, found string"},
      {"fractional gpus", R"([{"op": "replace", "path": "/jobs/0/gpus", "value": 63.5}])", "/jobs/0/gpus",
       "an integer"},
      {"negative seed", R"([{"op": "replace", "path": "/seed", "value": -1}])", "/seed", "an integer >= 0"},
      {"a job that is not an object", R"([{"op": "replace", "path": "/jobs/1", "value": "finetune"}])", "/jobs/1",
       "an object, found string"},
      {"topology of the wrong type", R"([{"op": "replace", "path": "/topology", "value": 3}])", "/topology",
       "a topology file path"},
  });
}

TEST_CASE("scenario quantities need units and a sign that makes sense", "[unit]") {
  check_bad_cases({
      {"unit-less submit time", R"([{"op": "replace", "path": "/jobs/0/submit", "value": 0}])", "/jobs/0/submit",
       "a quantity with its unit"},
      {"unit-less string duration", R"([{"op": "replace", "path": "/faults/0/repair", "value": "5"}])",
       "/faults/0/repair", "a quantity with a known unit"},
      {"negative fault time", R"([{"op": "replace", "path": "/faults/0/at", "value": "-3s"}])", "/faults/0/at",
       "a non-negative quantity"},
      {"unknown time unit", R"([{"op": "add", "path": "/recovery", "value": {"detection_timeout": "10parsecs"}}])",
       "/recovery/detection_timeout", "a quantity with a known unit"},
      {"zero checkpoint interval", R"([{"op": "replace", "path": "/jobs/0/checkpoint/interval", "value": "0s"}])",
       "/jobs/0/checkpoint/interval", "greater than zero"},
      {"zero horizon", R"([{"op": "add", "path": "/sim", "value": {"horizon": "0h"}}])", "/sim/horizon",
       "greater than zero"},
      {"compute efficiency above one", R"([{"op": "add", "path": "/perf", "value": {"compute_efficiency": 1.2}}])",
       "/perf/compute_efficiency", "a number in (0, 1], found 1.2"},
      {"zero compute efficiency", R"([{"op": "add", "path": "/perf", "value": {"compute_efficiency": 0}}])",
       "/perf/compute_efficiency", "a number in (0, 1], found 0"},
      {"negative max restarts", R"([{"op": "add", "path": "/recovery", "value": {"max_restarts": -1}}])",
       "/recovery/max_restarts", "an integer >= 0"},
      {"zero iterations", R"([{"op": "replace", "path": "/jobs/0/iterations", "value": 0}])", "/jobs/0/iterations",
       "an integer >= 1"},
      {"zero measure iterations", R"([{"op": "add", "path": "/sim", "value": {"measure_iterations": 0}}])",
       "/sim/measure_iterations", "an integer >= 1"},
      {"negative re-measure threshold", R"([{"op": "add", "path": "/sim", "value": {"remeasure_threshold": -0.1}}])",
       "/sim/remeasure_threshold", "a number in [0, 1]"},
  });
}

TEST_CASE("scenario names: unknown references and duplicates", "[unit]") {
  check_bad_cases({
      {"unknown model preset", R"([{"op": "replace", "path": "/jobs/1/model", "value": "llama3-7b"}])",
       "/jobs/1/model", "a model preset (llama3-8b, llama3-70b, llama3-405b, gpt3-175b)"},
      {"unknown queue", R"([{"op": "replace", "path": "/jobs/0/queue", "value": "reserch"}])", "/jobs/0/queue",
       "one of the scenario's queues (research, prod)"},
      {"duplicate job name", R"([{"op": "replace", "path": "/jobs/1/name", "value": "pretrain-70b"}])",
       "/jobs/1/name", "already /jobs/0"},
      {"duplicate queue name", R"([{"op": "replace", "path": "/queues/1/name", "value": "research"}])",
       "/queues/1/name", "already /queues/0"},
      {"unknown fault kind", R"([{"op": "replace", "path": "/faults/0/kind", "value": "node_hang"}])",
       "/faults/0/kind", "a fault kind (node_crash, gpu_failure, nic_down, link_down"},
      {"a hang with a repair", R"([{"op": "replace", "path": "/faults/0/kind", "value": "hang"}])",
       "/faults/0/repair", "no \"repair\" in a hang fault"},
      {"a hang that names a link",
       R"([{"op": "replace", "path": "/faults/0/kind", "value": "hang"}, {"op": "remove", "path": "/faults/0/repair"},
           {"op": "add", "path": "/faults/0/link", "value": "n5/gpu0~leaf-g0-r0"}])",
       "/faults/0/link", "no \"link\" in a hang fault"},
      {"a node crash that names a link", R"([{"op": "add", "path": "/faults/0/link", "value": "n5/gpu0~leaf-g0-r0"}])",
       "/faults/0/link", "no \"link\" in a node_crash fault"},
      {"a link fault without its link", R"([{"op": "remove", "path": "/faults/1/link"}])", "/faults/1/link",
       "required key \"link\""},
  });
}

TEST_CASE("scenario jobs must have a shape that can run", "[unit]") {
  check_bad_cases({
      {"gpus differ from tp x pp x dp", R"([{"op": "replace", "path": "/jobs/0/gpus", "value": 32}])",
       "/jobs/0/gpus", "tp x pp x dp GPUs (8 x 4 x 2 = 64), found 32"},
      {"heads not divisible by tp",
       R"([{"op": "replace", "path": "/jobs/0/parallel", "value": {"tp": 3, "pp": 4, "dp": 2}},
           {"op": "replace", "path": "/jobs/0/gpus", "value": 24}])",
       "/jobs/0/parallel/tp", "divides the model's 64 attention heads, found 3"},
      {"more pipeline stages than layers",
       R"([{"op": "replace", "path": "/jobs/0/parallel/pp", "value": 81},
           {"op": "replace", "path": "/jobs/0/gpus", "value": 1296}])",
       "/jobs/0/parallel/pp", "at most one pipeline stage per layer of the model (80 layers), found 81"},
      {"global batch not divisible by dp", R"([{"op": "replace", "path": "/jobs/0/global_batch", "value": 511}])",
       "/jobs/0/global_batch", "divisible by dp (2), found 511"},
      {"job bigger than its queue's quota",
       R"([{"op": "replace", "path": "/jobs/0/parallel/dp", "value": 4},
           {"op": "replace", "path": "/jobs/0/gpus", "value": 128}])",
       "/jobs/0/gpus", "at most what queue \"research\" can ever hold (64 GPUs"},
      {"both checkpoint keys", R"([{"op": "add", "path": "/jobs/0/checkpoint/every", "value": 500}])",
       "/jobs/0/checkpoint", "exactly one of \"interval\" (a duration) or \"every\" (iterations), found both"},
      {"empty checkpoint", R"([{"op": "replace", "path": "/jobs/0/checkpoint", "value": {}}])", "/jobs/0/checkpoint",
       "found neither"},
      {"custom model with heads not dividing hidden",
       R"([{"op": "replace", "path": "/jobs/1/model", "value": {"name": "odd", "layers": 4, "hidden": 1000,
           "heads": 16, "ffn_hidden": 4000, "vocab": 32000}}, {"op": "replace", "path": "/jobs/1/parallel/tp",
           "value": 1}, {"op": "replace", "path": "/jobs/1/gpus", "value": 1}])",
       "/jobs/1/model/heads", "divides hidden (1000)"},
  });
}

TEST_CASE("scenario checks: metrics, jobs, operators and values", "[unit]") {
  check_bad_cases({
      {"unknown metric", R"([{"op": "replace", "path": "/checks/0/metric", "value": "job.finish"}])",
       "/checks/0/metric", "a metric (job.end, job.start"},
      {"job metric without a job", R"([{"op": "remove", "path": "/checks/0/job"}])", "/checks/0/job",
       "required key \"job\""},
      {"job metric naming no job", R"([{"op": "replace", "path": "/checks/0/job", "value": "pretrain"}])",
       "/checks/0/job", "one of the scenario's jobs (pretrain-70b, finetune-8b)"},
      {"cluster metric with a job", R"([{"op": "add", "path": "/checks/1/job", "value": "pretrain-70b"}])",
       "/checks/1/job", "no \"job\" for the cluster-wide metric"},
      {"unknown operator", R"([{"op": "replace", "path": "/checks/0/op", "value": "=<"}])", "/checks/0/op",
       "a comparison (<=, <, >=, >, ==)"},
      {"duration check with a bare number", R"([{"op": "replace", "path": "/checks/0/value", "value": 6}])",
       "/checks/0/value", "a quantity with its unit"},
      {"ratio check above one", R"([{"op": "replace", "path": "/checks/1/value", "value": 1.5}])",
       "/checks/1/value", "a number in [0, 1]"},
      {"count check with a fraction",
       R"([{"op": "add", "path": "/checks/-", "value": {"metric": "job.restarts", "job": "finetune-8b", "op": "<=",
           "value": 1.5}}])",
       "/checks/2/value", "an integer"},
      {"negative lost GPU-hours",
       R"([{"op": "add", "path": "/checks/-", "value": {"metric": "job.lost_gpu_hours", "job": "finetune-8b",
           "op": "<=", "value": -2}}])",
       "/checks/2/value", "a non-negative number of GPU-hours"},
      {"the same check twice", R"([{"op": "add", "path": "/checks/-", "value": {"metric": "cluster.goodput",
           "op": ">=", "value": 0.5}}])",
       "/checks/2", "differs from the earlier check /checks/1"},
  });
}

TEST_CASE("scenario jobs and faults must fit the topology", "[unit]") {
  check_bad_cases({
      {"tp wider than a node",
       R"([{"op": "replace", "path": "/jobs/0/parallel", "value": {"tp": 16, "pp": 4, "dp": 1}}])",
       "/jobs/0/parallel/tp", "of at most the 8 GPUs of a node"},
      {"job on a fraction of a node beyond one node",
       R"([{"op": "replace", "path": "/jobs/0/parallel", "value": {"tp": 4, "pp": 1, "dp": 3}},
           {"op": "replace", "path": "/jobs/0/gpus", "value": 12},
           {"op": "replace", "path": "/jobs/0/global_batch", "value": 510}])",
       "/jobs/0/gpus", "or on whole nodes (a multiple of 8), found 12"},
      {"job bigger than the cluster",
       R"([{"op": "replace", "path": "/jobs/1/parallel", "value": {"tp": 8, "pp": 4, "dp": 8}},
           {"op": "replace", "path": "/jobs/1/gpus", "value": 256},
           {"op": "replace", "path": "/queues/1/gpu_quota", "value": 256}])",
       "/jobs/1/gpus", "at most the cluster's 128 GPUs (16 nodes x 8), found 256"},
      {"fault on an unknown node", R"([{"op": "replace", "path": "/faults/0/node", "value": "n16"}])",
       "/faults/0/node", "the name of a node of the topology (n0, n1"},
      {"hang on an unknown node",
       R"([{"op": "replace", "path": "/faults/0", "value": {"kind": "hang", "at": "1h", "node": "n99"}}])",
       "/faults/0/node", "the name of a node of the topology (n0, n1"},
      {"fault on an unknown link", R"([{"op": "replace", "path": "/faults/1/link", "value": "n5/gpu0~leaf-g1-r0"}])",
       "/faults/1/link", "the name of a link of the topology"},
      {"inline topology with an unknown key", R"([{"op": "add", "path": "/topology/nodez", "value": 4}])",
       "/topology/nodez", "a known key"},
  });
}

TEST_CASE("a bad scenario document is reported at its root", "[unit]") {
  auto e = error_of(json::array());
  REQUIRE(e);
  CHECK(e->pointer() == "");
  CHECK_THAT(e->expected(), Catch::Contains("an object, found array"));
}

TEST_CASE("a topology path is resolved next to the scenario file and must exist", "[unit]") {
  json doc = base();
  doc["topology"] = "no-such-topology.json";
  std::optional<InputError> e;
  try {
    read_scenario(doc, "some/dir/scenario.json");
  } catch (const InputError& err) {
    e = err;
  }
  REQUIRE(e);
  CHECK(e->pointer() == "/topology");
  CHECK_THAT(e->expected(), Catch::Contains("some/dir/no-such-topology.json does not exist"));
}

TEST_CASE("an error inside a topology file names that file", "[unit]") {
  json doc = base();
  doc["topology"] = "../bad/syntax-error.json";
  std::optional<InputError> e;
  try {
    read_scenario(doc, TT_SOURCE_DIR "/tests/data/scenarios/inline.json");
  } catch (const InputError& err) {
    e = err;
  }
  REQUIRE(e);
  CHECK(e->file() == TT_SOURCE_DIR "/tests/data/scenarios/../bad/syntax-error.json");
  CHECK(e->pointer() == "");
  CHECK_THAT(e->expected(), Catch::Contains("valid JSON"));
}

TEST_CASE("a hang names a node and has no repair", "[unit]") {
  auto s = read_scenario(patched(R"([{"op": "replace", "path": "/faults/0",
                                      "value": {"kind": "hang", "at": "90m", "node": "n4"}}])"),
                         "hang.json");
  REQUIRE(s.faults.size() == 2);
  CHECK(s.faults[0].kind == FaultKind::Hang);
  CHECK(std::string(to_string(s.faults[0].kind)) == "hang");
  CHECK(s.faults[0].at.value == 5400);
  CHECK(s.faults[0].target == "n4");
  CHECK(s.faults[0].repair.value == 0);
}

TEST_CASE("fault times beyond the horizon are allowed", "[unit]") {
  auto s = read_scenario(patched(R"([{"op": "replace", "path": "/faults/0/at", "value": "400d"}])"), "late.json");
  CHECK(s.faults[0].at.value == Approx(400 * 86400.0));
}

TEST_CASE("optional sections take their documented defaults", "[unit]") {
  auto doc = patched(R"([{"op": "remove", "path": "/faults"}, {"op": "remove", "path": "/checks"},
                         {"op": "remove", "path": "/seed"}, {"op": "remove", "path": "/description"}])");
  auto s = read_scenario(doc, "minimal.json");
  CHECK(s.seed == 1);
  CHECK(s.description.empty());
  CHECK(s.faults.empty());
  CHECK(s.checks.empty());
  CHECK(s.recovery.detection_timeout.value == 60);
  CHECK(s.recovery.restart_overhead.value == 120);
  CHECK(s.recovery.max_restarts == 10);
  CHECK(s.perf.compute_efficiency == 0.45);
  CHECK(s.perf.launch_overhead.value == 60);
  CHECK(s.sim.fast_forward);
  CHECK(s.sim.measure_iterations == 1);
  CHECK(s.sim.horizon.value == 30 * 86400.0);
  const auto& j = s.jobs[1];
  CHECK(j.priority == 0);
  CHECK(j.submit.value == 0);
  CHECK(j.parallel.pp == 1);
  CHECK(j.parallel.dp == 1);
  CHECK_FALSE(j.checkpoint_interval);
  CHECK_FALSE(j.checkpoint_every);
}

TEST_CASE("checks get a readable default name", "[unit]") {
  auto s = read_scenario(base(), "base.json");
  REQUIRE(s.checks.size() == 2);
  CHECK(s.checks[0].name == "job.end(pretrain-70b) <= 6h");
  CHECK(s.checks[1].name == "cluster.goodput >= 0.5");
}

TEST_CASE("scenario reader: a seed given with the file draws the generated workload from it", "[io]") {
  // `traintwin run --seed N` and sweeps: the seed must reach the workload generator, which runs while the file is read.
  const std::string file = std::string(TT_SOURCE_DIR) + "/scenarios/drill-fleet-month.json";
  const tt::Scenario own = tt::read_scenario_file(file);
  const tt::Scenario same = tt::read_scenario_file(file, own.seed);
  const tt::Scenario other = tt::read_scenario_file(file, own.seed + 1);
  REQUIRE(own.jobs.size() == same.jobs.size());
  for (std::size_t j = 0; j < own.jobs.size(); ++j) CHECK(own.jobs[j].submit == same.jobs[j].submit);
  CHECK(other.seed == own.seed + 1);
  bool differs = other.jobs.size() != own.jobs.size();
  for (std::size_t j = 0; !differs && j < own.jobs.size(); ++j) differs = own.jobs[j].submit != other.jobs[j].submit;
  CHECK(differs);
}
