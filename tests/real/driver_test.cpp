#include "real/driver.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>

#include "core/calib/cpu_twin.hpp"
#include "core/control/controller.hpp"
#include "core/io/scenario_reader.hpp"
#include "real/checkpoint.hpp"
#include "real_support.hpp"
#include "reports/report.hpp"

using namespace tt;
using nlohmann::json;
using tt::testing::real_scratch;
using tt::testing::slurp;

namespace {

// Two nodes (a0, a1) of two A100s. llama3-8b iterations of 8 x 4096 tokens are predicted at ~6.4 s.
json scenario_doc(const std::string& name) {
  return json{
      {"name", name},
      {"seed", 11},
      {"topology", std::string(TT_SOURCE_DIR) + "/topologies/explicit-2x2-example.json"},
      {"queues", json::array({{{"name", "q"}, {"gpu_quota", 4}}})},
      {"jobs", json::array()},
      {"recovery", {{"detection_timeout", "30s"}, {"restart_overhead", "1m"}, {"max_restarts", 5}}},
  };
}

json job(const std::string& name, int gpus, json parallel, int iterations, int every,
         const std::string& submit = "0s") {
  json j = {{"name", name},         {"queue", "q"},         {"submit", submit},         {"gpus", gpus},
            {"model", "llama3-8b"}, {"parallel", parallel}, {"iterations", iterations}, {"global_batch", 8},
            {"seq_len", 4096}};
  if (every > 0) j["checkpoint"] = {{"every", every}};
  return j;
}

struct RealRun {
  std::unique_ptr<Scenario> scenario;
  std::unique_ptr<Controller> controller;
  real::RunStats stats;
  std::string log;
  std::filesystem::path dir;
  const RunRecord& record() const { return controller->record(); }
};

using BeforeLaunch = std::function<void(const std::filesystem::path&, const Launch&)>;

// Real seconds of silence before a rank counts as hung, for runs without a hang fault: longer than any machine load
// can starve a worker's heartbeat thread, so a test's figures never depend on how the OS schedules it.
constexpr double kNoHang = 60;

RealRun run_real(const json& doc, const std::string& name, double time_scale, double heartbeat_timeout = kNoHang,
                 BeforeLaunch before_launch = nullptr) {
  RealRun r;
  r.dir = real_scratch(name);
  r.scenario = std::make_unique<Scenario>(read_scenario(doc, (r.dir / "scenario.json").string()));
  r.controller = std::make_unique<Controller>(*r.scenario);
  real::Options opt;
  opt.devices = r.scenario->topology.total_gpus();
  opt.run_dir = r.dir / "run";
  opt.time_scale = time_scale;
  opt.worker_command = {TT_REAL_WORKER};
  opt.compute = "attention";
  opt.heartbeat_timeout = heartbeat_timeout;
  opt.log = [&r](const std::string& line) { r.log += line + "\n"; };
  opt.before_launch = std::move(before_launch);
  r.stats = real::run(*r.scenario, *r.controller, opt);
  r.controller->set_driver("real", r.stats.driver_info);
  return r;
}

std::vector<std::string> kinds(const RunRecord& rec, const std::string& job) {
  std::vector<std::string> out;
  for (const auto& d : rec.decisions)
    if (d.job == job || (job.empty() && d.job.empty())) out.push_back(d.kind);
  return out;
}

// The final state of every rank of a job: the files of its last checkpoint.
std::vector<std::string> final_state(const RealRun& r, int job, std::int64_t iterations, int world) {
  auto dir = r.dir / "run" / real::job_dir_name(*r.scenario, job);
  REQUIRE(real::verify_checkpoint(dir, iterations, world).empty());
  std::vector<std::string> out;
  for (int rank = 0; rank < world; ++rank) out.push_back(real::read_rank_state(dir, iterations, rank, world));
  return out;
}

}  // namespace

