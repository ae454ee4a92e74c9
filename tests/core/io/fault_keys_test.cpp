// Scenario keys for faults, stochastic rates, detection, recovery and checkpoints: read, and rejected with the pointer.
#include <catch2/catch.hpp>
#include <functional>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;
using nlohmann::json;

namespace {

json doc() {
  return json::parse(R"({
    "name": "f", "seed": 5,
    "topology": {"name": "t", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 4, "gpus_per_node": 8,
                 "nic_bandwidth": "400Gbps", "nodes_per_group": 2, "spines": 2, "storage": {"bandwidth": "100GB/s"}},
    "queues": [{"name": "q", "gpu_quota": 32}],
    "jobs": [{"name": "j", "queue": "q", "gpus": 16, "model": "llama3-8b", "parallel": {"tp": 8, "dp": 2},
              "iterations": 100, "global_batch": 64, "seq_len": 4096,
              "checkpoint": {"every": 10, "async": true, "keep": 2}}],
    "faults": [{"kind": "gpu_failure", "at": "1h", "gpu": "n1/gpu3", "repair": "4h"},
               {"kind": "nic_down", "at": "1h", "gpu": "n1/gpu3", "repair": "10s"},
               {"kind": "link_flap", "at": "1h", "link": "n1/gpu3~leaf-g0-r3", "repair": "5s"},
               {"kind": "switch_down", "at": "1h", "switch": "spine1", "repair": "1h"},
               {"kind": "straggler", "at": "1h", "gpu": "n0/gpu0", "repair": "1h", "fraction": 0.5},
               {"kind": "storage_slow", "at": "1h", "repair": "1h", "fraction": 0.25},
               {"kind": "hang", "at": "2h", "node": "n2"},
               {"kind": "deadlock", "at": "2h", "node": "n3"},
               {"kind": "checkpoint_corrupt", "at": "3h", "job": "j"}],
    "stochastic": {"rates": "llama3-h100", "scale": 2.0, "until": "7d",
                   "faults": [{"kind": "link_down", "mtbf": "100d", "repair": {"shape": "exponential", "mean": "20s"}}]},
    "recovery": {"detection_timeout": "30s", "watchdog_timeout": "5m",
                 "hot_spares": 1, "lemon": {"failures": 3, "window": "7d"}},
    "perf": {"snapshot_bandwidth": "20GB/s"},
    "comm": {"ib_timeout": 14, "ib_retry_cnt": 7},
    "checks": [{"metric": "cluster.false_failures", "op": "==", "value": 0},
               {"metric": "job.max_time_to_detect", "job": "j", "op": "<=", "value": "5m"}]
  })");
}

std::string error_at(json d) {
  try {
    read_scenario(d, "f.json");
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.expected();
  }
  return "no error";
}

}  // namespace

TEST_CASE("scenario faults: every kind, stochastic rates, detection and checkpoint keys are read", "[unit][io]") {
  Scenario s = read_scenario(doc(), "f.json");
  REQUIRE(s.faults.size() == 9);
  CHECK(s.faults[7].kind == FaultKind::Deadlock);
  CHECK(s.faults[8].kind == FaultKind::CheckpointCorrupt);
  CHECK(s.faults[8].target == "j");
  CHECK(s.faults[0].kind == FaultKind::GpuFailure);
  CHECK(s.faults[2].kind == FaultKind::LinkDown);
  CHECK(s.faults[4].fraction == 0.5);
  CHECK(s.faults[5].target == "storage");
  CHECK(s.faults[6].repair == Seconds(0));
  CHECK(s.stochastic.catalogue == "llama3-h100");
  CHECK(s.stochastic.rates.size() > 5);  // the catalogue's causes, then the written rate
  CHECK(s.stochastic.rates.back().kind == FaultKind::LinkDown);
  CHECK(s.recovery.comm_timeout.value == Approx(4.096e-6 * 16384 * 8));  // from the comm section
  json d = doc();
  d["recovery"]["comm_timeout"] = "2s";  // an explicit timeout wins
  CHECK(read_scenario(d, "f.json").recovery.comm_timeout == Seconds(2));
  CHECK(s.recovery.hot_spares == 1);
  CHECK(s.recovery.lemon_failures == 3);
  CHECK(s.jobs[0].checkpoint_async);
  CHECK(s.jobs[0].checkpoint_keep == 2);
  CHECK(s.perf.snapshot_bandwidth.value == 20e9);
}

