// The sites topology form, the jobs' site keys and the cost section: what they read and the errors (exit 2 with the
// JSON pointer) for malformed input.
#include <catch2/catch.hpp>

#include "core/io/scenario_reader.hpp"
#include "tests/core/io/scenario_reader_support.hpp"

using namespace tt;
using namespace tt::testing;
using nlohmann::json;

namespace {

// The base scenario on two sites of 8 nodes each, without its faults (they name one-site nodes and links).
const char* const kSites = R"([{"op": "replace", "path": "/topology", "value": {
    "name": "hybrid", "generator": "sites",
    "sites": [
      {"name": "private", "topology": {"name": "p", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 8,
        "gpus_per_node": 8, "nic_bandwidth": "400Gbps", "nodes_per_group": 4, "spines": 2,
        "storage": {"bandwidth": "100GB/s"}}},
      {"name": "cloud", "topology": {"name": "c", "generator": "leaf-spine", "gpu": "H100-SXM", "nodes": 8,
        "gpus_per_node": 8, "nic_bandwidth": "200Gbps", "nodes_per_group": 4,
        "storage": {"bandwidth": "50GB/s"}}, "gateway": "spine0"}],
    "inter_site": {"bandwidth": "100Gbps", "latency": "20ms"}}},
      {"op": "remove", "path": "/faults"},
      {"op": "add", "path": "/cost", "value": {
    "currency": "EUR",
    "gpu_hour": [{"site": "private", "kind": "reserved", "price": 1.5}, {"site": "cloud", "kind": "on_demand", "price": 4}],
    "storage": {"gb_month": 0.02, "retention": {"keep_last": 3, "expire_after": "14d"}},
    "traffic": {"inter_site_gb": 0.05, "storage_gb": 0.001}}}])";

json sites_doc() { return base().patch(json::parse(kSites)); }

std::optional<InputError> sites_error(const char* patch) {
  return error_of(sites_doc().patch(json::parse(patch)));
}

void check_sites_bad(const std::vector<BadCase>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.what) {
      auto e = sites_error(c.patch);
      REQUIRE(e);
      CHECK(e->pointer() == c.pointer);
      CHECK_THAT(e->expected(), Catch::Contains(c.expected));
    }
  }
}

}  // namespace

TEST_CASE("sites and cost read: sites, gateway, prices, retention", "[unit][sites][cost]") {
  json doc = sites_doc();
  doc["jobs"][1]["site"] = "cloud";
  doc["jobs"][0]["span_sites"] = true;
  const Scenario s = read_scenario(doc, "hybrid.json");
  REQUIRE(s.topology.sites().size() == 2);
  CHECK(s.topology.nodes().size() == 16);
  CHECK(s.topology.link(s.topology.inter_site_link()).bandwidth.value == Approx(12.5e9));
  CHECK(s.topology.link(s.topology.inter_site_link()).latency.value == Approx(0.02));
  CHECK(s.jobs[1].site == "cloud");
  CHECK(s.jobs[0].span_sites);
  CHECK_FALSE(s.jobs[1].span_sites);
  REQUIRE(s.cost.enabled);
  CHECK(s.cost.currency == "EUR");
  REQUIRE(s.cost.gpu_price("cloud"));
  CHECK(s.cost.gpu_price("cloud")->kind == PriceKind::OnDemand);
  CHECK(s.cost.gpu_price("private")->per_gpu_hour == 1.5);
  CHECK(s.cost.retention.keep_last == 3);
  CHECK(s.cost.retention.expire_after->value == Approx(14 * 86400.0));
  CHECK(s.cost.inter_site_per_gb == 0.05);
  CHECK(s.cost.storage_per_gb == 0.001);
  CHECK_FALSE(read_scenario(base(), "base.json").cost.enabled);
}

TEST_CASE("malformed sites and prices exit with the pointer", "[unit][sites][cost]") {
  check_sites_bad({
      {"unknown site of a job", R"([{"op": "add", "path": "/jobs/1/site", "value": "clod"}])",
       "/jobs/1/site", "did you mean \"cloud\"?"},
      {"negative latency",
       R"([{"op": "replace", "path": "/topology/inter_site/latency", "value": "-5ms"}])",
       "/topology/inter_site/latency", "a non-negative quantity"},
      {"negative bandwidth",
       R"([{"op": "replace", "path": "/topology/inter_site/bandwidth", "value": "-1Gbps"}])",
       "/topology/inter_site/bandwidth", "a non-negative quantity"},
      {"a site named twice puts its nodes in two sites",
       R"([{"op": "replace", "path": "/topology/sites/1/name", "value": "private"}])",
       "/topology/sites/1/name", "nodes would be in two sites"},
      {"one site only", R"([{"op": "remove", "path": "/topology/sites/1"}])", "/topology/sites",
       "exactly two sites"},
      {"gateway not a switch",
       R"([{"op": "replace", "path": "/topology/sites/1/gateway", "value": "n0/gpu0"}])",
       "/topology/sites/1/gateway", "leaf or spine"},
      {"another GPU in the cloud",
       R"([{"op": "replace", "path": "/topology/sites/1/topology/gpu", "value": "H200"}])",
       "/topology/sites/1/topology", "the same GPU"},
      {"a job pinned and spanning", R"([{"op": "add", "path": "/jobs/1/site", "value": "cloud"},
       {"op": "add", "path": "/jobs/1/span_sites", "value": true}])",
       "/jobs/1/span_sites", "pinned"},
      {"negative price", R"([{"op": "replace", "path": "/cost/gpu_hour/1/price", "value": -4}])",
       "/cost/gpu_hour/1/price", "a number >= 0"},
      {"price for an unknown site",
       R"([{"op": "replace", "path": "/cost/gpu_hour/1/site", "value": "clouds"}])",
       "/cost/gpu_hour/1/site", "one of the topology's sites"},
      {"a site without a price", R"([{"op": "remove", "path": "/cost/gpu_hour/1"}])", "/cost/gpu_hour",
       "site \"cloud\" has none"},
      {"unknown price kind",
       R"([{"op": "replace", "path": "/cost/gpu_hour/1/kind", "value": "ondemand"}])",
       "/cost/gpu_hour/1/kind", "on_demand"},
      {"negative storage price",
       R"([{"op": "replace", "path": "/cost/storage/gb_month", "value": -0.1}])",
       "/cost/storage/gb_month", "a number >= 0"},
      {"zero keep_last", R"([{"op": "replace", "path": "/cost/storage/retention/keep_last", "value": 0}])",
       "/cost/storage/retention/keep_last", ">= 1"},
      {"unknown traffic key",
       R"([{"op": "add", "path": "/cost/traffic/egress_gb", "value": 0.1}])", "/cost/traffic/egress_gb",
       "inter_site_gb"},
      {"queue check names an unknown queue",
       R"([{"op": "add", "path": "/checks/-", "value": {"metric": "queue.cost", "queue": "reserch", "op": "<=", "value": 10}}])",
       "/checks/2/queue", "did you mean \"research\"?"},
      {"negative cost threshold",
       R"([{"op": "add", "path": "/checks/-", "value": {"metric": "cluster.cost", "op": "<=", "value": -1}}])",
       "/checks/2/value", "non-negative amount"},
  });
}
