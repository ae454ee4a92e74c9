// bench_regress: the guard against performance regressions that nobody notices. Runs every benchmark at a small size
// (seconds in all), reads the deterministic work counters each prints with --json (scheduler decisions and passes,
// registry updates, SimGrid activities, controller events, ...) and compares them with the baselines committed in
// bench/baselines.json: a counter more than `tolerance` (20%) above its baseline fails (exit 1), one as far below it
// asks for the baseline to be lowered (a note, not a failure). Wall time is printed as a ratio to the baseline's and
// never fails: CI machines are shared and noisy, counters are not.
//
//   bench_regress [--baselines FILE] [--only NAME] [--inject NAME/COUNTER=FACTOR]... [--update]
//
// --update rewrites the baselines from this run (the deliberate, reviewed way to accept more work: `make
// regress-baseline`, then read `git diff bench/baselines.json`). --inject multiplies a measured counter, so that a test
// can prove the guard fails on a 2x slowdown without slowing anything down. Exit 0 within bounds, 1 on a regression, 2
// on a bad baseline file or a benchmark that fails or prints no JSON.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

using Json = nlohmann::json;

namespace {

std::string self_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<std::size_t>(n));
  return path.substr(0, path.rfind('/'));
}

// Runs the command (argv[0] is a benchmark next to this executable), returns its standard output.
std::string run(const std::vector<std::string>& argv, double& wall) {
  std::string cmd = self_dir() + "/" + argv.at(0);
  for (std::size_t i = 1; i < argv.size(); ++i) cmd += " '" + argv[i] + "'";
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot start " + cmd);
  std::string out;
  char buf[65536];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = pclose(p);
  wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rc != 0) throw std::runtime_error(cmd + " exited with status " + std::to_string(rc));
  return out;
}

double at(const Json& doc, const std::string& pointer, const std::string& bench) {
  const Json::json_pointer p(pointer);
  if (!doc.contains(p) || !doc.at(p).is_number())
    throw std::runtime_error(bench + ": the benchmark's JSON has no number at " + pointer);
  return doc.at(p).get<double>();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_regress: benchmarks at a small size, work counters against committed baselines"};
  std::string file = std::string(TT_SOURCE_DIR) + "/bench/baselines.json";
  std::string only;
  std::vector<std::string> injects;
  bool update = false;
  app.add_option("--baselines", file, "baseline file (default: the source tree's bench/baselines.json)");
  app.add_option("--only", only, "run one benchmark of the file");
  app.add_option("--inject", injects, "NAME/COUNTER=FACTOR: multiply a measured counter (to test the guard)");
  app.add_flag("--update", update, "rewrite the baselines from this run");
  CLI11_PARSE(app, argc, argv);

  Json doc;
  try {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot open");
    doc = Json::parse(in);
    if (!doc.contains("tolerance") || !doc["tolerance"].is_number() || !doc.contains("benches") ||
        !doc["benches"].is_array())
      throw std::runtime_error("expected an object with a number /tolerance and an array /benches");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_regress: %s: %s\n", file.c_str(), e.what());
    return 2;
  }
  std::map<std::string, double> factor;  // "name/counter" -> multiplier
  for (const std::string& s : injects) {
    const auto eq = s.find('=');
    try {
      if (eq == std::string::npos) throw std::invalid_argument(s);
      factor[s.substr(0, eq)] = std::stod(s.substr(eq + 1));
    } catch (const std::exception&) {
      std::fprintf(stderr, "bench_regress: --inject %s: expected NAME/COUNTER=FACTOR\n", s.c_str());
      return 2;
    }
  }
  const double tolerance = doc["tolerance"].get<double>();
  int regressions = 0, ran = 0;
  for (Json& b : doc["benches"]) {
    const std::string name = b.value("name", "");
    if (!only.empty() && name != only) continue;
    ++ran;
    double wall = 0;
    Json out;
    try {
      out = Json::parse(run(b.at("command").get<std::vector<std::string>>(), wall));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_regress: %s: %s\n", name.c_str(), e.what());
      return 2;
    }
    const double base_wall = b.value("wall_s", 0.0);
    std::printf("%-10s wall %7.2f s (baseline %.2f s: x%.2f, informative only)\n", name.c_str(), wall, base_wall,
                base_wall > 0 ? wall / base_wall : 0.0);
    if (update) b["wall_s"] = wall;
    for (auto& [pointer, baseline] : b.at("counters").items()) {
      const std::string counter = pointer.substr(pointer.rfind('/') + 1);
      double v;
      try {
        v = at(out, pointer, name);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_regress: %s\n", e.what());
        return 2;
      }
      if (auto it = factor.find(name + "/" + counter); it != factor.end()) v *= it->second;
      if (update) {
        baseline = v;
        std::printf("  %-40s %14.0f (new baseline)\n", pointer.c_str(), v);
        continue;
      }
      const double base = baseline.get<double>();
      const double ratio = base > 0 ? v / base : (v > 0 ? 1e9 : 1.0);
      const bool worse = ratio > 1 + tolerance, better = ratio < 1 - tolerance;
      regressions += worse;
      std::printf("  %-40s %14.0f baseline %14.0f  x%.3f%s\n", pointer.c_str(), v, base, ratio,
                  worse    ? "  REGRESSION: more work than the baseline allows"
                  : better ? "  (less work: lower the baseline with make regress-baseline)"
                           : "");
      if (worse) std::printf("REGRESSION %s %s x%.3f\n", name.c_str(), counter.c_str(), ratio);
    }
  }
  if (ran == 0) {
    std::fprintf(stderr, "bench_regress: no benchmark named %s in %s\n", only.c_str(), file.c_str());
    return 2;
  }
  if (update) {
    std::ofstream(file) << doc.dump(2) << "\n";
    std::printf("baselines written to %s\n", file.c_str());
    return 0;
  }
  std::printf("%d counter(s) more than %.0f%% above their baseline\n", regressions, tolerance * 100);
  return regressions > 0 ? 1 : 0;
}
