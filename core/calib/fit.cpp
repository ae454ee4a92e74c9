#include "core/calib/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

#include "core/io/input_error.hpp"
#include "core/plan/comm_planner.hpp"
#include "core/plan/comm_layout.hpp"
#include "core/plan/comm_sweep.hpp"

namespace tt {
namespace {

using Key = std::tuple<int, int, int, int>;  // algorithm, protocol, node class, band

Key key_of(const CalibrationPoint& p) {
  return {static_cast<int>(p.algorithm), static_cast<int>(p.protocol), p.node_class, static_cast<int>(p.band)};
}

// The option `planner` picks among its options for `m`, or among those of the given algorithm and protocol.
std::optional<CommPlanner::Option> pick(const CommPlanner& planner, const Measurement& m, const std::vector<int>& gpus,
                                        std::optional<Algorithm> a, std::optional<Protocol> p) {
  std::optional<CommPlanner::Option> best;
  for (const auto& o : planner.options(m.collective, gpus, m.size))
    if ((!a || o.algorithm == *a) && (!p || o.protocol == *p) && (!best || planner.prefers(o, *best))) best = o;
  return best;
}

// Factors minimising sum(((a L + b T) - t) / t)^2 with a, b > 0 (b = 1 / bandwidth factor). Two unknowns by
// least squares when the points determine them and both come out positive; otherwise one common scale.
RegimeFactors solve(const std::vector<const CalibrationPoint*>& pts) {
  const auto n = static_cast<Eigen::Index>(pts.size());
  if (n == 0) return {};
  Eigen::MatrixXd A(n, 2);
  Eigen::VectorXd rhs = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double t = pts[static_cast<std::size_t>(i)]->m.time.value;
    A(i, 0) = pts[static_cast<std::size_t>(i)]->latency / t;
    A(i, 1) = pts[static_cast<std::size_t>(i)]->transfer / t;
  }
  if (n >= 2) {
    const auto qr = A.colPivHouseholderQr();
    if (qr.rank() == 2) {
      const Eigen::Vector2d x = qr.solve(rhs);
      if (x(0) > 0 && x(1) > 0) return {x(0), 1.0 / x(1)};
    }
  }
  const Eigen::VectorXd u = A.col(0) + A.col(1);
  const double s = u.sum() / u.squaredNorm();
  return {s, 1.0 / s};
}

std::map<Key, std::vector<const CalibrationPoint*>> groups(const std::vector<CalibrationPoint>& points) {
  std::map<Key, std::vector<const CalibrationPoint*>> g;
  for (const auto& p : points) g[key_of(p)].push_back(&p);
  return g;
}

double rel_error(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

}  // namespace

double predict(const CalibrationPoint& p, const RegimeFactors& f) {
  return p.latency * f.latency + p.transfer / f.bandwidth;
}

std::vector<CalibrationPoint> calibration_points(const Topology& topo, const std::vector<Measurement>& ms,
                                                 const CommOverrides& base) {
  CommOverrides nccl_only = base;
  nccl_only.regimes = std::vector<RegimeOverride>{};
  const CommPlanner nccl(topo, comm_constants(topo.gpu(), nccl_only));
  const CommPlanner shipped(topo, comm_constants(topo.gpu(), base));
  std::vector<CalibrationPoint> out;
  for (const Measurement& m : ms) {
    if (m.ranks < 2)
      throw InputError(m.where, "", "the number of ranks of this measurement (nccl-tests: its '#  Rank' lines)");
    std::vector<int> gpus;
    try {
      gpus = pick_gpus(topo, m.ranks, m.nodes);
    } catch (const std::invalid_argument& e) {
      throw InputError(m.where, "", std::string("a topology that holds this measurement's ranks: ") + e.what());
    }
    const auto chosen = pick(shipped, m, gpus, m.algorithm, m.algorithm ? m.protocol : std::nullopt);
    if (!chosen)
      throw InputError(m.where, "",
                       std::string("an algorithm the planner can run here; ") +
                           (m.algorithm ? to_string(*m.algorithm) : "none") + " cannot run " + to_string(m.collective) +
                           " on these GPUs of topology " + topo.name());
    const auto raw = pick(nccl, m, gpus, chosen->algorithm, chosen->protocol);
    if (!raw) throw std::logic_error("calibration_points: the defaults offer an option NCCL's figures do not");
    CalibrationPoint p;
    p.m = m;
    p.algorithm = chosen->algorithm;
    p.protocol = chosen->protocol;
    const GroupLayout l = layout_of(gpus, topo.gpus_per_node());
    p.node_class = node_class(static_cast<int>(l.nodes.size()));
    p.band = size_band(m.size);
    p.latency = raw->latency.value;
    p.transfer = raw->time.value - raw->latency.value;
    p.uncalibrated = chosen->time.value;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<RegimeOverride> fit_regimes(const std::vector<CalibrationPoint>& points) {
  std::vector<RegimeOverride> out;
  for (const auto& [k, pts] : groups(points)) {
    RegimeOverride r;
    r.algorithm = static_cast<Algorithm>(std::get<0>(k));
    r.protocol = static_cast<Protocol>(std::get<1>(k));
    r.node_class = std::get<2>(k);
    r.band = static_cast<SizeBand>(std::get<3>(k));
    r.factors = solve(pts);
    out.push_back(r);
  }
  return out;
}

std::vector<RegimeOverride> with_base(const std::vector<RegimeOverride>& fits, const CommConstants& base) {
  std::vector<RegimeOverride> out = fits;
  for (int a = 0; a < kAlgorithms; ++a)
    for (int p = 0; p < kProtocols; ++p)
      for (int n = 0; n < kNodeClasses; ++n)
        for (int b = 0; b < kSizeBands; ++b) {
          const RegimeFactors& f = base.regime[a][p][n][b];
          if (f.latency == 1 && f.bandwidth == 1) continue;
          RegimeOverride r{static_cast<Algorithm>(a), static_cast<Protocol>(p), n, static_cast<SizeBand>(b), f};
          const auto same = [&](const RegimeOverride& x) {
            return x.algorithm == r.algorithm && x.protocol == r.protocol && x.node_class == n && x.band == r.band;
          };
          if (std::none_of(fits.begin(), fits.end(), same)) out.push_back(r);
        }
  return out;
}

std::vector<std::size_t> choices_moved_by_fit(const Topology& topo, const std::vector<Measurement>& ms,
                                              const CommOverrides& base, const std::vector<CalibrationPoint>& points,
                                              const std::vector<RegimeOverride>& fits) {
  CommOverrides fitted = base;
  fitted.regimes = with_base(fits, comm_constants(topo.gpu(), base));
  const std::vector<CalibrationPoint> again = calibration_points(topo, ms, fitted);
  std::vector<std::size_t> moved;
  for (std::size_t i = 0; i < again.size() && i < points.size(); ++i)
    if (again[i].algorithm != points[i].algorithm || again[i].protocol != points[i].protocol) moved.push_back(i);
  return moved;
}

ErrorTable error_table(const std::vector<CalibrationPoint>& points) {
  ErrorTable t;
  for (SizeBand b : {SizeBand::Small, SizeBand::Medium, SizeBand::Large}) {
    BandError e;
    e.band = b;
    t.bands.push_back(e);
  }
  for (const auto& [k, pts] : groups(points)) {
    const RegimeFactors all = solve(pts);
    for (const CalibrationPoint* p : pts) {
      std::vector<const CalibrationPoint*> others;
      for (const CalibrationPoint* q : pts)
        if (q->m.size.value != p->m.size.value) others.push_back(q);
      const RegimeFactors held = others.empty() ? RegimeFactors{} : solve(others);
      const double measured = p->m.time.value;
      const double e_held = rel_error(predict(*p, held), measured);
      for (BandError* e : {&t.bands[static_cast<std::size_t>(p->band)], &t.all}) {
        e->points += 1;
        e->uncalibrated += rel_error(p->uncalibrated, measured);
        e->fitted += rel_error(predict(*p, all), measured);
        e->held_out += e_held;
        if (e_held > e->worst) e->worst = e_held, e->worst_size = p->m.size;
      }
    }
  }
  for (BandError* e : {&t.bands[0], &t.bands[1], &t.bands[2], &t.all})
    if (e->points > 0) {
      e->uncalibrated /= e->points;
      e->fitted /= e->points;
      e->held_out /= e->points;
    }
  return t;
}

std::string error_table_text(const ErrorTable& t) {
  std::string out = "# size band        points  uncalibrated  fitted  held-out  worst held-out (size)\n";
  char line[200];
  auto row = [&](const char* name, const BandError& e) {
    if (e.points == 0) {
      std::snprintf(line, sizeof line, "  %-16s %6d  %12s  %6s  %8s  -\n", name, 0, "-", "-", "-");
    } else {
      std::snprintf(line, sizeof line, "  %-16s %6d  %11.1f%%  %5.1f%%  %7.1f%%  %5.1f%% (%.0f B)\n", name, e.points,
                    100 * e.uncalibrated, 100 * e.fitted, 100 * e.held_out, 100 * e.worst, e.worst_size.value);
    }
    out += line;
  };
  for (const BandError& e : t.bands) row(to_string(e.band), e);
  row("all sizes", t.all);
  out += "# mean absolute percentage error of the time of one call; held-out: leave-one-size-out\n";
  return out;
}

}  // namespace tt
