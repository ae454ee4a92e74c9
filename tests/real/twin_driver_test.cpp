// real::run_twin: the real driver's drive loop with the workers replaced by the CPU twin. With a twin whose every phase
// is a constant, each job's times follow by hand.
#include "real/twin_driver.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/control/controller.hpp"
#include "core/io/input_error.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;
using nlohmann::json;

namespace {

// Constant phases (real seconds): compute 1 ms, all-reduce 100 us per ring step (2 steps for two ranks), update 0.1 ms,
// a checkpoint write 2 ms, startup 50 ms. The shapes "fitted" span every two-rank shape and its sizes: the first term
// at what two ranks give it (1, or 2 ring steps), each other term from 0 to 1e12.
CpuTwin constant_twin() {
  auto model = [](RunPhase p, std::vector<double> coefficients) {
    PhaseModel m;
    m.phase = p;
    m.coefficients = coefficients;
    m.features.assign(coefficients.size(), "term");
    std::vector<double> base(coefficients.size(), 0.0);
    base[0] = p == RunPhase::AllReduce ? 2 : 1;
    m.shapes.push_back(base);
    for (std::size_t i = 1; i < coefficients.size(); ++i) {
      std::vector<double> row = base;
      row[i] = 1e12;
      m.shapes.push_back(row);
    }
    if (p == RunPhase::Startup) m.shapes[1][1] = 2;  // ranks: 1 to 2
    m.samples = 10;
    return m;
  };
  CpuTwin t;
  t.compute = model(RunPhase::Compute, {1e-3, 0, 0});
  t.allreduce = model(RunPhase::AllReduce, {1e-4, 0});
  t.update = model(RunPhase::Update, {1e-4, 0});
  t.checkpoint = model(RunPhase::Checkpoint, {2e-3, 0});
  t.startup = model(RunPhase::Startup, {5e-2, 0});
  return t;
}

// Two 2-GPU jobs of 20 iterations, a checkpoint every 10, one after the other (the queue holds 2 GPUs). llama3-8b at
// 8 x 4096 tokens is planned at ~6.4 s an iteration: its pace at time scale 100000 (64 us) is below the 1.3 ms of work.
json scenario_doc() {
  json jobs = json::array();
  for (const char* name : {"first", "second"})
    jobs.push_back({{"name", name},
                    {"queue", "q"},
                    {"priority", name == std::string("first") ? 2 : 1},
                    {"submit", "0s"},
                    {"gpus", 2},
                    {"model", "llama3-8b"},
                    {"parallel", {{"tp", 1}, {"pp", 1}, {"dp", 2}}},
                    {"iterations", 20},
                    {"global_batch", 8},
                    {"seq_len", 4096},
                    {"checkpoint", {{"every", 10}}}});
  return {{"name", "twin"},
          {"seed", 3},
          {"topology", std::string(TT_SOURCE_DIR) + "/topologies/explicit-2x2-example.json"},
          {"queues", json::array({{{"name", "q"}, {"gpu_quota", 2}}})},
          {"jobs", jobs},
          {"recovery", {{"detection_timeout", "30s"}, {"restart_overhead", "1m"}, {"max_restarts", 3}}}};
}

struct TwinRun {
  std::unique_ptr<Scenario> scenario;
  std::unique_ptr<Controller> controller;
  real::RunStats stats;
};

TwinRun run(const json& doc, const CpuTwin& twin) {
  TwinRun r;
  r.scenario = std::make_unique<Scenario>(read_scenario(doc, "twin.json"));
  r.controller = std::make_unique<Controller>(*r.scenario);
  real::Options opt;
  opt.devices = 4;
  opt.time_scale = 1e5;
  r.stats = real::run_twin(*r.scenario, *r.controller, opt, twin, "constant twin");
  return r;
}

}  // namespace

