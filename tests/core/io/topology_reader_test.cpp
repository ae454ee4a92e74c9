#include <catch2/catch.hpp>
#include <filesystem>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;

namespace {

Topology read(const std::string& text) { return read_topology(parse_json_text(text, "t.json"), "t.json", ""); }

// The JSON pointer of the InputError that reading `text` throws ("<none>" when it reads fine).
std::string error_pointer(const std::string& text, std::string* message = nullptr) {
  try {
    read(text);
  } catch (const InputError& e) {
    CHECK(e.file() == "t.json");
    if (message) *message = e.what();
    return e.pointer();
  }
  return "<none>";
}

const char* kRail = R"({"name": "r", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 16, "gpus_per_node": 8,
  "nic_bandwidth": "400Gbps", "nodes_per_group": 8, "spines": 8, "oversubscription": 1,
  "storage": {"bandwidth": "200GB/s"}})";

// kRail with `key` set to `value` (raw JSON), or removed when value is empty.
std::string rail_with(const std::string& key, const std::string& value) {
  auto doc = nlohmann::json::parse(kRail);
  if (value.empty())
    doc.erase(key);
  else
    doc[key] = nlohmann::json::parse(value);
  return doc.dump();
}

const char* kExplicit = R"({"name": "x", "generator": "explicit", "gpu": "A100-SXM", "gpus_per_node": 2,
  "nodes": [{"name": "a0", "group": 0}, {"name": "a1", "group": 1}],
  "switches": [{"name": "leaf0", "kind": "leaf", "group": 0}, {"name": "leaf1", "kind": "leaf", "group": 1},
               {"name": "spine0", "kind": "spine"}],
  "links": [{"from": "a0/gpu0", "to": "leaf0", "bandwidth": "200Gbps"},
            {"from": "a1/gpu0", "to": "leaf1", "bandwidth": "200Gbps", "latency": "3us"},
            {"from": "leaf0", "to": "spine0", "bandwidth": "400Gbps"},
            {"name": "up1", "from": "leaf1", "to": "spine0", "bandwidth": "400Gbps"}],
  "storage": {"bandwidth": "100GB/s", "attach": "spine0"}})";

std::string explicit_with(const std::string& pointer, const std::string& value) {
  auto doc = nlohmann::json::parse(kExplicit);
  doc[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
  return doc.dump();
}

}  // namespace

TEST_CASE("topology reader: generator forms", "[unit]") {
  Topology t = read(kRail);
  CHECK(t.name() == "r");
  CHECK(t.generator() == "rail-optimized");
  CHECK(t.gpu().name == "H100-SXM");
  CHECK(t.total_gpus() == 128);
  CHECK(t.switch_count(VertexKind::Spine) == 8);
  CHECK(t.bisection_bandwidth().value == Approx(3.2e12));

  Topology defaults = read(rail_with("spines", "") /* derived */);
  CHECK(defaults.switch_count(VertexKind::Spine) == 8);
  CHECK(defaults.link(0).latency.value == Approx(0.5e-6));
  CHECK(defaults.link(defaults.find_link("n0/gpu0~leaf-g0-r0")).latency.value == Approx(1e-6));

  Topology slow = read(rail_with("link_latency", R"("5us")"));
  CHECK(slow.link(slow.find_link("leaf-g0-r0~spine0")).latency.value == Approx(5e-6));

  Topology single = read(R"({"name": "s", "generator": "single-node", "gpu": "B200", "gpus": 4,
                            "storage": {"bandwidth": "10GB/s"}})");
  CHECK(single.total_gpus() == 4);
  CHECK(single.storage_bandwidth().value == Approx(10e9));

  Topology racks = read(R"({"name": "l", "generator": "leaf-spine", "gpu": "H200", "nodes": 12, "gpus_per_node": 8,
                           "nic_bandwidth": "200Gbps", "storage": {"bandwidth": "10GB/s"}})");
  CHECK(racks.groups() == 3);  // nodes_per_group defaults to 4 for leaf-spine
  CHECK(racks.switch_count(VertexKind::Spine) == 8);
}

