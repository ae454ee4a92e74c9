// The CPU twin (core/calib/cpu_twin.hpp): exact recovery of known terms from synthetic measurements, the prediction
// error report, and strict reading of measurements.jsonl.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "core/calib/cpu_twin.hpp"
#include "core/io/input_error.hpp"

using namespace tt;
using nlohmann::json;

namespace {

// The machine the synthetic runs come from.
struct Truth {
  double c0 = 40e-6, per_flop = 1 / 5e9, per_param = 3e-9;  // compute
  double alpha = 300e-6, per_byte = 1 / 400e6;              // ring all-reduce
  double u0 = 5e-6, u_param = 0.6e-9;                       // update
  double ck0 = 4e-3, per_written = 1 / 900e6;               // checkpoint write
  double s0 = 80e-3, s_rank = 10e-3;                        // startup
  double seconds(RunPhase p, const RunLaunch& l) const {
    const double w = l.world;
    switch (p) {
      case RunPhase::Compute: return c0 + attention_flops(l) * per_flop + static_cast<double>(l.params) * per_param;
      case RunPhase::AllReduce: return 2 * (w - 1) * alpha + 2 * (w - 1) / w * l.allreduce_bytes * per_byte;
      case RunPhase::Update: return u0 + static_cast<double>(l.params) * u_param;
      case RunPhase::Checkpoint: return ck0 + l.checkpoint_bytes * per_written;
      case RunPhase::Startup: return s0 + w * s_rank;
      case RunPhase::Iteration:
        return seconds(RunPhase::Compute, l) + seconds(RunPhase::AllReduce, l) + seconds(RunPhase::Update, l);
    }
    return 0;
  }
};

RunLaunch shape(int job, int world, int heads, int seq, std::int64_t params) {
  RunLaunch l;
  l.job = job;
  l.name = "job" + std::to_string(job);
  l.world = world;
  l.heads = heads;
  l.seq = seq;
  l.head_dim = 32;
  l.params = params;
  l.allreduce_bytes = 4.0 * static_cast<double>(params);
  l.checkpoint_bytes = 40 + 4.0 * static_cast<double>(params);
  return l;
}

// Every phase of every launch, `iterations` times, at the truth x (1 + noise(i)).
RunMeasurements synthetic_run(const std::vector<RunLaunch>& launches, const Truth& t, int iterations,
                              double noise = 0) {
  RunMeasurements run;
  run.file = "synthetic";
  run.launches = launches;
  for (std::size_t k = 0; k < launches.size(); ++k)
    for (int i = 1; i <= iterations; ++i)
      for (RunPhase p : kRunPhases) {
        const double wobble = 1 + noise * ((i % 5) - 2) / 2.0;  // symmetric: -noise, -noise/2, 0, noise/2, noise
        if (p == RunPhase::Startup) {  // once per launch, before its first iteration
          if (i == 1) run.samples.push_back({k, 0, 0, p, t.seconds(p, launches[k]) * wobble});
          continue;
        }
        for (int r = 0; r < (p == RunPhase::Iteration ? 1 : launches[k].world); ++r)
          run.samples.push_back({k, r, i, p, t.seconds(p, launches[k]) * wobble});
      }
  return run;
}

std::string with(const std::string& line, const std::string& key, const json& value) {
  json j = json::parse(line);
  j[key] = value;
  return j.dump();
}

const std::vector<RunLaunch> kCalibration = {shape(0, 2, 4, 64, 262144), shape(1, 2, 4, 16, 262144),
                                             shape(2, 2, 2, 32, 55000), shape(3, 4, 1, 16, 20000)};

}  // namespace

