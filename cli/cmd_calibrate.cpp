// traintwin calibrate LOG... --topology T [--out calibration.json]: fits the communication model's regime corrections
// (core/calib/fit.hpp) to nccl-tests logs (text or -J JSON), NCCL tuner measurement CSVs or published busbw tables,
// prints the fit and its error table per size band, and writes the corrections as a scenario's "comm" section.
// traintwin calibrate --from-run RUN_DIR [--check RUN_DIR_B] [--out twin.json]: fits the CPU twin of this machine
// (core/calib/cpu_twin.hpp) to a real run's measurements and reports how it predicts its own and another run's phases.
// traintwin calibrate --predicted P --measured B [--out comparison.json]: a run the twin predicted (traintwin real
// --twin) against a real run of the same scenario, job by job (core/calib/run_comparison.hpp).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/commands.hpp"
#include "core/calib/cpu_twin.hpp"
#include "core/calib/fit.hpp"
#include "core/calib/run_comparison.hpp"
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
  std::string from_run;
  std::string check;
  std::string predicted, measured;
};

// --- calibrate --from-run -------------------------------------------------------------------------------------------
std::string term_text(const PhaseModel& m) {
  const auto& c = m.coefficients;
  char buf[200];
  switch (m.phase) {
    case RunPhase::Compute:
      std::snprintf(buf, sizeof buf, "%.4g s + attention at %.4g GFLOP/s + %.4g ns/param", c[0],
                    c[1] > 0 ? 1e-9 / c[1] : 0.0, c[2] * 1e9);
      break;
    case RunPhase::AllReduce:
      std::snprintf(buf, sizeof buf, "alpha %.4g us/step + %.4g MB/s per rank link", c[0] * 1e6,
                    c[1] > 0 ? 1e-6 / c[1] : 0.0);
      break;
    case RunPhase::Update:
      std::snprintf(buf, sizeof buf, "%.4g s + %.4g ns/param", c[0], c[1] * 1e9);
      break;
    case RunPhase::Startup:
      std::snprintf(buf, sizeof buf, "%.4g ms + %.4g ms/rank", c[0] * 1e3, c[1] * 1e3);
      break;
    default:
      std::snprintf(buf, sizeof buf, "latency %.4g ms + %.4g MB/s written", c[0] * 1e3, c[1] > 0 ? 1e-6 / c[1] : 0.0);
  }
  return buf;
}

std::string format_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", r);
  return buf;
}

nlohmann::json twin_json(const CpuTwin& t) {
  nlohmann::json out;
  for (RunPhase p : kFittedPhases) {
    const PhaseModel& m = t.model(p);
    nlohmann::json terms;
    for (std::size_t j = 0; j < m.features.size(); ++j) terms[m.features[j]] = m.coefficients[j];
    out[to_string(p)] = {{"terms", terms},
                         {"shapes", m.shapes.size()},
                         {"samples", m.samples},
                         {"mean_over_median", m.mean_over_median}};
  }
  const double per_flop = t.compute.coefficients[1];
  out["compute"]["attention_gflops"] = per_flop > 0 ? 1e-9 / per_flop : 0.0;
  const double per_byte = t.allreduce.coefficients[1];
  out["allreduce"]["bandwidth_bytes_per_second"] = per_byte > 0 ? 1 / per_byte : 0.0;
  const double per_written = t.checkpoint.coefficients[1];
  out["checkpoint"]["bandwidth_bytes_per_second"] = per_written > 0 ? 1 / per_written : 0.0;
  return out;
}

std::string error_rows(const std::vector<PhaseError>& errors) {
  std::string out =
      "# job                phase       samples  measured  predicted  of median  |err| p50   p90  signed p10   p25   "
      "p50   p75   p90  |err| <=1% <=2% <=5% <=10% <=25% <=50% >50%\n";
  char line[400];
  for (const PhaseError& e : errors) {
    std::snprintf(line, sizeof line,
                  "  %-18s %-10s %7d  %8.3gs %9.3gs  %8.1f%%  %5.1f%% %5.1f%%  %6.1f%% %5.1f%% %5.1f%% %5.1f%% %5.1f%% ",
                  e.job.c_str(), to_string(e.phase), e.samples, e.measured_median, e.predicted_median,
                  100 * e.median_error, 100 * e.median_abs, 100 * e.p90_abs, 100 * e.quantiles[0], 100 * e.quantiles[1],
                  100 * e.quantiles[2], 100 * e.quantiles[3], 100 * e.quantiles[4]);
    out += line;
    for (int n : e.histogram) out += " " + std::to_string(n);
    out += e.extrapolated ? "  (extrapolated: a shape the calibration run did not span)\n" : "\n";
  }
  return out;
}

