#include "core/preflight/twin.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>

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

TEST_CASE("twin preflight: small socket buffers cap a node's network only with the socket transport",
          "[unit][preflight]") {
  const std::string drill = std::string(TT_SOURCE_DIR) + "/scenarios/drill-socket-buffers.json";
  auto sc = tt::read_scenario_file(drill);
  REQUIRE(sc.preflight.transport == tt::preflight::NetTransport::Socket);
  auto limits = tt::preflight::socket_limits(sc.topology, sc.preflight);
  REQUIRE(limits.size() == 1);
  CHECK(limits[0].node == 3);
  CHECK(limits[0].buffer.value == 212992);  // rmem_max of n3; wmem_max stays the matrix's 16 MiB
  CHECK(limits[0].rtt.value == Approx(50e-6));
  CHECK(limits[0].nic.value == Approx(100e9 / 8));
  // 2 streams x half of 212992 B per 50 us = 4.26 GB/s of 12.5 GB/s.
  CHECK(limits[0].efficiency == Approx(2 * 0.5 * 212992 / 50e-6 / 12.5e9));
  // The verdict names the difference on n3 alone, as a warning (gating leaves n3 in service).
  const auto verdict = tt::preflight::judge_nodes(sc.topology, sc.preflight);
  bool found = false;
  for (const auto& d : verdict.differences)
    if (d.check == "kernel_params/net.core.rmem_max") {
      found = true;
      CHECK(d.hosts == std::vector<std::string>{"n3"});
      CHECK(d.severity == tt::preflight::Severity::Warning);
    }
  CHECK(found);
  CHECK(tt::preflight::blocked_nodes(sc.topology, sc.preflight).empty());

  auto with = sc.preflight;
  with.socket_streams = 8;  // 8 streams carry 17 GB/s: above the NIC, no cap
  CHECK(tt::preflight::socket_limits(sc.topology, with).empty());
  with = sc.preflight;
  with.transport = tt::preflight::NetTransport::Rdma;  // verbs bypass the TCP buffers
  CHECK(tt::preflight::socket_limits(sc.topology, with).empty());
  with = sc.preflight;
  with.socket_rtt.reset();  // the topology's own round trip: 2 x (two 1 us NIC cables) = 4 us, buffers suffice
  CHECK(tt::preflight::socket_limits(sc.topology, with).empty());
  with = sc.preflight;
  with.node_settings[3].kernel_params["net.core.wmem_max"] = 65536;  // the smaller of the two counts
  limits = tt::preflight::socket_limits(sc.topology, with);
  REQUIRE(limits.size() == 1);
  CHECK(limits[0].buffer.value == 65536);
}

TEST_CASE("twin preflight: a bad node setting or socket constant exits 2 with its pointer", "[unit][preflight]") {
  const std::string drill = std::string(TT_SOURCE_DIR) + "/scenarios/drill-socket-buffers.json";
  auto expect = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& pointer,
                    const std::string& text) {
    auto doc = tt::load_json_file(drill);
    edit(doc["preflight"]);
    INFO(doc["preflight"].dump());
    try {
      tt::read_scenario(doc, drill);
      FAIL("accepted");
    } catch (const tt::InputError& e) {
      CHECK(e.pointer() == pointer);
      CHECK_THAT(e.expected(), Catch::Contains(text));
    }
  };
  expect([](auto& p) { p["nodes"] = {{"n9", {{"dev_shm", "1GiB"}}}}; }, "/preflight/nodes/n9",
         "the name of a node of the topology");
  expect([](auto& p) { p["nodes"]["n3"]["kernel_parms"] = {{"net.core.rmem_max", 1}}; },
         "/preflight/nodes/n3/kernel_parms", "allowed here");
  expect([](auto& p) { p["nodes"]["n3"]["kernel_params"]["net.core.rmem_max"] = "208KiB"; },
         "/preflight/nodes/n3/kernel_params/net.core.rmem_max", "an integer");
  expect([](auto& p) { p["nodes"]["n3"] = {{"dev_shm", 64}}; }, "/preflight/nodes/n3/dev_shm", "");
  expect([](auto& p) { p["transport"] = "tcp"; }, "/preflight/transport", "rdma");
  expect([](auto& p) { p["socket_streams"] = 0; }, "/preflight/socket_streams", "");
  expect([](auto& p) { p["socket_window_share"] = 1.5; }, "/preflight/socket_window_share", "");
  expect([](auto& p) { p["socket_rtt"] = "-5us"; }, "/preflight/socket_rtt", "");
}
