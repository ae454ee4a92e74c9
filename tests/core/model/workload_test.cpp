#include "core/model/workload.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;
using nlohmann::json;

namespace {

const char* const kDoc = R"({
  "name": "workload", "seed": 11,
  "topology": {"name": "t-32x8", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 32, "gpus_per_node": 8,
               "nic_bandwidth": "400Gbps", "nodes_per_group": 8, "spines": 8, "storage": {"bandwidth": "200GB/s"}},
  "queues": [{"name": "a", "gpu_quota": 192, "cohort": "c"},
             {"name": "b", "gpu_quota": 64, "cohort": "c", "borrowing_limit": 64}],
  "priority_classes": [{"name": "low", "value": 1}, {"name": "high", "value": 50}],
  "workload": {
    "arrivals": {"per_hour": 20, "until": "10d"},
    "sizes": [{"gpus": 8, "weight": 6}, {"gpus": 64, "weight": 3}, {"gpus": 256, "weight": 1}],
    "models": [{"preset": "llama3-8b", "weight": 3}, {"preset": "llama3-70b", "min_gpus": 64}],
    "iterations": {"shape": "lognormal", "median": 1000, "sigma": 0.5},
    "queues": [{"name": "a", "weight": 2}, {"name": "b"}],
    "priority_classes": [{"name": "low", "weight": 3}, {"name": "high"}],
    "checkpoint": {"interval": "1h", "async": true}
  }
})";

json doc() { return parse_json_text(kDoc, "workload.json"); }

std::string error_pointer(const json& d) {
  try {
    read_scenario(d, "bad.json");
  } catch (const InputError& e) {
    return e.pointer();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("workload: the same seed expands to the same jobs, another seed to others", "[unit]") {
  const Scenario a = read_scenario(doc(), "workload.json");
  const Scenario b = read_scenario(doc(), "workload.json");
  json other = doc();
  other["seed"] = 12;
  const Scenario c = read_scenario(other, "workload.json");
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    CHECK(a.jobs[i].name == b.jobs[i].name);
    CHECK(a.jobs[i].submit.value == b.jobs[i].submit.value);
    CHECK(a.jobs[i].gpus == b.jobs[i].gpus);
    CHECK(a.jobs[i].iterations == b.jobs[i].iterations);
    CHECK(a.jobs[i].queue == b.jobs[i].queue);
  }
  bool differs = a.jobs.size() != c.jobs.size();
  for (std::size_t i = 0; !differs && i < a.jobs.size(); ++i)
    differs = a.jobs[i].submit.value != c.jobs[i].submit.value;
  CHECK(differs);
}

TEST_CASE("workload: every generated job is valid for its size, model, queue and class", "[unit]") {
  const Scenario s = read_scenario(doc(), "workload.json");
  REQUIRE(!s.jobs.empty());
  int sizes[3] = {0, 0, 0};
  for (const JobSpec& j : s.jobs) {
    CHECK(j.parallel.world() == j.gpus);
    CHECK(j.model.heads % j.parallel.tp == 0);
    CHECK(j.model.layers % j.parallel.pp == 0);
    CHECK(j.global_batch % j.parallel.dp == 0);
    CHECK(j.parallel.tp <= 8);
    CHECK((j.gpus == 8 || j.gpus == 64 || j.gpus == 256));
    if (j.gpus < 64) CHECK(j.model.name == "llama3-8b");  // 70b only from 64 GPUs
    CHECK((j.queue == "a" || j.queue == "b"));
    if (j.gpus > 128) CHECK(j.queue == "a");  // b holds its 64 plus 64 borrowed at most
    CHECK((j.priority == 1 || j.priority == 50));
    CHECK(j.iterations >= 1);
    REQUIRE(j.checkpoint_interval);
    CHECK(j.checkpoint_interval->value == 3600);
    CHECK(j.submit.value < 10 * 86400);
    sizes[j.gpus == 8 ? 0 : j.gpus == 64 ? 1 : 2]++;
  }
  CHECK(sizes[0] > sizes[1]);
  CHECK(sizes[1] > sizes[2]);
  for (std::size_t i = 1; i < s.jobs.size(); ++i) CHECK(s.jobs[i - 1].submit.value <= s.jobs[i].submit.value);
}

TEST_CASE("workload: arrival counts stay within Poisson bounds, flat and by hour of day", "[unit]") {
  // 20/h over 10 days: mean 4800, standard deviation ~69; 5 sigma is far from flaky and still catches a wrong rate.
  const Scenario flat = read_scenario(doc(), "workload.json");
  CHECK(std::abs(static_cast<double>(flat.jobs.size()) - 4800) < 5 * std::sqrt(4800.0));
  json d = doc();
  json tod = json::array();
  for (int h = 0; h < 24; ++h) tod.push_back(h < 12 ? 2.0 : 0.0);  // only mornings, at twice the rate
  d["workload"]["arrivals"]["time_of_day"] = tod;
  const Scenario mornings = read_scenario(d, "workload.json");
  CHECK(std::abs(static_cast<double>(mornings.jobs.size()) - 4800) < 5 * std::sqrt(4800.0));
  for (const JobSpec& j : mornings.jobs) CHECK(std::fmod(j.submit.value, 86400.0) < 12 * 3600.0);
  d["workload"]["arrivals"]["max_jobs"] = 100;
  CHECK(read_scenario(d, "workload.json").jobs.size() == 100);
}

TEST_CASE("workload: distributions have the documented means", "[unit]") {
  Random rng(5);
  const Distribution shapes[] = {{Distribution::Shape::Fixed, 7, 0},
                                 {Distribution::Shape::Exponential, 3, 0},
                                 {Distribution::Shape::Lognormal, 2, 0.5},
                                 {Distribution::Shape::Uniform, 1, 5}};
  for (const Distribution& d : shapes) {
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) sum += d.sample(rng);
    CHECK(sum / n == Approx(d.mean()).epsilon(0.03));
  }
}