nlohmann::json errors_json(const std::vector<PhaseError>& errors) {
  nlohmann::json out = nlohmann::json::array();
  for (const PhaseError& e : errors) {
    nlohmann::json q, h;
    for (std::size_t i = 0; i < e.quantiles.size(); ++i) {
      char key[16];
      std::snprintf(key, sizeof key, "p%02.0f", 100 * kErrorQuantiles[i]);
      q[key] = e.quantiles[i];
    }
    for (std::size_t i = 0; i < e.histogram.size(); ++i) {
      char key[24];
      if (i < std::size(kErrorBins)) std::snprintf(key, sizeof key, "<=%g%%", 100 * kErrorBins[i]);
      else std::snprintf(key, sizeof key, ">%g%%", 100 * kErrorBins[std::size(kErrorBins) - 1]);
      h.push_back({{"bin", key}, {"samples", e.histogram[i]}});
    }
    out.push_back({{"job", e.job},
                   {"phase", to_string(e.phase)},
                   {"samples", e.samples},
                   {"measured_median_seconds", e.measured_median},
                   {"predicted_median_seconds", e.predicted_median},
                   {"median_error", e.median_error},
                   {"median_abs_error", e.median_abs},
                   {"p90_abs_error", e.p90_abs},
                   {"signed_error_quantiles", q},
                   {"abs_error_histogram", h},
                   {"extrapolated", e.extrapolated}});
  }
  return out;
}

int run_from_run(const CalibrateArgs& a) {
  const RunMeasurements run = load_run_measurements(a.from_run);
  const CpuTwin twin = fit_cpu_twin(run);
  std::printf("# traintwin calibrate --from-run: %zu phase samples of %zu launches from %s\n", run.samples.size(),
              run.launches.size(), run.file.c_str());
  std::printf("# phase       shapes samples  fit (per-shape medians, least squares on relative error)\n");
  for (RunPhase p : kFittedPhases) {
    const PhaseModel& m = twin.model(p);
    std::printf("  %-10s %7zu %7d  %s\n", to_string(p), m.shapes.size(), m.samples,
                m.shapes.empty() ? "not measured (no sample)"
                                 : (term_text(m) + "; mean / median " + format_ratio(m.mean_over_median)).c_str());
  }
  std::printf("  %-10s %7s %7s  max(pace, compute + allreduce + update)\n", "iteration", "-", "-");
  const auto fit = prediction_errors(twin, run);
  std::printf("# error = (predicted - measured) / measured per sample; \"of median\": predicted median / measured "
              "median - 1\n# in sample: the twin against the run it was fitted to (the machine's own spread)\n%s",
              error_rows(fit).c_str());
  nlohmann::json calibration = {{"run", run.file}, {"fit", errors_json(fit)}};
  if (!a.check.empty()) {
    const RunMeasurements other = load_run_measurements(a.check);
    const auto check = prediction_errors(twin, other);
    std::printf("# prediction of %s (not used in the fit)\n%s", other.file.c_str(), error_rows(check).c_str());
    calibration["check"] = {{"run", other.file}, {"errors", errors_json(check)}};
  }
  if (!a.out.empty()) {
    const nlohmann::json doc = {{"cpu_twin", twin_json(twin)}, {"calibration", calibration}};
    std::ofstream out(a.out);
    if (!out) throw InputError(a.out, "", "a file that can be written (--out)");
    out << doc.dump(2) << "\n";
    std::printf("# wrote %s\n", a.out.c_str());
  }
  return 0;
}

// --- calibrate --predicted P --measured B ---------------------------------------------------------------------------
std::string report_file(const std::string& path) {
  namespace fs = std::filesystem;
  return fs::is_directory(path) ? (fs::path(path) / "report.json").string() : path;
}

