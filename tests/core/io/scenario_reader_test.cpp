#include <catch2/catch.hpp>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;
using nlohmann::json;

namespace {

// 16 nodes of 8 GPUs in two rail-optimized groups: enough for every job below, small enough to read.
json test_topology() {
  return json::parse(R"({"name": "test-16x8", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 16,
                         "gpus_per_node": 8, "nic_bandwidth": "400Gbps", "nodes_per_group": 8, "spines": 8,
                         "storage": {"bandwidth": "200GB/s"}})");
}
const char* const kLink = "n5/gpu0~leaf-g0-r0";

const char* const kBase = R"({
  // comments are allowed
  "name": "base", "description": "a valid scenario the bad cases are made from", "seed": 7,
  "topology": null,
  "queues": [{"name": "research", "gpu_quota": 64}, {"name": "prod", "gpu_quota": 128}],
  "jobs": [
    {"name": "pretrain-70b", "queue": "research", "priority": 10, "submit": "0s", "gpus": 64, "model": "llama3-70b",
     "parallel": {"tp": 8, "pp": 4, "dp": 2}, "iterations": 2000, "global_batch": 512, "seq_len": 8192,
     "checkpoint": {"interval": "30m"}},
    {"name": "finetune-8b", "queue": "prod", "gpus": 8, "model": "llama3-8b", "parallel": {"tp": 8},
     "iterations": 100, "global_batch": 64, "seq_len": 4096}
  ],
  "faults": [{"kind": "node_crash", "at": "2h", "node": "n3", "repair": "4h"},
             {"kind": "link_down", "at": "1h", "link": null, "repair": "10m"}],
  "checks": [{"metric": "job.end", "job": "pretrain-70b", "op": "<=", "value": "6h"},
             {"metric": "cluster.goodput", "op": ">=", "value": 0.5}]
})";

json base() {
  json doc = parse_json_text(kBase, "base.json");
  doc["topology"] = test_topology();
  doc["faults"][1]["link"] = kLink;
  return doc;
}

// The base scenario with an RFC 6902 patch applied.
json patched(const char* patch) { return base().patch(json::parse(patch)); }

std::optional<InputError> error_of(const json& doc) {
  try {
    read_scenario(doc, "bad.json");
  } catch (const InputError& e) {
    return e;
  }
  return std::nullopt;
}

struct BadCase {
  const char* what;
  const char* patch;
  const char* pointer;   // exactly where the error must point
  const char* expected;  // a phrase the message must contain
};

void check_bad_cases(const std::vector<BadCase>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.what) {
      auto e = error_of(patched(c.patch));
      REQUIRE(e);
      CHECK(e->file() == "bad.json");
      CHECK(e->pointer() == c.pointer);
      CHECK_THAT(e->expected(), Catch::Contains(c.expected));
      CHECK_THAT(std::string(e->what()), Catch::Contains(std::string("bad.json: at ") + c.pointer));
    }
  }
}

}  // namespace

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
      {"layers not divisible by pp",
       R"([{"op": "replace", "path": "/jobs/0/parallel/pp", "value": 3},
           {"op": "replace", "path": "/jobs/0/gpus", "value": 48}])",
       "/jobs/0/parallel/pp", "divides the model's 80 layers, found 3"},
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
       "/jobs/0/parallel/tp", "divides the 8 GPUs of a node"},
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

