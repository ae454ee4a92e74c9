// traintwin inventory and preflight end to end: this machine's inventory, copies edited as an operator's fleet would
// drift, the bundled fleet and matrix, JUnit accepted by xmllint, and unreadable input exiting 2 with its pointer.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "core/io/json_reader.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

using nlohmann::json;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace {

void write_json(const std::filesystem::path& p, const json& j) { std::ofstream(p) << j.dump(2) << "\n"; }

// This machine's inventory, as collected.
json this_machine(const std::filesystem::path& dir) {
  auto r = run_cli("inventory --quiet -o " + (dir / "this.json").string());
  REQUIRE(r.exit_code == 0);
  return json::parse(read_file(dir / "this.json"));
}

}  // namespace

TEST_CASE("inventory of this machine is accepted by preflight", "[e2e][preflight]") {
  auto dir = scratch_dir("preflight-this");
  json me = this_machine(dir);
  CHECK(me["format"] == "traintwin-inventory/1");
  CHECK(me["os"]["kernel"].get<std::string>().size() > 0);
  CHECK(me["dev_shm"].is_string());
  CHECK(me.contains("gpu"));   // null where there is no GPU: absent, not guessed
  CHECK(me.contains("nccl"));  // null where libnccl.so.2 does not load
  auto r = run_cli("preflight " + (dir / "this.json").string());
  INFO(r.output);
  CHECK((r.exit_code == 0 || r.exit_code == 1));  // read and judged; 1 only for what this machine really lacks
  if (r.exit_code == 1) CHECK_THAT(r.output, Catch::Contains("BLOCKED"));
}

TEST_CASE("preflight names each difference of edited copies of this machine's inventory", "[e2e][preflight]") {
  auto dir = scratch_dir("preflight-copies");
  json me = this_machine(dir);
  std::filesystem::create_directories(dir / "fleet");
  me["clock"]["synced"] = true;  // the copies stand for a synchronised fleet, whatever this machine's clock says
  if (me["cuda_runtime"].is_null()) me["cuda_runtime"] = "12.4";
  for (int i = 1; i <= 6; ++i) {
    json node = me;
    node["host"] = "node-" + std::to_string(i);
    write_json(dir / "fleet" / ("node-" + std::to_string(i) + ".json"), node);
  }
  auto clean = run_cli("preflight " + (dir / "fleet").string());
  INFO(clean.output);
  REQUIRE(clean.exit_code == 0);
  CHECK_THAT(clean.output, Catch::Contains("group 1: 6 node(s)"));

  auto edit = [&](int i, auto change) {
    json node = json::parse(read_file(dir / "fleet" / ("node-" + std::to_string(i) + ".json")));
    change(node);
    write_json(dir / "fleet" / ("node-" + std::to_string(i) + ".json"), node);
  };
  edit(2, [](json& n) { n["nccl"] = {{"version", "2.18.3"}, {"cuda", "12.2"}}; });
  edit(3, [](json& n) { n["dev_shm"] = "64MiB"; });
  edit(4, [](json& n) { n["clock"]["synced"] = false; });
  edit(5, [](json& n) {
    n["gpu"] = {{"model", "NVIDIA H100 80GB HBM3"}, {"count", 8}, {"memory", "80GiB"}, {"compute_capability", "9.0"}};
    n["driver"] = {{"version", "470.223.02"}, {"cuda", "11.4"}};
  });
  auto r = run_cli("preflight " + (dir / "fleet").string() + " --junit " + (dir / "preflight.xml").string());
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("BLOCKING  nccl on 1 node(s): node-2"));
  CHECK_THAT(r.output, Catch::Contains("found 2.18.3"));
  CHECK_THAT(r.output, Catch::Contains("BLOCKING  dev_shm on 1 node(s): node-3"));
  CHECK_THAT(r.output, Catch::Contains("BLOCKING  clock_synced on 1 node(s): node-4"));
  CHECK_THAT(r.output, Catch::Contains("BLOCKING  rule:cuda-driver-floor on 1 node(s): node-5"));
  CHECK_THAT(r.output, Catch::Contains("cudaErrorInsufficientDriver"));

  auto js = run_cli("preflight --json " + (dir / "fleet").string());
  CHECK(js.exit_code == 1);
  auto j = json::parse(js.output);
  CHECK(j["verdict"] == "blocked");
  std::set<std::string> named;
  for (const auto& d : j["differences"])
    if (d["severity"] == "blocking") named.insert(d["check"].get<std::string>());
  CHECK(named.count("nccl"));
  CHECK(named.count("dev_shm"));
  CHECK(named.count("clock_synced"));
  CHECK(named.count("rule:cuda-driver-floor"));
  CHECK(run_cli("preflight --json " + (dir / "fleet").string()).output == js.output);  // deterministic

  const std::string xml = read_file(dir / "preflight.xml");
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"traintwin.preflight\" name=\"nccl\""));
  CHECK_THAT(xml, Catch::Contains("<failure"));
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) TT_SKIP("xmllint is not installed");
  CHECK(std::system(("xmllint --noout " + (dir / "preflight.xml").string()).c_str()) == 0);
}