TEST_CASE("topology reader: rack-scale NVLink (GB200 NVL72) and its limits", "[unit]") {
  const char* nvl72 = R"({"name": "nvl", "generator": "nvlink-rack", "gpu": "GB200", "racks": 8, "nic_bandwidth":
    "800Gbps", "racks_per_group": 4, "storage": {"bandwidth": "400GB/s"}})";
  Topology t = read(nvl72);
  CHECK(t.generator() == "nvlink-rack");
  CHECK(t.gpus_per_node() == 72);  // 18 trays x 4 GPUs by default: one NVLink domain per rack
  CHECK(t.nodes().size() == 8);
  CHECK(t.groups() == 2);
  CHECK(t.switch_count(VertexKind::Leaf) == 2 * 72);  // one leaf per GPU rail and group
  CHECK(t.find_link("n7/gpu71~leaf-g1-r71") >= 0);
  auto doc = nlohmann::json::parse(nvl72);
  doc["trays_per_rack"] = 37;
  doc["gpus_per_tray"] = 16;
  std::string msg;
  CHECK(error_pointer(doc.dump(), &msg) == "/gpus_per_tray");
  CHECK_THAT(msg, Catch::Contains("at most 576 GPUs in one NVLink domain") && Catch::Contains("found 37 x 16"));
  doc.erase("gpus_per_tray");
  doc["trays_per_rack"] = 144;  // 144 x 4 = 576: the limit itself
  // ... but one spine per rail (576) would join 2 x 576 leaves to 576 spines: 663,552 links, over the fabric's bound
  CHECK(error_pointer(doc.dump(), &msg) == "/trays_per_rack");
  CHECK_THAT(msg, Catch::Contains("found 1152 leaves x 576 spines") && Catch::Contains("set \"spines\" lower"));
  doc["spines"] = 64;
  CHECK(read(doc.dump()).gpus_per_node() == 576);
  CHECK(error_pointer(R"({"name": "g", "generator": "nvl72", "gpu": "GB200", "storage": {"bandwidth": "1GB/s"}})",
                      &msg) == "/generator");
  CHECK_THAT(msg, Catch::Contains("\"nvlink-rack\""));
}

TEST_CASE("topology reader: explicit form", "[unit]") {
  Topology t = read(kExplicit);
  CHECK(t.generator() == "explicit");
  CHECK(t.nodes().size() == 2);
  CHECK(t.groups() == 2);
  CHECK(t.switch_count(VertexKind::Leaf) == 2);
  CHECK(t.switch_count(VertexKind::Spine) == 1);
  int nic = t.find_link("a0/gpu0~leaf0");
  REQUIRE(nic >= 0);
  CHECK(t.link(nic).kind == LinkKind::Nic);
  CHECK(t.link(nic).latency.value == Approx(1e-6));
  CHECK(t.link(t.find_link("a1/gpu0~leaf1")).latency.value == Approx(3e-6));
  CHECK(t.link(t.find_link("up1")).kind == LinkKind::Fabric);
  CHECK(t.find_link("spine0~storage") >= 0);
  CHECK(t.storage_bandwidth().value == Approx(100e9));
  CHECK(t.graph()[t.find_vertex("leaf1")].group == 1);
  CHECK(t.graph()[t.find_vertex("spine0")].group == -1);
  // a1/gpu1 reaches the fabric only through its NVSwitch and a1/gpu0.
  Path p = t.path(t.gpu_vertex(0, 1), t.gpu_vertex(1, 1));
  CHECK(p.size() == 8);
  CHECK(t.bisection_bandwidth().value == Approx(25e9));
}

TEST_CASE("topology reader: malformed generator documents name the JSON pointer", "[unit]") {
  std::string msg;
  CHECK(error_pointer(rail_with("nodez", "16")) == "/nodez");  // unknown key
  CHECK(error_pointer(rail_with("gpu", R"("H900")"), &msg) == "/gpu");
  CHECK_THAT(msg, Catch::Contains("H100-SXM") && Catch::Contains("H900"));
  CHECK(error_pointer(rail_with("generator", R"("fat-tree")"), &msg) == "/generator");
  CHECK_THAT(msg, Catch::Contains("rail-optimized"));
  CHECK(error_pointer(rail_with("nic_bandwidth", R"("0Gbps")")) == "/nic_bandwidth");
  CHECK(error_pointer(rail_with("nic_bandwidth", R"("-400Gbps")")) == "/nic_bandwidth");
  CHECK(error_pointer(rail_with("nic_bandwidth", "400")) == "/nic_bandwidth");  // units required
  CHECK(error_pointer(rail_with("oversubscription", "0.5")) == "/oversubscription");
  CHECK(error_pointer(rail_with("nodes", "0")) == "/nodes");
  CHECK(error_pointer(rail_with("nodes", "2.5")) == "/nodes");
  CHECK(error_pointer(rail_with("gpus_per_node", "")) == "/gpus_per_node");  // missing
  CHECK(error_pointer(rail_with("storage", "")) == "/storage");
  CHECK(error_pointer(rail_with("storage", R"({"bandwidth": "1GB/s", "bw": 1})")) == "/storage/bw");
  CHECK(error_pointer(rail_with("storage", R"({"bandwidth": "-1GB/s"})")) == "/storage/bandwidth");
  CHECK(error_pointer(rail_with("nodes_per_group", "16"), &msg) == "/spines");  // one group: no spine layer
  // The leaf-to-spine links are bounded (262,144): 16 groups x 8 rails x 4096 spines is 524,288.
  auto many_groups = nlohmann::json::parse(rail_with("nodes_per_group", "1"));
  many_groups["spines"] = 4096;
  CHECK(error_pointer(many_groups.dump(), &msg) == "/spines");
  CHECK_THAT(msg, Catch::Contains("128 leaves x 4096 spines"));
  many_groups["spines"] = 2048;  // 262,144: at the bound
  CHECK(read(many_groups.dump()).switch_count(VertexKind::Spine) == 2048);
  CHECK(error_pointer(R"({"name": "s", "generator": "single-node", "gpu": "B200", "gpus": 4, "nodes": 1,
                         "storage": {"bandwidth": "10GB/s"}})") == "/nodes");
  CHECK(error_pointer(R"([1, 2])") == "");
}