TEST_CASE("a valid scenario round-trips: every field as written", "[unit]") {
  const char* text = R"({
    "name": "roundtrip", "description": "every field set to something other than its default", "seed": 42,
    "topology": null,
    "queues": [{"name": "research", "gpu_quota": 96}, {"name": "prod", "gpu_quota": 16}],
    "jobs": [
      {"name": "pretrain-70b", "queue": "research", "priority": 10, "submit": "90s", "gpus": 64,
       "model": "llama3-70b", "parallel": {"tp": 8, "pp": 4, "dp": 2}, "iterations": 2000, "global_batch": 512,
       "seq_len": 8192, "checkpoint": {"interval": "30m"}},
      {"name": "custom", "queue": "prod", "priority": -3, "submit": "1h", "gpus": 16,
       "model": {"name": "tiny-gpt", "layers": 12, "hidden": 768, "heads": 12, "kv_heads": 4, "ffn_hidden": 3072,
                 "vocab": 50257, "gated_mlp": false, "tied_embeddings": true},
       "parallel": {"tp": 2, "pp": 2, "dp": 4}, "iterations": 500, "global_batch": 256, "seq_len": 1024,
       "checkpoint": {"every": 100}}
    ],
    "faults": [{"kind": "node_crash", "at": "2h", "node": "n3", "repair": "4h"},
               {"kind": "link_down", "at": "1h", "link": null, "repair": "10m"}],
    "recovery": {"detection_timeout": "30s", "restart_overhead": "5m", "max_restarts": 3},
    "perf": {"compute_efficiency": 0.4, "grad_bytes_per_param": 4, "activation_bytes": 1,
             "checkpoint_bytes_per_param": 16, "launch_overhead": "90s"},
    "sim": {"fast_forward": false, "measure_iterations": 5, "remeasure_threshold": 0.05, "horizon": "7d"},
    "checks": [{"name": "70b within six hours", "metric": "job.end", "job": "pretrain-70b", "op": "<=",
                "value": "6h"},
               {"metric": "job.restarts", "job": "custom", "op": "==", "value": 0},
               {"metric": "job.ettr", "job": "custom", "op": ">", "value": 0.9},
               {"metric": "job.lost_gpu_hours", "job": "pretrain-70b", "op": "<", "value": 12.5},
               {"metric": "cluster.gpu_utilization", "op": ">=", "value": 0.6},
               {"metric": "cluster.unfinished_jobs", "op": "==", "value": 0},
               {"metric": "cluster.makespan", "op": "<=", "value": "2d"}]
  })";
  json doc = parse_json_text(text, "roundtrip.json");
  doc["topology"] = test_topology();
  doc["faults"][1]["link"] = kLink;
  auto s = read_scenario(doc, "roundtrip.json");

  CHECK(s.name == "roundtrip");
  CHECK(s.description == "every field set to something other than its default");
  CHECK(s.source_file == "roundtrip.json");
  CHECK(s.seed == 42);
  CHECK(s.topology.total_gpus() == 128);
  CHECK(s.topology.gpus_per_node() == 8);

  REQUIRE(s.queues.size() == 2);
  CHECK(s.queues[0].name == "research");
  CHECK(s.queues[0].gpu_quota == 96);
  CHECK(s.queues[1].name == "prod");
  CHECK(s.queues[1].gpu_quota == 16);

  REQUIRE(s.jobs.size() == 2);
  const auto& a = s.jobs[0];
  CHECK(a.name == "pretrain-70b");
  CHECK(a.queue == "research");
  CHECK(a.priority == 10);
  CHECK(a.submit.value == 90);
  CHECK(a.gpus == 64);
  CHECK(a.model.name == "llama3-70b");
  CHECK(a.model.layers == 80);
  CHECK(a.model.hidden == 8192);
  CHECK(a.parallel.tp == 8);
  CHECK(a.parallel.pp == 4);
  CHECK(a.parallel.dp == 2);
  CHECK(a.iterations == 2000);
  CHECK(a.global_batch == 512);
  CHECK(a.seq_len == 8192);
  REQUIRE(a.checkpoint_interval);
  CHECK(a.checkpoint_interval->value == 1800);
  CHECK_FALSE(a.checkpoint_every);

  const auto& b = s.jobs[1];
  CHECK(b.name == "custom");
  CHECK(b.queue == "prod");
  CHECK(b.priority == -3);
  CHECK(b.submit.value == 3600);
  CHECK(b.gpus == 16);
  CHECK(b.model.name == "tiny-gpt");
  CHECK(b.model.layers == 12);
  CHECK(b.model.hidden == 768);
  CHECK(b.model.heads == 12);
  CHECK(b.model.kv_heads == 4);
  CHECK(b.model.ffn_hidden == 3072);
  CHECK(b.model.vocab == 50257);
  CHECK_FALSE(b.model.gated_mlp);
  CHECK(b.model.tied_embeddings);
  CHECK(b.parallel.tp == 2);
  CHECK(b.parallel.pp == 2);
  CHECK(b.parallel.dp == 4);
  CHECK(b.iterations == 500);
  CHECK(b.global_batch == 256);
  CHECK(b.seq_len == 1024);
  CHECK_FALSE(b.checkpoint_interval);
  REQUIRE(b.checkpoint_every);
  CHECK(*b.checkpoint_every == 100);

  REQUIRE(s.faults.size() == 2);
  CHECK(s.faults[0].kind == FaultKind::NodeCrash);
  CHECK(s.faults[0].at.value == 7200);
  CHECK(s.faults[0].target == "n3");
  CHECK(s.faults[0].repair.value == 4 * 3600);
  CHECK(s.faults[1].kind == FaultKind::LinkDown);
  CHECK(s.faults[1].at.value == 3600);
  CHECK(s.faults[1].target == kLink);
  CHECK(s.faults[1].repair.value == 600);

  CHECK(s.recovery.detection_timeout.value == 30);
  CHECK(s.recovery.restart_overhead.value == 300);
  CHECK(s.recovery.max_restarts == 3);

  CHECK(s.perf.compute_efficiency == 0.4);
  CHECK(s.perf.grad_bytes_per_param == 4);
  CHECK(s.perf.activation_bytes == 1);
  CHECK(s.perf.checkpoint_bytes_per_param == 16);
  CHECK(s.perf.launch_overhead.value == 90);

  CHECK_FALSE(s.sim.fast_forward);
  CHECK(s.sim.measure_iterations == 5);
  CHECK(s.sim.remeasure_threshold == 0.05);
  CHECK(s.sim.horizon.value == 7 * 86400);

  REQUIRE(s.checks.size() == 7);
  CHECK(s.checks[0].name == "70b within six hours");
  CHECK(s.checks[0].metric == "job.end");
  CHECK(s.checks[0].job == "pretrain-70b");
  CHECK(s.checks[0].op == CheckOp::Le);
  CHECK(s.checks[0].value == 6 * 3600);
  CHECK(s.checks[1].name == "job.restarts(custom) == 0");
  CHECK(s.checks[1].op == CheckOp::Eq);
  CHECK(s.checks[1].value == 0);
  CHECK(s.checks[2].op == CheckOp::Gt);
  CHECK(s.checks[2].value == 0.9);
  CHECK(s.checks[3].metric == "job.lost_gpu_hours");
  CHECK(s.checks[3].op == CheckOp::Lt);
  CHECK(s.checks[3].value == 12.5);
  CHECK(s.checks[4].name == "cluster.gpu_utilization >= 0.6");
  CHECK(s.checks[4].job.empty());
  CHECK(s.checks[4].op == CheckOp::Ge);
  CHECK(s.checks[5].metric == "cluster.unfinished_jobs");
  CHECK(s.checks[5].value == 0);
  CHECK(s.checks[6].metric == "cluster.makespan");
  CHECK(s.checks[6].value == 2 * 86400);
}