TEST_CASE("scenario faults: bad keys name the file, the pointer and what was expected", "[unit][io]") {
  struct Case {
    std::function<void(json&)> edit;
    std::string expected;
  };
  std::vector<Case> cases = {
      {[](json& d) { d["faults"][0]["kind"] = "gpu_fail"; }, "/faults/0/kind: a fault kind"},
      {[](json& d) { d["faults"][0]["gpu"] = "n1/gpu9"; }, "/faults/0/gpu: the name of a gpu of the topology"},
      {[](json& d) { d["faults"][0]["node"] = "n1"; }, "/faults/0/node: no \"node\" in a gpu_failure fault"},
      {[](json& d) { d["faults"][4].erase("fraction"); }, "/faults/4/fraction"},
      {[](json& d) { d["faults"][4]["fraction"] = 1.5; }, "/faults/4/fraction"},
      {[](json& d) { d["faults"][0]["fraction"] = 0.5; }, "/faults/0/fraction: no \"fraction\" in a gpu_failure"},
      {[](json& d) { d["faults"][6]["repair"] = "1h"; }, "/faults/6/repair: no \"repair\" in a hang"},
      {[](json& d) { d["faults"][3]["switch"] = "spine9"; }, "/faults/3/switch: the name of a switch"},
      {[](json& d) { d["faults"][8]["job"] = "jj"; }, "/faults/8/job: the name of a job of the scenario"},
      {[](json& d) { d["faults"][8]["repair"] = "1h"; }, "/faults/8/repair: no \"repair\" in a checkpoint_corrupt"},
      {[](json& d) { d["faults"][8]["node"] = "n1"; }, "/faults/8/node: no \"node\" in a checkpoint_corrupt fault"},
      {[](json& d) { d["stochastic"]["faults"][0]["kind"] = "checkpoint_corrupt"; },
       "/stochastic/faults/0/kind: a fault kind with a rate per cluster component"},
      {[](json& d) { d["stochastic"]["rates"] = "llama3-h10"; }, "/stochastic/rates: a failure-rate catalogue"},
      {[](json& d) { d["stochastic"]["faults"][0]["repair"]["shape"] = "weibull"; },
       "/stochastic/faults/0/repair/shape: a repair-time shape"},
      {[](json& d) { d["stochastic"]["faults"][0]["repair"]["median"] = "1h"; },
       "/stochastic/faults/0/repair/median: \"mean\" for a exponential"},
      {[](json& d) { d["stochastic"]["faults"][0]["mtbf"] = "0s"; }, "/stochastic/faults/0/mtbf"},
      {[](json& d) { d["stochastic"] = json::object(); }, "/stochastic: \"rates\" (a catalogue name) or \"faults\""},
      {[](json& d) { d["recovery"]["comm_timeout"] = "0s"; }, "/recovery/comm_timeout: a duration greater than zero"},
      {[](json& d) { d["recovery"]["lemon"] = json::object({{"failures", 2}}); }, "/recovery/lemon"},
      {[](json& d) { d["jobs"][0]["checkpoint"]["keep"] = 0; }, "/jobs/0/checkpoint/keep"},
      {[](json& d) { d["jobs"][0]["checkpoint"]["async"] = "yes"; }, "/jobs/0/checkpoint/async"},
      {[](json& d) { d["checks"][0]["metric"] = "cluster.false_failure"; }, "did you mean \"cluster.false_failures\""},
  };
  int i = 0;
  for (auto& c : cases) {
    json d = doc();
    c.edit(d);
    INFO("case " << i++);
    CHECK_THAT(error_at(d), Catch::Contains(c.expected));
  }
}
