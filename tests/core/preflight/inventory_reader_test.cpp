#include "core/io/inventory_reader.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/core/preflight/preflight_fixture.hpp"

using nlohmann::json;
using tt::InputError;
using tt::testing::inventory_json;
using tt::testing::matrix_json;

namespace {

struct Bad {
  const char* patch;    // RFC 6902
  const char* pointer;  // where the error must point
  const char* expected; // a part of the message
};

template <class Read>
void check_bad(const json& base, const Bad& b, Read read) {
  INFO(b.patch);
  json doc = base.patch(json::parse(b.patch));
  try {
    read(doc);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.file() == "bad.json");
    CHECK(e.pointer() == b.pointer);
    CHECK_THAT(e.expected(), Catch::Contains(b.expected));
  }
}

}  // namespace

TEST_CASE("a valid inventory reads back what it says, absent components as absent", "[unit][preflight]") {
  auto inv = tt::testing::inventory("n1");
  CHECK(inv.host == "n1");
  REQUIRE(inv.gpu);
  CHECK(inv.gpu->count == 8);
  CHECK(inv.gpu->compute_capability->text() == "9.0");
  CHECK(inv.nccl->version.text() == "2.21.5");
  CHECK(inv.memlock.unlimited);
  CHECK(inv.dev_shm.value == 512.0 * (1LL << 30));
  CHECK(inv.clock.max_error->value == Approx(1.5e-3));
  CHECK(inv.network->prefix == 24);
  CHECK(inv.network->speed->value == Approx(100e9 / 8));
  auto bare = tt::testing::inventory(
      "n2", json::parse(R"([{"op": "replace", "path": "/gpu", "value": null},
                            {"op": "replace", "path": "/nccl", "value": null},
                            {"op": "replace", "path": "/driver", "value": null}])"));
  CHECK_FALSE(bare.gpu);
  CHECK_FALSE(bare.nccl);
  CHECK_FALSE(bare.driver);
}

TEST_CASE("an inventory written by to_json reads back equal", "[unit][preflight]") {
  auto inv = tt::testing::inventory("n1");
  auto again = tt::read_inventory(tt::preflight::to_json(inv), "again.json");
  CHECK(tt::preflight::to_json(again) == tt::preflight::to_json(inv));
  CHECK(again.dev_shm.value == inv.dev_shm.value);
  CHECK(again.clock.max_error->value == Approx(inv.clock.max_error->value));
}

TEST_CASE("malformed inventories are refused with the pointer and what was expected", "[unit][preflight]") {
  const Bad cases[] = {
      {R"([{"op": "replace", "path": "/format", "value": "inventory/2"}])", "/format", "traintwin-inventory/1"},
      {R"([{"op": "remove", "path": "/host"}])", "/host", ""},
      {R"([{"op": "replace", "path": "/host", "value": ""}])", "/host", "non-empty"},
      {R"([{"op": "add", "path": "/gpus", "value": 8}])", "/gpus", "did you mean \"gpu\""},
      {R"([{"op": "replace", "path": "/gpu/count", "value": 0}])", "/gpu/count", "an integer >= 1"},
      {R"([{"op": "replace", "path": "/gpu/memory", "value": 80}])", "/gpu/memory", "80GiB"},
      {R"([{"op": "replace", "path": "/gpu/compute_capability", "value": "sm_90"}])", "/gpu/compute_capability",
       "dot-separated numbers"},
      {R"([{"op": "replace", "path": "/driver/version", "value": "535.129.03-1"}])", "/driver/version",
       "dot-separated numbers"},
      {R"([{"op": "remove", "path": "/driver/cuda"}])", "/driver/cuda", ""},
      {R"([{"op": "replace", "path": "/cuda_runtime", "value": 12.4}])", "/cuda_runtime", "a version string"},
      {R"([{"op": "replace", "path": "/nccl/version", "value": ""}])", "/nccl/version", "dot-separated numbers"},
      {R"([{"op": "add", "path": "/nccl/build", "value": "x"}])", "/nccl/build", "a known key"},
      {R"([{"op": "replace", "path": "/attention", "value": "flash-attn 2.5.8"}])", "/attention", "an object"},
      {R"([{"op": "remove", "path": "/framework/version"}])", "/framework/version", ""},
      {R"([{"op": "replace", "path": "/kernel_params/net.core.rmem_max", "value": "64MiB"}])",
       "/kernel_params/net.core.rmem_max", "an integer"},
      {R"([{"op": "add", "path": "/kernel_params/RMEM", "value": 1}])", "/kernel_params/RMEM", "a sysctl name"},
      {R"([{"op": "replace", "path": "/ulimits/nofile", "value": "many"}])", "/ulimits/nofile",
       "an integer or \"unlimited\""},
      {R"([{"op": "replace", "path": "/ulimits/memlock", "value": 65536}])", "/ulimits/memlock", "a size"},
      {R"([{"op": "replace", "path": "/dev_shm", "value": "lots"}])", "/dev_shm", "80GiB"},
      {R"([{"op": "replace", "path": "/clock/synced", "value": "yes"}])", "/clock/synced", "true or false"},
      {R"([{"op": "replace", "path": "/clock/max_error", "value": 5}])", "/clock/max_error", ""},
      {R"([{"op": "replace", "path": "/network/address", "value": "10.0.0.1"}])", "/network/address",
       "prefix length"},
      {R"([{"op": "replace", "path": "/network/address", "value": "10.0.0.1/40"}])", "/network/address",
       "prefix length"},
      {R"([{"op": "replace", "path": "/network/port_range", "value": [60999, 32768]}])", "/network/port_range",
       "low <= high"},
      {R"([{"op": "replace", "path": "/network/speed", "value": "fast"}])", "/network/speed", "400Gbps"},
      {R"([{"op": "remove", "path": "/os/kernel"}])", "/os/kernel", ""},
  };
  for (const auto& b : cases)
    check_bad(inventory_json("n1"), b, [](const json& d) { return tt::read_inventory(d, "bad.json"); });
}