TEST_CASE("a scenario file with a JSON syntax error names the line", "[unit]") {
  std::string path = TT_SOURCE_DIR "/tests/data/bad/syntax-error.json";
  std::optional<InputError> e;
  try {
    read_scenario_file(path);
  } catch (const InputError& err) {
    e = err;
  }
  REQUIRE(e);
  CHECK(e->file() == path);
  CHECK(e->pointer() == "");
  CHECK_THAT(e->expected(), Catch::Contains("valid JSON (comments allowed); line 3"));
}

TEST_CASE("a scenario file reads its topology relative to its own directory", "[unit]") {
  auto s = read_scenario_file(TT_SOURCE_DIR "/tests/data/scenarios/relative-topology.json");
  CHECK(s.name == "relative-topology");
  CHECK(s.source_file == TT_SOURCE_DIR "/tests/data/scenarios/relative-topology.json");
  CHECK(s.topology.name() == "rail-4x8-h100");
  CHECK(s.topology.total_gpus() == 32);
  CHECK(s.jobs[0].parallel.world() == 16);
  CHECK(s.faults[0].target == "n3");
}

TEST_CASE("the comm section overrides the communication model's NCCL constants", "[unit]") {
  auto s = read_scenario(patched(R"([{"op": "add", "path": "/comm", "value": {
      "nvls": false, "algorithms": ["ring", "Tree"], "protocols": ["LL128", "simple"], "channels": 16,
      "nvlink_efficiency": 0.8, "net_efficiency": 0.95,
      "base_latency": {"ring": {"Simple": "9us"}},
      "hw_latency": {"net": {"tree": {"LL": "6us"}}},
      "caps": {"ll_max": ["80GB/s", "40GB/s", "20GB/s"]},
      "ib_timeout": 22, "ib_retry_cnt": 5, "socket_ifname": "ib0"}}])"),
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
  CHECK_FALSE(read_scenario(base(), "base.json").perf.comm.channels);
}