TEST_CASE("cpu twin: known terms recovered exactly from synthetic measurements [unit]") {
  const Truth t;
  const CpuTwin twin = fit_cpu_twin(synthetic_run(kCalibration, t, 7));
  CHECK(twin.compute.coefficients[0] == Approx(t.c0).epsilon(1e-9));
  CHECK(twin.compute.coefficients[1] == Approx(t.per_flop).epsilon(1e-9));
  CHECK(twin.compute.coefficients[2] == Approx(t.per_param).epsilon(1e-9));
  CHECK(twin.allreduce.coefficients[0] == Approx(t.alpha).epsilon(1e-9));
  CHECK(twin.allreduce.coefficients[1] == Approx(t.per_byte).epsilon(1e-9));
  CHECK(twin.update.coefficients[0] == Approx(t.u0).epsilon(1e-9));
  CHECK(twin.update.coefficients[1] == Approx(t.u_param).epsilon(1e-9));
  CHECK(twin.checkpoint.coefficients[0] == Approx(t.ck0).epsilon(1e-9));
  CHECK(twin.checkpoint.coefficients[1] == Approx(t.per_written).epsilon(1e-9));
  CHECK(twin.startup.coefficients[0] == Approx(t.s0).epsilon(1e-9));
  CHECK(twin.startup.coefficients[1] == Approx(t.s_rank).epsilon(1e-9));
  CHECK(twin.compute.shapes.size() == 4);
  CHECK(twin.compute.samples == 7 * (2 + 2 + 2 + 4));

  // Another run of other shapes (inside the span: three independent compute shapes span every compute shape) is
  // predicted without error, phase by phase and job by job.
  const RunMeasurements other = synthetic_run({shape(0, 2, 3, 48, 100000), shape(1, 3, 2, 20, 150000)}, t, 5);
  const auto errors = prediction_errors(twin, other);
  REQUIRE(errors.size() == 3 * 6);  // two jobs and "all jobs", six phases each
  for (const PhaseError& e : errors) {
    INFO(e.job << " " << to_string(e.phase));
    CHECK(e.median_abs < 1e-9);
    CHECK(e.p90_abs < 1e-9);
    CHECK_FALSE(e.extrapolated);
    CHECK(e.histogram.front() == e.samples);  // every sample within 1%
  }
  CHECK(errors.back().job == "all jobs");
  CHECK(errors.back().phase == RunPhase::Startup);
}

TEST_CASE("cpu twin: the error report's median, p90, quantiles and histogram [unit]") {
  const Truth t;
  const CpuTwin twin = fit_cpu_twin(synthetic_run(kCalibration, t, 10));
  // Measured = truth x (1 + 0.16 x {-1, -1/2, 0, 1/2, 1}): predicted / measured - 1 = 1 / wobble - 1.
  const auto errors = prediction_errors(twin, synthetic_run({shape(0, 2, 4, 64, 262144)}, t, 10, 0.16));
  const PhaseError& e = errors.front();
  CHECK(e.job == "job0");
  CHECK(e.phase == RunPhase::Compute);
  CHECK(e.samples == 20);
  // |1/0.84 - 1| = 19.0%, |1/0.92 - 1| = 8.7%, 0, |1/1.08 - 1| = 7.4%, |1/1.16 - 1| = 13.8%: four samples of each
  CHECK(e.median_abs == Approx(1 / 0.92 - 1));
  CHECK(e.p90_abs == Approx(1 / 0.84 - 1));
  CHECK(e.quantiles[2] == Approx(0).margin(1e-12));
  CHECK(e.quantiles.front() < 0);
  CHECK(e.quantiles.back() > 0);
  CHECK(e.histogram == std::vector<int>{4, 0, 0, 8, 8, 0, 0});
  CHECK(e.measured_median == Approx(t.seconds(RunPhase::Compute, shape(0, 2, 4, 64, 262144))));
}

TEST_CASE("cpu twin: a shape outside the calibration's span is flagged extrapolated [unit]") {
  const Truth t;
  // One compute shape only: the fit determines the time of that shape and nothing else.
  const CpuTwin twin = fit_cpu_twin(synthetic_run({shape(0, 2, 4, 64, 262144)}, t, 3));
  CHECK_FALSE(predict_phase(twin, RunPhase::Compute, shape(0, 2, 4, 64, 262144)).extrapolated);
  CHECK(predict_phase(twin, RunPhase::Compute, shape(0, 2, 4, 64, 262144)).seconds ==
        Approx(t.seconds(RunPhase::Compute, shape(0, 2, 4, 64, 262144))));
  CHECK(predict_phase(twin, RunPhase::Compute, shape(0, 2, 4, 32, 262144)).extrapolated);

  // In the span but beyond the sizes fitted: a model of four compute shapes spans every compute shape, yet a shape
  // with fewer parameters than any of them is an extrapolation in size (and more ranks than measured, for startup).
  const CpuTwin wide = fit_cpu_twin(synthetic_run(kCalibration, t, 3));
  CHECK_FALSE(predict_phase(wide, RunPhase::Compute, shape(0, 2, 3, 48, 100000)).extrapolated);
  CHECK(predict_phase(wide, RunPhase::Compute, shape(0, 2, 3, 48, 10000)).extrapolated);
  CHECK(predict_phase(wide, RunPhase::Compute, shape(0, 2, 3, 48, 10000)).seconds ==
        Approx(t.seconds(RunPhase::Compute, shape(0, 2, 3, 48, 10000))));  // exact still: the truth is linear
  CHECK_FALSE(predict_phase(wide, RunPhase::Startup, shape(0, 3, 3, 48, 100000)).extrapolated);
  CHECK(predict_phase(wide, RunPhase::Startup, shape(0, 8, 3, 48, 100000)).extrapolated);
  // One rank: no all-reduce to predict.
  CHECK(predict_phase(twin, RunPhase::AllReduce, shape(0, 1, 4, 64, 262144)).seconds == 0);
  // The iteration is never predicted below its pace.
  RunLaunch paced = shape(0, 2, 4, 64, 262144);
  paced.pace_seconds = 1.0;
  CHECK(predict_phase(twin, RunPhase::Iteration, paced).seconds == 1.0);
}