TEST_CASE("the bundled fleet is blocked on its old-NCCL nodes, with and without the matrix", "[e2e][preflight]") {
  const std::string src = TT_SOURCE_DIR;
  for (const std::string& matrix : {std::string(""), " --matrix " + src + "/matrices/example.json"}) {
    auto r = run_cli("preflight --json " + src + "/fleets/partial-upgrade" + matrix);
    INFO(r.output);
    REQUIRE(r.exit_code == 1);
    auto j = json::parse(r.output);
    REQUIRE(j["differences"].size() >= 1);
    CHECK(j["differences"][0]["check"] == "nccl");
    CHECK(j["differences"][0]["hosts"] == json({"node-07", "node-08"}));
    CHECK(j["differences"][0]["expected"] == "2.21.5");
  }
}

TEST_CASE("preflight exits 2 on unreadable inventories and matrices, naming file and pointer", "[e2e][preflight]") {
  auto dir = scratch_dir("preflight-bad");
  const std::string src = TT_SOURCE_DIR;
  json node = json::parse(read_file(src + "/fleets/partial-upgrade/node-01.json"));
  node["nccl"]["version"] = "2.21.5-1";
  write_json(dir / "bad-node.json", node);
  auto r = run_cli("preflight " + (dir / "bad-node.json").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("bad-node.json") && Catch::Contains("/nccl/version"));

  json matrix = json::parse(read_file(src + "/matrices/example.json"), nullptr, true, true);
  matrix["current"] = "2027.01";
  write_json(dir / "bad-matrix.json", matrix);
  r = run_cli("preflight " + src + "/fleets/partial-upgrade --matrix " + (dir / "bad-matrix.json").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("bad-matrix.json") && Catch::Contains("/current"));

  std::ofstream(dir / "not-json.json") << "{ \"format\": ";
  CHECK(run_cli("preflight " + (dir / "not-json.json").string()).exit_code == 2);
  CHECK(run_cli("preflight " + (dir / "missing.json").string()).exit_code == 2);
}

TEST_CASE("traintwin real refuses to start workers on a machine that fails the scenario's matrix", "[e2e][preflight]") {
  auto dir = scratch_dir("preflight-real");
  const std::string src = TT_SOURCE_DIR;
  // A matrix no machine runs: NCCL 1.0.0 on CUDA 1.0 (this machine's NCCL, or its absence, differs).
  write_json(dir / "matrix.json",
             {{"format", "traintwin-matrix/1"},
              {"releases", {{{"name", "r1"}, {"driver", "1.0"}, {"cuda_runtime", "1.0"}, {"nccl", "1.0.0"}}}},
              {"current", "r1"},
              {"node", {{"clock_synced", false}}}});
  json sc = tt::load_json_file(src + "/scenarios/real-quickstart.json");
  sc["topology"] = src + "/topologies/explicit-2x2-example.json";
  sc["preflight"] = {{"matrix", "matrix.json"}};
  write_json(dir / "scenario.json", sc);
  auto r = run_cli("real " + (dir / "scenario.json").string() + " --devices cpu:4 --out " + (dir / "out").string());
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("preflight of this machine") && Catch::Contains("nccl") &&
                           Catch::Contains("No worker was started"));
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "report.json"));

  r = run_cli("real " + (dir / "scenario.json").string() + " --devices cpu:4 --time-scale 300 --quiet " +
              "--ignore-preflight --out " + (dir / "out").string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  auto report = json::parse(read_file(dir / "out" / "report.json"));
  CHECK_THAT(report["driver_info"]["preflight"].get<std::string>(),
             Catch::Contains("overridden (--ignore-preflight)") && Catch::Contains("nccl"));
}

TEST_CASE("traintwin real refuses the socket-buffer drill it cannot play, with the pointer", "[e2e][preflight]") {
  const std::string src = TT_SOURCE_DIR;
  const auto dir = std::filesystem::temp_directory_path() / "tt-preflight-socket-real";
  std::filesystem::remove_all(dir);
  auto r = run_cli("real " + src + "/scenarios/drill-socket-buffers.json --devices cpu:32 --ignore-preflight --out " +
                   (dir / "out").string());
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/preflight/transport") && Catch::Contains("cannot throttle a node's NIC"));
  std::filesystem::remove_all(dir);
}