TEST_CASE("malformed matrices are refused with the pointer and what was expected", "[unit][preflight]") {
  const Bad cases[] = {
      {R"([{"op": "replace", "path": "/format", "value": "matrix"}])", "/format", "traintwin-matrix/1"},
      {R"([{"op": "replace", "path": "/current", "value": "2026.12"}])", "/current", "did you mean \"2026.11\""},
      {R"([{"op": "replace", "path": "/releases", "value": []}])", "/releases", ""},
      {R"([{"op": "replace", "path": "/releases/1/name", "value": "2026.08"}])", "/releases/1/name",
       "already /releases/0"},
      {R"([{"op": "replace", "path": "/releases/1/nccl", "value": "2.21.5a"}])", "/releases/1/nccl",
       "dot-separated numbers"},
      {R"([{"op": "remove", "path": "/releases/0/driver"}])", "/releases/0/driver", ""},
      {R"([{"op": "add", "path": "/releases/0/cudnn", "value": "9.1"}])", "/releases/0/cudnn", "a known key"},
      {R"([{"op": "replace", "path": "/node/dev_shm", "value": 64}])", "/node/dev_shm", "80GiB"},
      {R"([{"op": "replace", "path": "/node/clock_max_error", "value": "0s"}])", "/node/clock_max_error",
       "greater than zero"},
      {R"([{"op": "replace", "path": "/node/kernel_params/net.core.rmem_max", "value": -1.5}])",
       "/node/kernel_params/net.core.rmem_max", "an integer"},
      {R"([{"op": "add", "path": "/node/shm", "value": "1GiB"}])", "/node/shm", "a known key"},
  };
  for (const auto& b : cases)
    check_bad(matrix_json(), b, [](const json& d) { return tt::read_matrix(d, "bad.json"); });
  auto m = tt::read_matrix(matrix_json(), "m.json");
  CHECK(m.current_release().nccl.text() == "2.21.5");
  CHECK(m.find("2026.08")->driver.text() == "535.129.03");
}

TEST_CASE("a fleet is files or directories of them, one per host", "[unit][preflight]") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path() / "tt-preflight-fleet-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "more");
  for (const char* host : {"b", "a"}) std::ofstream(dir / (std::string(host) + ".json")) << inventory_json(host);
  std::ofstream(dir / "notes.txt") << "not an inventory";
  auto fleet = tt::read_fleet({dir.string()});
  REQUIRE(fleet.size() == 2);
  CHECK(fleet[0].host == "a");  // name order
  std::ofstream(dir / "more" / "a-again.json") << inventory_json("a");
  try {
    tt::read_fleet({dir.string(), (dir / "more" / "a-again.json").string()});
    FAIL("a host inventoried twice was accepted");
  } catch (const InputError& e) {
    CHECK(e.pointer() == "/host");
    CHECK_THAT(e.expected(), Catch::Contains("a.json"));
  }
  CHECK_THROWS_AS(tt::read_fleet({(dir / "more" / "missing.json").string()}), InputError);
  fs::create_directories(dir / "empty");
  CHECK_THROWS_AS(tt::read_fleet({(dir / "empty").string()}), InputError);
  fs::remove_all(dir);
}