TEST_CASE("a small scenario runs through the real driver and writes report.json", "[real][e2e]") {
  json doc = scenario_doc("real-small");
  doc["jobs"].push_back(job("tp-job", 2, {{"tp", 2}}, 40, 10));
  doc["jobs"].push_back(job("dp-job", 2, {{"dp", 2}}, 30, 0));
  doc["jobs"].push_back(job("late-job", 1, {{"tp", 1}}, 20, 5));  // submitted with them: no GPU is left
  doc["checks"] = json::array({{{"metric", "cluster.unfinished_jobs"}, {"op", "=="}, {"value", 0}}});
  RealRun r = run_real(doc, "small", 600);
  INFO(r.log);
  const RunRecord& rec = r.record();
  for (const auto& j : rec.jobs) {
    CHECK(j.state == JobStatus::Completed);
    CHECK(j.iterations_done == j.iterations_target);
    CHECK(j.restarts == 0);
    CHECK(j.measured_iteration.value > 0);
  }
  CHECK(rec.jobs[0].checkpoints == 3);  // after 10, 20, 30; the final state at 40 is not a recovery checkpoint
  CHECK(rec.jobs[2].checkpoints == 3);
  CHECK(rec.driver == "real");
  CHECK(rec.driver_info.at("compute") == "attention");
  CHECK(rec.all_checks_passed());
  // Pack placement: the first two jobs fill a0 and a1; the third, submitted at the same time, waits for a GPU.
  CHECK(kinds(rec, "tp-job") == std::vector<std::string>{"submit", "launch", "complete"});
  CHECK(kinds(rec, "late-job") == std::vector<std::string>{"submit", "pending", "launch", "complete"});
  CHECK(r.stats.workers_started == 5);
  // Iterations are paced to the plan: never faster than predicted (a loaded machine may make them slower, so there is
  // no upper bound; bench/, not a test, measures how fast the driver runs).
  CHECK(rec.jobs[0].measured_iteration.value >= 0.99 * rec.jobs[0].predicted_iteration.value);

  ReportFiles files = write_report(rec, (r.dir / "out").string());
  REQUIRE(files.paths.front() == (r.dir / "out" / "report.json").string());
  json report = json::parse(slurp(files.paths.front()));
  CHECK(report["jobs"].size() == 3);
  CHECK(slurp(files.paths.front()).find("\"real\"") != std::string::npos);

  // What the workers measured, for calibrate --from-run: each launch's shape, then every rank's phases per iteration
  // (compute, all-reduce, update), rank 0's whole iterations and every rank's checkpoint writes.
  const RunMeasurements m = load_run_measurements((r.dir / "run").string());
  REQUIRE(m.launches.size() == 3);
  std::map<std::pair<std::string, std::string>, int> count;  // (job, phase) -> samples
  for (const PhaseSample& s : m.samples) ++count[{m.launches[s.launch].name, to_string(s.phase)}];
  CHECK(m.launches[0].world == 2);
  CHECK(m.launches[0].allreduce_bytes == 4.0 * static_cast<double>(m.launches[0].params));
  CHECK(count[{"tp-job", "compute"}] == 80);
  CHECK(count[{"tp-job", "allreduce"}] == 80);
  CHECK(count[{"tp-job", "update"}] == 80);
  CHECK(count[{"tp-job", "iteration"}] == 40);
  CHECK(count[{"tp-job", "checkpoint"}] == 8);  // after 10, 20, 30 and the final 40, by both ranks
  CHECK(count[{"dp-job", "iteration"}] == 30);
  CHECK(count[{"late-job", "compute"}] == 20);
}