TEST_CASE("comm section errors name the value", "[unit]") {
  check_bad_cases({
      {"unknown algorithm", R"([{"op": "add", "path": "/comm", "value": {"algorithms": ["ring", "rign2"]}}])",
       "/comm/algorithms/1", "one of ring, tree, nvls, hierarchical"},
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
      {"ib_timeout out of range", R"([{"op": "add", "path": "/comm", "value": {"ib_timeout": 32}}])",
       "/comm/ib_timeout", "an integer in [1, 31]"},
      {"ib_retry_cnt out of range", R"([{"op": "add", "path": "/comm", "value": {"ib_retry_cnt": 8}}])",
       "/comm/ib_retry_cnt", "an integer in [0, 7]"},
      {"misspelt comm key", R"([{"op": "add", "path": "/comm", "value": {"channel": 8}}])", "/comm/channel",
       "did you mean \"channels\"?"},
  });
}

TEST_CASE("scheduling keys: cohorts, limits, strategies, preemption, priority classes, scheduler, job constraints",
          "[unit][sched]") {
  const char* good = R"([
    {"op": "replace", "path": "/queues", "value": [
      {"name": "research", "gpu_quota": 64, "cohort": "all", "borrowing_limit": 32, "lending_limit": 16,
       "queueing_strategy": "StrictFIFO", "preemption": {"within_queue": "LowerPriority", "reclaim_within_cohort": "Any"}},
      {"name": "prod", "gpu_quota": 128, "cohort": "all"}]},
    {"op": "add", "path": "/priority_classes", "value": [{"name": "high", "value": 1000}, {"name": "low", "value": -5}]},
    {"op": "add", "path": "/scheduler", "value": {"ordering": "fair_share", "fair_share_half_life": "2d",
                                                   "backfill": "easy", "placement": "spread"}},
    {"op": "remove", "path": "/jobs/0/priority"},
    {"op": "add", "path": "/jobs/0/priority_class", "value": "high"},
    {"op": "add", "path": "/jobs/0/estimated_runtime", "value": "5h"},
    {"op": "add", "path": "/jobs/0/topology", "value": {"max_leaf_groups": 1, "max_wait": "30m"}},
    {"op": "add", "path": "/jobs/1/topology", "value": {"max_leaf_groups": 2, "mode": "preferred"}}
  ])";
  auto s = read_scenario(patched(good), "good.json");
  const auto& q = s.queues[0];
  CHECK(q.cohort == "all");
  CHECK(q.borrowing_limit == 32);
  CHECK(q.lending_limit == 16);
  CHECK(q.strategy == QueueingStrategy::StrictFifo);
  CHECK(q.within_queue == WithinQueuePreemption::LowerPriority);
  CHECK(q.reclaim == ReclaimPreemption::Any);
  CHECK(s.queues[1].strategy == QueueingStrategy::BestEffortFifo);
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
       "/queues/0/preemption/within_queue", "a within-queue preemption policy (Never, LowerPriority)"},
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
