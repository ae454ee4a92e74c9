#include "core/preflight/verdict.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/core/preflight/preflight_fixture.hpp"

using nlohmann::json;
using tt::preflight::Difference;
using tt::preflight::judge_fleet;
using tt::preflight::Severity;
using tt::preflight::Verdict;

namespace {

const Difference* find(const Verdict& v, const std::string& check) {
  for (const auto& d : v.differences)
    if (d.check == check) return &d;
  return nullptr;
}

json patch(const char* text) { return json::parse(text); }

}  // namespace

TEST_CASE("an alike fleet is one group with no difference", "[unit][preflight]") {
  auto v = judge_fleet(tt::testing::fleet(4), nullptr);
  CHECK(v.groups.size() == 1);
  CHECK(v.differences.empty());
  CHECK_FALSE(v.blocking());
  auto m = tt::read_matrix(tt::testing::matrix_json(), "m.json");
  auto against_matrix = judge_fleet(tt::testing::fleet(4), &m);
  CHECK(against_matrix.differences.empty());
}

TEST_CASE("the majority is the baseline: the odd nodes are named, blocking or warning by attribute",
          "[unit][preflight]") {
  auto fleet = tt::testing::fleet(6);
  fleet[4] = tt::testing::inventory("node-05", patch(R"([{"op": "replace", "path": "/nccl/version", "value": "2.18.3"}])"));
  fleet[5] = tt::testing::inventory("node-06", patch(R"([{"op": "replace", "path": "/nccl/version", "value": "2.18.3"},
      {"op": "replace", "path": "/kernel_params/net.core.rmem_max", "value": 212992}])"));
  auto v = judge_fleet(fleet, nullptr);
  CHECK(v.blocking());
  CHECK(v.groups.size() == 3);
  CHECK(v.groups[0].size() == 4);
  const auto* nccl = find(v, "nccl");
  REQUIRE(nccl);
  CHECK(nccl->severity == Severity::Blocking);
  CHECK(nccl->rule == "nccl-same-version");
  CHECK(nccl->hosts == std::vector<std::string>{"node-05", "node-06"});
  CHECK(nccl->found == "2.18.3");
  CHECK(nccl->expected == "2.21.5");
  CHECK_THAT(nccl->failure, Catch::Contains("Mismatched NCCL version"));
  const auto* rmem = find(v, "kernel_params/net.core.rmem_max");
  REQUIRE(rmem);
  CHECK(rmem->severity == Severity::Warning);
  CHECK(rmem->hosts == std::vector<std::string>{"node-06"});
  CHECK(rmem->expected == ">= 67108864");
  // a larger value than the baseline's is no difference
  fleet[5] = tt::testing::inventory("node-06", patch(R"([{"op": "replace", "path": "/dev_shm", "value": "1TiB"}])"));
  CHECK_FALSE(find(judge_fleet(fleet, nullptr), "dev_shm"));
}

TEST_CASE("the verdict does not depend on the order of the inventories", "[unit][preflight]") {
  auto fleet = tt::testing::fleet(5);
  fleet[1] = tt::testing::inventory("node-02", patch(R"([{"op": "replace", "path": "/clock/synced", "value": false}])"));
  fleet[3] = tt::testing::inventory("node-04", patch(R"([{"op": "replace", "path": "/dev_shm", "value": "64MiB"}])"));
  auto a = judge_fleet(fleet, nullptr);
  std::reverse(fleet.begin(), fleet.end());
  auto b = judge_fleet(fleet, nullptr);
  REQUIRE(a.differences.size() == b.differences.size());
  for (std::size_t i = 0; i < a.differences.size(); ++i) {
    CHECK(a.differences[i].check == b.differences[i].check);
    CHECK(a.differences[i].hosts == b.differences[i].hosts);
  }
  CHECK(a.groups == b.groups);
  CHECK(find(a, "clock_synced")->hosts == std::vector<std::string>{"node-02"});
  CHECK(find(a, "dev_shm")->severity == Severity::Blocking);
}