TEST_CASE("a real run serves Prometheus metrics on 127.0.0.1 while it goes", "[real][e2e]") {
  json doc = scenario_doc("metrics");
  doc["jobs"].push_back(job("observed", 2, {{"tp", 2}}, 20, 5));
  doc["jobs"].push_back(job("second", 2, {{"dp", 2}}, 40, 0));
  Scenario s = read_scenario(doc, "metrics.json");
  Controller c(s);
  real::Options opt;
  opt.devices = 4;
  opt.run_dir = real_scratch("metrics") / "run";
  opt.time_scale = 600;
  opt.worker_command = {TT_REAL_WORKER};
  opt.heartbeat_timeout = kNoHang;
  opt.metrics_port = 0;
  int port = 0;
  std::string before, during;
  opt.on_metrics_ready = [&](int p) {
    port = p;
    before = tt::testing::http_get(p, "/metrics");
  };
  // Scraped from the driver's own thread while the endpoint's thread serves, as the Controller is handed the first
  // job's completion: every rank's last progress report came before it, so the published figures show all 20
  // iterations. (Not at the pool's "all 2 ranks done" log line: the progress events read in the same batch are
  // still queued for the Controller then, and CI caught the gauge one report behind.)
  opt.on_event = [&](Seconds, const Event& e) {
    const auto* done = std::get_if<JobCompleted>(&e);
    if (during.empty() && done && s.jobs[done->job].name == "observed")
      during = tt::testing::http_get(port, "/metrics");
  };
  real::RunStats stats = real::run(s, c, opt);
  CHECK(stats.metrics_port == port);
  CHECK(port > 0);
  CHECK_THAT(before, Catch::StartsWith("HTTP/1.") && Catch::Contains("200") &&
                         Catch::Contains("# TYPE traintwin_gpus_allocated gauge") &&
                         Catch::Contains("traintwin_job_iterations_target{job_name=\"observed\",queue=\"q\"} 20"));
  CHECK_THAT(during, Catch::Contains("traintwin_job_iterations{job_name=\"observed\",queue=\"q\"} 20") &&
                         Catch::Contains("# TYPE traintwin_workers_live gauge"));
  // The other job's state as of then: it is usually still running, but nothing orders two jobs' real processes.
  CHECK_THAT(during,
             Catch::Contains("traintwin_job_state{job_name=\"second\",queue=\"q\",state=\"running\"} 1") ||
                 Catch::Contains("traintwin_job_state{job_name=\"second\",queue=\"q\",state=\"completed\"} 1"));
  CHECK(tt::testing::http_get(port, "/metrics").empty());  // the endpoint is gone with the run
}

TEST_CASE("the real driver rejects options that cannot work", "[real][unit]") {
  json doc = scenario_doc("bad-options");
  doc["jobs"].push_back(job("j", 1, {{"tp", 1}}, 5, 0));
  Scenario s = read_scenario(doc, "bad.json");
  Controller c(s);
  real::Options opt;
  opt.devices = 3;
  opt.run_dir = real_scratch("bad-options");
  opt.worker_command = {TT_REAL_WORKER};
  CHECK_THROWS_WITH(real::run(s, c, opt), Catch::Contains("cpu:3 does not match the 4 GPUs"));
  opt.devices = 4;
  opt.time_scale = 0;
  CHECK_THROWS_WITH(real::run(s, c, opt), Catch::Contains("time scale must be a positive number"));
  opt.time_scale = 1;
  opt.worker_command = {"/nonexistent/traintwin"};
  CHECK_THROWS_WITH(real::run(s, c, opt), Catch::Contains("no executable worker command"));
}

TEST_CASE("nothing lost: a job killed and hung several times ends bit-identical to one never interrupted",
          "[real][e2e]") {
  // Four ranks (tp 2 x dp 2) over both nodes, so that every fault hits the job; a checkpoint every 10 iterations.
  // Iterations take at least the predicted ~3.9 s; between the faults the job trains at most 8 minutes (1-3m, 5-7m,
  // 10-12m, 14-16m: each attempt first waits out its 1-minute startup), under 130 iterations: it still runs at 16m.
  // A hang is noticed after 1.5 s real of silence (150 s at time scale 100), in time for the crash at 12m to hit the
  // restarted job. Restarts are not limited: a heartbeat thread starved that long by a loaded machine costs one more.
  auto make = [](const std::string& name) {
    json doc = scenario_doc(name);
    doc["jobs"].push_back(job("survivor", 4, {{"tp", 2}, {"dp", 2}}, 150, 10));
    doc["recovery"]["max_restarts"] = 100;
    return doc;
  };
  RealRun clean = run_real(make("clean"), "nothing-lost-clean", 300);
  INFO("clean run:\n" << clean.log);
  REQUIRE(clean.record().jobs[0].state == JobStatus::Completed);
  CHECK(clean.record().jobs[0].restarts == 0);

  json doc = make("faulted");
  doc["faults"] = json::array({
      {{"kind", "node_crash"}, {"at", "3m"}, {"node", "a1"}, {"repair", "1m"}},
      {{"kind", "hang"}, {"at", "7m"}, {"node", "a0"}},
      {{"kind", "node_crash"}, {"at", "12m"}, {"node", "a0"}, {"repair", "1m"}},
      {{"kind", "hang"}, {"at", "16m"}, {"node", "a1"}},
  });
  RealRun faulted = run_real(doc, "nothing-lost-faulted", 100, /*heartbeat_timeout=*/1.5);
  INFO("faulted run:\n" << faulted.log);
  const JobRecord& j = faulted.record().jobs[0];
  REQUIRE(j.state == JobStatus::Completed);
  // One failure per fault. A rank silent for 1.5 s on a loaded machine fails the job once more, or first: then the
  // fault that follows finds the job failed already and the failure's cause is the silence.
  int crashes = 0, hangs = 0;
  for (const auto& f : j.failures) {
    crashes += f.cause.find("node_crash") != std::string::npos;
    hangs += f.cause.find("sent no heartbeat") != std::string::npos;
  }
  CHECK(j.restarts >= 4);
  CHECK(crashes + hangs >= 4);
  CHECK(crashes <= 2);
  CHECK(j.lost_gpu_hours > 0);

  CHECK(final_state(faulted, 0, 150, 4) == final_state(clean, 0, 150, 4));
}

