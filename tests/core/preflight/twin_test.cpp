#include "core/preflight/twin.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/control/controller.hpp"
#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

namespace {

const std::string kDrill = std::string(TT_SOURCE_DIR) + "/scenarios/drill-partial-upgrade.json";

// The drill with its preflight section replaced, written beside it so that relative paths still resolve.
tt::Scenario drill_with(const nlohmann::json& preflight) {
  auto doc = tt::load_json_file(kDrill);
  doc["preflight"] = preflight;
  return tt::read_scenario(doc, kDrill);
}

}  // namespace

TEST_CASE("twin preflight: the nodes left on the old release fail it, and only a job across both hangs",
          "[unit][preflight]") {
  auto sc = tt::read_scenario_file(kDrill);
  REQUIRE(sc.preflight.enabled());
  auto blocked = tt::preflight::blocked_nodes(sc.topology, sc.preflight);
  REQUIRE(blocked.size() == 4);
  CHECK(blocked.begin()->first == 4);
  CHECK_THAT(blocked.at(4), Catch::Contains("nccl 2.18.3, expected 2.21.5"));
  CHECK(tt::preflight::setup_hang(sc.preflight, sc.topology, {0, 4}).has_value());
  CHECK_THAT(*tt::preflight::setup_hang(sc.preflight, sc.topology, {0, 4}), Catch::Contains("nccl-same-version"));
  CHECK_FALSE(tt::preflight::setup_hang(sc.preflight, sc.topology, {0, 1}));
  CHECK_FALSE(tt::preflight::setup_hang(sc.preflight, sc.topology, {4, 5}));  // old with old: one NCCL
}

TEST_CASE("twin preflight: gating cordons the failing nodes with the reason, ungated records the override",
          "[unit][preflight]") {
  auto sc = tt::read_scenario_file(kDrill);
  tt::Controller gated(sc);
  int cordons = 0;
  for (const auto& d : gated.record().decisions)
    if (d.kind == "cordon") {
      ++cordons;
      CHECK_THAT(d.reason, Catch::Contains("preflight: ") && Catch::Contains("nccl 2.18.3"));
    }
  CHECK(cordons == 4);
  sc.preflight.gate = false;
  tt::Controller ungated(sc);
  int overrides = 0;
  for (const auto& d : ungated.record().decisions) {
    CHECK(d.kind != "cordon");
    overrides += d.kind == "ungated";
  }
  CHECK(overrides == 4);
}

TEST_CASE("twin preflight: a bad preflight section exits 2 with its pointer", "[unit][preflight]") {
  auto expect = [](const nlohmann::json& section, const std::string& pointer, const std::string& text) {
    INFO(section.dump());
    try {
      drill_with(section);
      FAIL("accepted");
    } catch (const tt::InputError& e) {
      CHECK(e.pointer() == pointer);
      CHECK_THAT(e.expected(), Catch::Contains(text));
    }
  };
  expect({{"matrix", "../matrices/none.json"}}, "/preflight/matrix", "does not exist");
  expect({{"matrix", "../matrices/example.json"}, {"releases", {{"n99", "2026.08"}}}}, "/preflight/releases/n99",
         "the name of a node of the topology");
  expect({{"matrix", "../matrices/example.json"}, {"releases", {{"n4", "2025.01"}}}}, "/preflight/releases/n4",
         "the name of a release");
  expect({{"matrix", "../matrices/example.json"}, {"gate", "yes"}}, "/preflight/gate", "true or false");
  expect({{"matrix", "../matrices/example.json"}, {"gating", true}}, "/preflight/gating",
         "allowed here: matrix, releases, gate, attention_fallback_speed");
}

TEST_CASE("twin preflight: a release whose attention library cannot run the GPU slows that node's GPUs",
          "[unit][preflight]") {
  auto doc = tt::load_json_file(kDrill);
  doc["preflight"] = {{"matrix", "../matrices/example.json"}, {"attention_fallback_speed", 0.6}};
  auto sc = tt::read_scenario(doc, kDrill);
  CHECK(tt::preflight::attention_fallback_nodes(sc.topology, sc.preflight).empty());  // flash-attn 2 on H100: fine
  // flash-attn 3 needs compute capability 9.0: a node on a release pinning it runs H100s (9.0), so still fine; on a
  // release pinning it for A100 nodes it falls back. Here: flash-attn 2.5.8 with CUDA 11.8, below its CUDA 12.0.
  sc.preflight.matrix->releases[0].cuda_runtime = *tt::preflight::Version::parse("11.8");
  sc.preflight.node_release[3] = sc.preflight.matrix->releases[0].name;
  CHECK(tt::preflight::attention_fallback_nodes(sc.topology, sc.preflight) == std::vector<int>{3});
  CHECK(sc.preflight.attention_fallback_speed == 0.6);
}
