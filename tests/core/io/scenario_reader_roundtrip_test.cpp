// The scenario reader: a valid scenario read back field by field; files, syntax errors and relative paths.
#include <catch2/catch.hpp>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "tests/core/io/scenario_reader_support.hpp"

using namespace tt;
using namespace tt::testing;
using nlohmann::json;

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