TEST_CASE("a corrupted newest checkpoint is refused at restore and the job resumes from the one before",
          "[real][e2e]") {
  // 100 iterations of at least ~6.4 s: the job still runs at 8m, when a0 crashes. By then it has written a checkpoint
  // after iteration 10 unless its first ten iterations took over 2 s real (paced to 32 ms each at time scale 200).
  auto make = [](const std::string& name) {
    json doc = scenario_doc(name);
    doc["jobs"].push_back(job("resilient", 2, {{"dp", 2}}, 100, 10));
    return doc;
  };
  RealRun clean = run_real(make("clean"), "corrupt-clean", 600);
  REQUIRE(clean.record().jobs[0].state == JobStatus::Completed);

  json doc = make("corrupted");
  doc["faults"] = json::array({{{"kind", "node_crash"}, {"at", "8m"}, {"node", "a0"}, {"repair", "30s"}}});
  std::vector<std::int64_t> corrupted;
  // Before the restart, flip a byte of rank 1's state in the checkpoint the controller asks to resume from.
  auto flip = [&](const std::filesystem::path& job_dir, const Launch& l) {
    if (l.attempt != 2) return;
    REQUIRE(l.start_iteration >= 10);
    auto file = real::checkpoint_path(job_dir, l.start_iteration) / real::state_file_name(1);
    std::string data = slurp(file);
    data[data.size() / 3] ^= 0x10;
    tt::testing::overwrite(file, data);
    corrupted.push_back(l.start_iteration);
  };
  RealRun r = run_real(doc, "corrupt-faulted", 200, kNoHang, flip);
  INFO(r.log);
  const JobRecord& j = r.record().jobs[0];
  REQUIRE(j.state == JobStatus::Completed);
  REQUIRE(corrupted.size() == 1);
  CHECK_THAT(r.log, Catch::Contains("checkpoint after iteration " + std::to_string(corrupted[0]) + " refused") &&
                        Catch::Contains("rank-00001.state") && Catch::Contains("(corrupt)") &&
                        Catch::Contains("resumes after iteration " + std::to_string(corrupted[0] - 10)));
  CHECK(final_state(r, 0, 100, 2) == final_state(clean, 0, 100, 2));
}