TEST_CASE("with a matrix, the release is the baseline even where the whole fleet agrees", "[unit][preflight]") {
  auto m = tt::read_matrix(tt::testing::matrix_json(), "m.json");
  std::vector<tt::preflight::Inventory> fleet;
  for (const char* h : {"a", "b", "c"})
    fleet.push_back(tt::testing::inventory(h, patch(R"([{"op": "replace", "path": "/nccl/version", "value": "2.18.3"},
        {"op": "replace", "path": "/driver/version", "value": "560.28.03"},
        {"op": "replace", "path": "/clock/max_error", "value": "50ms"}])")));
  auto v = judge_fleet(fleet, &m);
  REQUIRE(find(v, "nccl"));
  CHECK(find(v, "nccl")->hosts.size() == 3);
  CHECK_FALSE(find(v, "driver"));  // the matrix's driver is a minimum
  REQUIRE(find(v, "clock_max_error"));
  CHECK(find(v, "clock_max_error")->expected == "<= 10.0 ms");
  fleet[0] = tt::testing::inventory("a", patch(R"([{"op": "replace", "path": "/driver/version", "value": "550.54.14"}])"));
  auto older = judge_fleet(fleet, &m);
  REQUIRE(find(older, "driver"));
  CHECK(find(older, "driver")->severity == Severity::Blocking);
  CHECK(find(older, "driver")->hosts == std::vector<std::string>{"a"});
}

TEST_CASE("compatibility rules: the driver floor of the runtime's CUDA major", "[unit][preflight]") {
  auto old_driver = tt::testing::inventory("n", patch(R"([{"op": "replace", "path": "/driver/version", "value": "470.223.02"},
      {"op": "replace", "path": "/driver/cuda", "value": "11.4"}])"));
  auto v = tt::preflight::check_node(old_driver);
  REQUIRE_FALSE(v.empty());
  CHECK(v[0].rule == "cuda-driver-floor");
  CHECK(v[0].expected == "driver >= 525.60.13 for CUDA runtime 12.4");
  auto verdict = judge_fleet({old_driver}, nullptr);
  REQUIRE(find(verdict, "rule:cuda-driver-floor"));
  CHECK(find(verdict, "rule:cuda-driver-floor")->severity == Severity::Blocking);
  CHECK_THAT(find(verdict, "rule:cuda-driver-floor")->failure, Catch::Contains("cudaErrorInsufficientDriver"));
  // At the floor, a newer minor than the driver supports runs under minor-version compatibility: a warning.
  auto minor = tt::testing::inventory("n", patch(R"([{"op": "replace", "path": "/driver/version", "value": "525.60.13"},
      {"op": "replace", "path": "/driver/cuda", "value": "12.0"}])"));
  auto mv = tt::preflight::check_node(minor);
  REQUIRE(mv.size() == 1);
  CHECK(mv[0].rule == "cuda-minor-compat");
  CHECK(tt::preflight::rule("cuda-minor-compat").severity == Severity::Warning);
}

TEST_CASE("compatibility rules: NCCL's CUDA, attention requirements, and no CUDA rule without a GPU", "[unit][preflight]") {
  auto nccl_newer = tt::testing::inventory("n", patch(R"([{"op": "replace", "path": "/nccl/cuda", "value": "12.8"}])"));
  auto v = tt::preflight::check_node(nccl_newer);
  REQUIRE(v.size() == 1);
  CHECK(v[0].rule == "nccl-cuda-runtime");
  auto nccl_13 = tt::testing::inventory("n", patch(R"([{"op": "replace", "path": "/nccl/cuda", "value": "13.0"}])"));
  auto v13 = tt::preflight::check_node(nccl_13);
  REQUIRE(v13.size() == 2);
  CHECK(v13[0].rule == "nccl-cuda-driver");
  CHECK(v13[0].expected == "driver >= 580.65.06 for NCCL built for CUDA 13.0");
  auto turing = tt::testing::inventory("n", patch(R"([{"op": "replace", "path": "/gpu/compute_capability", "value": "7.5"},
      {"op": "replace", "path": "/gpu/model", "value": "Tesla T4"}])"));
  auto vt = tt::preflight::check_node(turing);
  REQUIRE(vt.size() == 1);
  CHECK(vt[0].rule == "attention-requirements");
  CHECK_THAT(vt[0].expected, Catch::Contains("compute capability >= 8.0"));
  auto fa3_on_ampere = tt::testing::inventory("n", patch(R"([{"op": "replace", "path": "/gpu/compute_capability", "value": "8.0"},
      {"op": "replace", "path": "/attention/version", "value": "3.0.0"}])"));
  CHECK(tt::preflight::check_node(fa3_on_ampere).size() == 1);
  auto cpu_only = tt::testing::inventory("n", patch(R"([{"op": "replace", "path": "/gpu", "value": null},
      {"op": "replace", "path": "/driver", "value": null}, {"op": "replace", "path": "/attention", "value": null}])"));
  CHECK(tt::preflight::check_node(cpu_only).empty());
}

TEST_CASE("every rule names its failure and its source", "[unit][preflight]") {
  for (const auto& r : tt::preflight::rules()) {
    CHECK(std::string(r.failure).size() > 20);
    CHECK(std::string(r.source).size() > 20);
  }
  for (const auto& a : tt::preflight::attributes())
    CHECK((!a.failure.empty() || !a.rule.empty()));
  CHECK(tt::preflight::driver_floor(12)->text() == "525.60.13");
  CHECK_FALSE(tt::preflight::driver_floor(10));
}
