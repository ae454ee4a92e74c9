// The "pools" section (docs/pools.md): read into PoolSpecs, and every malformed pool rejected with its JSON pointer.
#include <catch2/catch.hpp>
#include <functional>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;
using nlohmann::json;

namespace {

json doc() {
  return json::parse(R"({
    "name": "p", "seed": 3,
    "topology": {"name": "t", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 4, "gpus_per_node": 8,
                 "nic_bandwidth": "400Gbps", "nodes_per_group": 4, "storage": {"bandwidth": "100GB/s"}},
    "queues": [{"name": "q", "gpu_quota": 32}],
    "jobs": [{"name": "j", "queue": "q", "gpus": 16, "model": "llama3-8b", "parallel": {"tp": 8, "dp": 2},
              "iterations": 100, "global_batch": 64, "seq_len": 4096}],
    "pools": [
      {"name": "own", "kind": "fixed", "nodes": ["n0"], "price_per_gpu_hour": 2, "price_kind": "reserved"},
      {"name": "cloud", "kind": "elastic", "nodes": ["n1", "n2"], "min": 1, "max": 2,
       "template": {"gpu": "H100-SXM", "gpus_per_node": 8}, "provision_delay": "5m", "idle_timeout": "10m",
       "price_per_gpu_hour": 4, "price_kind": "on_demand"},
      {"name": "cheap", "kind": "spot", "nodes": ["n3"], "max": 1,
       "template": {"gpu": "H100-SXM", "gpus_per_node": 8},
       "provision_delay": {"shape": "exponential", "mean": "3m"}, "idle_timeout": "10m",
       "reclaim": {"mean_time": "2h", "notice": "2m"}, "price_per_gpu_hour": 1.5, "price_kind": "spot"}
    ]
  })");
}

std::string error_at(json d) {
  try {
    read_scenario(d, "p.json");
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.expected();
  }
  return "no error";
}

}  // namespace

TEST_CASE("pools: read into pool specs", "[unit][io]") {
  const Scenario s = read_scenario(doc(), "p.json");
  REQUIRE(s.pools.size() == 3);
  CHECK(s.pools[0].kind == PoolKind::Fixed);
  CHECK(s.pools[0].min == 1);
  CHECK(s.pools[0].max == 1);
  CHECK(s.pools[1].kind == PoolKind::Elastic);
  CHECK(s.pools[1].nodes == std::vector<int>{1, 2});
  CHECK(s.pools[1].min == 1);
  CHECK(s.pools[1].provision_delay.scale == Seconds(300));
  CHECK(s.pools[1].idle_timeout == Seconds(600));
  CHECK(s.pools[1].price_kind == PriceKind::OnDemand);
  CHECK(s.pools[2].kind == PoolKind::Spot);
  CHECK(s.pools[2].min == 0);
  CHECK(s.pools[2].provision_delay.shape == RepairDistribution::Shape::Exponential);
  CHECK(*s.pools[2].reclaim_mean == Seconds(7200));
  CHECK(s.pools[2].reclaim_notice == Seconds(120));
  CHECK_FALSE(s.pools[2].checkpoint_on_notice);  // off unless asked for
  CHECK(s.pools[2].price_per_gpu_hour == 1.5);
  // Preference: fixed first, then by price (spot 1.5 before on-demand 4).
  CHECK(pool_tiers(s.pools) == std::vector<int>{0, 2, 1});
  // No pools: none, as before.
  json d = doc();
  d.erase("pools");
  CHECK(read_scenario(d, "p.json").pools.empty());
  d = doc();
  d["pools"][2]["reclaim"]["checkpoint_on_notice"] = true;
  CHECK(read_scenario(d, "p.json").pools[2].checkpoint_on_notice);
}