TEST_CASE("a checkpoint_corrupt fault in the scenario: the restart falls back one checkpoint and loses nothing",
          "[real][e2e]") {
  // As above: the job still runs at 8m, with checkpoints written unless its first ten iterations took over 2 s real.
  auto make = [](const std::string& name) {
    json doc = scenario_doc(name);
    doc["jobs"].push_back(job("resilient", 2, {{"dp", 2}}, 100, 10));
    return doc;
  };
  RealRun clean = run_real(make("clean"), "scenario-corrupt-clean", 600);
  REQUIRE(clean.record().jobs[0].state == JobStatus::Completed);

  json doc = make("scenario-corrupt");
  // Listed first, so applied first at 8m: the node crash then restarts the job from the checkpoint before the newest.
  doc["faults"] = json::array({{{"kind", "checkpoint_corrupt"}, {"at", "8m"}, {"job", "resilient"}},
                               {{"kind", "node_crash"}, {"at", "8m"}, {"node", "a0"}, {"repair", "30s"}}});
  std::vector<std::int64_t> resumed;
  RealRun r = run_real(doc, "scenario-corrupt", 200, kNoHang, [&](const std::filesystem::path&, const Launch& l) {
    if (l.attempt == 2) resumed.push_back(l.start_iteration);
  });
  INFO(r.log);
  const JobRecord& j = r.record().jobs[0];
  REQUIRE(j.state == JobStatus::Completed);
  REQUIRE(resumed.size() == 1);
  std::string corrupt_reason;
  for (const auto& d : r.record().decisions)
    if (d.kind == "checkpoint_corrupt") corrupt_reason = d.reason;
  REQUIRE_THAT(corrupt_reason, Catch::Contains("fails its checksum"));
  // The controller asked to resume from the checkpoint before the damaged one, and the driver did.
  CHECK_THAT(corrupt_reason, Catch::Contains("resumes from iteration " + std::to_string(resumed[0])) ||
                                 Catch::Contains("from the start"));
  CHECK_THAT(r.log, Catch::Contains("flipped one byte") &&
                        Catch::Contains("from iteration " + std::to_string(resumed[0]) + ":"));
  REQUIRE(j.failures.size() == 1);
  CHECK(j.failures[0].lost_iterations >= 10);  // at least the damaged checkpoint's interval is redone
  CHECK(final_state(r, 0, 100, 2) == final_state(clean, 0, 100, 2));
}

TEST_CASE("a straggler GPU slows every iteration of its job that starts after the driver's signal", "[real][e2e]") {
  constexpr int kIterations = 24;
  constexpr double kFraction = 0.25;
  json doc = scenario_doc("straggler");
  doc["jobs"].push_back(job("paced", 2, {{"dp", 2}}, kIterations, 0));
  // From 2m (the workers run: the speed reaches them by signal) a0/gpu1 (rank 1) runs at a quarter of its speed to
  // the end: rank 0 waits for it in every all-reduce. a1, which the job does not use, crashes right after: the
  // controller's node_down decision is taken after the signal went out, so its time bounds when that was.
  doc["faults"] = json::array(
      {{{"kind", "straggler"}, {"at", "2m"}, {"gpu", "a0/gpu1"}, {"repair", "10h"}, {"fraction", kFraction}},
       {{"kind", "node_crash"}, {"at", "2m"}, {"node", "a1"}, {"repair", "1m"}}});
  std::optional<Launch> launch;
  RealRun r = run_real(doc, "straggler", 200, kNoHang,
                       [&](const std::filesystem::path&, const Launch& l) { launch = l; });
  INFO(r.log);
  const JobRecord& j = r.record().jobs[0];
  REQUIRE(j.state == JobStatus::Completed);
  REQUIRE(launch);
  CHECK_THAT(r.log, Catch::Contains("a0/gpu1 straggles at 0.25"));
  CHECK(j.restarts == 0);  // a straggler slows, it does not fail

  // A lower bound on the job's end that holds however late the OS runs the driver or the workers. Rank 1's iterations
  // take at least the predicted time p before the signal and p / fraction after it, from when the attempt's startup
  // ended: by the signal, sent at s, it had completed at most (s - start) / p of them and was in one more. So the job
  // ends after s + (iterations - 1 - (s - start) / p) x p / fraction, which only falls as s grows: at most `sent`.
  Seconds sent;
  for (const Decision& d : r.record().decisions)
    if (d.kind == "node_down") sent = d.t;
  REQUIRE(sent.value >= 120);
  const double p = launch->plan.predicted_iteration.value;
  const double start = j.first_start->value + launch->startup.value;
  const double done_before = std::max(0.0, (sent.value - start) / p);
  const double bound = sent.value + (kIterations - 1 - done_before) * p / kFraction;
  INFO("predicted " << p << " s, training from " << start << " s, signal by " << sent.value << " s");
  // At full speed the job would end near start + 24 p (~3m40s); slowed from about 2m, after ~8m. The bound is close to
  // the latter on an idle machine, and lower when the driver ran late.
  CHECK(j.end->value >= 0.999 * bound);
}
