// Calibration of the communication cost model: each measurement becomes a point that knows NCCL's model's latency
// and transfer time for the algorithm and protocol that ran it; fit_regimes() finds, per algorithm, protocol, node
// class and size band, the latency and bandwidth factors (RegimeFactors) that minimise the squared relative error of
// the time (Eigen least squares); error_table() reports mean absolute percentage errors per size band, in sample, on
// held-out sizes (leave-one-size-out) and for the uncalibrated model. Pure functions of their inputs.
#pragma once

#include <vector>

#include "core/calib/measurement.hpp"
#include "core/plan/comm_constants.hpp"
#include "core/topo/topology.hpp"

namespace tt {

struct CalibrationPoint {
  Measurement m;
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int node_class = 0;
  SizeBand band = SizeBand::Large;
  double latency = 0;       // seconds: NCCL's model, no regime correction
  double transfer = 0;      // seconds: likewise
  double uncalibrated = 0;  // seconds: the shipped defaults' prediction (comm_constants with `base` overrides)
};

// Plans every measurement on `topo` (its ranks spread over its node count, or as few nodes as fit). The algorithm
// and protocol are the measurement's when it names them (the fastest protocol of its algorithm when only that), else
// the planner's choice under `base` (by NCCL's figures unless base.selection is Fastest). Throws InputError naming the
// measurement when it cannot be placed.
std::vector<CalibrationPoint> calibration_points(const Topology& topo, const std::vector<Measurement>& ms,
                                                 const CommOverrides& base = {});

double predict(const CalibrationPoint& p, const RegimeFactors& f);  // seconds

// One correction per (algorithm, protocol, node class, band) that has points, in that order.
std::vector<RegimeOverride> fit_regimes(const std::vector<CalibrationPoint>& points);

// `fits`, then the corrections of `base` for every (algorithm, protocol, node class, band) they leave out: the model
// a fit makes of the base (a two-node fit keeps the shipped one-node NVLS corrections).
std::vector<RegimeOverride> with_base(const std::vector<RegimeOverride>& fits, const CommConstants& base);

// The points whose algorithm or protocol the fitted model (with_base(fits) over `base`) plans otherwise than the
// points say: under Selection::Fastest corrections can hand a size to another option (a slower NVLSTree gives it to
// the tree), and the fit's error at those sizes is then the error of a choice the fitted model does not make; under
// Selection::Nccl (the default) a correction moves no choice and the list is empty. Indices into `points`.
std::vector<std::size_t> choices_moved_by_fit(const Topology& topo, const std::vector<Measurement>& ms,
                                              const CommOverrides& base, const std::vector<CalibrationPoint>& points,
                                              const std::vector<RegimeOverride>& fits);

struct BandError {
  SizeBand band = SizeBand::Small;
  int points = 0;
  double uncalibrated = 0;  // mean |predicted - measured| / measured
  double fitted = 0;        // in sample
  double held_out = 0;      // each size predicted by a fit without it
  Bytes worst_size;         // of the held-out errors
  double worst = 0;
};
// Per band (Small, Medium, Large), and over all sizes.
struct ErrorTable {
  std::vector<BandError> bands;
  BandError all;
};
ErrorTable error_table(const std::vector<CalibrationPoint>& points);
std::string error_table_text(const ErrorTable& t);

}  // namespace tt
