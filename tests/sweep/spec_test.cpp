// Sweep specs: the grid, ranges, figures from a report, the Student t interval, and bad specs named by pointer.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "core/io/input_error.hpp"
#include "core/sweep/interval.hpp"
#include "core/sweep/sweep_spec.hpp"

using namespace tt;
using namespace tt::sweep;
using nlohmann::json;

namespace {

const std::string kFile = std::string(TT_SOURCE_DIR) + "/tests/data/sweep/inline.json";

json spec_with(json patch) {
  json s = {{"name", "t"},
            {"base", "small-base.json"},
            {"parameters", json::array({{{"pointer", "/topology/nodes"}, {"values", {16, 24}}}})},
            {"seeds", 2},
            {"figures", json::array({{{"name", "wait_p95"}, {"jobs", "wait_s"}, {"stat", "p95"}}})}};
  s.merge_patch(patch);
  return s;
}

std::string error_of(const json& doc) {
  try {
    (void)read_sweep_spec(doc, kFile);
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.expected();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a sweep spec expands into its grid, ranges included [unit]") {
  json doc = spec_with({{"parameters",
                         json::array({{{"pointer", "/topology/nodes"}, {"range", {{"from", 16}, {"to", 32}, {"step", 8}}}},
                                      {{"pointer", "/workload/checkpoint/interval"}, {"label", "ckpt"},
                                       {"range", {{"from", "30m"}, {"to", "1h30m"}, {"step", "30m"}}}},
                                      {{"pointer", "/workload/arrivals/per_hour"}, {"values", {2.5}}}})},
                        {"seeds", json::array({7, 9})}});
  // The base has no checkpoint section: a pointer must name an existing value.
  CHECK(error_of(doc) == "/parameters/1/pointer: a pointer to a value of the base scenario " + std::string(TT_SOURCE_DIR) +
                             "/tests/data/sweep/small-base.json (topology file inlined); \"/workload/checkpoint/interval\" "
                             "is not there");
  doc["parameters"][1]["pointer"] = "/sim/horizon";
  const SweepSpec s = read_sweep_spec(doc, kFile);
  REQUIRE(s.parameters.size() == 3);
  CHECK(s.parameters[0].values == std::vector<json>{16, 24, 32});
  CHECK(s.parameters[1].values == std::vector<json>{"1800s", "3600s", "5400s"});
  CHECK(s.seeds == std::vector<std::uint64_t>{7, 9});
  const auto points = grid(s);
  REQUIRE(points.size() == 9);
  CHECK(point_label(s, points[4]) == "nodes=24 ckpt=3600s per_hour=2.5");
  const json scenario = point_scenario(s, points[4]);
  CHECK(scenario["topology"]["nodes"] == 24);  // the topology file inlined, then set
  CHECK(scenario["sim"]["horizon"] == "3600s");
}

TEST_CASE("bad sweep specs are named by their pointer [unit]") {
  CHECK(error_of(spec_with({{"base", "missing.json"}})).starts_with("/base: a scenario file relative to"));
  CHECK(error_of(spec_with({{"seeds", 0}})) == "/seeds: an integer >= 1, found 0");
  CHECK(error_of(spec_with({{"figurs", 1}})).starts_with("/figurs: a known key; \"figurs\" is not one (did you mean"));
  CHECK(error_of(spec_with({{"parameters", json::array({{{"pointer", "topology"}, {"values", {1}}}})}})) ==
        "/parameters/0/pointer: a JSON pointer starting with \"/\" (\"/topology/nodes\"), found \"topology\"");
  CHECK(error_of(spec_with({{"parameters", json::array({{{"pointer", "/seed"}}})}})) ==
        "/parameters/0: exactly one of \"values\", \"range\" or \"cases\"");
  CHECK(error_of(spec_with({{"parameters", json::array({{{"pointer", "/seed"},
                                                         {"range", {{"from", 3}, {"to", 1}, {"step", 1}}}}})}})) ==
        "/parameters/0/range/to: a value >= \"from\"");
  CHECK(error_of(spec_with({{"figures", json::array({{{"name", "x"}, {"metric", "job.ettr"}}})}})) ==
        "/figures/0/job: a value for required key \"job\"");
  CHECK(error_of(spec_with({{"figures", json::array({{{"name", "x"}, {"metric", "cluster.goodput"}, {"job", "a"}}})}}))
            .starts_with("/figures/0/job: no job"));
  CHECK(error_of(spec_with({{"figures", json::array({{{"name", "x"}, {"jobs", "wait_s"}, {"stat", "p0"}}})}}))
            .starts_with("/figures/0/stat: one of mean"));
  CHECK(error_of(spec_with({{"figures", json::array({{{"name", "x"}, {"metric", "cluster.goodpt"}}})}}))
            .find("(did you mean \"cluster.goodput\"?)") != std::string::npos);
  // A value the scenario refuses: 4 nodes of 8 GPUs cannot hold the workload's... a 3-node rail fabric is invalid.
  CHECK(error_of(spec_with({{"parameters", json::array({{{"pointer", "/topology/nodes"}, {"values", {16, 0}}}})}}))
            .starts_with("/parameters: values that make a valid scenario; the point nodes=0 does not:"));
}

TEST_CASE("cases: named points that each set several values, a new key included [unit]") {
  const json cases = {{"label", "setting"},
                      {"cases", json::array({{{"name", "base"}, {"set", json::object()}},
                                             {{"name", "big-fifo"},
                                              {"set", {{"/topology/nodes", 24}, {"/scheduler/backfill", "none"}}}},
                                             {{"name", "with-checks"},
                                              {"set", {{"/checks", json::array({{{"metric", "cluster.unfinished_jobs"},
                                                                                 {"op", "=="},
                                                                                 {"value", 0}}})}}}}})}};
  const SweepSpec s = read_sweep_spec(
      spec_with({{"parameters", json::array({cases, {{"pointer", "/sim/horizon"}, {"values", {"10d", "20d"}}}})}}),
      kFile);
  REQUIRE(s.parameters[0].cases());
  CHECK(s.parameters[0].values == std::vector<json>{"base", "big-fifo", "with-checks"});
  const auto points = grid(s);
  REQUIRE(points.size() == 6);
  CHECK(point_label(s, points[3]) == "setting=big-fifo horizon=20d");
  const json base = point_scenario(s, points[0]);
  CHECK(base["topology"].is_string());  // nothing set: the base as written
  CHECK(base["sim"]["horizon"] == "10d");
  const json big = point_scenario(s, points[3]);
  CHECK(big["topology"]["nodes"] == 24);  // the topology file inlined, then set
  CHECK(big["scheduler"]["backfill"] == "none");
  CHECK(big["sim"]["horizon"] == "20d");
  CHECK(!big.contains("checks"));
  CHECK(point_scenario(s, points[4])["checks"].size() == 1);  // a key the base lacks, added
  // A section added and a value inside it set, written in either order: the section first (pointers in sorted order).
  const json nested = {{"cases", json::array({{{"name", "n"},
                                               {"set", {{"/recovery/max_restarts", 5},
                                                        {"/recovery", {{"detection_timeout", "60s"}}}}}}})}};
  const SweepSpec ns = read_sweep_spec(spec_with({{"parameters", json::array({nested})}}), kFile);
  CHECK(point_scenario(ns, grid(ns)[0])["recovery"] == json({{"detection_timeout", "60s"}, {"max_restarts", 5}}));

  auto bad = [&](json c) { return error_of(spec_with({{"parameters", json::array({c})}})); };
  CHECK(bad({{"cases", json::array({{{"name", "a"}, {"set", {{"/x/y", 1}}}}})}}) ==
        "/parameters/0/cases/0/set/~1x~1y: a pointer to a value of the base scenario " + std::string(TT_SOURCE_DIR) +
            "/tests/data/sweep/small-base.json, or to a new key of an object in it; \"/x/y\" is neither");
  CHECK(bad({{"cases", json::array({{{"name", "a"}, {"set", {{"seed", 1}}}}})}}) ==
        "/parameters/0/cases/0/set/seed: a JSON pointer starting with \"/\" (\"/topology/nodes\"), found \"seed\"");
  const json same_name = {{"name", "a"}, {"set", json::object()}};
  CHECK(bad({{"cases", json::array({same_name, same_name})}}) ==
        "/parameters/0/cases/1/name: a case name of its own; \"a\" is taken");
  CHECK(bad({{"cases", json::array({{{"name", "a"}, {"set", 3}}})}}) ==
        "/parameters/0/cases/0/set: an object of JSON pointers and the values they set, found 3");
  CHECK(bad({{"pointer", "/seed"}, {"cases", json::array({{{"name", "a"}, {"set", json::object()}}})}}) ==
        "/parameters/0/pointer: no \"pointer\" beside \"cases\" (each case sets its pointers)");
  CHECK(bad({{"cases", json::array({{{"name", "a"}, {"set", {{"/topology/nodes", 0}}}}})}})
            .starts_with("/parameters: values that make a valid scenario; the point case=a does not:"));
}

TEST_CASE("figures come from check metrics, report pointers and job statistics [unit]") {
  const json report = {{"cluster", {{"goodput", 0.5}}},
                       {"jobs", json::array({{{"queue", "a"}, {"wait_s", 10.0}},
                                             {{"queue", "a"}, {"wait_s", 20.0}},
                                             {{"queue", "b"}, {"wait_s", 40.0}},
                                             {{"queue", "b"}, {"wait_s", 30.0}}})}};
  Figure f;
  f.source = Figure::Source::Report;
  f.pointer = "/cluster/goodput";
  CHECK(figure_value(f, report, std::nullopt) == 0.5);
  f.pointer = "/cluster/nothing";
  CHECK_FALSE(figure_value(f, report, std::nullopt));
  f.source = Figure::Source::Jobs;
  f.field = "wait_s";
  f.stat = "p50";
  CHECK(*figure_value(f, report, std::nullopt) == Approx(25));  // type 7: halfway between 20 and 30
  f.stat = "p95";
  CHECK(*figure_value(f, report, std::nullopt) == Approx(38.5));
  f.stat = "mean";
  f.queue = "b";
  CHECK(*figure_value(f, report, std::nullopt) == Approx(35));
  f.source = Figure::Source::Metric;
  CHECK(figure_value(f, report, 0.25) == 0.25);
}

TEST_CASE("the interval is Student's t on the mean [unit]") {
  // n = 5, mean 10, sd = sqrt(2.5); t(0.975, 4) = 2.7764451...
  const auto i = mean_interval({8, 9, 10, 11, 12}, 0.95);
  REQUIRE(i);
  CHECK(i->n == 5);
  CHECK(i->mean == Approx(10));
  CHECK(i->sd == Approx(std::sqrt(2.5)));
  CHECK(i->high - i->mean == Approx(2.7764451052 * std::sqrt(2.5) / std::sqrt(5.0)).epsilon(1e-9));
  const auto one = mean_interval({3}, 0.95);
  CHECK(one->n == 1);
  CHECK_FALSE(one->has_interval());
  CHECK_FALSE(mean_interval({}, 0.95));
}

TEST_CASE("the bundled sweeps are valid, every point included [unit]") {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(TT_SOURCE_DIR) + "/sweeps")) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path());
    const SweepSpec s = read_sweep_spec(e.path().string());
    CHECK(grid(s).size() >= 2);  // a comparison (owned vs hybrid) has two points; the sizing sweeps have more
    ++n;
  }
  CHECK(n >= 4);
}