int run_compare(const CalibrateArgs& a) {
  const std::string pf = report_file(a.predicted), mf = report_file(a.measured);
  const RunComparison c = compare_runs(load_json_file(pf), pf, load_json_file(mf), mf);
  std::printf("# predicted %s against measured %s (scenario seconds; error = predicted / measured - 1)\n", pf.c_str(),
              mf.c_str());
  std::printf("# job                state (measured/predicted)  figure              measured   predicted     error\n");
  auto num = [](const std::optional<double>& v) {
    char b[32];
    if (v) std::snprintf(b, sizeof b, "%10.4g", *v);
    else std::snprintf(b, sizeof b, "%10s", "-");
    return std::string(b);
  };
  nlohmann::json jobs = nlohmann::json::array();
  for (const JobComparison& j : c.jobs) {
    nlohmann::json figures;
    for (std::size_t f = 0; f < j.figures.size(); ++f) {
      const FigurePair& fp = j.figures[f];
      const auto e = fp.error();
      char err[32];
      if (e) std::snprintf(err, sizeof err, "%8.1f%%", 100 * *e);
      else std::snprintf(err, sizeof err, "%9s", "-");
      std::printf("  %-18s %-27s %-16s %s  %s  %s\n", j.job.c_str(),
                  (j.measured_state + "/" + j.predicted_state).c_str(), to_string(kRunFigures[f]),
                  num(fp.measured).c_str(), num(fp.predicted).c_str(), err);
      auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
      figures[to_string(kRunFigures[f])] = {
          {"measured_s", opt(fp.measured)}, {"predicted_s", opt(fp.predicted)}, {"error", opt(e)}};
    }
    jobs.push_back({{"job", j.job},
                    {"measured_state", j.measured_state},
                    {"predicted_state", j.predicted_state},
                    {"figures", figures}});
  }
  std::printf("# over the jobs: median and worst |error|\n");
  nlohmann::json summary;
  for (const FigureSummary& s : c.summary) {
    if (s.jobs == 0) continue;
    std::printf("  %-16s %3d jobs  median %6.1f%%  worst %6.1f%% (%s)\n", to_string(s.figure), s.jobs,
                100 * s.median_abs, 100 * s.worst_abs, s.worst_job.c_str());
    summary[to_string(s.figure)] = {
        {"jobs", s.jobs}, {"median_abs_error", s.median_abs}, {"worst_abs_error", s.worst_abs}, {"worst_job", s.worst_job}};
  }
  if (!a.out.empty()) {
    std::ofstream out(a.out);
    if (!out) throw InputError(a.out, "", "a file that can be written (--out)");
    out << nlohmann::json{{"predicted", pf}, {"measured", mf}, {"jobs", jobs}, {"summary", summary}}.dump(2) << "\n";
    std::printf("# wrote %s\n", a.out.c_str());
  }
  return 0;
}

nlohmann::json band_json(const BandError& e) {
  return {{"points", e.points},
          {"mape_uncalibrated", e.uncalibrated},
          {"mape_fitted", e.fitted},
          {"mape_held_out", e.held_out},
          {"worst_held_out", e.worst},
          {"worst_size", e.worst_size.value}};
}