TEST_CASE("pools: malformed pools are rejected with their pointer", "[unit][io]") {
  struct Case {
    std::function<void(json&)> edit;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {[](json& d) { d["pools"][1]["min"] = -1; }, "/pools/1/min"},
      {[](json& d) { d["pools"][1]["max"] = -2; }, "/pools/1/max"},
      {[](json& d) { d["pools"][1]["max"] = 3; }, "/pools/1/max"},
      {[](json& d) { d["pools"][1]["min"] = 2, d["pools"][1]["max"] = 1; }, "/pools/1/min: at most max (1) nodes"},
      {[](json& d) { d["pools"][1]["kind"] = "elastc"; }, "/pools/1/kind: a pool kind (fixed, elastic, spot)"},
      {[](json& d) { d["pools"][1]["kind"] = "elastc"; }, "did you mean \"elastic\""},
      {[](json& d) { d["pools"][1]["nodes"][0] = "n9"; }, "/pools/1/nodes/0: a node name of the topology"},
      {[](json& d) { d["pools"][1]["nodes"][0] = "n0"; }, "/pools/1/nodes/0: a node in one pool only"},
      {[](json& d) { d["pools"][1]["nodes"].erase(1), d["pools"][1]["max"] = 1; }, "/pools: every node of the topology in one pool; n2 in none"},
      {[](json& d) { d["pools"][1]["template"]["gpu"] = "A100-SXM"; }, "/pools/1/template/gpu: the topology's GPU"},
      {[](json& d) { d["pools"][1]["template"]["gpu"] = "Z9"; }, "/pools/1/template/gpu: a GPU model"},
      {[](json& d) { d["pools"][1]["template"]["gpus_per_node"] = 4; }, "/pools/1/template/gpus_per_node"},
      {[](json& d) { d["pools"][1].erase("template"); }, "/pools/1/template: a node template"},
      {[](json& d) { d["pools"][1]["provision_delay"] = json{{"shape", "gamma"}, {"mean", "1m"}}; },
       "/pools/1/provision_delay/shape: a provisioning-delay shape"},
      {[](json& d) { d["pools"][1]["provision_delay"] = json{{"shape", "exponential"}, {"median", "1m"}}; },
       "/pools/1/provision_delay/median"},
      {[](json& d) { d["pools"][1]["provision_delay"] = "0s"; }, "/pools/1/provision_delay"},
      {[](json& d) { d["pools"][1]["idle_timeout"] = "-5m"; }, "/pools/1/idle_timeout"},
      {[](json& d) { d["pools"][1]["reclaim"] = json{{"mean_time", "1h"}, {"notice", "1m"}}; },
       "/pools/1/reclaim: no \"reclaim\" in an elastic pool"},
      {[](json& d) { d["pools"][2].erase("reclaim"); }, "/pools/2/reclaim"},
      {[](json& d) { d["pools"][2]["reclaim"]["notice"] = "0s"; }, "/pools/2/reclaim/notice"},
      {[](json& d) { d["pools"][2]["reclaim"]["checkpoint_on_notice"] = "yes"; },
       "/pools/2/reclaim/checkpoint_on_notice: true or false, found string"},
      {[](json& d) { d["pools"][2]["reclaim"]["checkpoint_on_notice"] = 1; },
       "/pools/2/reclaim/checkpoint_on_notice: true or false"},
      {[](json& d) { d["pools"][0]["max"] = 1; }, "/pools/0/max: no \"max\" in a fixed pool"},
      {[](json& d) { d["pools"][0]["price_per_gpu_hour"] = -1; }, "/pools/0/price_per_gpu_hour"},
      {[](json& d) { d["pools"][0]["price_kind"] = "owned"; }, "/pools/0/price_kind: a price kind"},
      {[](json& d) { d["pools"][0]["name"] = "cloud"; }, "/pools/1/name: a pool name not used"},
      {[](json& d) { d["pools"][0]["size"] = 1; }, "/pools/0"},
      {[](json& d) { d["pools"] = json::array(); }, "/pools"},
      {[](json& d) { d["recovery"] = json{{"hot_spares", 1}}; }, "/pools: no elastic or spot pool with recovery.hot_spares"},
  };
  int i = 0;
  for (const auto& c : cases) {
    json d = doc();
    c.edit(d);
    INFO("case " << i++);
    CHECK_THAT(error_at(d), Catch::Contains(c.expected));
  }
}