TEST_CASE("twin driver: each job starts, iterates and checkpoints at the twin's times", "[unit][real]") {
  const TwinRun r = run(scenario_doc(), constant_twin());
  const auto& jobs = r.controller->record().jobs;
  REQUIRE(jobs.size() == 2);
  // Scenario seconds: startup 0.05 x 1e5 = 5000, 20 iterations of 1.3 ms = 2600, two checkpoints of 2 ms = 400.
  const double run_time = 5000 + 20 * 130 + 2 * 200;
  for (int j = 0; j < 2; ++j) {
    INFO("job " << j);
    CHECK(jobs[j].state == JobStatus::Completed);
    CHECK(jobs[j].iterations_done == 20);
    REQUIRE(jobs[j].first_start);
    REQUIRE(jobs[j].end);
    CHECK((*jobs[j].end - *jobs[j].first_start).value == Approx(run_time).epsilon(1e-9));
    // The write after the last iteration delays the completion but is not a checkpoint to resume from (the Controller
    // records it as a real run's: one, at iteration 10).
    CHECK(jobs[j].checkpoint_write_times.size() == 1);
    for (Seconds w : jobs[j].checkpoint_write_times) CHECK(w.value == Approx(200).epsilon(1e-9));
  }
  CHECK(jobs[1].first_start->value == Approx(jobs[0].end->value).epsilon(1e-9));  // the queue frees at the end
  CHECK(r.stats.workers_started == 4);
  CHECK(r.stats.driver_info.at("twin").find("constant twin") != std::string::npos);
  CHECK(r.stats.driver_info.count("twin_extrapolated") == 0);
}

TEST_CASE("twin driver: a straggler slows, a node crash restarts from the checkpoint", "[unit][real]") {
  json doc = scenario_doc();
  doc["jobs"].erase(1);
  SECTION("straggler at half speed from the start: every iteration takes twice as long") {
    doc["faults"] = json::array({{{"kind", "straggler"}, {"gpu", "a0/gpu0"}, {"at", "0s"}, {"repair", "100h"}, {"fraction", 0.5}}});
    const TwinRun r = run(doc, constant_twin());
    const auto& job = r.controller->record().jobs[0];
    CHECK(job.state == JobStatus::Completed);
    CHECK((*job.end - *job.first_start).value == Approx(5000 + 20 * 260 + 2 * 200).epsilon(1e-9));
  }
  SECTION("node crash after the first checkpoint (at 6,500 s): one restart, from iteration 10") {
    doc["faults"] = json::array({{{"kind", "node_crash"}, {"node", "a0"}, {"at", "7000s"}, {"repair", "1m"}}});
    const TwinRun r = run(doc, constant_twin());
    const auto& job = r.controller->record().jobs[0];
    CHECK(job.state == JobStatus::Completed);
    CHECK(job.restarts == 1);
    CHECK(job.iterations_done == 20);
  }
}

TEST_CASE("twin driver: what it cannot model is refused, naming the field", "[unit][real]") {
  json doc = scenario_doc();
  doc["faults"] = json::array({{{"kind", "hang"}, {"node", "a0"}, {"at", "10s"}}});
  CHECK_THROWS_WITH(run(doc, constant_twin()), Catch::Contains("/faults/0/kind") && Catch::Contains("hang"));
  CpuTwin no_startup = constant_twin();
  no_startup.startup = PhaseModel{};
  CHECK_THROWS_WITH(run(scenario_doc(), no_startup), Catch::Contains("startup"));
  CpuTwin no_checkpoint = constant_twin();
  no_checkpoint.checkpoint = PhaseModel{};
  CHECK_THROWS_WITH(run(scenario_doc(), no_checkpoint), Catch::Contains("checkpoint"));
}

TEST_CASE("twin driver: the same scenario gives the same record", "[unit][real]") {
  const TwinRun a = run(scenario_doc(), constant_twin());
  const TwinRun b = run(scenario_doc(), constant_twin());
  for (std::size_t j = 0; j < 2; ++j) CHECK(a.controller->record().jobs[j].end == b.controller->record().jobs[j].end);
}