int run(const CalibrateArgs& a) {
  if (!a.from_run.empty()) return run_from_run(a);
  if (!a.predicted.empty()) return run_compare(a);
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
  std::printf("# algorithm    protocol nodes band          points  latency_factor  bandwidth_factor\n");
  // The written model is the base's with the fitted corrections in place of its own (with_base): corrections the
  // measurements say nothing about are kept (0 points), so that a scenario reading the file plans them as the base did.
  const std::vector<RegimeOverride> model = with_base(fits, comm_constants(topo.gpu(), base));
  nlohmann::json regimes = nlohmann::json::array();
  for (std::size_t i = 0; i < model.size(); ++i) {
    const RegimeOverride& r = model[i];
    int n = 0;
    for (const auto& p : points)
      n += p.algorithm == r.algorithm && p.protocol == r.protocol && p.node_class == r.node_class && p.band == r.band;
    if (i < fits.size())
      std::printf("  %-12s %-8s %5d %-13s %6d  %14.4f  %16.4f\n", to_string(r.algorithm), to_string(r.protocol),
                  r.node_class + 1, to_string(r.band), n, r.factors.latency, r.factors.bandwidth);
    regimes.push_back({{"algorithm", to_string(r.algorithm)},
                       {"protocol", to_string(r.protocol)},
                       {"nodes", r.node_class + 1},
                       {"band", to_string(r.band)},
                       {"latency_factor", r.factors.latency},
                       {"bandwidth_factor", r.factors.bandwidth},
                       {"points", n}});
  }
  const int kept = static_cast<int>(model.size() - fits.size());
  if (const auto moved = choices_moved_by_fit(topo, ms, base, points, fits); !moved.empty()) {
    std::printf("# planned under the fit, %zu of %zu sizes take another option:", moved.size(), points.size());
    for (std::size_t i : moved) std::printf(" %.0f B", points[i].m.size.value);
    std::printf(" (their fitted errors are those of the defaults' option)\n");
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
    // Fitted to the options the fastest-option rule picks: a scenario using them must pick the same way.
    if (base.selection == Selection::Fastest) doc["comm"]["selection"] = "fastest";
    std::ofstream out(a.out);
    if (!out) throw InputError(a.out, "", "a file that can be written (--out)");
    out << doc.dump(2) << "\n";
    std::printf("# wrote %s: its \"comm\" object is a scenario's comm section (regimes: the %zu above, %d kept from "
                "%s)\n",
                a.out.c_str(), fits.size(), kept, a.comm.empty() ? "the defaults" : a.comm.c_str());
  }
  return 0;
}

}  // namespace

Registered add_calibrate(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* sub = app.add_subcommand("calibrate",
                                 "Fit the communication model to nccl-tests logs (text or -J JSON), NCCL tuner "
                                 "measurement CSVs or published busbw tables; print the error table per size band");
  auto* logs = sub->add_option("logs", a->logs, "measurement files");
  auto* topology = sub->add_option("--topology", a->topology, "topology JSON the measurements were taken on (with logs)");
  auto* comm = sub->add_option("--comm", a->comm,
                  "a file whose \"comm\" section (a calibrate --out file, a scenario) stands for the defaults in the "
                  "\"uncalibrated\" column: how an earlier calibration predicts these measurements");
  sub->add_option("--out", a->out,
                  "write the fit as JSON: {\"comm\": {\"regimes\": [...]}, \"calibration\": {...}} (with --from-run: "
                  "{\"cpu_twin\": {...}, \"calibration\": {...}})");
  auto* from_run = sub->add_option("--from-run", a->from_run,
                  "fit the CPU twin of this machine (compute, Gloo all-reduce, update, checkpoint write) to a real run: "
                  "the --out DIR of traintwin real, its DIR/run, or a measurements.jsonl");
  sub->add_option("--check", a->check,
                  "with --from-run: another real run the fitted twin predicts; per job and phase, the error's median, "
                  "p90, quantiles and histogram")
      ->needs(from_run);
  from_run->excludes(logs)->excludes(topology)->excludes(comm);
  auto* predicted = sub->add_option("--predicted", a->predicted,
                                    "a run the CPU twin predicted (traintwin real --twin A --out P): P or its "
                                    "report.json; with --measured, per job wait, run time, mean iteration, checkpoint write and "
                                    "end, measured against predicted");
  auto* measured = sub->add_option("--measured", a->measured,
                                   "the real run of the same scenario (traintwin real --out B): B or its report.json");
  predicted->needs(measured)->excludes(logs)->excludes(topology)->excludes(comm)->excludes(from_run);
  measured->needs(predicted);
  sub->callback([a] {  // during parsing, so that a missing input exits 2 with CLI11's message
    if (a->from_run.empty() && a->predicted.empty() && (a->logs.empty() || a->topology.empty()))
      throw CLI::RequiredError(
          "calibrate: measurement files and --topology, --from-run RUN_DIR, or --predicted P --measured B,");
  });
  return {sub, [a] { return run(*a); }};
}

}  // namespace tt::cli
