// control_plane_crash entries of a scenario's faults: checked by read_scenario, left out of Scenario::faults, read by
// read_control_plane_outages; a malformed one refused with its pointer.
#include "core/io/control_plane_reader.hpp"

#include <catch2/catch.hpp>
#include <optional>

#include "core/io/scenario_reader.hpp"

using namespace tt;
using nlohmann::json;

namespace {

// Two nodes, one job; two outages (listed out of time order) around a node crash.
constexpr const char* kScenario = R"({
    "name": "cp", "seed": 5,
    "topology": {"name": "t", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 2, "gpus_per_node": 8,
                 "nic_bandwidth": "400Gbps", "nodes_per_group": 2, "storage": {"bandwidth": "100GB/s"}},
    "queues": [{"name": "q", "gpu_quota": 16}],
    "jobs": [{"name": "j", "queue": "q", "gpus": 8, "model": "llama3-8b", "parallel": {"tp": 8},
              "iterations": 100, "global_batch": 64, "seq_len": 4096}],
    "faults": [{"kind": "control_plane_crash", "at": "2h", "repair": "5m"},
               {"kind": "node_crash", "at": "1h", "node": "n1", "repair": "1h"},
               {"kind": "control_plane_crash", "at": "30m", "repair": "10m"}]
  })";

json doc() { return json::parse(kScenario); }

// "pointer: expected" of the error reading `d` stops at (read_scenario first, as every command does).
std::string error_at(const json& d) {
  std::optional<InputError> error;
  try {
    read_scenario(d, "cp.json");
    read_control_plane_outages(d, "cp.json");
  } catch (const InputError& e) {
    error = e;
  }
  return error ? error->pointer() + ": " + error->expected() : std::string("no error");
}

}  // namespace

TEST_CASE("control_plane_crash faults are read beside the scenario's faults, by time", "[unit][io]") {
  const Scenario s = read_scenario(doc(), "cp.json");
  REQUIRE(s.faults.size() == 1);  // the node crash only: the control plane is no component of the cluster
  CHECK(s.faults[0].kind == FaultKind::NodeCrash);
  const auto outages = read_control_plane_outages(doc(), "cp.json");
  REQUIRE(outages.size() == 2);
  CHECK(outages[0].at == Seconds(1800));
  CHECK(outages[0].down == Seconds(600));
  CHECK(outages[0].entry == 2);
  CHECK(outages[1].at == Seconds(7200));
  CHECK(outages[1].entry == 0);
  json none = doc();
  none["faults"] = json::array({doc()["faults"][1]});
  CHECK(read_control_plane_outages(none, "cp.json").empty());
}

TEST_CASE("a malformed control_plane_crash is refused with its pointer", "[unit][io]") {
  json d = doc();
  d["faults"][0]["node"] = "n0";
  CHECK_THAT(error_at(d), Catch::StartsWith("/faults/0/node"));
  d = doc();
  d["faults"][2].erase("repair");
  CHECK_THAT(error_at(d), Catch::StartsWith("/faults/2/repair") && Catch::Contains("how long the control plane is down"));
  d = doc();
  d["faults"][2]["repair"] = "0s";
  CHECK_THAT(error_at(d), Catch::StartsWith("/faults/2/repair"));
  d = doc();
  d["faults"][0].erase("at");
  CHECK_THAT(error_at(d), Catch::StartsWith("/faults/0/at"));
  d = doc();
  d["stochastic"] = {{"faults", json::array({{{"kind", "control_plane_crash"}, {"mtbf", "30d"}, {"repair", "5m"}}})}};
  CHECK_THAT(error_at(d), Catch::StartsWith("/stochastic/faults/0/kind") && Catch::Contains("scripted only"));
  d = doc();
  d["faults"][1]["kind"] = "control_plane_crsh";
  CHECK_THAT(error_at(d), Catch::StartsWith("/faults/1/kind") && Catch::Contains("did you mean \"control_plane_crash\""));
}
