// The base scenario the reader tests patch (RFC 6902 JSON patches), and the check that a patched scenario fails with
// the expected JSON pointer and message.
#pragma once

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

namespace tt::testing {

using nlohmann::json;

// 16 nodes of 8 GPUs in two rail-optimized groups: enough for every job below, small enough to read.
inline json test_topology() {
  return json::parse(R"({"name": "test-16x8", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 16,
                         "gpus_per_node": 8, "nic_bandwidth": "400Gbps", "nodes_per_group": 8, "spines": 8,
                         "storage": {"bandwidth": "200GB/s"}})");
}
inline const char* const kLink = "n5/gpu0~leaf-g0-r0";

inline const char* const kBase = R"({
  // comments are allowed
  "name": "base", "description": "a valid scenario the bad cases are made from", "seed": 7,
  "topology": null,
  "queues": [{"name": "research", "gpu_quota": 64}, {"name": "prod", "gpu_quota": 128}],
  "jobs": [
    {"name": "pretrain-70b", "queue": "research", "priority": 10, "submit": "0s", "gpus": 64, "model": "llama3-70b",
     "parallel": {"tp": 8, "pp": 4, "dp": 2}, "iterations": 2000, "global_batch": 512, "seq_len": 8192,
     "checkpoint": {"interval": "30m"}},
    {"name": "finetune-8b", "queue": "prod", "gpus": 8, "model": "llama3-8b", "parallel": {"tp": 8},
     "iterations": 100, "global_batch": 64, "seq_len": 4096}
  ],
  "faults": [{"kind": "node_crash", "at": "2h", "node": "n3", "repair": "4h"},
             {"kind": "link_down", "at": "1h", "link": null, "repair": "10m"}],
  "checks": [{"metric": "job.end", "job": "pretrain-70b", "op": "<=", "value": "6h"},
             {"metric": "cluster.goodput", "op": ">=", "value": 0.5}]
})";

inline json base() {
  json doc = parse_json_text(kBase, "base.json");
  doc["topology"] = test_topology();
  doc["faults"][1]["link"] = kLink;
  return doc;
}

// The base scenario with an RFC 6902 patch applied.
inline json patched(const char* patch) { return base().patch(json::parse(patch)); }

inline std::optional<InputError> error_of(const json& doc) {
  try {
    read_scenario(doc, "bad.json");
  } catch (const InputError& e) {
    return e;
  }
  return std::nullopt;
}

struct BadCase {
  const char* what;
  const char* patch;
  const char* pointer;   // exactly where the error must point
  const char* expected;  // a phrase the message must contain
};

inline void check_bad_cases(const std::vector<BadCase>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.what) {
      auto e = error_of(patched(c.patch));
      REQUIRE(e);
      CHECK(e->file() == "bad.json");
      CHECK(e->pointer() == c.pointer);
      CHECK_THAT(e->expected(), Catch::Contains(c.expected));
      CHECK_THAT(std::string(e->what()), Catch::Contains(std::string("bad.json: at ") + c.pointer));
    }
  }
}

}  // namespace tt::testing
