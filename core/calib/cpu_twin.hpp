// The CPU twin of this machine: what one iteration of the real driver's workers costs here, fitted to what a real run
// measured (RUN_DIR/measurements.jsonl, written by real/measurement_log.hpp), and how well it predicts another run.
// Per phase a linear model in the job's shape (Eigen least squares on the median time of each shape, weighted by
// relative error):
//   compute    = c0 + attention_flops / attention_rate + params x c_param    (attention_flops: forward + backward)
//   all-reduce = 2(w-1) x alpha + 2(w-1)/w x bytes / bandwidth              (a ring over w ranks; 0 for one rank)
//   update     = u0 + params x u_param
//   checkpoint = latency + bytes / write_bandwidth                          (one rank's state file, made durable)
//   startup    = s0 + ranks x s_rank             (launch to every rank up and connected; the plan's startup aside)
//   iteration  = max(pace, compute + all-reduce + update)                   (the driver's pacing, real/worker.hpp)
// A shape outside the span of the shapes fitted is predicted by the minimum-norm fit and flagged as extrapolated, as is
// one whose terms lie beyond the values the shapes fitted gave them (a smaller or larger size than any measured).
// Pure functions of their inputs; no SimGrid, no real/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tt {

enum class RunPhase { Compute, AllReduce, Update, Iteration, Checkpoint, Startup };
const char* to_string(RunPhase p);
inline constexpr RunPhase kRunPhases[] = {RunPhase::Compute,    RunPhase::AllReduce, RunPhase::Update,
                                          RunPhase::Iteration,  RunPhase::Checkpoint, RunPhase::Startup};
// The phases fitted (the iteration is derived from the first three).
inline constexpr RunPhase kFittedPhases[] = {RunPhase::Compute, RunPhase::AllReduce, RunPhase::Update,
                                             RunPhase::Checkpoint, RunPhase::Startup};

// One launch of a job's ranks, as measurements.jsonl's "launch" line gives it.
struct RunLaunch {
  int job = 0;
  std::string name;
  int attempt = 1;
  int world = 1;
  std::string compute = "attention";  // "synthetic": no attention kernels run
  int heads = 1;
  int seq = 16;
  int head_dim = 8;
  std::int64_t params = 0;
  double allreduce_bytes = 0;
  double checkpoint_bytes = 0;
  double pace_seconds = 0;  // real seconds an iteration is paced to at least
  std::string where;        // "file: line N"
};

struct PhaseSample {
  std::size_t launch = 0;  // index into RunMeasurements::launches
  int rank = 0;
  std::int64_t iteration = 0;  // the iteration it ended (startup: the one the attempt resumes after, 0 from scratch)
  RunPhase phase = RunPhase::Compute;
  double seconds = 0;  // real
};

struct RunMeasurements {
  std::string file;
  std::vector<RunLaunch> launches;
  std::vector<PhaseSample> samples;
};

// Strict: one JSON object per line; a bad line throws InputError naming the file and "line N/key".
RunMeasurements parse_run_measurements(const std::string& text, const std::string& file);
// RUN_DIR/measurements.jsonl, RUN_DIR/run/measurements.jsonl (the --out of traintwin real), or the file itself.
// A run without launches or phase samples is refused (InputError).
RunMeasurements load_run_measurements(const std::string& path);

// Floating-point operations of the causal attention kernels of one iteration: forward 2 x heads x seq^2 x head_dim
// (the two matmuls, half the score matrix under the causal mask), backward 2.5 x forward (FlashAttention-2's
// accounting, Dao 2023, section 4); 0 for the synthetic compute step.
double attention_flops(const RunLaunch& l);

struct PhaseModel {
  RunPhase phase = RunPhase::Compute;
  std::vector<std::string> features;        // names of the terms
  std::vector<double> coefficients;         // seconds per unit of each term
  std::vector<std::vector<double>> shapes;  // the feature rows fitted (distinct shapes), for the span check
  int samples = 0;                          // measurements behind the shapes' medians
  // What the samples add up to over what their shapes' medians would (the time of a millisecond phase here is skewed
  // right: a few slow samples): a job's total of many iterations is their mean times the count, which the twin driver
  // predicts as the median model times this (real/twin_driver.hpp); 1 when nothing was fitted.
  double mean_over_median = 1;
};

struct CpuTwin {
  PhaseModel compute, allreduce, update, checkpoint, startup;  // checkpoint, startup: no shapes when not measured
  const PhaseModel& model(RunPhase p) const;
};

// The terms of `p` for a launch's shape (Iteration has none: it is derived).
std::vector<double> phase_features(RunPhase p, const RunLaunch& l);
// Throws InputError naming the file when the run has no sample of a phase the twin needs (compute, update).
CpuTwin fit_cpu_twin(const RunMeasurements& run);

struct PhasePrediction {
  double seconds = 0;
  bool extrapolated = false;  // the shape is outside the span of the shapes fitted, or a term beyond their values
};
PhasePrediction predict_phase(const CpuTwin& twin, RunPhase p, const RunLaunch& l);

// Signed relative errors (predicted - measured) / measured, over every sample of a job and phase.
inline constexpr double kErrorQuantiles[] = {0.10, 0.25, 0.50, 0.75, 0.90};
inline constexpr double kErrorBins[] = {0.01, 0.02, 0.05, 0.10, 0.25, 0.50};  // upper edges of |error|; then more
struct PhaseError {
  std::string job;  // "all jobs" for the row over every job
  RunPhase phase = RunPhase::Compute;
  int samples = 0;
  double median_abs = 0;  // median |error|
  double p90_abs = 0;
  double measured_median = 0;     // seconds
  double predicted_median = 0;    // seconds, of the predictions for the same samples
  double median_error = 0;        // predicted_median / measured_median - 1: how the twin predicts the typical time
  std::vector<double> quantiles;  // of the signed error, at kErrorQuantiles
  std::vector<int> histogram;     // |error| per kErrorBins, the last bin above the last edge
  bool extrapolated = false;
};
// Per job (in job order) and phase, then "all jobs" per phase; phases without samples are left out.
std::vector<PhaseError> prediction_errors(const CpuTwin& twin, const RunMeasurements& run);

double quantile(std::vector<double> values, double q);  // linear between order statistics; values not empty

}  // namespace tt