TEST_CASE("cpu twin: malformed measurements.jsonl lines exit 2 naming the file and line [unit]") {
  const std::string launch =
      R"({"event":"launch","job":0,"name":"a","attempt":1,"world":2,"compute":"attention","provider":"gloo",)"
      R"("heads":4,"seq":64,"head_dim":32,"params":1000,"allreduce_bytes":4000,"checkpoint_bytes":4040,)"
      R"("pace_seconds":0,"time_scale":1})";
  const std::string phase = R"({"event":"phase","job":0,"attempt":1,"rank":1,"iteration":1,"phase":"compute",)"
                            R"("seconds":0.001})";
  REQUIRE(parse_run_measurements(launch + "\n" + phase + "\n", "m.jsonl").samples.size() == 1);
  // The startup is measured before the first iteration: iteration 0 (the one resumed after) is its alone.
  const std::string startup = R"({"event":"phase","job":0,"attempt":1,"rank":0,"iteration":0,"phase":"startup",)"
                              R"("seconds":0.17})";
  REQUIRE(parse_run_measurements(launch + "\n" + startup + "\n", "m.jsonl").samples.at(0).phase == RunPhase::Startup);
  struct Bad {
    std::string text, where;
  };
  const std::vector<Bad> bad = {
      {"not json\n", "m.jsonl: at line 1: one JSON object per line"},
      {"[1, 2]\n", "m.jsonl: at line 1: one JSON object per line"},
      {phase + "\n", "m.jsonl: at line 1/attempt"},  // a phase before its launch
      {launch + "\n" + R"({"event":"begin"})", "m.jsonl: at line 2/event"},
      {launch + "\n\n" + R"({"event":"phase","job":0,"attempt":1,"rank":2,"iteration":1,"phase":"compute",)"
                         R"("seconds":0.001})",
       "m.jsonl: at line 3/rank"},
      {launch + "\n" + R"({"event":"phase","job":0,"attempt":1,"rank":0,"iteration":1,"phase":"warmup",)"
                       R"("seconds":0.001})",
       "m.jsonl: at line 2/phase"},
      {launch + "\n" + R"({"event":"phase","job":0,"attempt":1,"rank":0,"iteration":1,"phase":"compute",)"
                       R"("seconds":-1})",
       "m.jsonl: at line 2/seconds"},
      {launch + "\n" + R"({"event":"phase","job":0,"attempt":1,"rank":0,"iteration":1,"phase":"compute"})",
       "m.jsonl: at line 2/seconds"},
      {launch + "\n" + R"({"event":"phase","job":0,"attempt":1,"rank":0,"iteration":1,"phase":"compute",)"
                       R"("seconds":0.1,"extra":1})",
       "m.jsonl: at line 2"},
      {R"({"event":"launch","job":0,"name":"a","attempt":1,"world":0})", "m.jsonl: at line 1/world"},
      {with(launch, "compute", "gpu"), "m.jsonl: at line 1/compute"},
      {with(launch, "params", 0), "m.jsonl: at line 1/params"},
      {launch + "\n" + with(phase, "iteration", 0), "m.jsonl: at line 2/iteration"},
  };
  for (const Bad& b : bad) {
    INFO(b.text);
    try {
      parse_run_measurements(b.text, "m.jsonl");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind(b.where, 0) == 0);
    }
  }
  // A directory without measurements, and a run whose workers reported no phases, are refused too.
  CHECK_THROWS_AS(load_run_measurements(std::string(TT_SOURCE_DIR) + "/tests/data/cpu-twin"), InputError);
  RunMeasurements no_phases = parse_run_measurements(launch + "\n", "m.jsonl");
  CHECK_THROWS_AS(fit_cpu_twin(no_phases), InputError);
}