TEST_CASE("workload: durations become iterations at the compute-only rate", "[unit]") {
  json d = doc();
  d["workload"].erase("iterations");
  d["workload"]["duration"] = {{"shape", "fixed"}, {"value", "2h"}};
  d["workload"]["sizes"] = json::array({{{"gpus", 8}}});
  const Scenario s = read_scenario(d, "workload.json");
  REQUIRE(!s.jobs.empty());
  const JobSpec& j = s.jobs.front();
  const double flops = j.model.train_flops_per_token(j.seq_len) * j.seq_len * j.global_batch;
  const double per_iteration = flops / (8 * s.topology.gpu().dense_bf16.value * s.perf.compute_efficiency);
  CHECK(static_cast<double>(j.iterations) * per_iteration == Approx(7200).epsilon(0.01));
}

TEST_CASE("workload: bad input names the JSON pointer", "[unit]") {
  auto with = [](const char* path, json value) {
    json d = doc();
    d[json::json_pointer(path)] = std::move(value);
    return d;
  };
  CHECK(error_pointer(with("/workload/arrivals/per_hour", 0)) == "/workload/arrivals/per_hour");
  CHECK(error_pointer(with("/workload/arrivals/time_of_day", json::array({1, 2}))) == "/workload/arrivals/time_of_day");
  CHECK(error_pointer(with("/workload/sizes/1/gpus", 12)) == "/workload/sizes/1/gpus");   // not whole nodes
  CHECK(error_pointer(with("/workload/sizes/1/gpus", 512)) == "/workload/sizes/1/gpus");  // more than the cluster
  CHECK(error_pointer(with("/workload/models/0/preset", "llama9")) == "/workload/models/0/preset");
  CHECK(error_pointer(with("/workload/queues/1/name", "nope")) == "/workload/queues/1/name");
  CHECK(error_pointer(with("/workload/priority_classes/0/name", "mid")) == "/workload/priority_classes/0/name");
  CHECK(error_pointer(with("/workload/iterations/shape", "gamma")) == "/workload/iterations/shape");
  CHECK(error_pointer(with("/workload/iterations/mean", 5)) == "/workload/iterations/mean");  // not for lognormal
  CHECK(error_pointer(with("/workload/typo", 1)) == "/workload/typo");
  // 8 GPUs only have llama3-8b, which is capped below them: no model for the size.
  CHECK(error_pointer(with("/workload/models/0/min_gpus", 16)) == "/workload/sizes/0/gpus");
  json both = doc();
  both["workload"]["duration"] = {{"shape", "fixed"}, {"value", "1h"}};
  CHECK(error_pointer(both) == "/workload");
}

TEST_CASE("workload: a model that fits no GPU count of the size is never drawn for it", "[unit]") {
  auto p = choose_parallelism(8, *find_model_preset("llama3-405b"), 8, Bytes(80e9));
  CHECK(!p);
  auto q = choose_parallelism(1024, *find_model_preset("gpt3-175b"), 8, Bytes(80e9));
  REQUIRE(q);
  CHECK(q->tp == 8);
  CHECK(q->world() == 1024);
  CHECK(q->pp >= 2);
}
