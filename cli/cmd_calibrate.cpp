// traintwin calibrate LOG... --topology T [--out calibration.json]: fits the communication model's regime corrections
// (core/calib/fit.hpp) to nccl-tests logs (text or -J JSON), NCCL tuner measurement CSVs or published busbw tables,
// prints the fit and its error table per size band, and writes the corrections as a scenario's "comm" section.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/calib/fit.hpp"
#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/io/section_readers.hpp"

namespace tt::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> logs;
  std::string topology;
  std::string comm;
  std::string out;
};

nlohmann::json band_json(const BandError& e) {
  return {{"points", e.points},
          {"mape_uncalibrated", e.uncalibrated},
          {"mape_fitted", e.fitted},
          {"mape_held_out", e.held_out},
          {"worst_held_out", e.worst},
          {"worst_size", e.worst_size.value}};
}

int run(const CalibrateArgs& a) {
  const Topology topo = read_topology_file(a.topology);
  std::vector<Measurement> ms;
  for (const std::string& f : a.logs) {
    auto m = load_measurements(f);
    ms.insert(ms.end(), m.begin(), m.end());
  }
  CommOverrides base;
  if (!a.comm.empty()) {  // the "comm" object of a calibrate --out file or of a scenario
    const nlohmann::json doc = load_json_file(a.comm);
    JsonObject root(doc, a.comm, "");
    if (!root.has("comm")) throw InputError(a.comm, "/comm", "a comm section (traintwin calibrate --out writes one)");
    base = reader::read_comm(root);
  }
  const auto points = calibration_points(topo, ms, base);
  const auto fits = fit_regimes(points);
  const ErrorTable table = error_table(points);

  std::printf("# traintwin calibrate: %zu measurements from %zu file(s) on topology %s (%s)\n", ms.size(),
              a.logs.size(), topo.name().c_str(), topo.gpu().name.c_str());
  std::printf("# algorithm protocol nodes band          points  latency_factor  bandwidth_factor\n");
  nlohmann::json regimes = nlohmann::json::array();
  for (const RegimeOverride& r : fits) {
    int n = 0;
    for (const auto& p : points)
      n += p.algorithm == r.algorithm && p.protocol == r.protocol && p.node_class == r.node_class && p.band == r.band;
    std::printf("  %-9s %-8s %5d %-13s %6d  %14.4f  %16.4f\n", to_string(r.algorithm), to_string(r.protocol),
                r.node_class + 1, to_string(r.band), n, r.factors.latency, r.factors.bandwidth);
    regimes.push_back({{"algorithm", to_string(r.algorithm)},
                       {"protocol", to_string(r.protocol)},
                       {"nodes", r.node_class + 1},
                       {"band", to_string(r.band)},
                       {"latency_factor", r.factors.latency},
                       {"bandwidth_factor", r.factors.bandwidth},
                       {"points", n}});
  }
  std::printf("%s", error_table_text(table).c_str());
  std::printf("# uncalibrated: %s; fitted: the corrections above\n",
              a.comm.empty() ? "the shipped defaults (core/plan/comm_constants.cpp)"
                             : ("the comm section of " + a.comm).c_str());
  if (!a.out.empty()) {
    nlohmann::json error;
    for (const BandError& e : table.bands) error[to_string(e.band)] = band_json(e);
    error["all"] = band_json(table.all);
    nlohmann::json doc = {{"comm", {{"regimes", regimes}}},
                          {"calibration", {{"topology", topo.name()}, {"inputs", a.logs}, {"error", error}}}};
    std::ofstream out(a.out);
    if (!out) throw InputError(a.out, "", "a file that can be written (--out)");
    out << doc.dump(2) << "\n";
    std::printf("# wrote %s: its \"comm\" object is a scenario's comm section (regimes)\n", a.out.c_str());
  }
  return 0;
}

}  // namespace

Registered add_calibrate(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* sub = app.add_subcommand("calibrate",
                                 "Fit the communication model to nccl-tests logs (text or -J JSON), NCCL tuner "
                                 "measurement CSVs or published busbw tables; print the error table per size band");
  sub->add_option("logs", a->logs, "measurement files")->required();
  sub->add_option("--topology", a->topology, "topology JSON the measurements were taken on")->required();
  sub->add_option("--comm", a->comm,
                  "a file whose \"comm\" section (a calibrate --out file, a scenario) stands for the defaults in the "
                  "\"uncalibrated\" column: how an earlier calibration predicts these measurements");
  sub->add_option("--out", a->out, "write the fit as JSON: {\"comm\": {\"regimes\": [...]}, \"calibration\": {...}}");
  return {sub, [a] { return run(*a); }};
}

}  // namespace tt::cli