TEST_CASE("topology reader: malformed explicit documents name the JSON pointer", "[unit]") {
  std::string msg;
  CHECK(error_pointer(explicit_with("/links/1/to", R"("leaf9")"), &msg) == "/links/1/to");
  CHECK_THAT(msg, Catch::Contains("leaf9"));
  CHECK(error_pointer(explicit_with("/links/0/from", R"("a0/gpu2")")) == "/links/0/from");
  CHECK(error_pointer(explicit_with("/links/2/to", R"("leaf0")")) == "/links/2/to");  // a self loop
  CHECK(error_pointer(explicit_with("/links/3/name", R"("leaf0~spine0")")) == "/links/3/name");
  CHECK(error_pointer(explicit_with("/links/3/name", R"(7)")) == "/links/3/name");
  CHECK(error_pointer(explicit_with("/links/3/bandwidth", R"("0Gbps")")) == "/links/3/bandwidth");
  CHECK(error_pointer(explicit_with("/nodes/1/name", R"("a0")")) == "/nodes/1/name");
  CHECK(error_pointer(explicit_with("/nodes/1/name", R"("a/1")")) == "/nodes/1/name");
  CHECK(error_pointer(explicit_with("/nodes/1/group", "5")) == "/nodes/1/group");
  CHECK(error_pointer(explicit_with("/switches/2/kind", R"("core")")) == "/switches/2/kind");
  CHECK(error_pointer(explicit_with("/switches/2/name", R"("a1")")) == "/switches/2/name");
  CHECK(error_pointer(explicit_with("/storage/attach", R"("nowhere")")) == "/storage/attach");
  CHECK(error_pointer(explicit_with("/storage/attach", R"(["spine0", "a0/gpu0"])")) == "/storage/attach/1");
  // Without the leaf1 uplink, a1 is cut off.
  auto doc = nlohmann::json::parse(kExplicit);
  doc["links"].erase(3);
  CHECK(error_pointer(doc.dump(), &msg) == "/links");
  CHECK_THAT(msg, Catch::Contains("a1"));
}

TEST_CASE("topology reader: errors inside a scenario carry the scenario's pointer", "[unit]") {
  auto doc = nlohmann::json::parse(rail_with("gpu", R"("V100")"));
  try {
    read_topology(doc, "scenario.json", "/topology");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file() == "scenario.json");
    CHECK(e.pointer() == "/topology/gpu");
  }
}

TEST_CASE("every bundled topology loads", "[unit]") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TT_SOURCE_DIR) + "/topologies")) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path().string());
    Topology t = read_topology_file(entry.path().string());
    CHECK(t.name() == entry.path().stem().string());
    CHECK(t.total_gpus() > 0);
    CHECK(t.has_storage());
    CHECK(t.bisection_bandwidth().value > 0);
    ++files;
  }
  CHECK(files >= 5);
  Topology rail = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-16x8-h100.json");
  CHECK(rail.bisection_bandwidth().value == Approx(16 * 8 * 50e9 / 2));
  CHECK(rail.storage_bandwidth().value == Approx(200e9));
  Topology fleet = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-512x8-h100.json");
  CHECK(fleet.total_gpus() == 4096);
  CHECK(fleet.bisection_bandwidth().value == Approx(512 * 8 * 50e9 / 2));
  Topology racks = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/leaf-spine-32x8-h200-2to1.json");
  CHECK(racks.bisection_bandwidth().value == Approx(32 * 8 * 50e9 / 2 / 2));
}
